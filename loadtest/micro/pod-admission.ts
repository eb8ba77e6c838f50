/**
 * CPU per pod create spent in the default pod admission plugins
 * (ServiceAccount, Priority, DefaultTolerationSeconds, RuntimeClass), with
 * their sources in memory as the per-thread indexes hold them: the plugins'
 * own cost, free of HTTP and storage noise (a busy shared machine makes the
 * end-to-end figure of loadtest/admission/pod-creates.ts noisy).
 *
 *   node --import tsx loadtest/micro/pod-admission.ts
 */
import { AdmissionChain } from '../../src/admission/chain.ts';
import { serviceAccountPlugin } from '../../src/admission/plugins/service-account.ts';
import { priorityPlugin } from '../../src/admission/plugins/priority.ts';
import { defaultTolerationSeconds } from '../../src/admission/plugins/default-toleration-seconds.ts';
import { runtimeClassPlugin } from '../../src/admission/plugins/runtime-class.ts';
import type { AdmissionAttributes } from '../../src/admission/types.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import type { KObject } from '../../src/registry/object.ts';
import { envNumber } from '../lib/env.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';

const N = envNumber('POD_ADMISSION_N', 50_000);
const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const pods = registry.lookup('', 'v1', 'pods')!;
const sa: KObject = { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'bench' } };
const chain = new AdmissionChain([
  serviceAccountPlugin({ get: async () => sa }),
  priorityPlugin({ get: async () => null, list: async () => [] }, () => false),
  defaultTolerationSeconds(300, 300),
  runtimeClassPlugin({ get: async () => null }),
]);

function attrs(i: number): AdmissionAttributes {
  const object: KObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: `p-${i}`, namespace: 'bench' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
  return { operation: 'CREATE', resourceType: pods, subresource: '', namespace: 'bench', name: `p-${i}`, object, oldObject: null, user: undefined, dryRun: false, options: undefined, warn: () => undefined, annotate: () => undefined };
}

async function run(n: number): Promise<number> {
  const start = process.cpuUsage();
  for (let i = 0; i < n; i++) {
    const a = attrs(i);
    await chain.admit(a);
    await chain.validate(a);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

await run(5000); // warm-up
const base = process.cpuUsage();
for (let i = 0; i < N; i++) attrs(i);
const attrsUsed = process.cpuUsage(base);
const attrsCost = (attrsUsed.user + attrsUsed.system) / N;
const perPod = await run(N);
console.log(describeMachine(machineInfo()));
console.log(`default pod plugins, admit + validate: ${perPod.toFixed(1)} µs CPU per pod (building the attributes alone: ${attrsCost.toFixed(1)} µs), ${N} pods`);
