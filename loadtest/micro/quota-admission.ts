/**
 * Micro-benchmark: what LimitRanger and ResourceQuota add to a create, in
 * process (µs per call): a create in a namespace without quota or LimitRange
 * (the cost rule: a synchronous early return), a pod defaulted and checked
 * against one LimitRange, and one pod checked against three quotas
 * (CheckRequest, without the status write).
 *
 *   node --import tsx loadtest/micro/quota-admission.ts
 */
import { QuotaEvaluator, type QuotaAccess } from '../../src/admission/plugins/resource-quota/index.ts';
import { checkRequest, quotaState } from '../../src/admission/plugins/resource-quota/check.ts';
import { evaluatorFor } from '../../src/admission/plugins/resource-quota/evaluators.ts';
import { limitRanger } from '../../src/admission/plugins/limit-ranger.ts';
import type { AdmissionAttributes } from '../../src/admission/types.ts';
import type { KObject } from '../../src/registry/object.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const pods = registry.lookup('', 'v1', 'pods')!;

function microsPerCall(fn: () => unknown, n: number): number {
  for (let i = 0; i < 5000; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

const pod = (): KObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', namespace: 'team' },
  spec: { containers: [{ name: 'app', image: 'nginx', resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '128Mi' } } }] },
});
const attrs = (object: KObject, namespace: string): AdmissionAttributes => ({
  operation: 'CREATE',
  resourceType: pods,
  subresource: '',
  namespace,
  name: 'p',
  object,
  oldObject: null,
  user: undefined,
  dryRun: false,
  options: undefined,
  warn: () => undefined,
  annotate: () => undefined,
});

const quota = (name: string, hard: Record<string, string>, used: Record<string, string>, spec: Record<string, unknown> = {}): KObject => ({
  apiVersion: 'v1',
  kind: 'ResourceQuota',
  metadata: { name, namespace: 'team', resourceVersion: '1' },
  spec: { hard, ...spec },
  status: { hard, used },
});
const quotas = [
  quota('compute', { 'requests.cpu': '100', 'requests.memory': '100Gi', 'limits.memory': '200Gi' }, { 'requests.cpu': '10', 'requests.memory': '10Gi', 'limits.memory': '20Gi' }),
  quota('counts', { pods: '1000', 'count/pods': '1000' }, { pods: '10', 'count/pods': '10' }),
  quota('besteffort', { pods: '10' }, { pods: '0' }, { scopes: ['BestEffort'] }),
];
const access: QuotaAccess = {
  synced: true,
  ready: Promise.resolve(),
  has: (ns) => ns === 'team',
  cached: () => quotas,
  latest: async () => quotas,
  updateStatus: async (q) => q,
};
const plugin = new QuotaEvaluator(access).plugin();
const noQuota = attrs(pod(), 'elsewhere');
const N = 1_000_000;
const rows: Array<[string, number]> = [];
rows.push(['ResourceQuota.validate, namespace without quota', microsPerCall(() => plugin.validate!(noQuota), N)]);

const lrNone = limitRanger({ ready: Promise.resolve(), forNamespace: () => [] });
rows.push(['LimitRanger admit + validate, namespace without LimitRange', microsPerCall(() => (lrNone.admit!(noQuota), lrNone.validate!(noQuota)), N)]);

const range: KObject = {
  apiVersion: 'v1',
  kind: 'LimitRange',
  metadata: { name: 'lr', namespace: 'team' },
  spec: { limits: [{ type: 'Container', max: { cpu: '2', memory: '1Gi' }, min: { cpu: '10m' }, defaultRequest: { cpu: '50m' } }] },
};
const lrOne = limitRanger({ ready: Promise.resolve(), forNamespace: () => [range] });
rows.push(['LimitRanger admit + validate, one LimitRange (defaults set)', microsPerCall(() => {
  const a = attrs(pod(), 'team');
  lrOne.admit!(a);
  lrOne.validate!(a);
}, N / 10)]);

const states = quotas.map(quotaState);
const evaluator = evaluatorFor('', 'pods');
const now = new Date();
rows.push(['ResourceQuota CheckRequest, one pod against three quotas', microsPerCall(() => checkRequest(states, { attrs: attrs(pod(), 'team'), evaluator, now }), N / 10)]);

for (const [what, us] of rows) console.log(`${us.toFixed(3).padStart(9)} µs  ${what}`);
