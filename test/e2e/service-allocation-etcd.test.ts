/**
 * Two API servers on ONE real etcd allocate cluster IPs and node ports from
 * the same range records: many Services created at once through both never
 * share an IP or a port, and what one server frees the other can take.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const SVC = '/api/v1/namespaces/default/services';

interface Svc {
  metadata: { name: string };
  spec: { clusterIP?: string; healthCheckNodePort?: number; ports?: Array<{ nodePort?: number }> };
}

describe('service allocation: two API servers on one etcd', () => {
  let etcd: EtcdServer;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    const flags = [
      '--storage-backend=etcd3',
      `--etcd-servers=${etcd.endpoint}`,
      '--etcd-prefix=/orch-svcalloc',
      '--service-cluster-ip-range=10.0.0.0/26',
      '--service-node-port-range=31000-31099',
    ];
    [a, b] = await Promise.all([startTestServer(flags), startTestServer(flags)]);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
  });

  it('never hands out the same cluster IP or node port twice when both create at once', async () => {
    const count = 40;
    const results = await Promise.all(
      Array.from({ length: count }, (_, i) =>
        (i % 2 === 0 ? a : b).request('POST', SVC, {
          metadata: { name: `svc-${i}` },
          spec:
            i % 5 === 0
              ? { type: 'LoadBalancer', externalTrafficPolicy: 'Local', ports: [{ name: 'http', port: 80 }] }
              : { type: 'NodePort', ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] },
        }),
      ),
    );
    for (const r of results) assert.equal(r.status, 201, r.body);
    // Read back through each server: the stored objects, not just the answers.
    for (const server of [a, b]) {
      const items = (await server.request('GET', SVC)).json<{ items: Svc[] }>().items;
      const ips = items.map((s) => s.spec.clusterIP);
      const ports = items.flatMap((s) => [...(s.spec.ports ?? []).map((p) => p.nodePort ?? 0), s.spec.healthCheckNodePort ?? 0]).filter((p) => p !== 0);
      assert.equal(items.length, count + 1, 'the services and kubernetes');
      assert.equal(new Set(ips).size, ips.length, `duplicate cluster IP in ${ips.join(' ')}`);
      assert.equal(new Set(ports).size, ports.length, `duplicate node port in ${ports.join(' ')}`);
      assert.equal(ports.length, 32 * 2 + 8 * 2, 'NodePorts hold two, Local LoadBalancers one plus a health check port');
      assert.ok(ips.includes('10.0.0.1'), 'one kubernetes Service with the first IP, whichever server made it');
    }
  });

  it('lets one server take what the other released', async () => {
    const victim = (await a.request('GET', `${SVC}/svc-1`)).json<Svc>();
    const dup = await b.request('POST', SVC, { metadata: { name: 'dup' }, spec: { clusterIP: victim.spec.clusterIP, ports: [{ port: 80 }] } });
    assert.equal(dup.status, 422, dup.body);
    assert.equal((await a.request('DELETE', `${SVC}/svc-1`)).status, 200);
    const reuse = await b.request('POST', SVC, { metadata: { name: 'reuse' }, spec: { type: 'NodePort', clusterIP: victim.spec.clusterIP, ports: [{ port: 80, nodePort: victim.spec.ports![0]!.nodePort }] } });
    assert.equal(reuse.status, 201, reuse.body);
  });

  it('shows CLUSTER-IP through kubectl on either server', async () => {
    const out = await b.kubectl(['get', 'svc', 'reuse']);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /^NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE\nreuse\s+NodePort\s+10\.0\.0\.\d+\s+<none>\s+80:310\d\d\/TCP/);
  });
});
