/**
 * Micro-benchmark: what PodSecurity costs a pod write on the CPU, without the
 * namespace read (an in-memory source): a privileged namespace (the default:
 * no check runs), a pod evaluated at restricted:latest that passes, one that
 * fails enforce (the 403 built), and enforce+audit+warn at three different
 * levels. The best of many short batches, after warm-up.
 *
 *   node --import tsx loadtest/micro/pod-security.ts
 */
import { PodSecurityAdmission } from '../../src/admission/plugins/pod-security/admission.ts';
import { LABELS } from '../../src/admission/plugins/pod-security/api.ts';
import { defaultConfig } from '../../src/admission/plugins/pod-security/config.ts';
import { defaultEvaluator } from '../../src/admission/plugins/pod-security/index.ts';
import type { AdmissionAttributes } from '../../src/admission/types.ts';
import type { KObject } from '../../src/registry/object.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';

const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const pods = registry.lookup('', 'v1', 'pods')!;

const namespaces: Record<string, Record<string, string>> = {
  open: {},
  strict: { [LABELS.enforce]: 'restricted' },
  mixed: { [LABELS.enforce]: 'baseline', [LABELS.audit]: 'restricted', [LABELS.auditVersion]: 'v1.22', [LABELS.warn]: 'restricted' },
};
const admission = new PodSecurityAdmission(defaultConfig(), defaultEvaluator(), {
  namespaceLabels: async (name) => namespaces[name] ?? null,
  listPods: async () => [],
});

const container = (name: string) => ({
  name,
  image: 'registry.example/app:1.2.3',
  ports: [{ containerPort: 8080, protocol: 'TCP' }],
  securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] }, readOnlyRootFilesystem: true },
  volumeMounts: [{ name: 'config', mountPath: '/etc/config' }],
});
const goodSpec = {
  securityContext: { runAsNonRoot: true, runAsUser: 1000, seccompProfile: { type: 'RuntimeDefault' } },
  initContainers: [container('init')],
  containers: [container('app'), container('sidecar')],
  volumes: [{ name: 'config', configMap: { name: 'cfg' } }, { name: 'tmp', emptyDir: {} }],
};
const badSpec = { ...goodSpec, hostNetwork: true, containers: [{ name: 'app', image: 'x', securityContext: { privileged: true } }] };

const pod = (ns: string, spec: object): KObject => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: ns, labels: { app: 'web' } }, spec }) as KObject;

function attrs(object: KObject): AdmissionAttributes {
  return {
    operation: 'CREATE',
    resourceType: pods,
    subresource: '',
    namespace: object.metadata.namespace!,
    name: 'p',
    object,
    oldObject: null,
    user: { name: 'u', groups: [] },
    dryRun: false,
    options: undefined,
    warn: () => undefined,
    annotate: () => undefined,
  };
}

/** Time of one call in the fastest of many batches, in microseconds. */
async function bestUs(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 2000; i++) await fn();
  let best = Infinity;
  for (let b = 0; b < 40; b++) {
    const n = 200;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1e3);
  }
  return best;
}

const swallow = (p: Promise<void>) => p.catch(() => undefined);
const rows: Array<[string, number]> = [
  ['privileged namespace (no checks)', await bestUs(() => admission.validate(attrs(pod('open', badSpec))))],
  ['restricted:latest, pod passes', await bestUs(() => admission.validate(attrs(pod('strict', goodSpec))))],
  ['restricted:latest, pod rejected (403 built)', await bestUs(() => swallow(admission.validate(attrs(pod('strict', badSpec)))))],
  ['enforce+audit+warn at 3 levels, passes', await bestUs(() => admission.validate(attrs(pod('mixed', goodSpec))))],
];
console.log('PodSecurity validate() per pod create, namespace labels in memory (best batch):');
for (const [what, us] of rows) console.log(`  ${what.padEnd(46)} ${us.toFixed(2).padStart(7)} µs`);
