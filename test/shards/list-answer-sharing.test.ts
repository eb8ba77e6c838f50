/**
 * Shared list answers through real shards over the embedded store: an answer
 * is kept once asked for twice, found again by consistent reads while only
 * other types are written (the store's revision moves on, the type's state
 * does not), and dropped at the type's next write, the next answer carrying
 * it; the bytes are those a fresh build gives.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRouter } from '../../shards/router.ts';
import type { ListReply, ShardStats } from '../../shards/protocol.ts';
import { configMapBytes, podBytes, testResources } from '../support/shard-fixtures.ts';

const names = (items: Uint8Array): string[] => (JSON.parse(`[${Buffer.from(items).toString('utf8')}]`) as Array<{ metadata: { name: string } }>).map((o) => o.metadata.name);

describe('shared list answers', () => {
  let dir: string;
  let router: ShardRouter;
  let cacheOn: ShardRouter;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-list-share-'));
    router = await ShardRouter.start({
      shards: 1,
      resources: testResources,
      store: { backend: 'embedded', dataDir: dir },
      // Every answer is large enough to keep: the rules apply to these small ones.
      runtime: { tooLargeWaitMs: 2_000, listResultCache: { budgetBytes: 1 << 20, minEntryBytes: 1, maxEntryBytes: 1 << 20, ttlMs: 60_000, idleMs: 60_000 } },
    });
    cacheOn = router;
  });
  after(async () => {
    await router?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  const cacheStats = async (): Promise<NonNullable<ShardStats['listCache']>> => (await cacheOn.stats())[0]!.listCache!;
  const list = (read: { kind: 'latest' } | { kind: 'any' } = { kind: 'latest' }): Promise<ListReply> => router.list('/configmaps', read, { namespace: 'share' });

  it('serves repeated consistent reads of an unchanged type from one answer while other types are written, and rebuilds after its own write', async () => {
    for (let i = 0; i < 20; i++) await router.create('/configmaps', `/configmaps/share/c${String(i).padStart(2, '0')}`, configMapBytes('share', `c${String(i).padStart(2, '0')}`, { v: 'x'.repeat(100) }));
    const first = await list();
    const fresh = Buffer.from(first.items);
    assert.equal(first.count, 20);
    await list(); // the second ask: built shared and kept
    const kept = await cacheStats();
    assert.equal(kept.entries, 1, 'the answer is kept once asked for twice');

    // Another type's write moves the store's revision: a consistent read must reflect it, and still shares the answer.
    const pod = await router.create('/pods', '/pods/share/p', podBytes('share', 'p'));
    const afterPod = await list();
    assert.ok(afterPod.revision >= pod.revision, `the answer is as fresh as the store (${afterPod.revision} >= ${pod.revision})`);
    assert.deepEqual(Buffer.from(afterPod.items), fresh, 'the same bytes as a fresh build');
    const fromCache = await list({ kind: 'any' });
    assert.deepEqual(Buffer.from(fromCache.items), fresh);
    const hit = await cacheStats();
    assert.equal(hit.hits - kept.hits, 2, 'both reads found the kept answer');
    assert.equal(hit.entries, 1);

    // A write to the type supersedes the answer: the next read has the new object, and the old answer is gone.
    const added = await router.create('/configmaps', '/configmaps/share/c99', configMapBytes('share', 'c99', { v: 'y' }));
    const afterWrite = await list();
    assert.ok(afterWrite.revision >= added.revision);
    assert.equal(afterWrite.count, 21);
    assert.deepEqual(names(afterWrite.items).at(-1), 'c99');
    const dropped = await cacheStats();
    assert.equal(dropped.entries, 0, 'the superseded answer was dropped');
    assert.equal(dropped.bytes, 0);
    assert.equal(dropped.hits, hit.hits, 'no stale hit');

    // An update (same count, other bytes) is seen too.
    await router.update('/configmaps', '/configmaps/share/c00', configMapBytes('share', 'c00', { v: 'changed' }), (await router.get('/configmaps', '/configmaps/share/c00', { kind: 'latest' })).object!.revision);
    await list();
    const again = await list();
    assert.match(Buffer.from(again.items).toString('utf8'), /"v":"changed"/);
    const third = await list();
    assert.deepEqual(Buffer.from(third.items), Buffer.from(again.items));
    assert.equal((await cacheStats()).hits, dropped.hits + 1, 'the new state is shared in its turn');
  });
});
