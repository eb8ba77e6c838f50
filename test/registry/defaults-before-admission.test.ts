/**
 * The scheme's defaulting runs before mutating admission (issue 14), as the
 * original's handler decodes AND defaults a body before admitting it: a
 * mutating plugin in a real chain over a real GenericStore sees a pod with
 * its container, spec and pod-only defaults, and a Deployment whose
 * template is defaulted, on create and on update. The type's create rules
 * (status reset, the priority fallback) still come after admission, and
 * the stored objects are the same with and without the plugin.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ObjectBytes, ReadMode } from '../../shards/protocol.ts';
import { ShardCallError } from '../../shards/shard-handle.ts';
import { AdmissionChain } from '../../src/admission/chain.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../../src/admission/types.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { GenericStore, parseObject, type WriteOptions } from '../../src/registry/generic-store.ts';
import { cloneJson, type KObject } from '../../src/registry/object.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
function rt(group: string, version: string, resource: string): ResourceType {
  const t = registry.lookup(group, version, resource);
  assert.ok(t, `${group}/${version}/${resource}`);
  return t;
}
const PODS = rt('', 'v1', 'pods');
const DEPLOYMENTS = rt('apps', 'v1', 'deployments');

/** An in-memory shard: enough of ShardAccess for create, get and compare-and-swap update. */
function memoryShard(): ShardAccess {
  const data = new Map<string, { json: Uint8Array; revision: number }>();
  let rev = 1;
  const stamp = (bytes: Uint8Array, revision: number): Uint8Array => {
    const o = parseObject(bytes);
    o.metadata.resourceVersion = String(revision);
    return new TextEncoder().encode(JSON.stringify(o));
  };
  const shard = {
    async get(resource: string, key: string, _read: ReadMode) {
      const v = data.get(`${resource}/${key}`);
      return { object: v === undefined ? null : ({ json: v.json, revision: v.revision } as ObjectBytes), revision: rev };
    },
    async create(resource: string, key: string, value: Uint8Array) {
      const k = `${resource}/${key}`;
      if (data.has(k)) throw new ShardCallError({ code: 'AlreadyExists', message: 'exists' } as never);
      const v = { json: stamp(value, ++rev), revision: rev };
      data.set(k, v);
      return v as ObjectBytes;
    },
    async update(resource: string, key: string, value: Uint8Array, expected: number) {
      const k = `${resource}/${key}`;
      const cur = data.get(k);
      if (cur === undefined || cur.revision !== expected) throw new ShardCallError({ code: 'Conflict', message: 'conflict' } as never);
      const v = { json: stamp(value, ++rev), revision: rev };
      data.set(k, v);
      return v as ObjectBytes;
    },
  };
  return shard as unknown as ShardAccess;
}

/** A mutating plugin that keeps a copy of every object it is shown and adds a label (so it visibly ran). */
function recorder(): { plugin: AdmissionPlugin; seen: KObject[] } {
  const seen: KObject[] = [];
  const plugin: AdmissionPlugin = {
    name: 'Recorder',
    handles: (t, sub) => (t === PODS || t === DEPLOYMENTS) && sub === '',
    admit(attrs: AdmissionAttributes) {
      assert.ok(attrs.object);
      seen.push(cloneJson(attrs.object));
      attrs.object.metadata.labels = { ...(attrs.object.metadata.labels ?? {}), admitted: 'yes' };
    },
  };
  return { plugin, seen };
}

const NO_ADMISSION = new AdmissionChain([]);
const opts: WriteOptions = { user: { name: 'alice', uid: '', groups: [] } as never, dryRun: false };
const decode = (b: Uint8Array): KObject => JSON.parse(new TextDecoder().decode(b)) as KObject;

function pod(): KObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', labels: { app: 'x' } },
    spec: { containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } }] },
  };
}

function deployment(): KObject {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'd' },
    spec: { selector: { matchLabels: { app: 'x' } }, template: { metadata: { labels: { app: 'x' } }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } } },
  };
}

type Container = Record<string, unknown>;
const podSpecOf = (o: KObject): Record<string, unknown> => o['spec'] as Record<string, unknown>;
const containerOf = (spec: Record<string, unknown>): Container => (spec['containers'] as Container[])[0]!;

test('a mutating plugin sees a defaulted pod on create; create rules still run after it', async () => {
  const { plugin, seen } = recorder();
  const store = new GenericStore(memoryShard(), new AdmissionChain([plugin]));
  const res = await store.create(PODS, 'default', pod(), opts);
  assert.equal(res.status, 201);
  assert.equal(seen.length, 1);
  const spec = podSpecOf(seen[0]!);
  const c = containerOf(spec);
  // SetDefaults_Container, _ContainerPort, SetDefaults_PodSpec, and the pod-only requests from limits.
  assert.equal(c['imagePullPolicy'], 'Always');
  assert.equal(c['terminationMessagePath'], '/dev/termination-log');
  assert.equal(c['terminationMessagePolicy'], 'File');
  assert.deepEqual(c['ports'], [{ containerPort: 80, protocol: 'TCP' }]);
  assert.deepEqual((c['resources'] as Record<string, unknown>)['requests'], { cpu: '1' });
  assert.equal(spec['restartPolicy'], 'Always');
  assert.equal(spec['dnsPolicy'], 'ClusterFirst');
  assert.equal(spec['schedulerName'], 'default-scheduler');
  assert.equal(spec['terminationGracePeriodSeconds'], 30);
  assert.equal(spec['enableServiceLinks'], true);
  // PrepareForCreate's work is not the plugin's to see: no status yet, no priority fallback.
  assert.equal(seen[0]!['status'], undefined);
  assert.equal(spec['priority'], undefined);
  const stored = decode(res.body);
  assert.equal(stored.metadata.labels?.['admitted'], 'yes');
  assert.equal((stored['status'] as Record<string, unknown>)['phase'], 'Pending');
  assert.equal(podSpecOf(stored)['priority'], 0);
});

