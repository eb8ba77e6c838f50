/**
 * Micro-benchmark of typed decoding (src/typed) on the bodies creates send:
 * a 1 KiB ConfigMap and a ~5 KiB Deployment. Prints µs per operation for
 * JSON.parse alone (the floor every create already paid), the typed decoder
 * alone, and the whole body path (depth scan + parse + duplicate scan +
 * decode), i.e. what a create now pays on top of JSON.parse.
 *
 *   node --import tsx loadtest/typed/run.ts
 */
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { servedSchemas } from '../../src/openapi/served-schemas.ts';
import { decodeJsonBody, jsonDepthExceeded, scanJson, TypedDecoders } from '../../src/typed/index.ts';

const schemas = servedSchemas(new ResourceRegistry(builtinResourceTypes).types);
const decoders = new TypedDecoders(schemas.set);

function configMap(): string {
  const data: Record<string, string> = {};
  for (let i = 0; i < 16; i++) data[`key-${i}`] = 'v'.repeat(40);
  return JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench' } }, data });
}

function deployment(): string {
  const container = (i: number) => ({
    name: `c${i}`,
    image: 'registry.example/app:1.2.3',
    args: ['--port=8080', '--verbose'],
    ports: [{ name: 'http', containerPort: 8080, protocol: 'TCP' }],
    env: Array.from({ length: 8 }, (_, j) => ({ name: `ENV_${j}`, value: `value-${j}` })),
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '128Mi' } },
    readinessProbe: { httpGet: { path: '/ready', port: 'http' }, periodSeconds: 5 },
    livenessProbe: { httpGet: { path: '/live', port: 8080 }, initialDelaySeconds: 10 },
    volumeMounts: [{ name: 'config', mountPath: '/etc/app' }],
  });
  return JSON.stringify({
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', namespace: 'default', labels: { app: 'bench', tier: 'web' }, annotations: { 'example.com/owner': 'team-a' } },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'bench' } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } },
      template: {
        metadata: { labels: { app: 'bench', tier: 'web' } },
        spec: {
          containers: [container(0), container(1), container(2), container(3), container(4)],
          volumes: [{ name: 'config', configMap: { name: 'bench-config' } }],
          nodeSelector: { 'kubernetes.io/os': 'linux' },
          tolerations: [{ key: 'k', operator: 'Exists', effect: 'NoSchedule' }],
        },
      },
    },
  });
}

function measure(label: string, fn: () => void): void {
  for (let i = 0; i < 20_000; i++) fn(); // warm up
  const n = 100_000;
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  const us = Number(process.hrtime.bigint() - start) / 1000 / n;
  console.log(`${label.padEnd(44)} ${us.toFixed(2)} µs/op`);
}

for (const [kind, group, text] of [
  ['ConfigMap', '', configMap()],
  ['Deployment', 'apps', deployment()],
] as const) {
  const decoder = decoders.forSchema(schemas.kindSchema({ group, version: 'v1', kind }));
  const target = { kind, version: 'v1', decoder, fieldValidation: 'Strict' as const };
  const parsed = JSON.parse(text) as Record<string, unknown>;
  console.log(`${kind}: ${text.length} bytes`);
  measure('  typed decoder alone', () => decoder.decode(parsed));
  const bytes = Buffer.from(text, 'utf8');
  measure('  JSON.parse of the bytes (toString + parse)', () => JSON.parse(bytes.toString('utf8')));
  measure('  depth scan alone (patch bodies)', () => jsonDepthExceeded(bytes));
  measure('  key scan alone (depth + duplicates)', () => scanJson(bytes));
  measure('  body path, Strict/Warn (scan+parse+decode)', () => decodeJsonBody(bytes, target));
  measure('  body path, Ignore (parse+decode)', () => decodeJsonBody(bytes, { ...target, fieldValidation: 'Ignore' }));
}
