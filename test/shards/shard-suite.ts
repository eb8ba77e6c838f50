/**
 * End-to-end tests of the shard layer (main thread -> Piscina shard -> store
 * -> watch cache -> watchers), run once per storage backend.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { StoreConfig } from '../../src/storage/config.ts';
import { ShardRouter } from '../../shards/router.ts';
import { ShardCallError } from '../../shards/shard-handle.ts';
import { CollectingSink, configMapBytes, podBytes, testResources, type ParsedEvent } from '../support/shard-fixtures.ts';
import { seededRandom } from '../support/seeded-random.ts';

export interface BackendFixture {
  config: StoreConfig;
  cleanup(): Promise<void>;
}

const decodeItems = (items: Uint8Array): Array<{ metadata: { name: string; namespace?: string; resourceVersion: string }; data?: Record<string, string> }> =>
  JSON.parse(`[${Buffer.from(items).toString('utf8')}]`);

async function expectCode(p: Promise<unknown>, code: string): Promise<ShardCallError> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof ShardCallError, `expected ShardCallError, got ${String(err)}`);
    assert.equal(err.error.code, code, err.message);
    return err;
  }
  assert.fail(`expected ${code}`);
}

export function runShardSuite(name: string, makeBackend: () => Promise<BackendFixture>): void {
  describe(`shards over ${name}`, () => {
    let backend: BackendFixture;
    let router: ShardRouter;
    let ns = 0;
    const freshNs = (): string => `ns${++ns}-${Date.now() % 100000}`;

    before(async () => {
      backend = await makeBackend();
      router = await ShardRouter.start({
        shards: 2,
        resources: testResources,
        store: backend.config,
        runtime: { tooLargeWaitMs: 300, bookmarkIntervalMs: 60_000 },
      });
    });
    after(async () => {
      await router?.close();
      await backend?.cleanup();
    });

    it('places resources on shards by hash and serves writes with consistent reads after them', async () => {
      assert.equal(router.shardCount, 2);
      const n = freshNs();
      const created = await router.create('/pods', `/pods/${n}/a`, podBytes(n, 'a'));
      const obj = JSON.parse(Buffer.from(created.json).toString());
      assert.equal(obj.metadata.resourceVersion, String(created.revision));
      const got = await router.get('/pods', `/pods/${n}/a`, { kind: 'latest' });
      assert.equal(got.object!.revision, created.revision, 'a consistent read sees the acknowledged write');
      const list = await router.list('/pods', { kind: 'latest' }, { namespace: n });
      assert.equal(list.count, 1);
      assert.ok(list.revision >= created.revision);
      assert.deepEqual(decodeItems(list.items).map((o) => o.metadata.name), ['a']);
    });

    it('carries typed storage errors across the thread hop', async () => {
      const n = freshNs();
      const v1 = await router.create('/configmaps', `/configmaps/${n}/c`, configMapBytes(n, 'c', { k: '1' }));
      await expectCode(router.create('/configmaps', `/configmaps/${n}/c`, configMapBytes(n, 'c', {})), 'AlreadyExists');
      const v2 = await router.update('/configmaps', `/configmaps/${n}/c`, configMapBytes(n, 'c', { k: '2' }), v1.revision);
      const conflict = await expectCode(
        router.update('/configmaps', `/configmaps/${n}/c`, configMapBytes(n, 'c', { k: '3' }), v1.revision),
        'Conflict',
      );
      assert.equal(conflict.error.code === 'Conflict' && conflict.error.current?.modRevision, v2.revision);
      await expectCode(router.delete('/configmaps', `/configmaps/${n}/missing`), 'NotFound');
      await expectCode(router.list('/pods', { kind: 'latest' }, { labelSelector: 'a in (' }), 'BadRequest');
      await expectCode(router.list('/pods', { kind: 'notOlderThan', revision: v2.revision + 1_000_000 }, {}), 'FutureRevision');
    });

    it('lists exact snapshots and pages that do not move under later writes', async () => {
      const n = freshNs();
      let last = 0;
      for (let i = 0; i < 7; i++) last = (await router.create('/configmaps', `/configmaps/${n}/c${i}`, configMapBytes(n, `c${i}`, { v: '1' }))).revision;
      const page1 = await router.list('/configmaps', { kind: 'latest' }, { namespace: n }, { limit: 3 });
      assert.deepEqual(decodeItems(page1.items).map((o) => o.metadata.name), ['c0', 'c1', 'c2']);
      assert.equal(page1.remaining, 4);
      assert.equal(page1.lastKey, `/configmaps/${n}/c2`);
      // Writes between pages: an update, a delete, a create.
      const c4 = await router.get('/configmaps', `/configmaps/${n}/c4`, { kind: 'latest' });
      await router.update('/configmaps', `/configmaps/${n}/c4`, configMapBytes(n, 'c4', { v: '2' }), c4.object!.revision);
      await router.delete('/configmaps', `/configmaps/${n}/c5`);
      await router.create('/configmaps', `/configmaps/${n}/c3a`, configMapBytes(n, 'c3a', {}));
      const page2 = await router.list(
        '/configmaps',
        { kind: 'exact', revision: page1.revision },
        { namespace: n },
        { limit: 3, startKey: page1.lastKey + '\0' },
      );
      const items = decodeItems(page2.items);
      assert.deepEqual(items.map((o) => o.metadata.name), ['c3', 'c4', 'c5']);
      assert.equal(items[1]!.data!['v'], '1', 'the snapshot shows the value before the update');
      assert.equal(page2.revision, page1.revision);
      assert.ok(page1.revision >= last);
      const now = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      assert.deepEqual(decodeItems(now.items).map((o) => o.metadata.name), ['c0', 'c1', 'c2', 'c3', 'c3a', 'c4', 'c6']);
    });

    it('shares one large list answer between clients asking for the same revision, and builds a new one after a write', async () => {
      const n = freshNs();
      for (let i = 0; i < 300; i++) await router.create('/configmaps', `/configmaps/${n}/c${String(i).padStart(3, '0')}`, configMapBytes(n, `c${i}`, { fill: 'x'.repeat(1000) }));
      const first = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      assert.ok(first.items.buffer instanceof ArrayBuffer, 'the first ask is moved, not kept');
      const a = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      const b = await router.list('/configmaps', { kind: 'any' }, { namespace: n });
      assert.equal(a.count, 300);
      assert.ok(a.items.byteLength > 256 * 1024, `${a.items.byteLength} bytes: large enough to share`);
      assert.ok(a.items.buffer instanceof SharedArrayBuffer, 'asked again: built shared');
      assert.ok(Buffer.from(first.items).equals(Buffer.from(a.items)), 'the same answer');
      assert.equal(a.revision, b.revision);
      // The same memory: a byte changed through one view shows through the other.
      const saved = a.items[0]!;
      a.items[0] = 0x20;
      assert.equal(b.items[0], 0x20, 'both replies view one buffer');
      a.items[0] = saved;
      await router.create('/configmaps', `/configmaps/${n}/zzz`, configMapBytes(n, 'zzz', {}));
      await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      const c = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      assert.equal(c.count, 301, 'a write makes a new answer');
      assert.ok(c.items.buffer instanceof SharedArrayBuffer);
      c.items[0] = 0x20;
      assert.equal(a.items[0], saved, 'the new answer has memory of its own');
      const small = await router.list('/configmaps', { kind: 'latest' }, { namespace: n, name: 'c1' });
      assert.ok(small.items.buffer instanceof ArrayBuffer, 'small answers are moved, not shared');
    });

    it('lists in Protobuf: each item framed as the list message field 2', async () => {
      const n = freshNs();
      for (const name of ['p1', 'p2']) await router.create('/configmaps', `/configmaps/${n}/${name}`, configMapBytes(n, name, { k: name }));
      const json = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      const pb = await router.list('/configmaps', { kind: 'exact', revision: json.revision }, { namespace: n }, { encoding: 'protobuf' });
      assert.equal(pb.encoding, 'protobuf');
      assert.equal(pb.count, 2);
      const { encodeMessageBytes, listItemHeader } = await import('../../src/protobuf/index.ts');
      const expected = Buffer.concat(
        decodeItems(json.items).map((o) => {
          const m = encodeMessageBytes(o as unknown as Parameters<typeof encodeMessageBytes>[0], { group: '', version: 'v1', kind: 'ConfigMap' });
          return Buffer.concat([listItemHeader(m.length), m]);
        }),
      );
      assert.ok(Buffer.from(pb.items).equals(expected), 'items byte-identical to the reference encoder');
    });

    it('filters lists and watches by label and field selectors', async () => {
      const n = freshNs();
      const sink = new CollectingSink();
      const start = (await router.list('/pods', { kind: 'latest' }, { namespace: n })).revision;
      const w = router.watch(
        { resource: '/pods', start: { kind: 'from', revision: start }, filter: { namespace: n, labelSelector: 'app=web' }, encoding: 'json', bookmarks: false, initialEventsEnd: false },
        sink,
      );
      const p1 = await router.create('/pods', `/pods/${n}/p1`, podBytes(n, 'p1', {}, { app: 'web' }));
      await router.create('/pods', `/pods/${n}/p2`, podBytes(n, 'p2', {}, { app: 'db' }));
      await router.update('/pods', `/pods/${n}/p1`, podBytes(n, 'p1', {}, { app: 'db' }), p1.revision);
      await sink.until(() => sink.changes.length >= 2, 'ADDED then DELETED by transition');
      assert.deepEqual(sink.changes.map((e) => `${e.type} ${e.name}`), ['ADDED p1', 'DELETED p1']);
      const web = await router.list('/pods', { kind: 'latest' }, { namespace: n, fieldSelector: 'metadata.name=p2' });
      assert.deepEqual(decodeItems(web.items).map((o) => o.metadata.name), ['p2']);
      w.close();
    });

    it('starts watches with the initial state and a bookmark ending it', async () => {
      const n = freshNs();
      await router.create('/pods', `/pods/${n}/a`, podBytes(n, 'a'));
      await router.create('/pods', `/pods/${n}/b`, podBytes(n, 'b'));
      const sink = new CollectingSink();
      const w = router.watch(
        { resource: '/pods', start: { kind: 'initial', read: { kind: 'latest' } }, filter: { namespace: n }, encoding: 'json', bookmarks: true, initialEventsEnd: true },
        sink,
      );
      await sink.until(() => sink.events.length >= 3, 'initial events');
      assert.deepEqual(sink.events.map((e) => `${e.type} ${e.name}`), ['ADDED a', 'ADDED b', 'BOOKMARK ']);
      assert.equal(sink.events[2]!.object.metadata.annotations!['orch.io/initial-events-end'], 'true');
      await router.create('/pods', `/pods/${n}/c`, podBytes(n, 'c'));
      await sink.until(() => sink.changes.length >= 3, 'live event');
      assert.equal(sink.changes[2]!.name, 'c');
      w.close();
    });

    it('fans one prefix out to 1,000 watchers, each getting every event once, in order', async () => {
      const n = freshNs();
      const start = (await router.list('/configmaps', { kind: 'latest' }, { namespace: n })).revision;
      const sinks = Array.from({ length: 1000 }, () => new CollectingSink());
      const watches = sinks.map((s) =>
        router.watch({ resource: '/configmaps', start: { kind: 'from', revision: start }, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false }, s),
      );
      const revs: number[] = [];
      await Promise.all(
        Array.from({ length: 20 }, async (_, i) => {
          revs.push((await router.create('/configmaps', `/configmaps/${n}/f${i}`, configMapBytes(n, `f${i}`, {}))).revision);
        }),
      );
      revs.sort((a, b) => a - b);
      for (const s of sinks) await s.until(() => s.changes.length >= 20, 'all 20 events');
      for (const s of sinks) assert.deepEqual(s.changes.map((e) => e.revision), revs);
      for (const w of watches) w.close();
    });

    it('keeps every watcher gap-free and duplicate-free across a shard restart', async () => {
      const n = freshNs();
      const start = (await router.list('/configmaps', { kind: 'latest' }, { namespace: n })).revision;
      const sink = new CollectingSink();
      const w = router.watch({ resource: '/configmaps', start: { kind: 'from', revision: start }, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false }, sink);
      const acked: number[] = [];
      let stop = false;
      const writer = (async () => {
        for (let i = 0; !stop; i++) {
          try {
            acked.push((await router.create('/configmaps', `/configmaps/${n}/r${i}`, configMapBytes(n, `r${i}`, {}))).revision);
          } catch (err) {
            // Requests in flight during the restart fail with Unavailable; that write may or may not have landed.
            if (!(err instanceof ShardCallError) || err.error.code !== 'Unavailable') throw err;
          }
        }
      })();
      await sink.until(() => sink.changes.length >= 20, 'events before restart');
      await router.shardOf('/configmaps').restart();
      const countAfterRestart = acked.length;
      await sink.until(() => acked.length >= countAfterRestart + 20, 'writes after restart');
      stop = true;
      await writer;
      // The authoritative history: every configmap in the namespace now (creates only, so one event each).
      const final = await router.list('/configmaps', { kind: 'latest' }, { namespace: n });
      const expected = decodeItems(final.items).map((o) => Number(o.metadata.resourceVersion)).sort((a, b) => a - b);
      await sink.until(() => sink.changes.length >= expected.length, 'every event');
      assert.equal(sink.ended, null, 'the watch survived the restart');
      assert.deepEqual(sink.changes.map((e) => e.revision), expected, 'each event exactly once, in order');
      for (const r of acked) assert.ok(expected.includes(r), `acknowledged write ${r} was delivered`);
      w.close();
    });

    it('matches every watcher against the history under random concurrent writers (randomized)', async () => {
      const seed = Number(process.env['ORDERING_SEED'] ?? Date.now() % 1_000_000);
      const rand = seededRandom(seed);
      const n = freshNs();
      const resources = ['/configmaps', '/pods'] as const;
      const prefix = { '/configmaps': '/configmaps/', '/pods': '/pods/' } as const;
      type Entry = { rev: number; type: 'ADDED' | 'MODIFIED' | 'DELETED'; key: string };
      const history: Record<string, Entry[]> = { '/configmaps': [], '/pods': [] };
      const live = new Map<string, number>(); // key -> modRevision
      const watchers: { resource: string; start: number; sink: CollectingSink; close(): void }[] = [];
      const startWatcher = async (): Promise<void> => {
        const resource = resources[Math.floor(rand() * 2)]!;
        const start = (await router.list(resource, { kind: 'latest' }, { namespace: n }, { limit: 1 })).revision;
        const sink = new CollectingSink();
        const h = router.watch({ resource, start: { kind: 'from', revision: start }, filter: { namespace: n }, encoding: 'json', bookmarks: false, initialEventsEnd: false }, sink);
        watchers.push({ resource, start, sink, close: h.close });
      };
      const writer = async (w: number): Promise<void> => {
        for (let i = 0; i < 60; i++) {
          const resource = resources[Math.floor(rand() * 2)]!;
          const key = `${prefix[resource]}${n}/k${Math.floor(rand() * 8)}`;
          const name = key.slice(key.lastIndexOf('/') + 1);
          const bytes = resource === '/pods' ? podBytes(n, name, { w, i }) : configMapBytes(n, name, { w: String(w), i: String(i) });
          const cur = live.get(key);
          try {
            if (cur === undefined) {
              const res = await router.create(resource, key, bytes);
              live.set(key, res.revision);
              history[resource]!.push({ rev: res.revision, type: 'ADDED', key });
            } else if (rand() < 0.3) {
              const res = await router.delete(resource, key, cur);
              live.delete(key);
              history[resource]!.push({ rev: res.revision, type: 'DELETED', key });
            } else {
              const res = await router.update(resource, key, bytes, cur);
              live.set(key, res.revision);
              history[resource]!.push({ rev: res.revision, type: 'MODIFIED', key });
            }
          } catch (err) {
            // Another writer got there first: AlreadyExists, Conflict or NotFound. Learn the current state.
            if (!(err instanceof ShardCallError) || !['AlreadyExists', 'Conflict', 'NotFound'].includes(err.error.code)) throw err;
          }
          if (rand() < 0.05) await startWatcher();
        }
      };
      await startWatcher();
      await startWatcher();
      // Writers race on shared keys; `live` is only advisory, so failed CAS is expected.
      await Promise.all(Array.from({ length: 6 }, (_, w) => writer(w)));
      for (const r of resources) history[r]!.sort((a, b) => a.rev - b.rev);
      for (const w of watchers) {
        const expected = history[w.resource]!.filter((e) => e.rev > w.start);
        await w.sink.until(() => w.sink.changes.length >= expected.length, `watcher from ${w.start} (seed ${seed})`);
        await new Promise((r) => setTimeout(r, 50));
        const got = w.sink.changes.map((e: ParsedEvent) => `${e.type} ${e.revision}`);
        assert.deepEqual(got, expected.map((e) => `${e.type} ${e.rev}`), `seed ${seed}: stream equals history`);
        w.close();
      }
      assert.ok(watchers.length >= 2);
    });
  });
}