test('a mutating plugin sees a defaulted Deployment and its defaulted pod template', async () => {
  const { plugin, seen } = recorder();
  const store = new GenericStore(memoryShard(), new AdmissionChain([plugin]));
  assert.equal((await store.create(DEPLOYMENTS, 'default', deployment(), opts)).status, 201);
  const spec = podSpecOf(seen[0]!);
  assert.equal(spec['replicas'], 1);
  assert.equal(spec['revisionHistoryLimit'], 10);
  assert.equal(spec['progressDeadlineSeconds'], 600);
  assert.deepEqual(spec['strategy'], { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
  const template = spec['template'] as { spec: Record<string, unknown> };
  assert.equal(template.spec['restartPolicy'], 'Always');
  assert.equal(template.spec['dnsPolicy'], 'ClusterFirst');
  assert.equal(containerOf(template.spec)['imagePullPolicy'], 'IfNotPresent');
  assert.equal(containerOf(template.spec)['terminationMessagePath'], '/dev/termination-log');
});

test('on update (PUT of an undefaulted body) the plugin sees the new object defaulted', async () => {
  const { plugin, seen } = recorder();
  const store = new GenericStore(memoryShard(), new AdmissionChain([plugin]));
  assert.equal((await store.create(DEPLOYMENTS, 'default', deployment(), opts)).status, 201);
  const body = deployment();
  (podSpecOf(body) as { template: { spec: { containers: Container[] } } }).template.spec.containers[0]!['image'] = 'nginx:latest';
  const res = await store.update(DEPLOYMENTS, 'default', 'd', body, opts);
  assert.equal(res.status, 200);
  assert.equal(seen.length, 2);
  const tpl = (podSpecOf(seen[1]!)['template'] as { spec: Record<string, unknown> }).spec;
  assert.equal(containerOf(tpl)['imagePullPolicy'], 'Always');
  assert.equal(tpl['restartPolicy'], 'Always');
  assert.equal(podSpecOf(seen[1]!)['replicas'], 1);
  assert.equal(decode(res.body).metadata.generation, 2);
});

test('without admission the stored objects are what they are with a plugin that only labels', async () => {
  const strip = (o: KObject): KObject => {
    const c = cloneJson(o);
    for (const k of ['uid', 'creationTimestamp', 'resourceVersion', 'labels', 'managedFields'] as const) delete c.metadata[k];
    return c;
  };
  for (const [t, make] of [[PODS, pod], [DEPLOYMENTS, deployment]] as const) {
    const plain = decode((await new GenericStore(memoryShard(), NO_ADMISSION).create(t, 'default', make(), opts)).body);
    const admitted = decode((await new GenericStore(memoryShard(), new AdmissionChain([recorder().plugin])).create(t, 'default', make(), opts)).body);
    assert.deepEqual(strip(admitted), strip(plain));
    // The defaults are in the stored object either way.
    assert.ok(JSON.stringify(plain).includes('"terminationMessagePath":"/dev/termination-log"'));
  }
});

test('a create copies the caller\'s body unless the caller hands it over (bodyOwned: a request\'s decoded body)', async () => {
  const kept = pod();
  const before = cloneJson(kept);
  const store = new GenericStore(memoryShard(), NO_ADMISSION);
  assert.equal((await store.create(PODS, 'default', kept, opts)).status, 201);
  assert.deepEqual(kept, before, 'a body the caller keeps is not changed');

  const given = pod();
  given.metadata.name = 'p2';
  const res = await store.create(PODS, 'default', given, { ...opts, bodyOwned: true });
  assert.equal(res.status, 201);
  assert.equal(typeof given.metadata.uid, 'string', 'a body handed over is changed in place, not copied');
  assert.equal(decode(res.body).metadata.uid, given.metadata.uid);
  // Either way the stored objects are the same.
  const a = decode((await new GenericStore(memoryShard(), NO_ADMISSION).create(PODS, 'default', pod(), opts)).body);
  const b = decode((await new GenericStore(memoryShard(), NO_ADMISSION).create(PODS, 'default', pod(), { ...opts, bodyOwned: true })).body);
  for (const o of [a, b]) {
    delete o.metadata.uid;
    delete o.metadata.creationTimestamp;
    delete o.metadata.managedFields;
  }
  assert.deepEqual(a, b);
});
