/**
 * Resource types served on demand (custom resources): `ensureResource` makes
 * the shard the type hashes to load and serve it; the same spec again is a
 * no-op that keeps watchers; a restarted shard thread is asked again, so reads
 * and watchers carry on; a type nobody ensured is NotServed.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRouter } from '../../shards/router.ts';
import { ShardCallError } from '../../shards/shard-handle.ts';
import { CollectingSink, testResources } from '../support/shard-fixtures.ts';
import type { ResourceSpec } from '../../shards/protocol.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';

const WIDGETS: ResourceSpec = { groupResource: 'example.com/widgets', prefix: '/example.com/widgets/', namespaced: true, kind: 'Widget', apiVersion: 'example.com/v1', cacheSize: 100 };
const widget = (name: string): Uint8Array => serializeForStorage({ apiVersion: 'example.com/v1', kind: 'Widget', metadata: { name, namespace: 'default' }, spec: { n: 1 } });

describe('shards: resource types ensured at run time', () => {
  let dir: string;
  let router: ShardRouter;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-ensure-'));
    router = await ShardRouter.start({ shards: 2, resources: testResources, store: { backend: 'embedded', dataDir: dir }, runtime: { tooLargeWaitMs: 300 } });
  });
  after(async () => {
    await router?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('refuses a type nobody ensured, then serves it once ensured', async () => {
    await assert.rejects(router.get(WIDGETS.groupResource, '/example.com/widgets/default/a', { kind: 'any' }), (err: unknown) => err instanceof ShardCallError && err.error.code === 'NotServed');
    await router.ensureResource(WIDGETS);
    await router.create(WIDGETS.groupResource, '/example.com/widgets/default/a', widget('a'));
    const list = await router.list(WIDGETS.groupResource, { kind: 'latest' }, { namespace: 'default' });
    assert.equal(list.count, 1);
  });

  it('keeps watchers when the same spec is ensured again, and across a shard restart', async () => {
    const sink = new CollectingSink();
    const w = router.watch({ resource: WIDGETS.groupResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: false }, sink);
    await sink.until(() => sink.changes.length >= 1, 'the initial event');
    await router.ensureResource({ ...WIDGETS, cacheSize: 500 });
    await router.create(WIDGETS.groupResource, '/example.com/widgets/default/b', widget('b'));
    await sink.until(() => sink.changes.length >= 2, 'b');
    await router.shardOf(WIDGETS.groupResource).restart();
    const got = await router.get(WIDGETS.groupResource, '/example.com/widgets/default/b', { kind: 'latest' });
    assert.ok(got.object !== null, 'served again by the restarted thread');
    await router.create(WIDGETS.groupResource, '/example.com/widgets/default/c', widget('c'));
    await sink.until(() => sink.changes.some((c) => c.name === 'c'), 'c after the restart');
    assert.equal(sink.ended, null);
    assert.deepEqual(sink.changes.map((c) => c.name), ['a', 'b', 'c']);
    w.close();
  });
});
