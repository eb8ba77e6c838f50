/**
 * ResourceQuota admission on the original's cases (plugin/pkg/admission/
 * resourcequota/admission_test.go), against an in-memory quota store with
 * compare-and-swap: charges, refusals and their messages, dry run, updates
 * charged by their growth, constraints, unknown status, scopes, storage
 * classes, object counts, retries on conflict, and the cost rule (no quota,
 * no promise).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QuotaEvaluator, type QuotaAccess } from '../../src/admission/plugins/resource-quota/index.ts';
import type { AdmissionAttributes, Operation } from '../../src/admission/types.ts';
import type { KObject } from '../../src/registry/object.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { StatusError, errors } from '../../src/api/status.ts';
import { STORAGE_CLASS_SUFFIX } from '../../src/admission/plugins/resource-quota/evaluators.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const rt = (group: string, version: string, resource: string) => registry.lookup(group, version, resource)!;

class MemoryQuotas implements QuotaAccess {
  readonly synced = true;
  readonly ready = Promise.resolve();
  quotas = new Map<string, KObject>();
  updates: KObject[] = [];
  /** Conflicts to answer before accepting writes (another server charged first). */
  conflicts = 0;
  constructor(...qs: KObject[]) {
    for (const q of qs) this.quotas.set(q.metadata.name!, q);
  }
  has(ns: string): boolean {
    return [...this.quotas.values()].some((q) => q.metadata.namespace === ns);
  }
  cached(ns: string): KObject[] {
    return [...this.quotas.values()].filter((q) => q.metadata.namespace === ns).map((q) => structuredClone(q));
  }
  async latest(ns: string): Promise<KObject[]> {
    return this.cached(ns);
  }
  async updateStatus(q: KObject): Promise<KObject> {
    const cur = this.quotas.get(q.metadata.name!)!;
    if (this.conflicts > 0) {
      this.conflicts--;
      // Someone else's charge: one more pod used, a new resourceVersion.
      const used = (cur['status'] as { used: Record<string, string> }).used;
      used['pods'] = String(Number(used['pods'] ?? '0') + 1);
      cur.metadata.resourceVersion = String(Number(cur.metadata.resourceVersion) + 1);
      throw errors.conflict('', 'resourcequotas', q.metadata.name!, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if (q.metadata.resourceVersion !== cur.metadata.resourceVersion) throw errors.conflict('', 'resourcequotas', q.metadata.name!, 'modified');
    const stored = { ...structuredClone(q), metadata: { ...q.metadata, resourceVersion: String(Number(cur.metadata.resourceVersion) + 1) } };
    this.quotas.set(q.metadata.name!, stored);
    this.updates.push(stored);
    return stored;
  }
}

function quota(hard: Record<string, string>, used: Record<string, string> | undefined, spec: Record<string, unknown> = {}, name = 'quota'): KObject {
  return {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: { name, namespace: 'test', resourceVersion: '124' },
    spec: { hard, ...spec },
    status: used === undefined ? { hard } : { hard, used },
  };
}

function pod(name: string, requests: Record<string, string> = {}, limits: Record<string, string> = {}, spec: Record<string, unknown> = {}): KObject {
  const resources: Record<string, unknown> = {};
  if (Object.keys(requests).length > 0) resources['requests'] = requests;
  if (Object.keys(limits).length > 0) resources['limits'] = limits;
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test' }, spec: { containers: [{ name: 'c', image: 'foo:V1', resources }], ...spec } };
}

function attrs(object: KObject | null, resource = rt('', 'v1', 'pods'), operation: Operation = 'CREATE', extra: Partial<AdmissionAttributes> = {}): AdmissionAttributes {
  return {
    operation,
    resourceType: resource,
    subresource: '',
    namespace: 'test',
    name: object?.metadata.name ?? '',
    object,
    oldObject: null,
    user: undefined,
    dryRun: false,
    options: undefined,
    warn: () => undefined,
    annotate: () => undefined,
    ...extra,
  };
}

async function admit(access: MemoryQuotas, a: AdmissionAttributes): Promise<void> {
  await new QuotaEvaluator(access).validate(a);
}

async function refusal(p: Promise<void>): Promise<string> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, 403);
    return err.message;
  }
  assert.fail('expected a refusal');
}

