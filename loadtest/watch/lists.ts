/**
 * Section 2: LIST of N ConfigMaps and of N Pods (created first at
 * concurrency 64 through uWS), JSON and Protobuf, the whole collection in
 * one response or in pages of `limit`, consistent (no resourceVersion) or
 * from the cache (resourceVersion=0): time to the last byte (median of the
 * repetitions), bytes, and the server's CPU seconds per LIST.
 */
import type { ServerHandle } from '../api/server.ts';
import { processCpuSeconds, processRss } from '../lib/memory.ts';
import { median } from '../lib/stats.ts';
import { fillConcurrently, Http, JSON_TYPE, nowMs, PROTOBUF_TYPE, Tally } from './http.ts';
import { OutsideLoad } from './quiet.ts';
import type { WatchSettings } from './settings.ts';

export type Kind = 'configmaps' | 'pods';
export type Encoding = 'json' | 'protobuf';
export type ListMode = 'full' | 'full-rv0' | 'paged' | 'paged-rv0';

export const LIST_MODES: readonly ListMode[] = ['full', 'full-rv0', 'paged', 'paged-rv0'];
export const MODE_LABEL: Record<ListMode, string> = {
  full: 'full, consistent',
  'full-rv0': 'full, from the cache (rv=0)',
  paged: 'limit=PAGE pages, consistent',
  'paged-rv0': 'limit=PAGE pages, first from the cache (rv=0)',
};

const NS = 'default';
const PATHS: Record<Kind, string> = { configmaps: `/api/v1/namespaces/${NS}/configmaps`, pods: `/api/v1/namespaces/${NS}/pods` };
const NAME_PREFIX: Record<Kind, string> = { configmaps: 'lcm-', pods: 'lpod-' };

export interface FillResult {
  readonly kind: Kind;
  readonly created: number;
  readonly seconds: number;
  readonly errors: Tally;
}

export interface ListRow {
  readonly kind: Kind;
  readonly encoding: Encoding;
  readonly mode: ListMode;
  readonly ms: number;
  readonly minMs: number;
  readonly maxMs: number;
  readonly bytes: number;
  readonly pages: number;
  readonly items: number;
  readonly cpuSeconds: number;
  /** CPU seconds the benchmark process (the client) spent receiving, per LIST (median). */
  readonly clientCpu: number;
  /** Cores used by other processes on the machine during the repetitions. */
  readonly otherCores: number;
  readonly errors: Tally;
}

function name(kind: Kind, i: number): string {
  return `${NAME_PREFIX[kind]}${String(i).padStart(6, '0')}`;
}

