/**
 * Byte lanes (shards/byte-lane.ts) and the store connection's lanes
 * (src/storage/remote/wire.ts): what is written reads back the same, every
 * read is bounded by the run, and a BatchedPort with a lane keeps the order
 * of its messages across runs of bytes and objects.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel } from 'node:worker_threads';
import { ByteReader, ByteWriter, CorruptLaneError, type ByteLane } from '../../shards/byte-lane.ts';
import { BatchedPort } from '../../shards/batched-port.ts';
import { storeClientLane, storeServerLane } from '../../src/storage/remote/wire.ts';
import type { StoreCall, StoreReply, StoreVia } from '../../src/storage/remote/protocol.ts';
import type { StoreEvent } from '../../src/storage/interface.ts';
import { shardClientLane, shardRuntimeLane } from '../../shards/wire.ts';
import type { ShardMessage } from '../../shards/protocol.ts';

const bytes = (s: string): Uint8Array => new TextEncoder().encode(s);
const via: StoreVia = { conn: 'shard 1 #3', client: 7, shard: 1, tag: 2 ** 40 + 3, resource: 'apps/deployments' };

/** Byte arrays as plain arrays: a view, a Buffer and a Uint8Array with the same bytes compare equal. */
function plain(v: unknown): unknown {
  if (v instanceof Uint8Array) return { bytes: [...v] };
  if (Array.isArray(v)) return v.map(plain);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

function roundTrip<O, I>(lane: Pick<ByteLane<O, unknown>, 'encode'>, back: Pick<ByteLane<never, I>, 'decode'>, msgs: O[]): I[] {
  const w = new ByteWriter(64);
  for (const m of msgs) assert.equal(lane.encode!(m, w), true, `encodes ${JSON.stringify(plain(m))}`);
  const out: I[] = [];
  back.decode!(new ByteReader(w.finish()), (m) => out.push(m));
  return out;
}

describe('ByteWriter and ByteReader', () => {
  it('read back numbers, UTF-8 strings and bytes, growing past the first capacity', () => {
    const w = new ByteWriter(64);
    const big = new Uint8Array(100_000).map((_, i) => i % 251);
    w.u8(255);
    w.f64(2 ** 53 - 1);
    w.f64(-1.5);
    w.str('');
    w.str('/registry/configmaps/ns/ä-名前-😀');
    w.bytes(new Uint8Array(0));
    w.bytes(big);
    w.str('a\ud800b\udc00');
    w.str('end');
    const r = new ByteReader(w.finish());
    assert.equal(r.u8(), 255);
    assert.equal(r.f64(), 2 ** 53 - 1);
    assert.equal(r.f64(), -1.5);
    assert.equal(r.str(), '');
    assert.equal(r.str(), '/registry/configmaps/ns/ä-名前-😀');
    assert.equal(r.view().byteLength, 0);
    assert.deepEqual([...r.copy()], [...big]);
    assert.equal(r.str(), 'a\ud800b\udc00', 'lone surrogates read back as written (UTF-8 would make them U+FFFD)');
    assert.equal(r.str(), 'end');
    assert.equal(r.done, true);
  });

  it('refuses to read past the run, and a header longer than the buffer', () => {
    const w = new ByteWriter(64);
    w.str('abc');
    const run = w.finish();
    const r = new ByteReader(run);
    assert.equal(r.str(), 'abc');
    assert.throws(() => r.u8(), CorruptLaneError);
    // A length that claims more than the run holds.
    const lying = new ByteWriter(64);
    lying.f64(1);
    const buf = lying.finish();
    Buffer.from(buf).writeUInt32LE(1000, 4);
    const r2 = new ByteReader(buf);
    assert.throws(() => r2.str(), CorruptLaneError);
    const header = new ArrayBuffer(8);
    Buffer.from(header).writeUInt32LE(100, 0);
    assert.throws(() => new ByteReader(header), CorruptLaneError);
  });

  it('a view shares the run; a copy owns its ArrayBuffer', () => {
    const w = new ByteWriter(64);
    w.bytes(bytes('shared'));
    w.bytes(bytes('owned'));
    const run = w.finish();
    const r = new ByteReader(run);
    const view = r.view();
    const copy = r.copy();
    assert.equal(view.buffer, run);
    assert.notEqual(copy.buffer, run);
    assert.equal(copy.byteOffset, 0);
    assert.equal(copy.byteLength, copy.buffer.byteLength);
  });
});

describe('the store connection lanes', () => {
  it('carry create, update and delete calls, with and without a route, as sent', () => {
    const calls: StoreCall[] = [
      { op: 'create', id: 1, key: '/configmaps/default/a', value: bytes('{"a":1}') },
      { op: 'create', id: 2, key: '/configmaps/default/ü', value: new Uint8Array(0), via },
      { op: 'update', id: 3, key: '/configmaps/default/a', value: bytes('{"a":2}'), expected: 17 },
      { op: 'update', id: 4, key: '/configmaps/default/a', value: bytes('{"a":3}'), expected: 18, via },
      { op: 'delete', id: 5, key: '/configmaps/default/a', expected: undefined },
      { op: 'delete', id: 6, key: '/configmaps/default/a', expected: 19, via },
    ];
    assert.deepEqual(plain(roundTrip(storeClientLane, storeServerLane, calls)), plain(calls));
  });

  it('carry watch events (puts, deletes, stale values, previous values) and routed answers as sent', () => {
    const events: StoreEvent[] = [
      { type: 'put', key: '/pods/ns/a', revision: 10, value: bytes('a1'), createRevision: 10, prevValue: null, prevModRevision: 0 },
      { type: 'put', key: '/pods/ns/a', revision: 11, value: bytes('a2'), createRevision: 10, prevValue: bytes('a1'), prevModRevision: 10, stale: true },
      { type: 'delete', key: '/pods/ns/a', revision: 12, value: null, createRevision: 10, prevValue: bytes('a2'), prevModRevision: 11 },
    ];
    const replies: StoreReply[] = [
      { t: 'events', wid: 4, events },
      { t: 'events', wid: 5, events: [] },
      { t: 'written', via, id: 9, value: { key: '/pods/ns/a', createRevision: 10, modRevision: 11 } },
      { t: 'written', via, id: 10, value: { key: '/pods/ns/a', createRevision: 10, modRevision: 12 }, prev: bytes('a2') },
    ];
    const back = roundTrip(storeServerLane, storeClientLane, replies);
    assert.deepEqual(plain(back), plain(replies));
    // An event without `stale` has no such member (the store's own events compare deep-equal).
    const first = (back[0] as Extract<StoreReply, { t: 'events' }>).events[0]!;
    assert.equal('stale' in first, false);
    // A delete's value goes on to the writer's thread: it owns its bytes rather than viewing the run.
    const prev = (back[3] as { prev: Uint8Array }).prev;
    assert.equal(prev.byteOffset, 0);
    assert.equal(prev.byteLength, prev.buffer.byteLength);
  });

  it('leave reads, watch control, answers and errors to structured clone, writing nothing for them', () => {
    const w = new ByteWriter(64);
    const others: StoreCall[] = [
      { op: 'get', id: 1, key: '/k' },
      { op: 'range', id: 2, prefix: '/p/' },
      { op: 'watch', wid: 3, prefix: '/p/', after: 0 },
      { op: 'currentRevision', id: 4 },
    ];
    for (const m of others) assert.equal(storeClientLane.encode!(m, w), false);
    const replies: StoreReply[] = [
      { t: 'ok', id: 1, value: null },
      { t: 'progress', wid: 3, revision: 9 },
      { t: 'written', via, id: 2, error: { code: 'Internal', message: 'boom' } },
    ];
    for (const m of replies) assert.equal(storeServerLane.encode!(m, w), false);
    assert.equal(w.length, 0);
  });

  it('an unknown tag is a corrupt run, not a message', () => {
    const w = new ByteWriter(64);
    w.u8(200);
    assert.throws(() => storeServerLane.decode!(new ByteReader(w.finish()), () => undefined), CorruptLaneError);
  });
});

describe('the shard channel lanes', () => {
  it('carry a direct write\'s answer to its writer as sent, a deleted value in bytes of its own', () => {
    const answers: ShardMessage[] = [
      { t: 'written', tag: 3, id: 2 ** 33, value: { key: '/configmaps/default/ä', createRevision: 5, modRevision: 6 } },
      { t: 'written', tag: 3, id: 12, value: { key: '/configmaps/default/a', createRevision: 5, modRevision: 7 }, prev: bytes('{"old":true}') },
    ];
    const back = roundTrip(shardRuntimeLane, shardClientLane, answers);
    assert.deepEqual(plain(back), plain(answers));
    const prev = (back[1] as { prev: Uint8Array }).prev;
    assert.equal(prev.byteLength, prev.buffer.byteLength);
  });

  it('leave errors, reads\' answers and frames to structured clone; requests all go as objects', () => {
    const w = new ByteWriter(64);
    const others: ShardMessage[] = [
      { t: 'written', tag: 1, id: 1, error: { code: 'Conflict', message: 'changed' } as ShardMessage extends { t: 'written'; error?: infer E } ? E : never },
      { t: 'ok', id: 2, value: { ensured: 'x' } },
      { t: 'routeWrites', conn: 'c', client: 1 },
      { t: 'end', ids: [1], error: { code: 'Internal', message: 'x' } },
    ];
    for (const m of others) assert.equal(shardRuntimeLane.encode!(m, w), false);
    assert.equal(w.length, 0);
    assert.equal(shardClientLane.encode, undefined, 'a serving thread sends its requests as objects');
    assert.equal(shardRuntimeLane.decode, undefined, 'so a shard reads none as bytes');
  });
});

describe('BatchedPort with a byte lane', () => {
  it('keeps the order of a turn\'s messages across runs of bytes and objects, in one post, the runs moved', async () => {
    const ch = new MessageChannel();
    const raw: unknown[][] = [];
    const got: StoreReply[][] = [];
    const sender = new BatchedPort<StoreReply, StoreCall>(ch.port1, () => undefined, storeServerLane);
    ch.port2.on('message', (batch: unknown[]) => raw.push(batch));
    const receiver = new BatchedPort<StoreCall, StoreReply>(ch.port2, (m) => got.push(m), storeClientLane);
    const ev = (rev: number): StoreReply => ({ t: 'events', wid: 1, events: [{ type: 'put', key: `/k/${rev}`, revision: rev, value: bytes(`v${rev}`), createRevision: rev, prevValue: null, prevModRevision: 0 }] });
    const sent: StoreReply[] = [ev(1), ev(2), { t: 'progress', wid: 1, revision: 2 }, ev(3), { t: 'ok', id: 7, value: 3 }, ev(4)];
    for (const m of sent) sender.send(m);
    // Until both listeners have the batch (a loaded machine may take a while), then a little longer for a second post.
    for (const deadline = Date.now() + 10_000; (raw.length === 0 || got.length === 0) && Date.now() < deadline; ) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(sender.posts, 1);
    assert.equal(raw.length, 1);
    assert.deepEqual(raw[0]!.map((m) => (m instanceof ArrayBuffer ? 'bytes' : 'object')), ['bytes', 'object', 'bytes', 'object', 'bytes']);
    assert.equal(got.length, 1);
    assert.deepEqual(plain(got[0]), plain(sent));
    sender.close();
    receiver.close();
  });
});
