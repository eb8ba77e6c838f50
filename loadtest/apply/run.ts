/**
 * Server-side apply and strategic merge patch costs (issue 5's benchmark):
 * a ~3 KiB Deployment applied by 3 managers in turn, in-process through the
 * FieldManager and end to end over HTTPS (PATCH apply-patch+yaml), plus
 * strategic merge patches per second.
 *
 *   node --import tsx loadtest/apply/run.ts
 */
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { buildOpenApi } from '../../src/openapi/index.ts';
import { FieldManager } from '../../src/apply/field-manager.ts';
import { applyPatch, schemaLookupFor } from '../../src/patch/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { startTestServer } from '../../test/support/test-server.ts';
import { summarize } from '../lib/stats.ts';
import { describeMachine, machineInfo } from '../lib/machine.ts';

function deployment(manager: number, round: number): KObject {
  // Each manager owns its own containers, labels and annotations; together ~3 KiB.
  const containers = Array.from({ length: 3 }, (_, i) => ({
    name: `m${manager}-c${i}`,
    image: `registry.example.com/team-${manager}/app-${i}:v${round % 5}`,
    ports: [{ containerPort: 8000 + manager * 10 + i, protocol: 'TCP' }],
    env: Array.from({ length: 4 }, (_, e) => ({ name: `M${manager}_VAR_${e}`, value: `value-${e}-${round % 3}` })),
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: '100m', memory: '64Mi' } },
  }));
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'bench', namespace: 'default', labels: { [`team-${manager}`]: 'yes' }, annotations: { [`note-${manager}`]: 'x'.repeat(200) } },
    spec: {
      ...(manager === 0 ? { replicas: 3, selector: { matchLabels: { app: 'bench' } } } : {}),
      template: { metadata: { labels: { app: 'bench' } }, spec: { containers } },
    },
  };
}

function fmt(n: number, unit: string): string {
  return `${n.toLocaleString('en-US', { maximumFractionDigits: n < 10 ? 2 : 0 })} ${unit}`;
}

async function main(): Promise<void> {
  console.log(`# Apply benchmark\n\n- ${describeMachine(machineInfo())}\n`);
  const registry = new ResourceRegistry(builtinResourceTypes);
  const schemas = buildOpenApi(registry).schemas;
  const fm = new FieldManager(schemas);
  const size = JSON.stringify(deployment(0, 0)).length + JSON.stringify(deployment(1, 0)).length + JSON.stringify(deployment(2, 0)).length;

  // In-process: 3 managers apply in turn; each round changes some values.
  let live: KObject | null = null;
  const lat: number[] = [];
  const n = 3000;
  for (let i = 0; i < 300; i++) live = fm.apply({ live, applied: deployment(i % 3, i), manager: `mgr-${i % 3}`, force: false, apiVersion: 'apps/v1', kind: 'Deployment' });
  const t0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    live = fm.apply({ live, applied: deployment(i % 3, i), manager: `mgr-${i % 3}`, force: false, apiVersion: 'apps/v1', kind: 'Deployment' });
    lat.push(performance.now() - s);
  }
  const inproc = summarize(lat);
  const inprocRate = n / ((performance.now() - t0) / 1000);

  // Strategic merge patches of the same object (a container image change by name).
  const smpSchema = schemaLookupFor(schemas.set, schemas.kindSchema({ group: 'apps', version: 'v1', kind: 'Deployment' }));
  const patch = JSON.stringify({ spec: { template: { spec: { containers: [{ name: 'm1-c1', image: 'registry.example.com/x:v9' }] } } } });
  const smpLat: number[] = [];
  const s0 = performance.now();
  for (let i = 0; i < n; i++) {
    const s = performance.now();
    applyPatch({ contentType: 'application/strategic-merge-patch+json', original: live!, patchBytes: patch, schema: smpSchema });
    smpLat.push(performance.now() - s);
  }
  const smpRate = n / ((performance.now() - s0) / 1000);
  const smp = summarize(smpLat);

  // End to end: PATCH apply over HTTPS to a real server (embedded store), 3 managers, concurrency 1 per manager.
  const t = await startTestServer();
  // Manager 0 creates the object (it owns the selector); then all three apply concurrently.
  const created = await t.request('PATCH', '/apis/apps/v1/namespaces/default/deployments/bench?fieldManager=mgr-0', JSON.stringify(deployment(0, 0)), {
    as: 'token',
    uws: true,
    headers: { 'content-type': 'application/apply-patch+yaml' },
  });
  if (created.status !== 201) throw new Error(`create by apply failed: ${created.status} ${created.body.slice(0, 300)}`);
  const http: number[] = [];
  const h0 = performance.now();
  const rounds = 300;
  await Promise.all(
    [0, 1, 2].map(async (m) => {
      for (let i = 0; i < rounds; i++) {
        const s = performance.now();
        const r = await t.request('PATCH', `/apis/apps/v1/namespaces/default/deployments/bench?fieldManager=mgr-${m}&force=true`, JSON.stringify(deployment(m, i)), {
          as: 'token',
          uws: true,
          headers: { 'content-type': 'application/apply-patch+yaml' },
        });
        if (r.status !== 200 && r.status !== 201) throw new Error(`apply failed: ${r.status} ${r.body.slice(0, 300)}`);
        http.push(performance.now() - s);
      }
    }),
  );
  const httpRate = (3 * rounds) / ((performance.now() - h0) / 1000);
  const httpSum = summarize(http);
  await t.stop();

  console.log('| measurement | value | p50 | p99 |');
  console.log('| --- | ---: | ---: | ---: |');
  console.log(`| apply, in-process FieldManager, 3 managers in turn (~${Math.round(size / 1024)} KiB Deployment) | ${fmt(inprocRate, 'applies/s')} | ${fmt(inproc.p50 * 1000, 'µs')} | ${fmt(inproc.p99 * 1000, 'µs')} |`);
  console.log(`| apply over HTTPS (uWS, token, embedded store), 3 managers concurrently, force | ${fmt(httpRate, 'applies/s')} | ${fmt(httpSum.p50, 'ms')} | ${fmt(httpSum.p99, 'ms')} |`);
  console.log(`| strategic merge patch (container image by name), in-process | ${fmt(smpRate, 'patches/s')} | ${fmt(smp.p50 * 1000, 'µs')} | ${fmt(smp.p99 * 1000, 'µs')} |`);
}

await main();
