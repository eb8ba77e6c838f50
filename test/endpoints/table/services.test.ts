/** Service networking tables: services, endpoints, endpoint slices, ingresses, ingress classes, network policies. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { cellsOf, headers, kindOf, object, tableOf } from './helpers.ts';

const SERVICE = kindOf('', 'v1', 'Service', 'services');
const ENDPOINTS = kindOf('', 'v1', 'Endpoints', 'endpoints');
const SLICE = kindOf('discovery.orch.io', 'v1', 'EndpointSlice', 'endpointslices');
const INGRESS = kindOf('networking.orch.io', 'v1', 'Ingress', 'ingresses');
const INGRESS_CLASS = kindOf('networking.orch.io', 'v1', 'IngressClass', 'ingressclasses');
const NETWORK_POLICY = kindOf('networking.orch.io', 'v1', 'NetworkPolicy', 'networkpolicies');

describe('service table', () => {
  it('prints a ClusterIP service', () => {
    const svc = object('web', 7200, {
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }], selector: { app: 'web' } },
    });
    const t = tableOf(SERVICE, [svc]);
    assert.deepEqual(headers(t), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    assert.deepEqual(headers(t, true), ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR']);
    assert.deepEqual(t.rows[0]!.cells, ['web', 'ClusterIP', '10.96.0.10', '<none>', '80/TCP,53/UDP', '120m', 'app=web']);
  });

  it('prints node ports, external IPs, load balancers and external names', () => {
    const np = object('np', 60, { spec: { type: 'NodePort', clusterIPs: ['10.96.1.1'], externalIPs: ['1.2.3.4'], ports: [{ port: 443, nodePort: 30443, protocol: 'TCP' }] } });
    assert.deepEqual(cellsOf(SERVICE, np).slice(1, 5), ['NodePort', '10.96.1.1', '1.2.3.4', '443:30443/TCP']);
    const pending = object('lb', 60, { spec: { type: 'LoadBalancer', clusterIPs: ['10.96.1.2'], ports: [{ port: 80, nodePort: 31000, protocol: 'TCP' }] } });
    assert.equal(cellsOf(SERVICE, pending)[3], '<pending>');
    const lb = object('lb2', 60, {
      spec: { type: 'LoadBalancer', clusterIPs: ['10.96.1.3'], externalIPs: ['9.9.9.9'] },
      status: { loadBalancer: { ingress: [{ ip: '5.6.7.8' }, { hostname: 'lb.example.com' }, { ip: '5.6.7.8' }, { ip: '1.1.1.1' }] } },
    });
    assert.deepEqual(cellsOf(SERVICE, lb).slice(3, 5), ['1.1.1.1,5.6.7.8,lb.example.com,9.9.9.9', '<none>']);
    const ext = object('ext', 60, { spec: { type: 'ExternalName', externalName: 'db.example.com' } });
    assert.deepEqual(cellsOf(SERVICE, ext).slice(1, 7), ['ExternalName', '<none>', 'db.example.com', '<none>', '60s', '<none>']);
    const headless = object('hl', 60, { spec: { type: 'ClusterIP', clusterIP: 'None', clusterIPs: ['None'], ports: [{ port: 5432, protocol: 'TCP' }] } });
    assert.equal(cellsOf(SERVICE, headless)[2], 'None');
  });
});

describe('endpoints table', () => {
  it('prints up to three addresses then a count', () => {
    const ep = object('web', 60, {
      subsets: [
        { addresses: [{ ip: '10.1.0.1' }, { ip: '10.1.0.2' }], ports: [{ port: 8080 }, { port: 9090 }] },
        { addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] },
      ],
    });
    assert.deepEqual(headers(tableOf(ENDPOINTS, [ep])), ['NAME', 'ENDPOINTS', 'AGE']);
    assert.deepEqual(cellsOf(ENDPOINTS, ep), ['web', '10.1.0.1:8080,10.1.0.2:8080,10.1.0.1:9090 + 2 more...', '60s']);
    assert.equal(cellsOf(ENDPOINTS, object('v6', 60, { subsets: [{ addresses: [{ ip: 'fd00::1' }], ports: [{ port: 80 }] }] }))[1], '[fd00::1]:80');
    assert.equal(cellsOf(ENDPOINTS, object('headless', 60, { subsets: [{ addresses: [{ ip: '10.0.0.9' }] }] }))[1], '10.0.0.9');
    assert.equal(cellsOf(ENDPOINTS, object('none', 60, {}))[1], '<none>');
  });

  it('prints endpoint slices', () => {
    const slice = object('web-abc', 60, {
      addressType: 'IPv4',
      ports: [{ name: 'http', port: 80 }, { name: 'metrics' }, {}],
      endpoints: [{ addresses: ['10.1.0.1'] }, { addresses: ['10.1.0.2', '10.1.0.3', '10.1.0.4'] }],
    });
    const t = tableOf(SLICE, [slice]);
    assert.deepEqual(headers(t), ['NAME', 'ADDRESSTYPE', 'PORTS', 'ENDPOINTS', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['web-abc', 'IPv4', '80,metrics,*', '10.1.0.1,10.1.0.2,10.1.0.3 + 1 more...', '60s']);
    assert.deepEqual(cellsOf(SLICE, object('empty', 60, { addressType: 'IPv6' })).slice(2, 4), ['<unset>', '<unset>']);
  });
});

describe('ingress tables', () => {
  it('prints class, hosts, address and ports', () => {
    const ing = object('shop', 60, {
      spec: { ingressClassName: 'nginx', rules: [{ host: 'a.example.com' }, { host: 'b.example.com' }], tls: [{ hosts: ['a.example.com'] }] },
      status: { loadBalancer: { ingress: [{ ip: '203.0.113.10' }] } },
    });
    const t = tableOf(INGRESS, [ing]);
    assert.deepEqual(headers(t), ['NAME', 'CLASS', 'HOSTS', 'ADDRESS', 'PORTS', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['shop', 'nginx', 'a.example.com,b.example.com', '203.0.113.10', '80, 443', '60s']);
    const many = object('many', 60, { spec: { rules: [{ host: 'a' }, { host: 'b' }, { host: 'c' }, { host: 'd' }, {}] } });
    assert.deepEqual(cellsOf(INGRESS, many).slice(1, 5), ['<none>', 'a,b,c + 2 more...', '', '80']);
    assert.equal(cellsOf(INGRESS, object('any', 60, { spec: { rules: [{}] } }))[2], '*');
  });

  it('prints ingress classes', () => {
    const cls = object('nginx', 60, { spec: { controller: 'k8s.io/ingress-nginx', parameters: { apiGroup: 'example.com', kind: 'Params', name: 'p' } } });
    assert.deepEqual(cellsOf(INGRESS_CLASS, cls), ['nginx', 'k8s.io/ingress-nginx', 'Params.example.com/p', '60s']);
    assert.equal(cellsOf(INGRESS_CLASS, object('bare', 60, { spec: { controller: 'c' } }))[2], '<none>');
  });

  it('prints network policy pod selectors', () => {
    const np = object('deny', 60, { spec: { podSelector: { matchLabels: { role: 'db' } } } });
    assert.deepEqual(cellsOf(NETWORK_POLICY, np), ['deny', 'role=db', '60s']);
    assert.equal(cellsOf(NETWORK_POLICY, object('all', 60, { spec: { podSelector: {} } }))[1], '<none>');
  });
});