function body(kind: Kind, i: number, fill: string): Buffer {
  const n = name(kind, i);
  if (kind === 'configmaps') return Buffer.from(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${n}"},"data":{"fill":"${fill}"}}`);
  return Buffer.from(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${n}","labels":{"app":"bench"}},"spec":{"containers":[{"name":"app","image":"registry.example/bench:1.0"}]}}`);
}

export async function fillObjects(http: Http, kind: Kind, n: number, s: WatchSettings, deadline: number): Promise<FillResult> {
  const errors = new Tally();
  const ns = await http.request('POST', '/api/v1/namespaces', { body: Buffer.from(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"${BUMP_NS}"}}`) });
  if (ns.status !== 201 && ns.status !== 409) errors.add(`HTTP ${ns.status}`, `create namespace ${BUMP_NS}: ${ns.status}`);
  const fill = 'x'.repeat(s.valueBytes);
  let created = 0;
  const { seconds } = await fillConcurrently(n, s.fillConcurrency, async (i) => {
    if (nowMs() > deadline) {
      errors.add('skipped (time budget)', `${kind} ${i} not created: time budget spent`);
      return;
    }
    try {
      const r = await http.request('POST', PATHS[kind], { body: body(kind, i, fill) });
      if (r.status === 201) created++;
      else errors.add(`HTTP ${r.status}`, `create ${name(kind, i)}: ${r.status} ${r.body?.toString('utf8').slice(0, 200) ?? ''}`);
    } catch (err) {
      errors.add('transport error', `create ${name(kind, i)}: ${err instanceof Error ? err.message : String(err)}`);
    }
  });
  return { kind, created, seconds, errors };
}

/** Occurrences of `needle` in `hay`. */
function countOf(hay: Buffer, needle: Buffer): number {
  let n = 0;
  for (let at = hay.indexOf(needle); at >= 0; at = hay.indexOf(needle, at + needle.length)) n++;
  return n;
}

function varint(buf: Buffer, pos: number): [number, number] {
  let v = 0;
  let mul = 1;
  for (;;) {
    const b = buf[pos++]!;
    v += (b & 0x7f) * mul;
    if ((b & 0x80) === 0) return [v, pos];
    mul *= 128;
    if (pos > buf.length) throw new Error('truncated varint');
  }
}

/** Calls fn(field, start, end) for each length-delimited field of the message in buf[start, end); skips the others. */
function fields(buf: Buffer, start: number, end: number, fn: (field: number, s: number, e: number) => void): void {
  let pos = start;
  while (pos < end) {
    let tag: number;
    [tag, pos] = varint(buf, pos);
    const field = Math.floor(tag / 8);
    const wire = tag & 7;
    if (wire === 0) [, pos] = varint(buf, pos);
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      let len: number;
      [len, pos] = varint(buf, pos);
      fn(field, pos, pos + len);
      pos += len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

/**
 * Items and the continue token of a Protobuf list: the envelope is "k8s\0"
 * then runtime.Unknown (2: raw); raw is the XList (1: ListMeta, 2: items),
 * ListMeta has 3: continue.
 */
export function parseProtobufList(buf: Buffer): { items: number; cont: string } {
  if (buf.subarray(0, 4).toString('latin1') !== 'k8s\0') throw new Error(`not a Protobuf envelope: ${buf.subarray(0, 16).toString('hex')}`);
  let items = 0;
  let cont = '';
  fields(buf, 4, buf.length, (f, s, e) => {
    if (f !== 2) return;
    fields(buf, s, e, (lf, ls, le) => {
      if (lf === 2) items++;
      else if (lf === 1)
        fields(buf, ls, le, (mf, ms, me) => {
          if (mf === 3) cont = buf.subarray(ms, me).toString('utf8');
        });
    });
  });
  return { items, cont };
}

function parseJsonList(buf: Buffer, kind: Kind): { items: number; cont: string } {
  const head = buf.subarray(0, 4096).toString('utf8');
  const m = /"continue":"([^"]*)"/.exec(head.slice(0, head.indexOf('"items"') >= 0 ? head.indexOf('"items"') : head.length));
  return { items: countOf(buf, Buffer.from(`"name":"${NAME_PREFIX[kind]}`)), cont: m ? m[1]! : '' };
}

/** One LIST (all pages for the paged modes). */
async function listOnce(http: Http, kind: Kind, enc: Encoding, mode: ListMode, page: number, errors: Tally): Promise<{ ms: number; bytes: number; pages: number; items: number; clientCpu: number }> {
  const accept = enc === 'json' ? JSON_TYPE : PROTOBUF_TYPE;
  const paged = mode === 'paged' || mode === 'paged-rv0';
  const rv0 = mode === 'full-rv0' || mode === 'paged-rv0';
  let cont = '';
  let pages = 0;
  let bytes = 0;
  let items = 0;
  let clientCpu = 0;
  // Time to the last byte of each page, summed: the client's own counting of
  // items afterwards is not the server's time.
  let ms = 0;
  for (let guard = 0; guard < 100_000; guard++) {
    const q: string[] = [];
    if (paged) q.push(`limit=${page}`);
    if (cont !== '') q.push(`continue=${encodeURIComponent(cont)}`);
    else if (rv0) q.push('resourceVersion=0');
    const path = `${PATHS[kind]}${q.length > 0 ? `?${q.join('&')}` : ''}`;
    const r = await http.request('GET', path, { accept, keepBody: true });
    pages++;
    ms += r.ms;
    bytes += r.bytes;
    clientCpu += r.clientCpu;
    if (r.status !== 200) {
      errors.add(`HTTP ${r.status}`, `GET ${path}: ${r.status} ${r.body?.toString('utf8').slice(0, 200) ?? ''}`);
      break;
    }
    const parsed = enc === 'json' ? parseJsonList(r.body!, kind) : parseProtobufList(r.body!);
    items += parsed.items;
    cont = parsed.cont;
    if (!paged || cont === '') break;
  }
  return { ms, bytes, pages, items, clientCpu };
}

/** The namespace bumpRevision writes to; created by fillObjects. */
const BUMP_NS = 'bench-bump';
let bumps = 0;

async function bumpRevision(http: Http, kind: Kind, errors: Tally): Promise<void> {
  const path = kind === 'configmaps' ? `/api/v1/namespaces/${BUMP_NS}/configmaps` : `/api/v1/namespaces/${BUMP_NS}/pods`;
  const name = `bump-${++bumps}`;
  const body =
    kind === 'configmaps'
      ? `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"${name}"}}`
      : `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"${name}"},"spec":{"containers":[{"name":"app","image":"registry.example/bench:1.0"}]}}`;
  const r = await http.request('POST', path, { body: Buffer.from(body) });
  if (r.status !== 201) errors.add(`bump HTTP ${r.status}`, `POST ${path}: ${r.status} ${r.body?.toString('utf8').slice(0, 200) ?? ''}`);
}

export async function measureList(http: Http, server: ServerHandle, kind: Kind, enc: Encoding, mode: ListMode, s: WatchSettings, quiet: OutsideLoad): Promise<ListRow> {
  const errors = new Tally();
  const load0 = quiet.snapshot();
  const runs: Array<{ ms: number; bytes: number; pages: number; items: number; cpu: number; clientCpu: number }> = [];
  for (let i = 0; i < s.listReps; i++) {
    // A change to the collection's type first (outside the listed namespace):
    // every measured LIST is then built anew at a new revision, never served
    // from the shard's shared answers of an earlier repetition.
    await bumpRevision(http, kind, errors);
    const c0 = processCpuSeconds(server.pid) ?? Number.NaN;
    try {
      const r = await listOnce(http, kind, enc, mode, s.pageLimit, errors);
      runs.push({ ...r, cpu: (processCpuSeconds(server.pid) ?? Number.NaN) - c0 });
    } catch (err) {
      errors.add('transport error', `LIST ${kind} ${enc} ${mode}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  const otherCores = OutsideLoad.otherCores(load0, quiet.snapshot());
  const ms = runs.map((r) => r.ms);
  const mid = runs.length > 0 ? [...runs].sort((a, b) => a.ms - b.ms)[(runs.length - 1) >> 1]! : { ms: Number.NaN, bytes: 0, pages: 0, items: 0, cpu: Number.NaN, clientCpu: Number.NaN };
  return {
    kind,
    encoding: enc,
    mode,
    ms: median(ms),
    minMs: Math.min(...ms),
    maxMs: Math.max(...ms),
    bytes: mid.bytes,
    pages: mid.pages,
    items: mid.items,
    cpuSeconds: median(runs.map((r) => r.cpu)),
    clientCpu: median(runs.map((r) => r.clientCpu)),
    otherCores,
    errors,
  };
}

export function serverRss(server: ServerHandle): number {
  return processRss(server.pid) ?? Number.NaN;
}
