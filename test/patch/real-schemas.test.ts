/**
 * Strategic merge patch with our declared schemas (src/openapi/types): the
 * merge keys and strategies the original's types carry reach the merge
 * through `schemaLookupFor`. Expected orders are what the original's
 * algorithm gives (a new list item without `$setElementOrder` goes before
 * the items only the server has).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { f, S, type StructDecl } from '../../src/openapi/schema-dsl.ts';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { ALL_TYPES } from '../../src/openapi/types/index.ts';
import { applyStrategicMergePatch, lookupPath, PatchError, schemaLookupFor, type SchemaLookup } from '../../src/patch/index.ts';
import type { JsonObject } from '../../src/patch/json-value.ts';

const set = new SchemaSet(ALL_TYPES);
const kindSchema = (group: string, kind: string): SchemaLookup => schemaLookupFor(set, set.byKind({ group, version: 'v1', kind })!.name);
const podSchema = kindSchema('', 'Pod');
const deploymentSchema = kindSchema('apps', 'Deployment');

function pod(spec: JsonObject, metadata: JsonObject = {}): JsonObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default', ...metadata }, spec };
}

const smp = (doc: JsonObject, patch: JsonObject, schema: SchemaLookup = podSchema): JsonObject => applyStrategicMergePatch(doc, patch, schema);
const spec = (o: JsonObject): JsonObject => o['spec'] as JsonObject;
const containers = (o: JsonObject): JsonObject[] => spec(o)['containers'] as JsonObject[];

describe('schema lookup over the declared types', () => {
  it('reads merge keys and strategies from the declarations', () => {
    assert.deepEqual(lookupPath(podSchema, ['spec', 'containers']).meta, { strategies: ['merge'], mergeKey: 'name' });
    assert.deepEqual(lookupPath(podSchema, ['spec', 'containers', 'env']).meta, { strategies: ['merge'], mergeKey: 'name' });
    assert.deepEqual(lookupPath(podSchema, ['spec', 'containers', 'ports']).meta, { strategies: ['merge'], mergeKey: 'containerPort' });
    assert.deepEqual(lookupPath(podSchema, ['spec', 'volumes']).meta, { strategies: ['merge', 'retainKeys'], mergeKey: 'name' });
    assert.deepEqual(lookupPath(podSchema, ['spec', 'tolerations']).meta, { strategies: [], mergeKey: '' });
    assert.deepEqual(lookupPath(podSchema, ['metadata', 'finalizers']).meta, { strategies: ['merge'], mergeKey: '' });
    assert.deepEqual(lookupPath(deploymentSchema, ['spec', 'strategy']).meta, { strategies: ['retainKeys'], mergeKey: '' });
  });

  it('tells structs from maps, and finds fields of embedded structs', () => {
    assert.equal(lookupPath(podSchema, ['spec']).schema.kind, 'struct');
    assert.equal(lookupPath(podSchema, ['metadata', 'labels']).schema.kind, 'map');
    assert.equal(lookupPath(podSchema, ['spec', 'volumes', 'configMap']).schema.kind, 'struct');
  });

  it('an undeclared field of a declared struct is an error, as in the original', () => {
    assert.throws(() => podSchema.field('bogus'), { code: 500, message: 'unable to find api field in struct Pod for the json field "bogus"' });
    assert.throws(
      () => smp(pod({ bogus: { a: 1 } }), { spec: { bogus: { b: 2 } } }),
      (e: unknown) => e instanceof PatchError && e.message === 'unable to find api field in struct PodSpec for the json field "bogus"',
    );
  });

  it('a struct that keeps unknown fields merges them as plain maps', () => {
    const loose: StructDecl = { name: 'io.orch.test.Loose', description: 'Kept as sent.', fields: { name: f(S, 'Name.') }, preserveUnknownFields: true };
    const schema = schemaLookupFor(new SchemaSet([loose]), loose.name);
    assert.deepEqual(applyStrategicMergePatch({ extra: { a: 1, l: [1] } }, { extra: { b: 2, l: [2] } }, schema), { extra: { a: 1, b: 2, l: [2] } });
  });
});

describe('Pod', () => {
  const base = pod({
    containers: [
      { name: 'app', image: 'app:1', env: [{ name: 'A', value: '1' }, { name: 'B', value: '2' }], ports: [{ containerPort: 80, protocol: 'TCP' }] },
      { name: 'sidecar', image: 'proxy:1' },
    ],
    volumes: [{ name: 'data', emptyDir: {} }, { name: 'cfg', configMap: { name: 'cm' } }],
    tolerations: [{ key: 'a', operator: 'Exists' }, { key: 'b', operator: 'Exists' }],
  });

  it('merges containers by name', () => {
    const out = smp(base, { spec: { containers: [{ name: 'sidecar', image: 'proxy:2' }] } });
    assert.deepEqual(containers(out).map((c) => [c['name'], c['image']]), [['app', 'app:1'], ['sidecar', 'proxy:2']]);
    assert.deepEqual(containers(out)[0], containers(base)[0], 'the other container is untouched');
  });

  it('adds a container ahead of the server-only ones, or where $setElementOrder puts it', () => {
    const added = smp(base, { spec: { containers: [{ name: 'debug', image: 'busybox' }] } });
    assert.deepEqual(containers(added).map((c) => c['name']), ['debug', 'app', 'sidecar']);
    const ordered = smp(base, {
      spec: { '$setElementOrder/containers': [{ name: 'app' }, { name: 'sidecar' }, { name: 'debug' }], containers: [{ name: 'debug', image: 'busybox' }] },
    });
    assert.deepEqual(containers(ordered).map((c) => c['name']), ['app', 'sidecar', 'debug']);
  });

  it('deletes a container with $patch: delete', () => {
    const out = smp(base, { spec: { containers: [{ name: 'sidecar', $patch: 'delete' }] } });
    assert.deepEqual(containers(out).map((c) => c['name']), ['app']);
  });

  it('replaces the container list with $patch: replace', () => {
    const out = smp(base, { spec: { containers: [{ name: 'only', image: 'x' }, { $patch: 'replace' }] } });
    assert.deepEqual(containers(out), [{ name: 'only', image: 'x' }]);
  });

  it('merges env by name inside a container', () => {
    const out = smp(base, { spec: { containers: [{ name: 'app', env: [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }, { name: 'A', $patch: 'delete' }] }] } });
    const env = containers(out)[0]!['env'];
    assert.deepEqual(env, [{ name: 'B', value: 'two' }, { name: 'C', value: '3' }]);
  });

  it('merges ports by containerPort', () => {
    const out = smp(base, { spec: { containers: [{ name: 'app', ports: [{ containerPort: 80, name: 'http' }, { containerPort: 443, name: 'https' }] }] } });
    assert.deepEqual(containers(out)[0]!['ports'], [
      { containerPort: 80, protocol: 'TCP', name: 'http' },
      { containerPort: 443, name: 'https' },
    ]);
  });

  it('merges volumes by name, and $retainKeys clears the old source', () => {
    const merged = smp(base, { spec: { volumes: [{ name: 'data', hostPath: { path: '/d' } }] } });
    assert.deepEqual((spec(merged)['volumes'] as JsonObject[])[0], { name: 'data', emptyDir: {}, hostPath: { path: '/d' } });
    const retained = smp(base, { spec: { volumes: [{ name: 'data', hostPath: { path: '/d' }, $retainKeys: ['hostPath', 'name'] }] } });
    assert.deepEqual(spec(retained)['volumes'], [{ name: 'data', hostPath: { path: '/d' } }, { name: 'cfg', configMap: { name: 'cm' } }]);
  });

  it('replaces tolerations whole: the list is atomic', () => {
    const out = smp(base, { spec: { tolerations: [{ key: 'c', operator: 'Exists' }] } });
    assert.deepEqual(spec(out)['tolerations'], [{ key: 'c', operator: 'Exists' }]);
  });

  it('merges finalizers as a set and removes with $deleteFromPrimitiveList', () => {
    const withFinalizers = pod({ containers: [] }, { finalizers: ['a.example.com/x', 'b.example.com/y'] });
    const added = smp(withFinalizers, { metadata: { finalizers: ['b.example.com/y', 'c.example.com/z'] } });
    assert.deepEqual((added['metadata'] as JsonObject)['finalizers'], ['a.example.com/x', 'b.example.com/y', 'c.example.com/z']);
    const removed = smp(withFinalizers, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a.example.com/x'] } });
    assert.deepEqual((removed['metadata'] as JsonObject)['finalizers'], ['b.example.com/y']);
  });

  it('merges ownerReferences by uid', () => {
    const owned = pod({ containers: [] }, { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1' }] });
    const out = smp(owned, { metadata: { ownerReferences: [{ uid: 'u1', controller: true }] } });
    assert.deepEqual((out['metadata'] as JsonObject)['ownerReferences'], [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'u1', controller: true }]);
  });

  it('merges nodeSelector key by key: mapType only matters to server-side apply', () => {
    const out = smp(pod({ containers: [], nodeSelector: { zone: 'a' } }), { spec: { nodeSelector: { disk: 'ssd' } } });
    assert.deepEqual(spec(out)['nodeSelector'], { zone: 'a', disk: 'ssd' });
  });

  it('merges long lists without quadratic lookups per comparison', () => {
    const n = 5000;
    const env = Array.from({ length: n }, (_, i) => ({ name: `V${i}`, value: String(i) }));
    const big = pod({ containers: [{ name: 'app', image: 'x', env }] });
    const reversed = env.map((e) => ({ name: e.name })).reverse();
    const started = performance.now();
    const out = smp(big, { spec: { containers: [{ name: 'app', '$setElementOrder/env': reversed, env: [{ name: 'V0', value: 'zero' }] }] } });
    const elapsed = performance.now() - started;
    const merged = containers(out)[0]!['env'] as JsonObject[];
    assert.equal(merged.length, n);
    assert.deepEqual(merged[0], { name: `V${n - 1}`, value: String(n - 1) });
    assert.deepEqual(merged[n - 1], { name: 'V0', value: 'zero' });
    assert.ok(elapsed < 5000, `took ${elapsed} ms`);
  });

  it('a container without its merge key is the original 500', () => {
    assert.throws(() => smp(base, { spec: { containers: [{ image: 'foo' }] } }), { code: 500, message: 'map: map[image:foo] does not contain declared merge key: name' });
  });
});

describe('Deployment', () => {
  const deployment: JsonObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', labels: { app: 'web' } },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: 'web' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.25' }] } },
    },
  };

  it('merges template labels; null deletes one', () => {
    const out = smp(deployment, { spec: { template: { metadata: { labels: { version: 'v2', tier: null } } } } }, deploymentSchema);
    const template = spec(out)['template'] as JsonObject;
    assert.deepEqual((template['metadata'] as JsonObject)['labels'], { app: 'web', version: 'v2' });
    assert.deepEqual(template['spec'], { containers: [{ name: 'web', image: 'nginx:1.25' }] }, 'the pod spec is untouched');
  });

  it('$retainKeys on the strategy drops rollingUpdate when switching to Recreate', () => {
    const out = smp(deployment, { spec: { strategy: { $retainKeys: ['type'], type: 'Recreate' } } }, deploymentSchema);
    assert.deepEqual(spec(out)['strategy'], { type: 'Recreate' });
    assert.throws(() => smp(deployment, { spec: { strategy: { $retainKeys: ['type'], rollingUpdate: {} } } }, deploymentSchema), { code: 400, message: 'invalid patch format of retainKeys' });
  });

  it('merges a container of the template by name', () => {
    const out = smp(deployment, { spec: { template: { spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } } } }, deploymentSchema);
    assert.deepEqual((spec(out)['template'] as JsonObject)['spec'], { containers: [{ name: 'web', image: 'nginx:1.27' }] });
  });
});
