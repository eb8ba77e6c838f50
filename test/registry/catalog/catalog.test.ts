/**
 * Catalog sanity and the discovery facts of the original (v1.32) that
 * clients depend on: short names, categories, scopes, verbs, subresources.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { builtinResourceTypes } from '../../../src/registry/catalog/index.ts';
import { ALL_VERBS, type ResourceTypeDef } from '../../../src/registry/resource-type.ts';
import type { KObject } from '../../../src/registry/object.ts';
import type { StrategyContext } from '../../../src/registry/strategy.ts';

import { olderVersionTypes } from '../../../src/registry/catalog/older-versions.ts';
import { autoscalingV1Types } from '../../../src/registry/catalog/autoscaling-v1.ts';
import { flowcontrolTypes } from '../../../src/registry/catalog/flowcontrol.ts';

/** The v1.25-era versions (spec 9.3) besides the v1.32 ones; test/versions/ covers them. */
const older = new Set<ResourceTypeDef>([...olderVersionTypes, ...autoscalingV1Types, ...flowcontrolTypes]);
const all = builtinResourceTypes;
/** The types the original v1.32 serves: what its discovery facts below are about. */
const types = builtinResourceTypes.filter((t) => !older.has(t));
const gvr = (t: ResourceTypeDef): string => `${t.group}/${t.version}/${t.resource}`;

function find(group: string, resource: string): ResourceTypeDef {
  const t = types.find((x) => x.group === group && x.resource === resource);
  assert.ok(t, `${group}/${resource} is in the catalog`);
  return t;
}

describe('catalog sanity', () => {
  it('serves each group/version/resource once', () => {
    const keys = all.map(gvr);
    assert.equal(new Set(keys).size, keys.length);
    // 45 stored or action types and the 8 access reviews (4 kinds, v1 and v1beta1).
    assert.equal(types.length, 53);
    // autoscaling/v1 HPAs, flowcontrol v1beta2 (2), and 12 older versions of spec 9.3.
    assert.equal(all.length, 53 + 15);
  });

  it('gives each short name to one storage', () => {
    const owner = new Map<string, string>();
    for (const t of all) {
      const storage = t.storageOf ? `${t.storageOf.group}/${t.storageOf.resource}` : `${t.group}/${t.resource}`;
      for (const s of t.shortNames ?? []) {
        // Core and events.orch.io events share `ev`, as in the original: same objects.
        const prev = owner.get(s);
        assert.ok(prev === undefined || prev === storage, `short name ${s} used by ${prev} and ${storage}`);
        owner.set(s, storage);
      }
    }
  });

  it('names resources, kinds and singulars consistently', () => {
    for (const t of all) {
      assert.match(t.resource, /^[a-z]+$/, gvr(t));
      assert.match(t.kind, /^[A-Z][A-Za-z]+$/, gvr(t));
      assert.equal(t.singularName, t.kind.toLowerCase(), gvr(t));
      assert.ok(t.group === '' || t.group === 'apps' || t.group === 'batch' || t.group === 'policy' || t.group === 'autoscaling' || t.group.endsWith('.orch.io'), gvr(t));
      assert.ok(!t.group.includes('k8s.io') && !t.group.includes('kubernetes'), gvr(t));
    }
  });

  it('has well-formed subresources', () => {
    const known = new Set(['status', 'scale', 'finalize', 'approval', 'binding', 'eviction', 'ephemeralcontainers', 'token']);
    // Subresources whose body is another kind and that only accept a POST, as the original's discovery shows them.
    const posted: Record<string, [string, string | undefined, string | undefined]> = {
      binding: ['Binding', undefined, undefined],
      eviction: ['Eviction', 'policy', 'v1'],
      token: ['TokenRequest', 'authentication.orch.io', 'v1'],
    };
    for (const t of all) {
      const names = (t.subresources ?? []).map((s) => s.name);
      assert.equal(new Set(names).size, names.length, gvr(t));
      for (const s of t.subresources ?? []) {
        assert.ok(known.has(s.name), `${gvr(t)}/${s.name}`);
        assert.ok(s.verbs.length > 0 && s.verbs.every((v) => ALL_VERBS.includes(v)), `${gvr(t)}/${s.name}`);
        if (s.name === 'scale') assert.deepEqual([s.kind, s.group, s.version], ['Scale', 'autoscaling', 'v1']);
        else if (posted[s.name] !== undefined) assert.deepEqual([s.kind, s.group, s.version], posted[s.name]);
        else assert.equal(s.kind, t.kind, `${gvr(t)}/${s.name}`);
        if (s.name === 'finalize') assert.deepEqual(s.verbs, ['update']);
        else if (posted[s.name] !== undefined) assert.deepEqual(s.verbs, ['create']);
        else assert.deepEqual([...s.verbs], ['get', 'patch', 'update']);
      }
    }
  });

  it('lists only known verbs', () => {
    for (const t of all) for (const v of t.verbs ?? []) assert.ok(ALL_VERBS.includes(v), `${gvr(t)} ${v}`);
  });
});