const used = (q: KObject | undefined): Record<string, string> => (q?.['status'] as { used: Record<string, string> }).used;

test('handles: creates of namespaced types, updates only of services and claims, never subresources, deletes, events or virtual types', () => {
  const plugin = new QuotaEvaluator(new MemoryQuotas()).plugin();
  const pods = rt('', 'v1', 'pods');
  assert.equal(plugin.handles!(pods, '', 'CREATE'), true);
  assert.equal(plugin.handles!(pods, '', 'DELETE'), false);
  assert.equal(plugin.handles!(pods, 'status', 'CREATE'), false);
  assert.equal(plugin.handles!(pods, '', 'UPDATE'), false);
  assert.equal(plugin.handles!(rt('', 'v1', 'services'), '', 'UPDATE'), true);
  assert.equal(plugin.handles!(rt('', 'v1', 'persistentvolumeclaims'), '', 'UPDATE'), true);
  assert.equal(plugin.handles!(rt('', 'v1', 'events'), '', 'CREATE'), false);
  assert.equal(plugin.handles!(rt('', 'v1', 'namespaces'), '', 'CREATE'), false);
  assert.equal(plugin.handles!(rt('apps', 'v1', 'deployments'), '', 'CREATE'), true);
});

test('a namespace without quota costs nothing: validate answers synchronously', () => {
  const ev = new QuotaEvaluator(new MemoryQuotas(quota({ pods: '1' }, { pods: '1' })));
  assert.equal(ev.validate({ ...attrs(pod('p')), namespace: 'elsewhere' }), undefined);
});

test('TestAdmitBelowQuotaLimit: the pod is charged on the quota', async () => {
  const access = new MemoryQuotas(quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' }));
  await admit(access, attrs(pod('allowed-pod', { cpu: '100m', memory: '2Gi' })));
  assert.equal(access.updates.length, 1);
  assert.deepEqual(used(access.updates[0]), { cpu: '1100m', memory: '52Gi', pods: '4' });
});

test('TestAdmitDryRun: checked, refused when too large, never charged', async () => {
  const access = new MemoryQuotas(quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' }));
  await admit(access, attrs(pod('allowed-pod', { cpu: '100m', memory: '2Gi' }), undefined, 'CREATE', { dryRun: true }));
  const msg = await refusal(admit(access, attrs(pod('too-large-pod', { cpu: '100m', memory: '60Gi' }), undefined, 'CREATE', { dryRun: true })));
  assert.equal(msg, 'pods "too-large-pod" is forbidden: exceeded quota: quota, requested: memory=60Gi, used: memory=50Gi, limited: memory=100Gi');
  assert.equal(access.updates.length, 0);
});

test('TestAdmitHandlesOldObjects: an update is charged by its growth only (load balancer to node port)', async () => {
  const access = new MemoryQuotas(
    quota({ services: '10', 'services.loadbalancers': '10', 'services.nodeports': '10' }, { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '0' }),
  );
  const old: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'service', namespace: 'test', resourceVersion: '1' }, spec: { type: 'LoadBalancer' } };
  const next: KObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'service', namespace: 'test' }, spec: { type: 'NodePort', ports: [{ port: 1234 }] } };
  await admit(access, attrs(next, rt('', 'v1', 'services'), 'UPDATE', { oldObject: old }));
  assert.deepEqual(used(access.updates[0]), { services: '1', 'services.loadbalancers': '1', 'services.nodeports': '1' });
});

test('TestAdmitExceedQuotaLimit: the message names the quota and only what is exceeded', async () => {
  const access = new MemoryQuotas(quota({ cpu: '3', memory: '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', pods: '3' }));
  const msg = await refusal(admit(access, attrs(pod('not-allowed-pod', { cpu: '3', memory: '2Gi' }))));
  assert.equal(msg, 'pods "not-allowed-pod" is forbidden: exceeded quota: quota, requested: cpu=3, used: cpu=1, limited: cpu=3');
});

