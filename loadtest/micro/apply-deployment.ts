/**
 * Micro-benchmark: server-side apply of a Deployment of about 3 KiB owned by
 * three managers (an applier, an updater holding replicas, a second applier),
 * re-applied as is and with fields dropped (the pruning path), and an update
 * of it. The best of many short batches, after warm-up: the cost of the work
 * itself, not of whatever else shares the machine. Moved out of the tests:
 * speed figures belong in benchmarks, never in timed tests.
 *
 *   node --import tsx loadtest/micro/apply-deployment.ts
 */
import { FieldManager } from '../../src/apply/field-manager.ts';
import type { Json } from '../../src/apply/value.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import type { KObject } from '../../src/registry/object.ts';

const fm = new FieldManager(servedSchemas([]));

const container = (name: string, image: string): Json => ({
  name,
  image,
  imagePullPolicy: 'IfNotPresent',
  args: ['--port=8080', '--log-level=info', '--metrics'],
  ports: [
    { name: 'http', containerPort: 8080 },
    { name: 'metrics', containerPort: 9090 },
  ],
  env: Array.from({ length: 6 }, (_, i) => ({ name: `VAR_${i}`, value: `value-${i}` })),
  resources: { requests: { cpu: '100m', memory: '128Mi' }, limits: { cpu: '500m', memory: '256Mi' } },
  readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5 },
  volumeMounts: [
    { name: 'config', mountPath: '/etc/config' },
    { name: 'data', mountPath: '/data' },
  ],
});

const config = (image: string, withAnnotations = true): Json => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: {
    name: 'web',
    namespace: 'default',
    labels: { app: 'web', team: 'platform', tier: 'frontend' },
    ...(withAnnotations ? { annotations: { 'example.com/owner': 'platform-team' } } : {}),
  },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 0 } },
    template: {
      metadata: { labels: { app: 'web', team: 'platform' } },
      spec: {
        containers: [container('web', image), container('sidecar', 'proxy:1.0')],
        volumes: [
          { name: 'config', configMap: { name: 'web-config' } },
          { name: 'data', emptyDir: {} },
        ],
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'web', effect: 'NoSchedule' }],
        nodeSelector: { 'kubernetes.io/os': 'linux' },
      },
    },
  },
});

function liveObject(): KObject {
  const applyAs = (live: KObject | null, applied: Json, manager: string): KObject =>
    fm.apply({ live, applied, manager, apiVersion: 'apps/v1', kind: 'Deployment' });
  let live = applyAs(null, config('web:1'), 'kubectl');
  live.metadata.uid = 'u-1';
  const next = structuredClone(live);
  (next['spec'] as { replicas: number }).replicas = 5;
  live = fm.update({ live, next, manager: 'hpa', apiVersion: 'apps/v1' });
  const injector: Json = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', annotations: { 'inject/status': 'done' } },
    spec: { template: { spec: { containers: [{ name: 'sidecar', image: 'proxy:1.0' }] } } },
  };
  return applyAs(live, injector, 'injector');
}

/** Time of one call in the fastest of many batches, in milliseconds. */
function bestMs(fn: () => unknown): number {
  for (let i = 0; i < 300; i++) fn();
  let best = Infinity;
  for (let b = 0; b < 30; b++) {
    const n = 20;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1e6);
  }
  return best;
}

const live = liveObject();
const rows: Array<[string, number]> = [
  ['re-apply as is', bestMs(() => fm.apply({ live, applied: config('web:2'), manager: 'kubectl', apiVersion: 'apps/v1', kind: 'Deployment' }))],
  ['apply dropping fields (pruning)', bestMs(() => fm.apply({ live, applied: config('web:2', false), manager: 'kubectl', apiVersion: 'apps/v1', kind: 'Deployment' }))],
];
const next = structuredClone(live);
(next['spec'] as { template: { spec: { containers: { image: string }[] } } }).template.spec.containers[0]!.image = 'web:3';
rows.push(['update (one image)', bestMs(() => fm.update({ live, next, manager: 'kubectl-edit', apiVersion: 'apps/v1' }))]);
console.log(`apply of a ${JSON.stringify({ ...live, metadata: { ...live.metadata, managedFields: undefined } }).length}-byte Deployment, ${live.metadata.managedFields?.length} managers (best batch):`);
for (const [what, ms] of rows) console.log(`  ${what.padEnd(34)} ${(ms * 1000).toFixed(0).padStart(6)} µs`);
