/**
 * Fault isolation at the shard layer (two shards, over the embedded store and
 * over etcd): what one
 * object, one watcher or one stored value breaks stays with it. The shard
 * thread is never restarted, the process never sees an uncaught error, and
 * everything else the shard serves carries on.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRouter } from '../../shards/router.ts';
import { ShardCallError, type WatchSink } from '../../shards/shard-handle.ts';
import type { ShardError } from '../../shards/protocol.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';
import type { StoreConfig } from '../../src/storage/config.ts';
import { CollectingSink, configMapBytes, testResources } from '../support/shard-fixtures.ts';
import { startEtcd } from '../support/etcd-server.ts';

/** Counts protobuf frames and remembers how the watch ended. */
class FrameCounter implements WatchSink {
  bytes = 0;
  ended: ShardError | null = null;
  onFrames(frames: Uint8Array): void {
    this.bytes += frames.byteLength;
  }
  onEnd(error: ShardError): void {
    this.ended = error;
  }
}

async function until(pred: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!pred()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function shardError(p: Promise<unknown>): Promise<ShardError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ShardCallError, `expected a ShardCallError, got ${String(err)}`);
    return err.error;
  }
  assert.fail('expected the call to fail');
}

const backends: Array<{ name: string; start(): Promise<{ config: StoreConfig; cleanup(): Promise<void> }> }> = [
  {
    name: 'the embedded store',
    async start() {
      const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-shard-faults-'));
      return { config: { backend: 'embedded', dataDir: dir }, cleanup: () => fs.rm(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 'etcd',
    async start() {
      const etcd = await startEtcd({ unsafeNoFsync: true });
      return { config: { backend: 'etcd3', endpoints: [etcd.endpoint], prefix: `/faults-${process.pid}` }, cleanup: () => etcd.stop() };
    },
  },
];

for (const backend of backends) describe(`shard fault isolation over ${backend.name}`, () => {
  let cleanup: () => Promise<void>;
  let router: ShardRouter;
  const contained: string[] = [];
  let ns = 0;
  const freshNs = (): string => `fi${++ns}`;

  before(async () => {
    const started = await backend.start();
    cleanup = started.cleanup;
    router = await ShardRouter.start({
      shards: 2,
      resources: testResources,
      store: started.config,
      runtime: { tooLargeWaitMs: 300, bookmarkIntervalMs: 60_000 },
      onError: (_err, what) => contained.push(what),
    });
  });
  after(async () => {
    await router?.close();
    await cleanup?.();
  });

  const assertNoRestarts = (): void => {
    for (let i = 0; i < router.shardCount; i++) assert.equal(router.shard(i).restarts, 0, `shard ${i} was never restarted`);
  };

  it('a watch sink that throws ends that watcher alone; the others of its group get every frame', async () => {
    const n = freshNs();
    const start = { kind: 'initial' as const, read: { kind: 'latest' as const } };
    const req = { resource: '/configmaps', start, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false };
    const broken = new CollectingSink();
    broken.onFrames = () => {
      throw new Error('this sink cannot take frames');
    };
    const before1 = new CollectingSink();
    const before2 = new CollectingSink();
    router.watch(req, before1);
    router.watch(req, broken);
    router.watch(req, before2);
    await router.create('/configmaps', `/configmaps/${n}/a`, configMapBytes(n, 'a', { k: '1' }));
    await router.create('/configmaps', `/configmaps/${n}/b`, configMapBytes(n, 'b', { k: '2' }));
    for (const sink of [before1, before2]) await sink.until(() => sink.changes.length === 2, 'both events');
    await until(() => broken.ended !== null, 'the broken watcher to end');
    assert.equal(broken.ended?.code, 'Internal');
    assert.equal(before1.ended, null);
    assert.equal(before2.ended, null);
    assert.ok(contained.some((w) => w.includes('could not be sent')), `the failure was reported: ${JSON.stringify(contained)}`);
    assertNoRestarts();
  });

  it('an object Protobuf cannot encode ends the Protobuf watchers with Internal, fails Protobuf lists, and nothing else', async () => {
    const n = freshNs();
    const other = freshNs();
    const start = { kind: 'initial' as const, read: { kind: 'latest' as const } };
    const watch = (encoding: string, namespace: string, sink: WatchSink): void => {
      router.watch({ resource: '/configmaps', start, filter: { namespace }, encoding, bookmarks: true, initialEventsEnd: false }, sink);
    };
    const pb = new FrameCounter();
    const pbOtherNs = new FrameCounter();
    const json = new CollectingSink();
    watch('protobuf', n, pb);
    watch('protobuf', other, pbOtherNs);
    watch('json', n, json);
    await router.create('/configmaps', `/configmaps/${n}/good`, configMapBytes(n, 'good', { k: 'v' }));
    await until(() => pb.bytes > 0, 'the Protobuf watcher to get the good object');

    const bad = serializeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'bad', namespace: n }, data: { a: true } });
    const written = await router.create('/configmaps', `/configmaps/${n}/bad`, bad);
    assert.ok(written.revision > 0, 'the write is answered');
    await until(() => pb.ended !== null, 'the Protobuf watcher to end');
    assert.equal(pb.ended?.code, 'Internal');
    assert.match(pb.ended!.message, new RegExp(`object ${n}/bad \\(resourceVersion ${written.revision}\\) cannot be encoded as protobuf: .*data\\.a`));
    await json.until(() => json.changes.some((e) => e.name === 'bad'), 'the JSON watcher to get the bad object');

    // Bookmarks still reach the Protobuf watcher of the other namespace, writes there too.
    router.shardOf('/configmaps').bookmark('/configmaps');
    await router.create('/configmaps', `/configmaps/${other}/fine`, configMapBytes(other, 'fine', {}));
    await until(() => pbOtherNs.bytes > 0, 'the other Protobuf watcher to get frames');
    assert.equal(pbOtherNs.ended, null);
    assert.equal(json.ended, null);

    const listErr = await shardError(router.list('/configmaps', { kind: 'latest' }, { namespace: n }, { encoding: 'protobuf' }));
    assert.equal(listErr.code, 'Internal');
    assert.match(listErr.message, /bad/);
    assert.equal((await router.list('/configmaps', { kind: 'latest' }, { namespace: n })).count, 2, 'JSON lists it');
    assert.equal((await router.list('/configmaps', { kind: 'latest' }, { namespace: other }, { encoding: 'protobuf' })).count, 1);

    // A Protobuf watcher that starts with it, or resumes into it from the window, ends at once.
    for (const from of [start, { kind: 'from' as const, revision: written.revision - 1 }]) {
      const late = new FrameCounter();
      router.watch({ resource: '/configmaps', start: from, filter: { namespace: n }, encoding: 'protobuf', bookmarks: false, initialEventsEnd: false }, late);
      await until(() => late.ended !== null, `a Protobuf watcher from ${JSON.stringify(from)} to end`);
      assert.equal(late.ended?.code, 'Internal');
    }
    assertNoRestarts();
  });

  it('a stored value the shard cannot decode ends that resource’s watchers; the shard and its other resources carry on, and the resource recovers once it is gone', async () => {
    const n = freshNs();
    const shard = router.shardOf('/configmaps');
    const neighbour = testResources.map((r) => r.groupResource).find((g) => g !== '/configmaps' && router.shardOf(g) === shard);
    const start = { kind: 'initial' as const, read: { kind: 'latest' as const } };
    const cmWatch = new CollectingSink();
    router.watch({ resource: '/configmaps', start, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false }, cmWatch);
    await router.create('/configmaps', `/configmaps/${n}/ok`, configMapBytes(n, 'ok', {}));
    await cmWatch.until(() => cmWatch.changes.length === 1, 'the first event');

    // Not JSON: written behind the codec's back, as another tool might. Errors name it, never quote it.
    const garbage = new TextEncoder().encode('{"kind":"ConfigMap","data":{"password":hunter2-is-secret}}');
    const writeErr = await shardError(router.create('/configmaps', `/configmaps/${n}/garbage`, garbage));
    assert.equal(writeErr.code, 'Internal', 'the write is answered');
    await cmWatch.until(() => cmWatch.ended !== null, 'the configmaps watcher to end');
    assert.equal(cmWatch.ended?.code, 'Internal');
    for (const message of [writeErr.message, cmWatch.ended!.message]) {
      assert.match(message, new RegExp(`stored object ${n}/garbage \\(resourceVersion [0-9]+\\) is not a JSON object`));
      assert.doesNotMatch(message, /hunter2/, 'the value is not quoted');
    }

    if (neighbour !== undefined) {
      const key = neighbour === '/namespaces' ? `/namespaces/${n}` : `${testResources.find((r) => r.groupResource === neighbour)!.prefix}${n}/x`;
      await router.create(neighbour, key, serializeForStorage({ kind: 'Thing', apiVersion: 'v1', metadata: { name: 'x' } }));
      assert.equal((await router.get(neighbour, key, { kind: 'latest' })).object !== null, true, `${neighbour} on the same shard is served`);
    }
    const stats = await router.stats();
    assert.equal(stats.length, 2, 'both shards answer');
    assertNoRestarts();

    // Removing it (as the original's unsafe deletion of a corrupt object would) brings the resource back.
    // The delete lands; its answer (the last state) cannot be decoded, so it is an error.
    await router.delete('/configmaps', `/configmaps/${n}/garbage`).catch(() => undefined);
    const deadline = Date.now() + 35_000; // retries back off while it keeps failing
    for (;;) {
      try {
        const list = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
        if (list.count === 1) break;
      } catch {
        // still rebuilding
      }
      if (Date.now() > deadline) assert.fail('configmaps did not recover');
      await new Promise((r) => setTimeout(r, 100));
    }
    const after = new CollectingSink();
    router.watch({ resource: '/configmaps', start, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false }, after);
    await router.create('/configmaps', `/configmaps/${n}/later`, configMapBytes(n, 'later', {}));
    await after.until(() => after.changes.some((e) => e.name === 'later'), 'a new watcher to see later writes');
    assertNoRestarts();
  });
});
