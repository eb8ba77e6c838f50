/**
 * NamespaceLifecycle reads this thread's copy of the namespaces for an active
 * namespace (no thread hop per create, as the original reads its lister) and
 * looks up live whatever else it sees: a namespace absent from the copy, one
 * marked for deletion, or one whose DELETE this thread admitted a moment ago.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceLifecycleFactory, RecentNamespaceDeletes } from '../../src/admission/plugins/namespace-lifecycle.ts';
import type { AdmissionDeps } from '../../src/admission/plugin-table.ts';
import type { AdmissionLookup } from '../../src/admission/lookup.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

const ns = (name: string, terminating = false): KObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, ...(terminating ? { deletionTimestamp: '2026-11-28T00:00:00Z' } : {}) },
});

/** A lookup whose local copy (`copy`) and live state (`live`) can differ, counting reads past the copy. */
function lookup(copy: Map<string, KObject>, live: Map<string, KObject>): AdmissionLookup & { liveReads: number } {
  const l = {
    liveReads: 0,
    type: (group: string, version: string, resource: string) => (group === '' && version === 'v1' && resource === 'namespaces' ? rt.namespaces : undefined),
    async get(_rt: unknown, _namespace: string, name: string, opts?: { live?: boolean }) {
      if (opts?.live === true) {
        l.liveReads++;
        return live.get(name) ?? null;
      }
      const hit = copy.get(name);
      if (hit !== undefined) return hit;
      // The real lookup reads the owning shard on a miss of the copy: a read past the copy all the same.
      l.liveReads++;
      return live.get(name) ?? null;
    },
    list: async () => [],
  };
  return l as unknown as AdmissionLookup & { liveReads: number };
}

async function plugin(l: AdmissionLookup) {
  return namespaceLifecycleFactory.create({ lookup: l } as unknown as AdmissionDeps);
}

test('RecentNamespaceDeletes forgets a name after its TTL and holds a bounded number', () => {
  let now = 1000;
  const r = new RecentNamespaceDeletes(() => now, 30_000, 3);
  r.add('a');
  assert.equal(r.has('a'), true);
  now += 30_001;
  assert.equal(r.has('a'), false);
  for (const n of ['b', 'c', 'd', 'e']) r.add(n);
  assert.equal(r.has('b'), false, 'the oldest name went first');
  assert.deepEqual(['c', 'd', 'e'].map((n) => r.has(n)), [true, true, true]);
});

test('an active namespace in the local copy is answered without a live read', async () => {
  const l = lookup(new Map([['myns', ns('myns')]]), new Map([['myns', ns('myns')]]));
  const p = await plugin(l);
  for (let i = 0; i < 5; i++) await admitAndValidate(p, attrs({ object: pod(), namespace: 'myns' }));
  assert.equal(l.liveReads, 0);
});

test('a namespace the copy lacks, or holds as terminating, is read live', async () => {
  // Created a moment ago: not in the copy yet, live says it exists.
  const fresh = lookup(new Map(), new Map([['myns', ns('myns')]]));
  await admitAndValidate(await plugin(fresh), attrs({ object: pod(), namespace: 'myns' }));
  assert.ok(fresh.liveReads >= 1);
  // Terminating in the copy but already gone: 404, not 403.
  const gone = lookup(new Map([['myns', ns('myns', true)]]), new Map());
  const e = await rejection(admitAndValidate(await plugin(gone), attrs({ object: pod(), namespace: 'myns' })));
  assert.equal(e.code, 404);
  assert.equal(e.message, 'namespaces "myns" not found');
  // Terminating in both: the original's 403.
  const terminating = lookup(new Map([['myns', ns('myns', true)]]), new Map([['myns', ns('myns', true)]]));
  const t = await rejection(admitAndValidate(await plugin(terminating), attrs({ object: pod(), namespace: 'myns' })));
  assert.equal(t.code, 403);
  assert.match(t.message, /because it is being terminated/);
});

test('after admitting a namespace DELETE, creates in it are checked live although the copy still says Active', async () => {
  const copy = new Map([['myns', ns('myns')]]);
  const live = new Map([['myns', ns('myns')]]);
  const l = lookup(copy, live);
  const p = await plugin(l);
  await admitAndValidate(p, attrs({ rt: rt.namespaces, operation: 'DELETE', object: null, name: 'myns', namespace: '' }));
  live.set('myns', ns('myns', true)); // the deletion mark, not yet in the copy
  const e = await rejection(admitAndValidate(p, attrs({ object: pod(), namespace: 'myns' })));
  assert.equal(e.code, 403);
  assert.equal(l.liveReads, 1);
  // Other namespaces keep using the copy.
  copy.set('other', ns('other'));
  await admitAndValidate(p, attrs({ object: pod(), namespace: 'other' }));
  assert.equal(l.liveReads, 1);
});
