/**
 * Direct writes (shards/direct-writes.ts): a serving thread's create or
 * update goes straight to the store host, and its answer comes back on the
 * owner shard's connection after the write's watch events (so the shard's
 * cache has the write before the writer hears of it), or on the writer's own
 * connection when the shard's is gone. The writer's answer is what the shard
 * would have given: the bytes it sent with their revision spliced in, store
 * errors as the same ShardCallError codes. Only types the shard adds nothing
 * to are written so.
 */
import { ByteReader } from '../../shards/byte-lane.ts';
import { storeServerLane } from '../../src/storage/remote/wire.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel, type MessagePort } from 'node:worker_threads';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';
import { StoreServer } from '../../src/storage/remote/server.ts';
import { RemoteStore } from '../../src/storage/remote/client.ts';
import type { StoreEvent } from '../../src/storage/interface.ts';
import type { WrittenVia } from '../../src/storage/remote/protocol.ts';
import { DirectWrites, directWriteResources } from '../../shards/direct-writes.ts';
import { ShardCallError, ShardClient } from '../../shards/shard-client.ts';
import type { ShardMessage } from '../../shards/protocol.ts';
import { JsonObjectCodec, jsonAtRevision, serializeForStorage } from '../../src/watchcache/json-codec.ts';

const codec = new JsonObjectCodec({ prefix: '/configmaps/', namespaced: true, apiVersion: 'v1', kind: 'ConfigMap' });
const stored = (name: string, v: string): Uint8Array =>
  serializeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name, namespace: 'default', resourceVersion: '7' }, data: { v } });
const text = (b: Uint8Array): string => new TextDecoder().decode(b);

interface Rig {
  store: EmbeddedStore;
  server: StoreServer;
  /** What arrived on the shard's connection, in order: event batches and routed answers. */
  shardSaw: Array<{ events: readonly StoreEvent[] } | WrittenVia>;
  shardPort: MessagePort;
  shardStore: RemoteStore;
  /** Routed answers that came to the writer's own connection. */
  fallback: WrittenVia[];
  direct: DirectWrites;
}

async function withRig(run: (r: Rig) => Promise<void>): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'orch-direct-writes-'));
  const store = await EmbeddedStore.open({ dir });
  const server = new StoreServer(store);
  const shardCh = new MessageChannel();
  server.connect(shardCh.port1, 'shard 0 #1');
  const shardSaw: Rig['shardSaw'] = [];
  const shardStore = new RemoteStore(shardCh.port2, 'shard', undefined, (m) => shardSaw.push(m));
  const w = shardStore.watch('/configmaps/', 0, { onEvents: (events) => shardSaw.push({ events }), onProgress: () => undefined, onError: () => undefined });
  const writerCh = new MessageChannel();
  server.connect(writerCh.port1);
  const fallback: WrittenVia[] = [];
  const direct = new DirectWrites(writerCh.port2, ['/configmaps'], (m) => fallback.push(m));
  try {
    await run({ store, server, shardSaw, shardPort: shardCh.port2, shardStore, fallback, direct });
  } finally {
    w.close();
    direct.close();
    await shardStore.close();
    server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 400 && !pred(); i++) await new Promise((r) => setTimeout(r, 5));
  assert.ok(pred(), what);
}

const via = (resource = '/configmaps') => ({ conn: 'shard 0 #1', client: 3, shard: 0, tag: 42, resource });

test("a routed write's answer comes on the shard's connection, after the write's watch events", async () => {
  await withRig(async (r) => {
    for (let i = 1; i <= 20; i++) r.direct.send({ op: 'create', id: i, key: `/configmaps/default/c${i}`, value: stored(`c${i}`, 'x'), via: via() });
    await until(() => r.shardSaw.filter((m) => 't' in m).length === 20, 'twenty answers');
    assert.deepEqual(r.fallback, [], 'none came to the writer directly');
    const seen = new Set<number>();
    for (const m of r.shardSaw) {
      if ('events' in m) for (const e of m.events) seen.add(e.revision);
      else {
        assert.deepEqual(m.via, via());
        assert.ok(m.value !== undefined && m.error === undefined);
        assert.ok(seen.has(m.value.modRevision), `the event of revision ${m.value.modRevision} came before its answer`);
      }
    }
  });
});