test('TestAdmitEnforceQuotaConstraints: quota on cpu and memory requires every container to state them', async () => {
  const access = new MemoryQuotas(quota({ cpu: '3', memory: '100Gi', 'limits.cpu': '3', 'limits.memory': '100Gi', pods: '5' }, { cpu: '1', memory: '50Gi', 'limits.cpu': '2', 'limits.memory': '20Gi', pods: '3' }));
  const msg = await refusal(admit(access, attrs(pod('not-allowed-pod', { cpu: '100m', memory: '2Gi' }, { cpu: '200m' }))));
  assert.equal(msg, 'pods "not-allowed-pod" is forbidden: failed quota: quota: must specify limits.memory');
});

test('TestAdmitPodInNamespaceWithoutQuota: admitted without a write', async () => {
  const access = new MemoryQuotas(quota({ pods: '1' }, { pods: '1' }));
  await admit(access, { ...attrs(pod('p')), namespace: 'other' });
  assert.equal(access.updates.length, 0);
});

test('status unknown: a quota whose usage is not computed yet refuses', async () => {
  const access = new MemoryQuotas(quota({ cpu: '3', pods: '5' }, undefined));
  const msg = await refusal(admit(access, attrs(pod('p', { cpu: '1' }))));
  assert.equal(msg, 'pods "p" is forbidden: status unknown for quota: quota, resources: cpu,pods');
});

test('TestAdmitBelowBestEffortQuotaLimit / TestAdmitBestEffortQuotaLimitIgnoresBurstable: scopes pick the quota', async () => {
  const access = new MemoryQuotas(
    quota({ pods: '5' }, { pods: '3' }, { scopes: ['BestEffort'] }, 'quota-besteffort'),
    quota({ pods: '5' }, { pods: '3' }, { scopes: ['NotBestEffort'] }, 'quota-not-besteffort'),
  );
  await admit(access, attrs(pod('allowed-pod')));
  assert.equal(access.updates.length, 1);
  assert.equal(access.updates[0]!.metadata.name, 'quota-besteffort');
  assert.deepEqual(used(access.updates[0]), { pods: '4' });
  await admit(access, attrs(pod('burstable', { cpu: '100m' })));
  assert.equal(access.updates[1]!.metadata.name, 'quota-not-besteffort');
});

test('Terminating scope: only pods with activeDeadlineSeconds', async () => {
  const access = new MemoryQuotas(quota({ pods: '1' }, { pods: '1' }, { scopes: ['Terminating'] }));
  await admit(access, attrs(pod('long-running')));
  const msg = await refusal(admit(access, attrs(pod('job', {}, {}, { activeDeadlineSeconds: 60 }))));
  assert.match(msg, /exceeded quota: quota, requested: pods=1, used: pods=1, limited: pods=1$/);
});

test('PriorityClass scope selector: In, NotIn, Exists, DoesNotExist', async () => {
  const selector = (operator: string, values?: string[]) => ({ scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator, ...(values ? { values } : {}) }] } });
  const cases: Array<[string, string[] | undefined, string, boolean]> = [
    ['In', ['high'], 'high', true],
    ['In', ['high'], 'low', false],
    ['In', ['high'], '', false],
    ['NotIn', ['high'], 'low', true],
    ['NotIn', ['high'], '', true],
    ['NotIn', ['high'], 'high', false],
    ['Exists', undefined, 'low', true],
    ['Exists', undefined, '', false],
    ['DoesNotExist', undefined, '', true],
    ['DoesNotExist', undefined, 'low', false],
  ];
  for (const [op, values, cls, charged] of cases) {
    const access = new MemoryQuotas(quota({ pods: '5' }, { pods: '0' }, selector(op, values)));
    await admit(access, attrs(pod('p', {}, {}, cls ? { priorityClassName: cls } : {})));
    assert.equal(access.updates.length, charged ? 1 : 0, `${op} ${JSON.stringify(values)} with class "${cls}"`);
  }
});

test('CrossNamespacePodAffinity scope', async () => {
  const access = new MemoryQuotas(quota({ pods: '0' }, { pods: '0' }, { scopes: ['CrossNamespacePodAffinity'] }));
  await admit(access, attrs(pod('local')));
  const affinity = { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: 'zone', namespaces: ['other'] }] } } };
  const msg = await refusal(admit(access, attrs(pod('cross', {}, {}, affinity))));
  assert.match(msg, /exceeded quota: quota, requested: pods=1, used: pods=0, limited: pods=0$/);
});

