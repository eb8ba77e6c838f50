/**
 * Micro-benchmark: the cost of one decision of the Node, ABAC and Webhook
 * modes. Node: a graph of 10,000 pods on 1,000 nodes, each pod naming 3
 * secrets, a config map and a service account (a reachable secret, an
 * unreachable one, a static-rule read). ABAC: 1,000 policies, a request
 * matching the last one and one matching none. Webhook: a cached answer (the
 * steady state; the first answer comes from a loopback HTTP server). The
 * best of many short batches after warm-up.
 *
 *   node --import tsx loadtest/micro/authz-decisions.ts
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NodeAuthorizer, NodeGraph } from '../../src/authz/node/index.ts';
import { AbacAuthorizer, type PolicySpec } from '../../src/authz/abac/index.ts';
import { WebhookAuthorizer, WebhookClient } from '../../src/authz/webhook/index.ts';
import type { AuthorizationAttributes } from '../../src/authz/types.ts';
import type { KObject } from '../../src/registry/object.ts';
import { apiGroup } from '../../src/naming/index.ts';

function a(o: Partial<AuthorizationAttributes>): AuthorizationAttributes {
  return { user: { name: 'bob', groups: ['system:authenticated'] }, verb: 'get', isResourceRequest: true, path: '', namespace: 'ns', apiGroup: '', apiVersion: 'v1', resource: 'secrets', subresource: '', name: '', ...o };
}

function bestUs(fn: () => unknown): number {
  for (let i = 0; i < 20_000; i++) fn();
  let best = Infinity;
  for (let round = 0; round < 30; round++) {
    const n = 20_000;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1e3);
  }
  return best;
}

async function bestUsAsync(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 20_000; i++) await fn();
  let best = Infinity;
  for (let round = 0; round < 30; round++) {
    const n = 10_000;
    const t = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    best = Math.min(best, Number(process.hrtime.bigint() - t) / n / 1e3);
  }
  return best;
}

const rows: Array<[string, number]> = [];

// Node.
const graph = new NodeGraph();
for (let i = 0; i < 10_000; i++) {
  const pod = {
    metadata: { name: `p${i}`, namespace: `ns${i % 50}` },
    spec: {
      nodeName: `n${i % 1000}`,
      serviceAccountName: 'default',
      containers: [{ name: 'c', envFrom: [{ secretRef: { name: `env-${i}` } }] }],
      volumes: [{ name: 'a', secret: { secretName: `s-${i}` } }, { name: 'b', secret: { secretName: `t-${i}` } }, { name: 'c', configMap: { name: `cm-${i % 100}` } }],
    },
  } as unknown as KObject;
  graph.setPod(pod);
}
const node = new NodeAuthorizer(graph);
const n7 = { name: 'system:node:n7', groups: ['system:nodes', 'system:authenticated'] };
rows.push(['Node: reachable secret (allow)', bestUs(() => node.authorize(a({ user: n7, namespace: 'ns7', name: 's-7' })))]);
rows.push(['Node: unreachable secret (no opinion)', bestUs(() => node.authorize(a({ user: n7, namespace: 'ns8', name: 's-8' })))]);
rows.push(['Node: list pods (static rule)', bestUs(() => node.authorize(a({ user: n7, verb: 'list', resource: 'pods', namespace: '' })))]);
rows.push(['Node: not a node (no opinion)', bestUs(() => node.authorize(a({ name: 's-7' })))]);

// ABAC.
const policies: PolicySpec[] = Array.from({ length: 1000 }, (_, i) => ({ user: `user-${i}`, group: '', readonly: i % 2 === 0, apiGroup: '*', resource: 'pods', namespace: `ns-${i}`, nonResourcePath: '' }));
const abac = new AbacAuthorizer(policies);
rows.push(['ABAC 1,000 policies: last matches', bestUs(() => abac.authorize(a({ user: { name: 'user-999', groups: [] }, resource: 'pods', namespace: 'ns-999' })))]);
rows.push(['ABAC 1,000 policies: none matches', bestUs(() => abac.authorize(a({ user: { name: 'eve', groups: [] }, resource: 'pods' })))]);

// Webhook, cached.
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.end(JSON.stringify({ apiVersion: `${apiGroup('authorization')}/v1beta1`, kind: 'SubjectAccessReview', status: { allowed: true } })));
});
await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
const url = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
const webhook = new WebhookAuthorizer(new WebhookClient({ url, insecureSkipTlsVerify: false }, 5000), { version: 'v1beta1', authorizedTtlMs: 3_600_000, unauthorizedTtlMs: 30_000 });
const req = a({ user: { name: 'jane', groups: ['devs', 'system:authenticated'] }, verb: 'list', resource: 'pods', namespace: 'default' });
await webhook.authorize(req);
rows.push(['Webhook: cached answer', await bestUsAsync(() => webhook.authorize(req))]);
webhook.close();
server.close();

console.log('authorization decisions (best batch, µs per decision):');
for (const [what, us] of rows) console.log(`  ${what.padEnd(40)} ${us.toFixed(3).padStart(8)} µs  (${Math.round(1e6 / us).toLocaleString('en-US')}/s)`);
