/** Ingress path validation and EndpointSlice's read-only deprecatedTopology, in the strategies and over HTTP. */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ingressStrategy } from '../../../src/registry/strategies/ingresses.ts';
import { HOSTNAME_TOPOLOGY_LABEL, endpointSliceStrategy } from '../../../src/registry/strategies/endpointslices.ts';
import { startTestServer, type TestServer } from '../../support/test-server.ts';
import { ctx, lines, make } from './helpers.ts';

function ingress(paths: unknown[]): ReturnType<typeof make> {
  return make('Ingress', { spec: { rules: [{ host: 'a.example.com', http: { paths } }] } });
}

const backend = { service: { name: 'web', port: { number: 80 } } };

describe('ingresses', () => {
  it('require pathType on every path', () => {
    assert.deepEqual(lines(ingressStrategy.validate!(ingress([{ path: '/', backend }]), ctx())), ['spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified']);
  });

  it('check Exact and Prefix paths as the original does', () => {
    const errs = lines(
      ingressStrategy.validate!(
        ingress([
          { path: 'app', pathType: 'Prefix', backend },
          { path: '/a//b/%2F/..', pathType: 'Exact', backend },
          { path: '/ok', pathType: 'Prefix', backend },
        ]),
        ctx(),
      ),
    );
    assert.deepEqual(errs, [
      'spec.rules[0].http.paths[0].path: Invalid value: "app": must be an absolute path',
      'spec.rules[0].http.paths[1].path: Invalid value: "/a//b/%2F/..": must not contain \'//\'',
      'spec.rules[0].http.paths[1].path: Invalid value: "/a//b/%2F/..": must not contain \'%2F\'',
      'spec.rules[0].http.paths[1].path: Invalid value: "/a//b/%2F/..": cannot end with \'/..\'',
    ]);
  });

  it('allow an empty ImplementationSpecific path, refuse relative ones and unknown types, and need a path per http rule', () => {
    assert.deepEqual(lines(ingressStrategy.validate!(ingress([{ pathType: 'ImplementationSpecific', backend }]), ctx())), []);
    assert.deepEqual(lines(ingressStrategy.validate!(ingress([{ path: 'x', pathType: 'ImplementationSpecific', backend }]), ctx())), [
      'spec.rules[0].http.paths[0].path: Invalid value: "x": must be an absolute path',
    ]);
    assert.deepEqual(lines(ingressStrategy.validate!(ingress([{ path: '/', pathType: 'Regex', backend }]), ctx())), [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]);
    assert.deepEqual(lines(ingressStrategy.validate!(ingress([]), ctx())), ['spec.rules[0].http.paths: Required value']);
  });

  it('check updates of the spec but not of status', () => {
    const bad = ingress([{ path: '/', backend }]);
    assert.equal(ingressStrategy.validateUpdate!(bad, bad, ctx()).length, 1);
    assert.equal(ingressStrategy.validateUpdate!(bad, bad, ctx('status')).length, 0);
  });
});

describe('endpointslices', () => {
  const topo = (node: string): Record<string, string> => ({ [HOSTNAME_TOPOLOGY_LABEL]: node, 'topology.example/zone': 'z1' });

  it('drop deprecatedTopology on create', () => {
    const slice = make('EndpointSlice', { addressType: 'IPv4', endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: topo('n1') }] });
    endpointSliceStrategy.defaults?.(slice);
    endpointSliceStrategy.prepareForCreate?.(slice, ctx());
    assert.deepEqual(slice['endpoints'], [{ addresses: ['10.0.0.1'] }]);
  });

  it('on update: keep it when the endpoints did not change, else drop it and keep a known node as nodeName', () => {
    const old = make('EndpointSlice', { endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: topo('n1') }] });
    const same = make('EndpointSlice', { endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: topo('n1') }] });
    endpointSliceStrategy.defaults?.(same);
    endpointSliceStrategy.prepareForUpdate?.(same, old, ctx());
    assert.deepEqual(same['endpoints'], old['endpoints']);
    const changed = make('EndpointSlice', { endpoints: [{ addresses: ['10.0.0.2'], deprecatedTopology: topo('n1') }, { addresses: ['10.0.0.3'], deprecatedTopology: topo('n9') }] });
    endpointSliceStrategy.defaults?.(changed);
    endpointSliceStrategy.prepareForUpdate?.(changed, old, ctx());
    assert.deepEqual(changed['endpoints'], [{ addresses: ['10.0.0.2'], nodeName: 'n1' }, { addresses: ['10.0.0.3'] }]);
  });
});

describe('over HTTP', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('an Ingress path without pathType is 422 with the original message', async () => {
    const body = { apiVersion: 'networking.orch.io/v1', kind: 'Ingress', metadata: { name: 'no-type' }, spec: { rules: [{ http: { paths: [{ path: '/', backend }] } }] } };
    const res = await t.request('POST', '/apis/networking.orch.io/v1/namespaces/default/ingresses', body);
    assert.equal(res.status, 422, res.body);
    assert.equal(res.json()['message'], 'Ingress.networking.orch.io "no-type" is invalid: spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified');
  });

  it('an EndpointSlice keeps no deprecatedTopology', async () => {
    const body = {
      apiVersion: 'discovery.orch.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'eps' },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.0.0.1'], deprecatedTopology: { [HOSTNAME_TOPOLOGY_LABEL]: 'n1' } }],
    };
    const res = await t.request('POST', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices', body);
    assert.equal(res.status, 201, res.body);
    const stored = (await t.request('GET', '/apis/discovery.orch.io/v1/namespaces/default/endpointslices/eps')).json<{ endpoints: Array<Record<string, unknown>> }>();
    assert.deepEqual(stored.endpoints, [{ addresses: ['10.0.0.1'] }]);
  });
});