test('TestAdmitBelowTerminatingQuotaLimitWhenPodScopeUpdated-style: init containers count as the largest one', async () => {
  const access = new MemoryQuotas(quota({ 'requests.cpu': '10' }, { 'requests.cpu': '0' }));
  const p = pod('p', { cpu: '1' });
  (p['spec'] as Record<string, unknown>)['initContainers'] = [{ name: 'i', image: 'x', resources: { requests: { cpu: '3' } } }];
  await admit(access, attrs(p));
  assert.deepEqual(used(access.updates[0]), { 'requests.cpu': '3' });
});

test('claims: requests.storage, per storage class, and the class count', async () => {
  const gold = `gold${STORAGE_CLASS_SUFFIX}`;
  const access = new MemoryQuotas(
    quota(
      { persistentvolumeclaims: '5', 'requests.storage': '10Gi', [`${gold}requests.storage`]: '5Gi', [`${gold}persistentvolumeclaims`]: '1' },
      { persistentvolumeclaims: '0', 'requests.storage': '0', [`${gold}requests.storage`]: '0', [`${gold}persistentvolumeclaims`]: '0' },
    ),
  );
  const claim = (name: string, cls: string, size: string): KObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'test' },
    spec: { storageClassName: cls, resources: { requests: { storage: size } } },
  });
  const pvcs = rt('', 'v1', 'persistentvolumeclaims');
  await admit(access, attrs(claim('a', 'gold', '1Gi'), pvcs));
  assert.deepEqual(used(access.updates[0]), { [`${gold}persistentvolumeclaims`]: '1', [`${gold}requests.storage`]: '1Gi', persistentvolumeclaims: '1', 'requests.storage': '1Gi' });
  const msg = await refusal(admit(access, attrs(claim('b', 'gold', '1Gi'), pvcs)));
  assert.equal(msg, `persistentvolumeclaims "b" is forbidden: exceeded quota: quota, requested: ${gold}persistentvolumeclaims=1, used: ${gold}persistentvolumeclaims=1, limited: ${gold}persistentvolumeclaims=1`);
  await admit(access, attrs(claim('c', 'silver', '2Gi'), pvcs));
  assert.equal(used(access.updates[1])['requests.storage'], '3Gi');
});

test('object counts: count/<resource>.<group> and the legacy aliases', async () => {
  const access = new MemoryQuotas(quota({ 'count/deployments.apps': '1', secrets: '5' }, { 'count/deployments.apps': '1', secrets: '0' }));
  const dep: KObject = { apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'test' } };
  const msg = await refusal(admit(access, attrs(dep, rt('apps', 'v1', 'deployments'))));
  assert.equal(msg, 'deployments.apps "d" is forbidden: exceeded quota: quota, requested: count/deployments.apps=1, used: count/deployments.apps=1, limited: count/deployments.apps=1');
  await admit(access, attrs({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 's', namespace: 'test' } }, rt('', 'v1', 'secrets')));
  assert.deepEqual(used(access.updates[0]), { 'count/deployments.apps': '1', secrets: '1' });
});

test('a generated name is reported as the generateName', async () => {
  const access = new MemoryQuotas(quota({ pods: '0' }, { pods: '0' }));
  const p = pod('');
  p.metadata = { generateName: 'web-', namespace: 'test' };
  const msg = await refusal(admit(access, attrs(p)));
  assert.match(msg, /^pods "web-" is forbidden: exceeded quota/);
});

test('a lost race re-reads the quota and checks again: admitted when it still fits, refused when it no longer does', async () => {
  const access = new MemoryQuotas(quota({ pods: '3' }, { pods: '1' }));
  access.conflicts = 1; // another server charged one pod meanwhile: used 2
  await admit(access, attrs(pod('p1')));
  assert.deepEqual(used(access.updates[0]), { pods: '3' });
  const tight = new MemoryQuotas(quota({ pods: '2' }, { pods: '1' }));
  tight.conflicts = 1; // used becomes 2: full
  const msg = await refusal(admit(tight, attrs(pod('p2'))));
  assert.equal(msg, 'pods "p2" is forbidden: exceeded quota: quota, requested: pods=1, used: pods=2, limited: pods=2');
  assert.equal(tight.updates.length, 0);
});

