/**
 * Service cluster IPs and node ports over HTTP on the embedded store:
 * allocation on create, the original's 422/500 answers, release on delete
 * and type change, immutability, dry run, the API server's own Service, and
 * allocations that survive a restart (also when the range record was lost:
 * the repair pass at start rebuilds it from the Services).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const FLAGS = ['--service-cluster-ip-range=10.0.0.0/29', '--service-node-port-range=31000-31009'];
const SVC = '/api/v1/namespaces/default/services';

interface Svc {
  metadata: { name: string; resourceVersion?: string };
  spec: { clusterIP?: string; clusterIPs?: string[]; ipFamilies?: string[]; ipFamilyPolicy?: string; type?: string; ports?: Array<{ port: number; nodePort?: number; targetPort?: number; name?: string }> };
}

describe('service allocation over HTTP (embedded store)', () => {
  let dataDir: string;
  let s: TestServer;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-svcalloc-'));
    s = await startTestServer(FLAGS, { dataDir });
  });
  after(async () => {
    await s?.stop();
    await fs.rm(dataDir, { recursive: true, force: true });
  });

  const create = (body: unknown, query = ''): ReturnType<TestServer['request']> => s.request('POST', `${SVC}${query}`, body);

  it('serves the API server\'s own Service at the first IP of the range, with Endpoints to the secure port', async () => {
    const svc = (await s.request('GET', `${SVC}/kubernetes`)).json<Svc>();
    assert.equal(svc.spec.clusterIP, '10.0.0.1');
    assert.deepEqual(svc.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: s.securePort }]);
    const ep = (await s.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json<{ subsets: unknown }>();
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: s.securePort, protocol: 'TCP' }] }]);
    const slice = await s.request('GET', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices/kubernetes');
    assert.equal(slice.status, 200, slice.body);
  });

  it('allocates a cluster IP and node ports on create, and kubectl shows them', async () => {
    const res = await create({ metadata: { name: 'web' }, spec: { type: 'NodePort', selector: { app: 'web' }, ports: [{ port: 80 }] } });
    assert.equal(res.status, 201, res.body);
    const svc = res.json<Svc>();
    assert.match(svc.spec.clusterIP!, /^10\.0\.0\.[2-6]$/);
    assert.deepEqual(svc.spec.clusterIPs, [svc.spec.clusterIP]);
    assert.deepEqual(svc.spec.ipFamilies, ['IPv4']);
    assert.equal(svc.spec.ipFamilyPolicy, 'SingleStack');
    const nodePort = svc.spec.ports![0]!.nodePort!;
    assert.ok(nodePort >= 31000 && nodePort <= 31009);
    const out = await s.kubectl(['get', 'svc', 'web', 'kubernetes']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /CLUSTER-IP/);
    assert.match(out.stdout, new RegExp(`web\\s+NodePort\\s+${svc.spec.clusterIP!.replace(/\./g, '\\.')}\\s+<none>\\s+80:${nodePort}/TCP`));
    assert.match(out.stdout, /kubernetes\s+ClusterIP\s+10\.0\.0\.1\s/);
  });

  it('answers 422 for a taken or out-of-range IP or node port, and 500 when the range is full', async () => {
    const web = (await s.request('GET', `${SVC}/web`)).json<Svc>();
    const taken = await create({ metadata: { name: 'taken' }, spec: { clusterIP: web.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(taken.status, 422, taken.body);
    assert.equal(
      taken.json<{ message: string }>().message,
      `Service "taken" is invalid: spec.clusterIPs: Invalid value: []string{"${web.spec.clusterIP}"}: failed to allocate IP ${web.spec.clusterIP}: provided IP is already allocated`,
    );
    const far = await create({ metadata: { name: 'far' }, spec: { clusterIP: '10.1.0.1', ports: [{ port: 80 }] } });
    assert.equal(far.status, 422);
    assert.match(far.json<{ message: string }>().message, /provided IP is not in the valid range\. The range of valid IPs is 10\.0\.0\.0\/29$/);
    const port = await create({ metadata: { name: 'port' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] } });
    assert.equal(port.status, 422);
    assert.equal(
      port.json<{ message: string }>().message,
      'Service "port" is invalid: spec.ports[0].nodePort: Invalid value: 30080: provided port is not in the valid range. The range of valid ports is 31000-31009',
    );
    const dupPort = await create({ metadata: { name: 'dupport' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort: web.spec.ports![0]!.nodePort }] } });
    assert.equal(dupPort.status, 422);
    assert.match(dupPort.json<{ message: string }>().message, /provided port is already allocated$/);
    // 6 usable addresses: kubernetes and web hold two; four more fit.
    for (let i = 0; i < 4; i++) assert.equal((await create({ metadata: { name: `fill-${i}` }, spec: { ports: [{ port: 80 }] } })).status, 201);
    const full = await create({ metadata: { name: 'full' }, spec: { ports: [{ port: 80 }] } });
    assert.equal(full.status, 500, full.body);
    assert.equal(full.json<{ message: string }>().message, 'Internal error occurred: failed to allocate a serviceIP: range is full');
    // Headless and ExternalName services need no IP.
    assert.equal((await create({ metadata: { name: 'headless' }, spec: { clusterIP: 'None', selector: { a: 'b' }, ports: [{ port: 80 }] } })).status, 201);
    assert.equal((await create({ metadata: { name: 'ext' }, spec: { type: 'ExternalName', externalName: 'db.example.com' } })).status, 201);
  });

  it('releases the IP on delete', async () => {
    const gone = (await s.request('GET', `${SVC}/fill-0`)).json<Svc>();
    assert.equal((await s.request('DELETE', `${SVC}/fill-0`)).status, 200);
    const again = await create({ metadata: { name: 'reuse' }, spec: { clusterIP: gone.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(again.status, 201, again.body);
  });

  it('does not allocate on a dry run', async () => {
    assert.equal((await s.request('DELETE', `${SVC}/fill-1`)).status, 200);
    const dry = await create({ metadata: { name: 'dry' }, spec: { type: 'NodePort', ports: [{ port: 80 }] } }, '?dryRun=All');
    assert.equal(dry.status, 201, dry.body);
    const ip = dry.json<Svc>().spec.clusterIP!;
    assert.match(ip, /^10\.0\.0\./);
    assert.equal((await s.request('GET', `${SVC}/dry`)).status, 404);
    const real = await create({ metadata: { name: 'real' }, spec: { clusterIP: ip, ports: [{ port: 80 }] } });
    assert.equal(real.status, 201, `the dry run left ${ip} free: ${real.body} ${dry.body}`);
  });

  it('refuses a changed cluster IP, releases node ports on NodePort → ClusterIP and the IP on → ExternalName', async () => {
    const web = (await s.request('GET', `${SVC}/web`)).json<Svc>();
    const moved = await s.request('PUT', `${SVC}/web`, { ...web, spec: { ...web.spec, clusterIP: '10.0.0.1', clusterIPs: ['10.0.0.1'] } });
    assert.equal(moved.status, 422, moved.body);
    assert.match(moved.json<{ message: string }>().message, /spec\.clusterIPs\[0\]: Invalid value: \[\]string\{"10\.0\.0\.1"\}: may not change once set/);

    const nodePort = web.spec.ports![0]!.nodePort!;
    assert.equal((await s.request('DELETE', `${SVC}/fill-2`)).status, 200, 'room for one more cluster IP');
    const patched = await s.request('PATCH', `${SVC}/web`, { spec: { type: 'ClusterIP' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.body);
    assert.equal(patched.json<Svc>().spec.ports![0]!.nodePort, undefined);
    const reuse = await create({ metadata: { name: 'np-reuse' }, spec: { type: 'NodePort', ports: [{ port: 80, nodePort }] } });
    assert.equal(reuse.status, 201, `node port ${nodePort} was released: ${reuse.body}`);
    assert.equal((await s.request('DELETE', `${SVC}/np-reuse`)).status, 200);

    const ext = await s.request('PATCH', `${SVC}/web`, { spec: { type: 'ExternalName', externalName: 'web.example.com' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(ext.status, 200, ext.body);
    assert.equal(ext.json<Svc>().spec.clusterIP, undefined);
    const ipBack = await create({ metadata: { name: 'ip-reuse' }, spec: { clusterIP: web.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(ipBack.status, 201, `cluster IP ${web.spec.clusterIP} was released: ${ipBack.body}`);
  });

  it('keeps allocations across a restart, and the repair pass at start rebuilds a lost record', async () => {
    const before = (await s.request('GET', SVC)).json<{ items: Svc[] }>().items.filter((i) => i.spec.clusterIP && i.spec.clusterIP !== 'None');
    assert.ok(before.length >= 5);
    // Someone breaks the API server's own Service and Endpoints: the next start puts them back.
    const broken = await s.request('PATCH', `${SVC}/kubernetes`, { spec: { ports: [{ name: 'https', port: 8443, targetPort: 1 }] } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(broken.status, 200, broken.body);
    assert.equal((await s.request('DELETE', '/api/v1/namespaces/default/endpoints/kubernetes')).status, 200);
    await s.stop();
    s = await startTestServer(FLAGS, { dataDir });
    const fixed = (await s.request('GET', `${SVC}/kubernetes`)).json<Svc>();
    assert.deepEqual(fixed.spec.ports, [{ name: 'https', port: 443, protocol: 'TCP', targetPort: s.securePort }]);
    const ep = (await s.request('GET', '/api/v1/namespaces/default/endpoints/kubernetes')).json<{ subsets: unknown }>();
    assert.deepEqual(ep.subsets, [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: s.securePort, protocol: 'TCP' }] }]);
    const victim = before.find((i) => i.metadata.name !== 'kubernetes')!;
    const dup = await create({ metadata: { name: 'after-restart' }, spec: { clusterIP: victim.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(dup.status, 422, `still allocated after restart: ${dup.body}`);

    // Lose the record: the next start rebuilds it from the Services.
    await s.server.router.delete('/ranges', '/ranges/serviceips');
    await s.stop();
    s = await startTestServer(FLAGS, { dataDir });
    const dup2 = await create({ metadata: { name: 'after-repair' }, spec: { clusterIP: victim.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(dup2.status, 422, `repaired: ${dup2.body}`);
    const kube = (await s.request('GET', `${SVC}/kubernetes`)).json<Svc>();
    assert.equal(kube.spec.clusterIP, '10.0.0.1');
    const fresh = await create({ metadata: { name: 'fresh' }, spec: { ports: [{ port: 80 }] } });
    if (fresh.status === 201) {
      const ip = fresh.json<Svc>().spec.clusterIP;
      assert.ok(!before.some((b) => b.spec.clusterIP === ip), `fresh IP ${ip} is not one already held`);
    } else {
      assert.equal(fresh.status, 500, fresh.body);
    }
  });
});

describe('service allocation with kubectl apply and finalizers', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => {
    await s?.stop();
  });

  it('keeps the allocated cluster IP and node port when kubectl apply sends the manifest again', async () => {
    const manifest = 'apiVersion: v1\nkind: Service\nmetadata: { name: applied, namespace: default }\nspec:\n  type: NodePort\n  selector: { app: a }\n  ports: [{ name: http, port: 80 }]\n';
    const apply = async (args: string[], input: string): Promise<Svc> => {
      const out = await s.kubectl(['apply', ...args, '-f', '-'], { input });
      assert.equal(out.code, 0, out.stderr);
      return (await s.request('GET', `${SVC}/applied`)).json<Svc>();
    };
    const first = await apply([], manifest);
    assert.match(first.spec.clusterIP!, /^10\.0\.0\./);
    for (const next of [await apply([], manifest.replace('app: a', 'app: b')), await apply(['--server-side', '--force-conflicts'], manifest)]) {
      assert.equal(next.spec.clusterIP, first.spec.clusterIP);
      assert.equal(next.spec.ports![0]!.nodePort, first.spec.ports![0]!.nodePort);
    }
  });

  it('releases a service held by a finalizer only once the finalizer is gone', async () => {
    const res = await s.request('POST', SVC, { metadata: { name: 'held', finalizers: ['example.com/hold'] }, spec: { clusterIP: '10.0.0.200', ports: [{ port: 80 }] } });
    assert.equal(res.status, 201, res.body);
    assert.equal((await s.request('DELETE', `${SVC}/held`)).status, 200);
    const probe = { metadata: { name: 'probe' }, spec: { clusterIP: '10.0.0.200', ports: [{ port: 80 }] } };
    assert.equal((await s.request('POST', SVC, probe)).status, 422, 'still held while finalizing');
    const patched = await s.request('PATCH', `${SVC}/held`, { metadata: { finalizers: null } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patched.status, 200, patched.body);
    assert.equal((await s.request('GET', `${SVC}/held`)).status, 404);
    const reuse = await s.request('POST', SVC, probe);
    assert.equal(reuse.status, 201, reuse.body);
  });
});
