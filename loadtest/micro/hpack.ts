/**
 * Micro-benchmark: HPACK cost per request of our HTTP/2 front end. Decoding a
 * typical client request block, encoded as nghttp2 (h2load, curl, node)
 * encodes it: Huffman strings, incremental indexing, `:path` never added to
 * the table and `authorization` sent never-indexed, so both are
 * Huffman-decoded on every request; and as Go's client encodes a repeat
 * request, every field indexed. Encoding a typical API response, into a
 * caller's buffer (as the connection does) and into a fresh Buffer. Best of
 * many short batches after warm-up.
 *
 *   node --import tsx loadtest/micro/hpack.ts
 */
import { HpackDecoder, HpackEncoder, type EncodedField } from '../../src/frontends/h2/hpack.ts';
import { huffmanEncode, huffmanEncodedLength } from '../../src/frontends/h2/huffman.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';

const PATH = '/api/v1/namespaces/default/configmaps/x';
const AUTHORITY = '127.0.0.1:6443';
const AUTHORIZATION = 'Bearer 0123456789abcdefghijABCDEFGHIJ0123456789';
const ACCEPT = 'application/json';
const USER_AGENT = 'kubectl/v1.31.0 (linux/amd64) kubernetes/9edcffc';

/** Static-table indices (RFC 7541 Appendix A) of the names used here. */
const NAME = { authority: 1, path: 4, accept: 19, authorization: 23, userAgent: 58 } as const;

/** An integer with a `mask`-bit prefix and `flags` in the first octet (§5.1). */
function integer(flags: number, mask: number, value: number): number[] {
  if (value < mask) return [flags | value];
  const out = [flags | mask];
  for (value -= mask; value >= 0x80; value >>>= 7) out.push((value & 0x7f) | 0x80);
  out.push(value);
  return out;
}

/** A Huffman-coded string literal (§5.2). */
function huffmanString(value: string): number[] {
  const coded = new Uint8Array(huffmanEncodedLength(value));
  huffmanEncode(value, coded, 0);
  return [...integer(0x80, 0x7f, coded.length), ...coded];
}

const incremental = (nameIndex: number, value: string): number[] => [...integer(0x40, 0x3f, nameIndex), ...huffmanString(value)];
const withoutIndexing = (nameIndex: number, value: string): number[] => [...integer(0x00, 0x0f, nameIndex), ...huffmanString(value)];
const neverIndexed = (nameIndex: number, value: string): number[] => [...integer(0x10, 0x0f, nameIndex), ...huffmanString(value)];
const indexed = (index: number): number[] => integer(0x80, 0x7f, index);

// First request: the table fills with :authority, accept, user-agent (newest last: 64, 63, 62).
const firstRequest = Buffer.from([
  ...indexed(2), ...withoutIndexing(NAME.path, PATH), ...indexed(7), ...incremental(NAME.authority, AUTHORITY),
  ...neverIndexed(NAME.authorization, AUTHORIZATION), ...incremental(NAME.accept, ACCEPT), ...incremental(NAME.userAgent, USER_AGENT),
]);
// Later requests from nghttp2: :path and authorization stay literals.
const nghttp2Repeat = Buffer.from([
  ...indexed(2), ...withoutIndexing(NAME.path, PATH), ...indexed(7), ...indexed(64),
  ...neverIndexed(NAME.authorization, AUTHORIZATION), ...indexed(63), ...indexed(62),
]);
// Go's encoder indexes everything that fits; a repeat of the same request is all one-octet references.
const goFirstRequest = Buffer.from([
  ...indexed(2), ...incremental(NAME.path, PATH), ...indexed(7), ...incremental(NAME.authority, AUTHORITY),
  ...incremental(NAME.authorization, AUTHORIZATION), ...incremental(NAME.accept, ACCEPT), ...incremental(NAME.userAgent, USER_AGENT),
]);
const goRepeat = Buffer.from([...indexed(2), ...indexed(66), ...indexed(7), ...indexed(65), ...indexed(64), ...indexed(63), ...indexed(62)]);

/** Responses as an API server sends them: content-length and audit-id change every time, the rest repeats. */
const responses: EncodedField[][] = Array.from({ length: 64 }, (_, i) => [
  { name: ':status', value: '200' },
  { name: 'content-type', value: 'application/json' },
  { name: 'content-length', value: String(1400 + i) },
  { name: 'audit-id', value: `5f1d8e9a-3c2b-4a7e-9d10-6b2f8c4e1a${String(i).padStart(2, '0')}`, sensitive: true },
  { name: 'cache-control', value: 'no-cache, private' },
  { name: 'x-kubernetes-pf-flowschema-uid', value: '1f3a5c7e-0b2d-4f6a-8c9e-1a3b5c7d9e0f' },
  { name: 'x-kubernetes-pf-prioritylevel-uid', value: '9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b' },
]);
let next = 0;
const nextResponse = (): EncodedField[] => responses[next++ & 63]!;

function bestNs(fn: () => unknown): number {
  for (let i = 0; i < 200_000; i++) fn();
  let best = Infinity;
  for (let round = 0; round < 40; round++) {
    const n = 50_000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - start) / n);
  }
  return best;
}

function primed(first: Buffer): HpackDecoder {
  const decoder = new HpackDecoder({ maxTableSize: 4096, maxHeaderListSize: 1 << 20 });
  decoder.decode(first);
  return decoder;
}

const nghttp2Decoder = primed(firstRequest);
const goDecoder = primed(goFirstRequest);
for (const [name, decoder, block] of [['nghttp2', nghttp2Decoder, nghttp2Repeat], ['go', goDecoder, goRepeat]] as const) {
  const fields = decoder.decode(block).fields;
  if (fields[3] !== PATH || fields[9] !== AUTHORIZATION || fields[13] !== USER_AGENT) throw new Error(`${name}: bad decode ${fields.join(' ')}`);
}

const encoder = new HpackEncoder();
const out = Buffer.allocUnsafe(4096);
const rows: [string, number, number][] = [
  ['decode first request (nghttp2 style, all literals)', bestNs(() => primed(firstRequest)), firstRequest.length],
  ['decode repeat request (nghttp2: :path, authorization literal)', bestNs(() => nghttp2Decoder.decode(nghttp2Repeat)), nghttp2Repeat.length],
  ['decode repeat request (Go: all indexed)', bestNs(() => goDecoder.decode(goRepeat)), goRepeat.length],
  ['encode response into a caller buffer', bestNs(() => encoder.encodeInto(nextResponse(), out, 0)), encoder.encodeInto(responses[0]!, out, 0)],
  ['encode response into a new Buffer', bestNs(() => encoder.encode(nextResponse())), encoder.encode(responses[0]!).length],
];

console.log(describeMachine(machineInfo()));
for (const [name, ns, octets] of rows) console.log(`${name.padEnd(64)} ${ns.toFixed(0).padStart(6)} ns/block  ${octets} octets`);