test("a routed delete's answer carries the deleted value and comes after the delete's event", async () => {
  await withRig(async (r) => {
    const key = '/configmaps/default/gone';
    const created = await r.store.create(key, stored('gone', 'x'));
    r.direct.send({ op: 'delete', id: 7, key, expected: created.modRevision, via: via() });
    await until(() => r.shardSaw.some((m) => 't' in m), 'the answer');
    const at = r.shardSaw.findIndex((m) => 't' in m);
    const answer = r.shardSaw[at] as WrittenVia;
    assert.ok(answer.value !== undefined && answer.prev !== undefined);
    assert.equal(text(answer.prev), text(stored('gone', 'x')));
    const deletion = answer.value.modRevision;
    assert.ok(deletion > created.modRevision);
    assert.ok(
      r.shardSaw.slice(0, at).some((m) => 'events' in m && m.events.some((e) => e.type === 'delete' && e.revision === deletion)),
      'the delete event came first',
    );
    assert.equal((await r.store.get(key)).kv, null);
  });
});

test("store errors are routed too, and an answer whose shard connection is gone comes to the writer's own", async () => {
  await withRig(async (r) => {
    r.direct.send({ op: 'create', id: 1, key: '/configmaps/default/a', value: stored('a', 'x'), via: via() });
    await until(() => r.shardSaw.some((m) => 't' in m), 'the first answer');
    r.direct.send({ op: 'create', id: 2, key: '/configmaps/default/a', value: stored('a', 'y'), via: via() });
    r.direct.send({ op: 'update', id: 3, key: '/configmaps/default/a', value: stored('a', 'y'), expected: 1_000, via: via() });
    r.direct.send({ op: 'delete', id: 5, key: '/configmaps/default/none', via: via() });
    await until(() => r.shardSaw.filter((m) => 't' in m).length === 4, 'four answers');
    const errors = r.shardSaw.filter((m): m is WrittenVia => 't' in m && m.error !== undefined).map((m) => [m.id, m.error!.code]);
    assert.deepEqual(errors, [
      [2, 'AlreadyExists'],
      [3, 'Conflict'],
      [5, 'NotFound'],
    ]);
    // The shard's connection closes (its thread restarting): answers go to the writer.
    r.shardPort.close();
    await new Promise((res) => setTimeout(res, 20));
    r.direct.send({ op: 'create', id: 4, key: '/configmaps/default/b', value: stored('b', 'x'), via: via() });
    await until(() => r.fallback.length === 1, 'the answer on the writer connection');
    assert.equal(r.fallback[0]!.id, 4);
    assert.ok(r.fallback[0]!.value !== undefined);
    assert.equal((await r.store.get('/configmaps/default/b')).kv?.modRevision, r.fallback[0]!.value!.modRevision);
  });
});