describe('discovery facts of the original', () => {
  it('short names', () => {
    const expected: Record<string, string[]> = {
      '/namespaces': ['ns'], '/pods': ['po'], '/services': ['svc'], '/endpoints': ['ep'], '/configmaps': ['cm'], '/serviceaccounts': ['sa'],
      '/nodes': ['no'], '/events': ['ev'], '/persistentvolumes': ['pv'], '/persistentvolumeclaims': ['pvc'], '/limitranges': ['limits'],
      '/resourcequotas': ['quota'], '/replicationcontrollers': ['rc'], 'apps/deployments': ['deploy'], 'apps/replicasets': ['rs'],
      'apps/statefulsets': ['sts'], 'apps/daemonsets': ['ds'], 'batch/cronjobs': ['cj'], 'events.orch.io/events': ['ev'],
      'certificates.orch.io/certificatesigningrequests': ['csr'], 'storage.orch.io/storageclasses': ['sc'], 'networking.orch.io/ingresses': ['ing'],
      'networking.orch.io/networkpolicies': ['netpol'], 'policy/poddisruptionbudgets': ['pdb'], 'scheduling.orch.io/priorityclasses': ['pc'],
      'autoscaling/horizontalpodautoscalers': ['hpa'],
    };
    for (const t of types) assert.deepEqual(t.shortNames ?? [], expected[`${t.group}/${t.resource}`] ?? [], gvr(t));
  });

  it('the `all` category', () => {
    const all = types.filter((t) => t.categories?.includes('all')).map((t) => `${t.group}/${t.resource}`).sort();
    assert.deepEqual(all, [
      '/pods', '/replicationcontrollers', '/services', 'apps/daemonsets', 'apps/deployments', 'apps/replicasets', 'apps/statefulsets',
      'autoscaling/horizontalpodautoscalers', 'batch/cronjobs', 'batch/jobs',
    ]);
    assert.deepEqual(find('admissionregistration.orch.io', 'validatingwebhookconfigurations').categories, ['api-extensions']);
  });

  it('scopes', () => {
    const cluster = types.filter((t) => !t.namespaced && !t.resource.endsWith('reviews')).map((t) => t.resource).sort();
    assert.deepEqual(cluster, [
      'certificatesigningrequests', 'clusterrolebindings', 'clusterroles', 'csidrivers', 'csinodes', 'ingressclasses',
      'mutatingwebhookconfigurations', 'namespaces', 'nodes', 'persistentvolumes', 'priorityclasses', 'runtimeclasses', 'storageclasses',
      'validatingwebhookconfigurations', 'volumeattachments',
    ]);
  });

  it('subresources served', () => {
    const subs = (group: string, resource: string): string[] => (find(group, resource).subresources ?? []).map((s) => s.name).sort();
    assert.deepEqual(subs('', 'namespaces'), ['finalize', 'status']);
    assert.deepEqual(subs('', 'pods'), ['binding', 'ephemeralcontainers', 'eviction', 'status']);
    assert.deepEqual(subs('', 'replicationcontrollers'), ['scale', 'status']);
    assert.deepEqual(subs('apps', 'deployments'), ['scale', 'status']);
    assert.deepEqual(subs('apps', 'statefulsets'), ['scale', 'status']);
    assert.deepEqual(subs('apps', 'daemonsets'), ['status']);
    assert.deepEqual(subs('certificates.orch.io', 'certificatesigningrequests'), ['approval', 'status']);
    assert.deepEqual(subs('', 'configmaps'), []);
    assert.deepEqual(subs('networking.orch.io', 'networkpolicies'), []);
  });

  it('verbs: namespaces have no deletecollection; the deprecated bindings only create; the rest serve all eight', () => {
    assert.deepEqual(find('', 'namespaces').verbs, ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch']);
    assert.deepEqual(find('', 'bindings').verbs, ['create']);
    for (const t of types.filter((x) => x.resource.endsWith('accessreviews') || x.resource.endsWith('rulesreviews'))) assert.deepEqual(t.verbs, ['create'], gvr(t));
    for (const t of types.filter((x) => x.resource !== 'namespaces' && x.resource !== 'bindings' && !x.virtual)) assert.equal(t.verbs, undefined, gvr(t));
  });

  it('name rules', () => {
    assert.equal(find('', 'namespaces').nameRule, 'label');
    assert.equal(find('', 'services').nameRule, 'label');
    for (const r of ['roles', 'rolebindings', 'clusterroles', 'clusterrolebindings']) assert.equal(find('rbac.authorization.orch.io', r).nameRule, 'path-segment');
    assert.equal(find('apps', 'deployments').nameRule, undefined);
  });

  it('PUT creates only where the original allows it', () => {
    const creates = types.filter((t) => t.allowCreateOnUpdate).map(gvr).sort();
    assert.deepEqual(creates, [
      '/v1/endpoints', '/v1/events', '/v1/limitranges', '/v1/services', 'coordination.orch.io/v1/leases', 'events.orch.io/v1/events',
      'node.orch.io/v1/runtimeclasses', 'rbac.authorization.orch.io/v1/clusterrolebindings', 'rbac.authorization.orch.io/v1/clusterroles',
      'rbac.authorization.orch.io/v1/rolebindings', 'rbac.authorization.orch.io/v1/roles',
    ]);
  });

  it('generation is kept where the original keeps it', () => {
    const tracked = types.filter((t) => t.tracksGeneration).map((t) => t.resource).sort();
    assert.deepEqual(tracked, [
      'cronjobs', 'daemonsets', 'deployments', 'endpointslices', 'ingressclasses', 'ingresses', 'jobs', 'mutatingwebhookconfigurations',
      'networkpolicies', 'poddisruptionbudgets', 'podtemplates', 'replicasets', 'replicationcontrollers', 'statefulsets',
      'validatingwebhookconfigurations',
    ]);
  });

  it('events.orch.io events live in the core events storage', () => {
    assert.deepEqual(find('events.orch.io', 'events').storageOf, { group: '', resource: 'events' });
  });
});

describe('strategies survive odd bodies', () => {
  const ctx: StrategyContext = { user: undefined, now: '2025-01-01T00:00:00Z', dryRun: false, subresource: '' };
  const bodies = (): KObject[] => [
    { metadata: { name: 'x', namespace: 'default' } },
    { metadata: { name: 'x', namespace: 'default' }, spec: null, status: 'junk', data: 7, template: [] },
    { metadata: { name: 'x', namespace: 'default' }, spec: { containers: 'no', template: { spec: { containers: [null, 3] } }, ports: [null] } },
  ];

  it('create and update hooks never throw, whatever the body', () => {
    for (const t of types) {
      const s = t.strategy;
      if (!s) continue;
      for (const body of bodies()) {
        assert.doesNotThrow(() => {
          s.defaults?.(body);
          s.prepareForCreate?.(body, ctx);
          s.validate?.(body, ctx);
          const next = structuredClone(body);
          s.defaults?.(next);
          s.prepareForUpdate?.(next, body, ctx);
          s.validateUpdate?.(next, body, ctx);
        }, gvr(t));
      }
    }
  });
});