test('requests arriving together are checked in one batch: the quota is filled exactly', async () => {
  const access = new MemoryQuotas(quota({ pods: '3' }, { pods: '0' }));
  const ev = new QuotaEvaluator(access);
  const results = await Promise.allSettled([1, 2, 3, 4, 5].map((i) => ev.validate(attrs(pod(`p${i}`)))));
  assert.equal(results.filter((r) => r.status === 'fulfilled').length, 3);
  assert.deepEqual(used(access.quotas.get('quota')), { pods: '3' });
  // One write carried the whole batch.
  assert.equal(access.updates.length, 1);
});

test('ResourceQuota validation (the type strategy): names, values, scopes, selectors, immutable scopes', async () => {
  const { resourceQuotaStrategy } = await import('../../src/registry/strategies/resourcequotas.ts');
  const ctx = { user: undefined, now: '2024-01-01T00:00:00Z', dryRun: false, subresource: '' };
  const msgs = (spec: Record<string, unknown>): string[] =>
    resourceQuotaStrategy.validate!({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'test' }, spec }, ctx).map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(msgs({ hard: { cpu: '1', pods: '10', 'count/deployments.apps': '2', 'requests.hugepages-2Mi': '1Gi', 'example.com/gpu': '2' } }), []);
  assert.deepEqual(msgs({ hard: { pods: '-1' } }), ['spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0']);
  assert.deepEqual(msgs({ hard: { pods: '1.5' } }), ['spec.hard[pods]: Invalid value: "1.5": must be an integer']);
  assert.deepEqual(msgs({ hard: { bogus: '1' } }), ['spec.hard[bogus]: Invalid value: "bogus": must be a standard resource for quota']);
  assert.deepEqual(msgs({ hard: { pods: '1' }, scopes: ['Bogus'] }), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"Bogus"}: unsupported scope']);
  assert.deepEqual(msgs({ hard: { cpu: '1' }, scopes: ['BestEffort'] }), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort"}: unsupported scope applied to resource']);
  assert.deepEqual(msgs({ hard: { pods: '1' }, scopes: ['BestEffort', 'NotBestEffort'] }), ['spec.scopes: Invalid value: []core.ResourceQuotaScope{"BestEffort", "NotBestEffort"}: conflicting scopes']);
  assert.deepEqual(msgs({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'PriorityClass', operator: 'In' }] } }), [
    "spec.scopeSelector.matchExpressions.values: Required value: must be at least one value when `operator` is 'In' or 'NotIn' for scope selector",
  ]);
  assert.deepEqual(msgs({ hard: { pods: '1' }, scopeSelector: { matchExpressions: [{ scopeName: 'Terminating', operator: 'In', values: ['x'] }] } }), [
    "spec.scopeSelector.matchExpressions.operator: Invalid value: \"In\": must be 'Exist' when scope is any of ResourceQuotaScopeTerminating, ResourceQuotaScopeNotTerminating, ResourceQuotaScopeBestEffort, ResourceQuotaScopeNotBestEffort or ResourceQuotaScopeCrossNamespacePodAffinity",
  ]);
  const old: KObject = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: 'q', namespace: 'test' }, spec: { hard: { pods: '1' }, scopes: ['BestEffort'] } };
  const changed: KObject = { ...old, spec: { hard: { pods: '1' }, scopes: ['NotBestEffort'] } };
  assert.deepEqual(
    resourceQuotaStrategy.validateUpdate!(changed, old, ctx).map((e) => e.message),
    ['Invalid value: []core.ResourceQuotaScope{"NotBestEffort"}: field is immutable'],
  );
});

test('a plugin whose index never becomes ready refuses instead of waiting forever (readyWithin)', async () => {
  const { readyWithin } = await import('../../src/admission/admission-errors.ts');
  assert.equal(await readyWithin(new Promise<void>(() => undefined), 20), false);
  assert.equal(await readyWithin(Promise.resolve(), 20), true);
});
