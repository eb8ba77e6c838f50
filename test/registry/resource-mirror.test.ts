/**
 * ResourceMirror: a thread's copy of a resource from a real shard's watch —
 * the initial state, then changes; objects frozen; the copy stays whole
 * across a restart of its watch.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ShardRouter } from '../../shards/router.ts';
import { ResourceMirror, type MirrorChange } from '../../src/registry/resource-mirror.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';
import { testResources } from '../support/shard-fixtures.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const namespaces = registry.lookup('', 'v1', 'namespaces')!;
const nsBytes = (name: string, labels: Record<string, string>): Uint8Array =>
  serializeForStorage({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } });

async function until(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  assert.fail(`timed out waiting for ${what}`);
}

describe('ResourceMirror over a real shard', () => {
  let dir: string;
  let router: ShardRouter;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-mirror-'));
    router = await ShardRouter.start({ shards: 1, resources: testResources, store: { backend: 'embedded', dataDir: dir }, runtime: { tooLargeWaitMs: 300, bookmarkIntervalMs: 60_000 } });
  });
  after(async () => {
    await router?.close();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('holds the initial state, then every change, with frozen objects', async () => {
    await router.create('/namespaces', '/namespaces/a', nsBytes('a', { team: 'x' }));
    await router.create('/namespaces', '/namespaces/b', nsBytes('b', {}));
    const mirror = new ResourceMirror(router, namespaces);
    const changes: MirrorChange[] = [];
    mirror.onChange((c) => changes.push(c));
    assert.equal(mirror.synced, false);
    assert.equal(mirror.get('', 'a'), undefined, 'nothing before the initial state');
    mirror.start();
    await mirror.ready;
    assert.equal(mirror.synced, true);
    assert.deepEqual(mirror.list().map((o) => o.metadata.name).sort(), ['a', 'b']);
    assert.equal(mirror.get('', 'a')?.metadata.labels?.['team'], 'x');
    assert.ok(Object.isFrozen(mirror.get('', 'a')!.metadata.labels), 'shared objects are frozen all the way down');
    assert.deepEqual(changes, [{ type: 'RESYNC' }]);

    const a = await router.get('/namespaces', '/namespaces/a', { kind: 'latest' });
    await router.update('/namespaces', '/namespaces/a', nsBytes('a', { team: 'y' }), a.object!.revision);
    await router.create('/namespaces', '/namespaces/c', nsBytes('c', {}));
    const b = await router.get('/namespaces', '/namespaces/b', { kind: 'latest' });
    await router.delete('/namespaces', '/namespaces/b', b.object!.revision);
    await until(() => mirror.get('', 'c') !== undefined && mirror.get('', 'b') === undefined && mirror.get('', 'a')?.metadata.labels?.['team'] === 'y', 'the changes');
    assert.deepEqual(
      changes.slice(1).map((c) => (c.type === 'RESYNC' ? c.type : `${c.type} ${c.name}`)),
      ['MODIFIED a', 'ADDED c', 'DELETED b'],
    );
    assert.equal(mirror.size, 2);
    mirror.close();
  });
});
