import assert from 'node:assert/strict';
import http2 from 'node:http2';
import net from 'node:net';
import { describe, it } from 'node:test';
import {
  HUFFMAN_CODES,
  HUFFMAN_LENGTHS,
  huffmanDecode,
  huffmanEncode,
  huffmanEncodedLength,
} from '../../../src/frontends/h2/huffman.ts';
import {
  HpackDecoder,
  HpackEncoder,
  HpackError,
  maxEncodedLength,
  staticFieldIndex,
  staticNameIndex,
  type EncodedField,
} from '../../../src/frontends/h2/hpack.ts';

const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const decoder = (maxTableSize = 4096, maxHeaderListSize = 65536): HpackDecoder =>
  new HpackDecoder({ maxTableSize, maxHeaderListSize });
const pairs = (...fields: [string, string][]): string[] => fields.flat();

function huffman(text: string): Buffer {
  const out = Buffer.alloc(huffmanEncodedLength(text));
  assert.equal(huffmanEncode(text, out, 0), out.length);
  return out;
}

describe('HPACK Huffman code', () => {
  it('has the codes of RFC 7541 Appendix B', () => {
    const appendix: [number, number, number][] = [
      [0, 0x1ff8, 13], [10, 0x3ffffffc, 30], [32, 0x14, 6], [48, 0x0, 5], [97, 0x3, 5], [122, 0x7b, 7],
      [127, 0xffffffc, 28], [128, 0xfffe6, 20], [200, 0x3ffffe2, 26], [255, 0x3ffffee, 26], [256, 0x3fffffff, 30],
    ];
    for (const [symbol, code, length] of appendix) {
      assert.equal(HUFFMAN_CODES[symbol], code, `code of ${symbol}`);
      assert.equal(HUFFMAN_LENGTHS[symbol], length, `length of ${symbol}`);
    }
  });

  it('round-trips every octet alone and all of them together', () => {
    for (let octet = 0; octet < 256; octet++) {
      const text = String.fromCharCode(octet);
      const coded = huffman(text);
      assert.equal(huffmanDecode(coded, 0, coded.length), text, `octet ${octet}`);
    }
    let all = '';
    for (let octet = 0; octet < 256; octet++) all += String.fromCharCode(octet, 255 - octet, 97);
    const coded = huffman(all);
    assert.equal(huffmanDecode(coded, 0, coded.length), all);
  });

  it('decodes within a range of a larger buffer, and the empty string', () => {
    const coded = Buffer.concat([Buffer.from([0x00]), hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff'), Buffer.from([0x00])]);
    assert.equal(huffmanDecode(coded, 1, coded.length - 1), 'www.example.com');
    assert.equal(huffmanDecode(coded, 1, 1), '');
  });

  it('rejects EOS, padding over 7 bits and padding that is not all ones', () => {
    assert.throws(() => huffmanDecode(hex('ffffffff'), 0, 4), HpackError); // 30 ones: EOS
    assert.throws(() => huffmanDecode(hex('ff'), 0, 1), HpackError); // 8 bits of padding
    assert.throws(() => huffmanDecode(hex('1fff'), 0, 2), HpackError); // 'a' then 11 bits of padding
    assert.throws(() => huffmanDecode(hex('00'), 0, 1), HpackError); // '0' then padding 000
    assert.throws(() => huffmanDecode(hex('1e'), 0, 1), HpackError); // 'a' then padding 110
    assert.equal(huffmanDecode(hex('1f'), 0, 1), 'a'); // 'a' then padding 111
  });
});

describe('HPACK static table helpers', () => {
  it('finds names and name-value pairs', () => {
    assert.equal(staticNameIndex(':authority'), 1);
    assert.equal(staticNameIndex(':status'), 8);
    assert.equal(staticNameIndex('www-authenticate'), 61);
    assert.equal(staticNameIndex('x-custom'), 0);
    assert.equal(staticFieldIndex(':status', '404'), 13);
    assert.equal(staticFieldIndex(':status', '418'), 0);
  });
});

describe('HpackDecoder: RFC 7541 Appendix C', () => {
  it('C.2.1 literal with indexing', () => {
    const d = decoder();
    const block = d.decode(hex('400a 6375 7374 6f6d 2d6b 6579 0d63 7573 746f 6d2d 6865 6164 6572'));
    assert.deepEqual(block, { fields: pairs(['custom-key', 'custom-header']), oversized: false });
    assert.deepEqual(d.tableEntries(), [['custom-key', 'custom-header']]);
    assert.equal(d.tableSize, 55);
  });

  it('C.2.2 literal without indexing', () => {
    const d = decoder();
    assert.deepEqual(d.decode(hex('040c 2f73 616d 706c 652f 7061 7468')).fields, pairs([':path', '/sample/path']));
    assert.equal(d.tableSize, 0);
  });

  it('C.2.3 literal never indexed', () => {
    const d = decoder();
    assert.deepEqual(d.decode(hex('1008 7061 7373 776f 7264 0673 6563 7265 74')).fields, pairs(['password', 'secret']));
    assert.equal(d.tableSize, 0);
  });

  it('C.2.4 indexed field', () => {
    const d = decoder();
    assert.deepEqual(d.decode(hex('82')).fields, pairs([':method', 'GET']));
    assert.equal(d.tableSize, 0);
  });

  const requests = [
    {
      fields: pairs([':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com']),
      table: [[':authority', 'www.example.com']],
      size: 57,
    },
    {
      fields: pairs([':method', 'GET'], [':scheme', 'http'], [':path', '/'], [':authority', 'www.example.com'], ['cache-control', 'no-cache']),
      table: [['cache-control', 'no-cache'], [':authority', 'www.example.com']],
      size: 110,
    },
    {
      fields: pairs([':method', 'GET'], [':scheme', 'https'], [':path', '/index.html'], [':authority', 'www.example.com'], ['custom-key', 'custom-value']),
      table: [['custom-key', 'custom-value'], ['cache-control', 'no-cache'], [':authority', 'www.example.com']],
      size: 164,
    },
  ];

  function series(d: HpackDecoder, blocks: string[], steps: { fields: string[]; table: string[][]; size: number }[]): void {
    blocks.forEach((block, i) => {
      const decoded = d.decode(hex(block));
      assert.deepEqual(decoded, { fields: steps[i]!.fields, oversized: false }, `block ${i + 1}`);
      assert.deepEqual(d.tableEntries(), steps[i]!.table, `table after block ${i + 1}`);
      assert.equal(d.tableSize, steps[i]!.size, `table size after block ${i + 1}`);
    });
  }

  it('C.3 requests without Huffman, one decoder for all three', () => {
    series(decoder(), [
      '8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d',
      '8286 84be 5808 6e6f 2d63 6163 6865',
      '8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65',
    ], requests);
  });

  it('C.4 requests with Huffman', () => {
    series(decoder(), [
      '8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff',
      '8286 84be 5886 a8eb 1064 9cbf',
      '8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf',
    ], requests);
  });

  const date21 = 'Mon, 21 Oct 2013 20:13:21 GMT';
  const date22 = 'Mon, 21 Oct 2013 20:13:22 GMT';
  const location = 'https://www.example.com';
  const cookie = 'foo=ASDJKHQKBZXOQWEOPIUAXQWEOIU; max-age=3600; version=1';
  const responses = [
    {
      fields: pairs([':status', '302'], ['cache-control', 'private'], ['date', date21], ['location', location]),
      table: [['location', location], ['date', date21], ['cache-control', 'private'], [':status', '302']],
      size: 222,
    },
    {
      fields: pairs([':status', '307'], ['cache-control', 'private'], ['date', date21], ['location', location]),
      table: [[':status', '307'], ['location', location], ['date', date21], ['cache-control', 'private']],
      size: 222,
    },
    {
      fields: pairs([':status', '200'], ['cache-control', 'private'], ['date', date22], ['location', location], ['content-encoding', 'gzip'], ['set-cookie', cookie]),
      table: [['set-cookie', cookie], ['content-encoding', 'gzip'], ['date', date22]],
      size: 215,
    },
  ];

  it('C.5 responses without Huffman, 256-octet table with evictions', () => {
    series(decoder(256), [
      `4803 3330 3258 0770 7269 7661 7465 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133
       2032 303a 3133 3a32 3120 474d 546e 1768 7474 7073 3a2f 2f77 7777 2e65 7861 6d70 6c65 2e63 6f6d`,
      '4803 3330 37c1 c0bf',
      `88c1 611d 4d6f 6e2c 2032 3120 4f63 7420 3230 3133 2032 303a 3133 3a32 3220 474d
       54c0 5a04 677a 6970 7738 666f 6f3d 4153 444a 4b48 514b 425a 584f 5157 454f 5049
       5541 5851 5745 4f49 553b 206d 6178 2d61 6765 3d33 3630 303b 2076 6572 7369 6f6e 3d31`,
    ], responses);
  });

  it('C.6 responses with Huffman, 256-octet table with evictions', () => {
    series(decoder(256), [
      `4882 6402 5885 aec3 771a 4b61 96d0 7abe 9410 54d4 44a8 2005 9504 0b81 66e0 82a6
       2d1b ff6e 919d 29ad 1718 63c7 8f0b 97c8 e9ae 82ae 43d3`,
      '4883 640e ffc1 c0bf',
      `88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
       77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f
       9587 3160 65c0 03ed 4ee5 b106 3d50 07`,
    ], responses);
  });
});

describe('HpackDecoder: dynamic table size updates', () => {
  it('reads the integers of C.1 (5-bit prefix: 10 in one octet, 1337 in three)', () => {
    const d = decoder();
    d.decode(hex('2a'));
    assert.equal(d.tableLimit, 10);
    d.decode(hex('3f9a0a'));
    assert.equal(d.tableLimit, 1337);
    const encoder = new HpackEncoder();
    encoder.peerTableSizeChanged(1337);
    assert.deepEqual([...encoder.encode([])], [0x3f, 0x9a, 0x0a]);
  });

  it('accepts updates at the start of a block, evicting to the new size', () => {
    const d = decoder();
    d.decode(hex('8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d'));
    d.decode(hex('8286 84be 5808 6e6f 2d63 6163 6865'));
    assert.equal(d.tableSize, 110);
    // Two updates (to 0, then to 100) open a block that then indexes a new entry.
    assert.deepEqual(d.decode(hex('20 3f45 4003 6162 6301 78')).fields, pairs(['abc', 'x']));
    assert.equal(d.tableLimit, 100);
    assert.deepEqual(d.tableEntries(), [['abc', 'x']]);
    // An entry larger than the table empties it and is not added.
    d.decode(Buffer.concat([hex('4003 6162 6346'), Buffer.from('x'.repeat(70))]));
    assert.deepEqual(d.tableEntries(), []);
    assert.equal(d.tableSize, 0);
  });

  it('keeps many entries in order as the table grows, and evicts the oldest first', () => {
    const d = decoder();
    const names = Array.from({ length: 40 }, (_, i) => String.fromCharCode(0x41 + i));
    d.decode(Buffer.concat(names.map((n) => Buffer.from([0x40, 1, n.charCodeAt(0), 1, 0x76]))));
    assert.deepEqual(d.tableEntries(), names.map((n) => [n, 'v']).reverse());
    assert.equal(d.tableSize, 40 * 34);
    assert.deepEqual(d.decode(hex('be')).fields, pairs([names[39]!, 'v'])); // 62: newest
    assert.deepEqual(d.decode(hex('e5')).fields, pairs([names[0]!, 'v'])); // 101: oldest
    d.decode(hex('3f b502')); // size update to 340: the 10 newest stay
    assert.deepEqual(d.tableEntries(), names.slice(30).map((n) => [n, 'v']).reverse());
    assert.throws(() => d.decode(hex('c8')), HpackError); // 72: gone
  });

  it('inserts an entry whose name refers to the entry its insertion evicts', () => {
    const d = decoder(64);
    d.decode(hex('4001 6101 62'));
    assert.deepEqual(d.decode(hex('7e01 63')).fields, pairs(['a', 'c']));
    assert.deepEqual(d.tableEntries(), [['a', 'c']]);
    assert.equal(d.tableSize, 34);
  });

  it('rejects an update above our SETTINGS_HEADER_TABLE_SIZE', () => {
    assert.throws(() => decoder().decode(hex('3fe2 1f')), HpackError); // 4097
    assert.equal(decoder().decode(hex('3fe1 1f')).fields.length, 0); // 4096
  });

  it('rejects an update after a field', () => {
    assert.throws(() => decoder().decode(hex('8220')), /start of the block/);
  });
});

describe('HpackDecoder: malformed blocks', () => {
  const cases: [string, string][] = [
    ['index 0', '80'],
    ['index past the static table, dynamic table empty', 'be'],
    ['literal name index past the tables', '7e 0178'],
    ['never-indexed name index past the tables', '1f2f 0178'],
    ['integer above 2^28', 'ff ffffffff7f'],
    ['integer with six continuation octets', 'ff 808080808000'],
    ['string length past the block end', '40 0561'],
    ['Huffman string length past the block end', '40 8561'],
    ['block truncated inside an integer', 'ff'],
    ['block truncated inside a continued integer', 'ff80'],
    ['block truncated before a name', '40'],
    ['block truncated before a value', '44'],
    ['block truncated before a never-indexed value', '14'],
    ['Huffman name with 8 bits of padding', '40 81ff 00'],
    ['Huffman value holding EOS', '44 84ffffffff'],
    ['Huffman value with padding that is not all ones', '44 8100'],
  ];
  for (const [name, block] of cases) {
    it(`rejects ${name}`, () => {
      assert.throws(() => decoder().decode(hex(block)), HpackError);
    });
  }

  it('throws only HpackError on any prefix of a valid block, or on random octets', () => {
    const valid = hex(`88c1 6196 d07a be94 1054 d444 a820 0595 040b 8166 e084 a62d 1bff c05a 839b d9ab
       77ad 94e7 821d d7f2 e6c7 b335 dfdf cd5b 3960 d5af 2708 7f36 72c1 ab27 0fb5 291f 9587 3160 65c0 03ed 4ee5 b106 3d50 07`);
    const attempt = (block: Uint8Array, d = decoder(256)): void => {
      try {
        d.decode(block);
      } catch (err) {
        assert.ok(err instanceof HpackError, `${Buffer.from(block).toString('hex')}: ${String(err)}`);
      }
    };
    for (let length = 0; length <= valid.length; length++) attempt(valid.subarray(0, length));
    let seed = 0x2545f491;
    const random = (): number => {
      seed ^= seed << 13;
      seed ^= seed >>> 17;
      seed ^= seed << 5;
      return seed >>> 0;
    };
    const d = decoder(4096, 1024);
    for (let i = 0; i < 3000; i++) {
      const block = new Uint8Array(random() % 48);
      for (let j = 0; j < block.length; j++) block[j] = random() & 0xff;
      attempt(block, i % 2 === 0 ? decoder(4096, 1024) : d);
    }
  });

  it('refuses every later block once one failed', () => {
    const d = decoder();
    assert.throws(() => d.decode(hex('80')), HpackError);
    assert.throws(() => d.decode(hex('82')), /earlier block/);
  });

  it('decodes a plain Uint8Array as well as a Buffer', () => {
    const bytes = new Uint8Array([0xff, 0x00, 0x01, 0x78, 0x01, 0x79]).subarray(1);
    assert.deepEqual(decoder().decode(bytes).fields, pairs(['x', 'y']));
  });
});

describe('HpackDecoder: header list size', () => {
  it('stops handing out fields once oversized, yet keeps the table in step', () => {
    const d = decoder(4096, 100);
    // :method GET (42), then a 50-octet literal indexed into the table (82): over 100.
    const value = 'v'.repeat(40);
    // After it, a literal without indexing (skipped) and an indexed field.
    const first = d.decode(Buffer.concat([hex('82 4003 6b65 7928'), Buffer.from(value), hex('0004 6e61 6d65 0178 84')]));
    assert.deepEqual(first, { fields: pairs([':method', 'GET']), oversized: true });
    assert.deepEqual(d.tableEntries(), [['key', value]]);
    // The next block refers to the entry the oversized block added.
    assert.deepEqual(d.decode(hex('be')), { fields: pairs(['key', value]), oversized: false });
  });

  it('bounds output built from repeated references to a large dynamic entry', () => {
    const d = decoder(4096, 16384);
    const big = 'x'.repeat(4000);
    d.decode(Buffer.concat([hex('4001 62 7f a11e'), Buffer.from(big)]));
    assert.deepEqual(d.tableEntries(), [['b', big]]);
    const repeated = d.decode(Buffer.alloc(8192, 0xbe));
    assert.equal(repeated.oversized, true);
    assert.equal(repeated.fields.length, 2 * 4); // 4 × 4033 fits in 16384, 5 would not
    assert.ok(repeated.fields.every((f, i) => (i % 2 === 0 ? f === 'b' : f === big)));
    assert.deepEqual(d.decode(hex('be')).fields, pairs(['b', big]));
  });

  it('still rejects malformed fields after the limit is passed', () => {
    const d = decoder(4096, 40);
    assert.throws(() => d.decode(hex('82 82 80')), HpackError);
    assert.throws(() => decoder(4096, 40).decode(hex('82 82 04 05 61')), HpackError);
    assert.throws(() => decoder(4096, 40).decode(hex('82 82 0f 30 0178')), HpackError);
  });
});

describe('HpackEncoder', () => {
  const response: EncodedField[] = [
    { name: ':status', value: '200' },
    { name: 'content-type', value: 'application/json' },
    { name: 'content-length', value: '1234' },
    { name: 'audit-id', value: '1f0e6c4a-9c2b-4d5e-8f7a-0b1c2d3e4f5a', sensitive: true },
    { name: 'cache-control', value: 'no-cache, private' },
    { name: 'x-kubernetes-pf-flowschema-uid', value: 'a5f0e1b2-0000-4000-8000-000000000001' },
    { name: 'authorization', value: 'Bearer secret', sensitive: true },
    { name: 'x-latin1', value: 'värde' },
    { name: 'x-long', value: 'y'.repeat(300) },
    { name: 'x-empty', value: '' },
  ];

  function fieldsOf(list: readonly EncodedField[]): string[] {
    return list.flatMap((f) => [f.name, f.value]);
  }

  it('encodes blocks that decode back to the same fields', () => {
    const encoder = new HpackEncoder();
    const d = decoder();
    for (let round = 0; round < 3; round++) {
      const block = encoder.encode(response);
      assert.ok(block.length <= maxEncodedLength(response));
      assert.deepEqual(d.decode(block), { fields: fieldsOf(response), oversized: false });
    }
    assert.equal(d.tableSize, 0, 'the encoder never adds to the dynamic table');
  });

  it('sends a static name-value match as one octet and a sensitive field never-indexed', () => {
    const encoder = new HpackEncoder();
    assert.deepEqual([...encoder.encode([{ name: ':status', value: '200' }])], [0x88]);
    assert.deepEqual([...encoder.encode([{ name: ':status', value: '404' }])], [0x8d]);
    assert.deepEqual([...encoder.encode([{ name: ':status', value: '201' }])], [0x08, 0x03, 0x32, 0x30, 0x31]);
    const hidden = encoder.encode([{ name: 'authorization', value: 'Bearer x', sensitive: true }]);
    assert.equal(hidden[0]! & 0xf0, 0x10);
    assert.deepEqual([...hidden.subarray(0, 3)], [0x1f, 0x08, 0x08]); // name index 23 = 15 + 8
    const hiddenStatus = encoder.encode([{ name: ':status', value: '200', sensitive: true }]);
    assert.deepEqual([...hiddenStatus], [0x18, 0x03, 0x32, 0x30, 0x30]);
    const newName = encoder.encode([{ name: 'x-a', value: 'b', sensitive: true }]);
    assert.deepEqual([...newName], [0x10, 0x03, 0x78, 0x2d, 0x61, 0x01, 0x62]);
    assert.deepEqual(decoder().decode(newName).fields, pairs(['x-a', 'b']));
  });

  it('keeps repeated values right when the caller reuses its buffer', () => {
    const encoder = new HpackEncoder();
    const dst = Buffer.alloc(256);
    const fields: EncodedField[] = [
      { name: 'x-repeated', value: 'same-value' },
      { name: 'content-type', value: 'application/json' },
    ];
    for (let round = 0; round < 4; round++) {
      const end = encoder.encodeInto(fields, dst, round);
      assert.deepEqual(decoder().decode(dst.subarray(round, end)).fields, fieldsOf(fields), `round ${round}`);
      dst.fill(0x41);
    }
    const changed = [{ name: 'x-repeated', value: 'other' }];
    assert.deepEqual(decoder().decode(encoder.encode(changed)).fields, fieldsOf(changed));
    assert.deepEqual(decoder().decode(encoder.encode(fields)).fields, fieldsOf(fields));
  });

  it('writes :status directly', () => {
    const encoder = new HpackEncoder();
    const dst = Buffer.alloc(16);
    assert.equal(encoder.writeStatus(204, dst, 0), 1);
    assert.equal(dst[0], 0x89);
    const end = encoder.writeStatus(429, dst, 1);
    assert.deepEqual(decoder().decode(dst.subarray(0, end)).fields, pairs([':status', '204'], [':status', '429']));
    assert.throws(() => encoder.writeStatus(99, dst, 0), RangeError);
    assert.throws(() => encoder.writeStatus(1000, dst, 0), RangeError);
  });

  it('writes into a caller buffer at an offset', () => {
    const encoder = new HpackEncoder();
    const dst = Buffer.alloc(9 + maxEncodedLength(response), 0xaa);
    const end = encoder.encodeInto(response, dst, 9);
    assert.equal(dst[8], 0xaa);
    assert.deepEqual(decoder().decode(dst.subarray(9, end)).fields, fieldsOf(response));
  });

  it('opens the next block with a size update after the peer changes SETTINGS_HEADER_TABLE_SIZE', () => {
    const encoder = new HpackEncoder();
    encoder.peerTableSizeChanged(8192);
    encoder.peerTableSizeChanged(100);
    encoder.peerTableSizeChanged(2048);
    const block = encoder.encode([{ name: ':status', value: '200' }]);
    assert.deepEqual([...block], [0x3f, 0x45, 0x88]); // size update to 100 (the smallest seen), then :status 200
    const d = decoder();
    assert.deepEqual(d.decode(block).fields, pairs([':status', '200']));
    assert.equal(d.tableLimit, 100);
    assert.deepEqual([...encoder.encode([{ name: ':status', value: '200' }])], [0x88]);
  });
});

interface RawFrame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/**
 * A plain-TCP HTTP/2 peer for node's client (h2c with prior knowledge): sends
 * an empty SETTINGS, acknowledges the client's, and hands every other frame
 * to `onFrame` with the socket to answer on.
 */
async function rawH2Server(onFrame: (frame: RawFrame, socket: net.Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    socket.write(frame(0x4, 0, 0));
    let buffered = Buffer.alloc(0);
    let at = 24; // after the client preface
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= at + 9) {
        const length = buffered.readUIntBE(at, 3);
        if (buffered.length < at + 9 + length) break;
        const raw: RawFrame = {
          type: buffered[at + 3]!,
          flags: buffered[at + 4]!,
          streamId: buffered.readUInt32BE(at + 5) & 0x7fffffff,
          payload: Buffer.from(buffered.subarray(at + 9, at + 9 + length)),
        };
        at += 9 + length;
        if (raw.type === 0x4 && !(raw.flags & 0x1)) socket.write(frame(0x4, 0x1, 0));
        onFrame(raw, socket);
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function frame(type: number, flags: number, streamId: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/** The header block of a HEADERS frame that carries all of it: PADDED and PRIORITY fields removed. */
function headerBlock({ flags, payload }: RawFrame): Buffer {
  assert.ok(flags & 0x4, 'END_HEADERS: the block fits one frame');
  let start = 0;
  let end = payload.length;
  if (flags & 0x8) end -= payload[start++]!; // PADDED: pad length first, padding last
  if (flags & 0x20) start += 5; // PRIORITY: stream dependency and weight
  return payload.subarray(start, end);
}

describe('HPACK interop with node:http2', () => {
  it("decodes node's client request headers", async () => {
    let resolveBlock: (block: Buffer) => void = () => {};
    const received = new Promise<Buffer>((resolve) => (resolveBlock = resolve));
    const server = await rawH2Server((raw) => {
      if (raw.type === 0x1) resolveBlock(headerBlock(raw));
    });
    const client = http2.connect(`http://127.0.0.1:${server.port}`);
    client.on('error', () => {});
    try {
      const request = client.request({ ':path': '/api/v1/pods?limit=1', 'x-test': 'värde' });
      request.on('error', () => {});
      const { fields, oversized } = decoder().decode(await received);
      assert.equal(oversized, false);
      const got = new Map<string, string>();
      for (let i = 0; i < fields.length; i += 2) got.set(fields[i]!, fields[i + 1]!);
      assert.equal(got.get(':method'), 'GET');
      assert.equal(got.get(':path'), '/api/v1/pods?limit=1');
      assert.equal(got.get(':scheme'), 'http');
      assert.equal(got.get(':authority'), `127.0.0.1:${server.port}`);
      // node writes header values as latin1 octets: 'ä' travels as the single octet 0xe4.
      assert.equal(got.get('x-test'), 'värde');
    } finally {
      client.destroy();
      await server.close();
    }
  });

  it("encodes responses node's client reads, after it shrinks its table to 0", async () => {
    const encoder = new HpackEncoder();
    const server = await rawH2Server((raw, socket) => {
      if (raw.type === 0x4 && !(raw.flags & 0x1)) {
        for (let i = 0; i + 6 <= raw.payload.length; i += 6) {
          if (raw.payload.readUInt16BE(i) === 0x1) encoder.peerTableSizeChanged(raw.payload.readUInt32BE(i + 2));
        }
      }
      if (raw.type !== 0x1) return;
      const block = encoder.encode([
        { name: ':status', value: '201' },
        { name: 'content-type', value: 'application/json' },
        { name: 'audit-id', value: 'abc-123', sensitive: true },
        { name: 'x-test', value: 'värde' },
      ]);
      socket.write(frame(0x1, 0x4 | 0x1, raw.streamId, block)); // END_HEADERS | END_STREAM
    });
    // nghttp2 then expects a dynamic table size update to open our next block, or fails the connection.
    const client = http2.connect(`http://127.0.0.1:${server.port}`, { settings: { headerTableSize: 0 } });
    client.on('error', () => {});
    try {
      const request = client.request({ ':path': '/' });
      const headers = await new Promise<http2.IncomingHttpHeaders>((resolve, reject) => {
        request.on('response', resolve);
        request.on('error', reject);
        request.on('close', () => reject(new Error(`stream closed without a response (code ${request.rstCode})`)));
        // A COMPRESSION_ERROR makes node send GOAWAY and then wait, without telling the stream.
        setTimeout(() => reject(new Error('no response within 2 s')), 2000).unref();
      });
      assert.equal(headers[':status'], 201);
      assert.equal(headers['content-type'], 'application/json');
      assert.equal(headers['audit-id'], 'abc-123');
      assert.equal(headers['x-test'], 'värde');
      const sensitive = (headers as Record<symbol, unknown>)[http2.sensitiveHeaders];
      assert.deepEqual(sensitive, ['audit-id']);
    } finally {
      client.destroy();
      await server.close();
    }
  });
});