test('a ShardClient answers a direct write with its bytes at the written revision; another thread\'s tag or a lost shard do not confuse it', async () => {
  const shardSide = new MessageChannel();
  const client = new ShardClient({ index: 0, onLost: () => undefined });
  client.attach(shardSide.port1);
  const sent: unknown[] = [];
  const storeSide = new MessageChannel();
  // The calls as the store host reads them: through the store connection's byte lane.
  storeSide.port2.on('message', (batch: unknown[]) => {
    for (const m of batch) {
      if (m instanceof ArrayBuffer) storeServerLane.decode!(new ByteReader(m), (c) => sent.push(c));
      else sent.push(m);
    }
  });
  const direct = new DirectWrites(storeSide.port1, ['/configmaps'], () => undefined);
  try {
    assert.equal(client.writeDirect(direct, '/configmaps', { op: 'create', key: '/configmaps/default/x', value: stored('x', 'v') }), null, 'no route before the shard names one');
    shardSide.port2.postMessage([{ t: 'routeWrites', conn: 'shard 0 #1', client: 5 } satisfies ShardMessage]);
    // Without a route writeDirect sends nothing and answers null: asked again until the message has arrived
    // (a fixed wait was too short on a loaded machine).
    let p = client.writeDirect(direct, '/configmaps', { op: 'create', key: '/configmaps/default/x', value: stored('x', 'v') });
    for (let i = 0; i < 400 && p === null; i++) {
      await new Promise((res) => setTimeout(res, 5));
      p = client.writeDirect(direct, '/configmaps', { op: 'create', key: '/configmaps/default/x', value: stored('x', 'v') });
    }
    assert.ok(p !== null, 'the route arrived');
    await until(() => sent.length === 1, 'the write on the store connection');
    const call = sent[0] as { id: number; via: { conn: string; client: number; tag: number; shard: number; resource: string } };
    assert.deepEqual({ ...call.via, tag: 0 }, { conn: 'shard 0 #1', client: 5, tag: 0, shard: 0, resource: '/configmaps' });
    // Another thread's answer with the same id (a slot that passed to it) is not ours.
    client.receiveWritten(call.via.tag + 1, call.id, { key: '/configmaps/default/x', createRevision: 99, modRevision: 99 }, undefined, undefined);
    shardSide.port2.postMessage([{ t: 'written', tag: call.via.tag, id: call.id, value: { key: '/configmaps/default/x', createRevision: 12, modRevision: 12 } } satisfies ShardMessage]);
    const answer = await p;
    assert.equal(answer.revision, 12);
    assert.equal(text(answer.json), text(codec.decode('/configmaps/default/x', stored('x', 'v'), 12).json));

    assert.equal(client.writeDirect(direct, '/configmaps', { op: 'create', key: '/configmaps/default/y', value: new TextEncoder().encode('{"a":1}') }), null, 'bytes outside the canonical layout go through the shard');

    // A delete's answer is the deleted object as of the deletion, from the bytes the answer brings.
    const del = client.writeDirect(direct, '/configmaps', { op: 'delete', key: '/configmaps/default/x', expected: 12 })!;
    await until(() => sent.length === 2, 'the delete on the store connection');
    const delCall = sent[1] as { op: string; id: number; expected: number };
    assert.deepEqual([delCall.op, delCall.expected], ['delete', 12]);
    shardSide.port2.postMessage([{ t: 'written', tag: call.via.tag, id: delCall.id, value: { key: '/configmaps/default/x', createRevision: 12, modRevision: 13 }, prev: stored('x', 'v') } satisfies ShardMessage]);
    const deleted = await del;
    assert.equal(deleted.revision, 13);
    assert.equal(text(deleted.json), text(codec.decode('/configmaps/default/x', stored('x', 'v'), 13).json));

    const failed = client.writeDirect(direct, '/configmaps', { op: 'update', key: '/configmaps/default/x', value: stored('x', 'w'), expected: 12 })!;
    shardSide.port2.close(); // the shard thread ends: the answer under way is lost
    await assert.rejects(failed, (err: unknown) => err instanceof ShardCallError && err.error.code === 'Unavailable');
  } finally {
    client.close();
    direct.close();
    storeSide.port2.close();
  }
});

test('jsonAtRevision splices the revision in, brings other layouts into the canonical one, and refuses what is no object', () => {
  const json = jsonAtRevision(stored('a', 'x'), 17)!;
  assert.equal(JSON.parse(text(json)).metadata.resourceVersion, '17');
  const other = jsonAtRevision(new TextEncoder().encode('{"metadata":{"name":"c"},"kind":"ConfigMap","apiVersion":"v1"}'), 5)!;
  assert.deepEqual(Object.keys(JSON.parse(text(other))), ['kind', 'apiVersion', 'metadata']);
  assert.equal(JSON.parse(text(other)).metadata.resourceVersion, '5');
  assert.equal(jsonAtRevision(new TextEncoder().encode('[1,2]'), 5), null);
});

test('only types the shard adds nothing to are written directly', () => {
  const resources = [{ groupResource: '/configmaps' }, { groupResource: '/events', ttlSeconds: 3600 }, { groupResource: 'apps/deployments' }];
  assert.deepEqual(directWriteResources({ backend: 'embedded' }, resources), ['/configmaps', 'apps/deployments']);
  // Encryption at rest: the shard seals values, so every write goes through it.
  assert.deepEqual(directWriteResources({ backend: 'embedded', encryption: { rules: [] } }, resources), []);
  // etcd: each shard has its own client; there is no store host.
  assert.deepEqual(directWriteResources({ backend: 'etcd3' }, resources), []);
});
