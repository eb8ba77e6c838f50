/** Services: defaults, what an update may leave out, type changes, and the validation clients hit. Allocation and IP families are the allocator's (service-allocation tests). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serviceStrategy } from '../../../src/registry/strategies/services.ts';
import { ctx, lines, make } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

function svc(spec: Record<string, unknown>, name = 'web'): KObject {
  return make('Service', { spec }, { name, namespace: 'default' });
}

function created(spec: Record<string, unknown>, name?: string): KObject {
  const s = svc(spec, name);
  serviceStrategy.defaults?.(s);
  serviceStrategy.prepareForCreate?.(s, ctx());
  return s;
}

describe('service defaults', () => {
  it('fill type, affinity, protocol, targetPort and traffic policies, but no cluster IP or IP families', () => {
    const s = created({ selector: { app: 'web' }, ports: [{ port: 80 }] });
    assert.deepEqual(s['spec'], {
      selector: { app: 'web' },
      ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }],
      sessionAffinity: 'None',
      type: 'ClusterIP',
      internalTrafficPolicy: 'Cluster',
    });
    assert.deepEqual(s['status'], { loadBalancer: {} });
  });

  it('fill the external policy and node port allocation flag for load balancers', () => {
    const spec = created({ type: 'LoadBalancer', ports: [{ port: 443, targetPort: 'https' }] })['spec'] as Record<string, unknown>;
    assert.equal(spec['externalTrafficPolicy'], 'Cluster');
    assert.equal(spec['allocateLoadBalancerNodePorts'], true);
    assert.equal((spec['ports'] as Record<string, unknown>[])[0]!['targetPort'], 'https');
  });

  it('default ClientIP affinity timeout', () => {
    const spec = created({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] })['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['sessionAffinityConfig'], { clientIP: { timeoutSeconds: 10800 } });
  });

  it('leave ExternalName services without IP families and fill clusterIPs from clusterIP', () => {
    const ext = created({ type: 'ExternalName', externalName: 'db.example.com' })['spec'] as Record<string, unknown>;
    assert.equal(ext['ipFamilies'], undefined);
    assert.equal(ext['ipFamilyPolicy'], undefined);
    const headless = created({ clusterIP: 'None', ports: [{ port: 80 }] })['spec'] as Record<string, unknown>;
    assert.deepEqual(headless['clusterIPs'], ['None']);
  });
});

describe('service validation', () => {
  it('accepts a defaulted service', () => {
    assert.deepEqual(serviceStrategy.validate!(created({ ports: [{ port: 80 }] }), ctx()), []);
  });

  it('requires ports unless headless or ExternalName', () => {
    assert.deepEqual(lines(serviceStrategy.validate!(created({}), ctx())), ['spec.ports: Required value']);
    assert.deepEqual(serviceStrategy.validate!(created({ clusterIP: 'None' }), ctx()), []);
    assert.deepEqual(serviceStrategy.validate!(created({ type: 'ExternalName', externalName: 'db.example.com.' }), ctx()), []);
    assert.deepEqual(lines(serviceStrategy.validate!(created({ type: 'ExternalName' }), ctx())), ['spec.externalName: Required value']);
  });

  it('checks port numbers, names and duplicates', () => {
    const errs = lines(serviceStrategy.validate!(created({ ports: [{ port: 0, name: 'a' }, { port: 80 }, { port: 80, name: 'a' }] }), ctx()));
    assert.ok(errs.includes('spec.ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive'));
    assert.ok(errs.includes('spec.ports[1].name: Required value'));
    assert.ok(errs.includes('spec.ports[2].name: Duplicate value: "a"'));
    assert.ok(errs.some((e) => e.startsWith('spec.ports[2]: Duplicate value:')));
  });

  it('checks the type enum', () => {
    assert.ok(
      lines(serviceStrategy.validate!(created({ type: 'Magic', ports: [{ port: 80 }] }), ctx())).includes(
        'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
      ),
    );
  });

  it('checks node ports: not on ClusterIP (the range is the allocator\'s to check)', () => {
    assert.deepEqual(lines(serviceStrategy.validate!(created({ ports: [{ port: 80, nodePort: 30080 }] }), ctx())), [
      "spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'",
    ]);
    assert.deepEqual(serviceStrategy.validate!(created({ type: 'NodePort', ports: [{ port: 80, nodePort: 30080 }] }), ctx()), []);
  });

  it('checks the cluster IP fields: IPs, at most one per family, known families and policies', () => {
    const check = (spec: Record<string, unknown>): string[] => lines(serviceStrategy.validate!(created({ ports: [{ port: 80 }], ...spec }), ctx()));
    assert.deepEqual(check({ clusterIP: '10.0.0.300' }), ['spec.clusterIPs[0]: Invalid value: "10.0.0.300": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)']);
    assert.deepEqual(check({ clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.6'] }), ['spec.clusterIPs: Invalid value: []string{"10.0.0.6"}: first value must match `clusterIP`']);
    assert.deepEqual(check({ clusterIP: '10.0.0.5', clusterIPs: ['10.0.0.5', '10.0.0.6'] }), [
      'spec.clusterIPs: Invalid value: []string{"10.0.0.5", "10.0.0.6"}: may specify no more than one IP for each IP family',
    ]);
    assert.deepEqual(check({ ipFamilies: ['IPv4', 'IPv4'] }), ['spec.ipFamilies[1]: Duplicate value: "IPv4"']);
    assert.deepEqual(check({ ipFamilies: ['IPv5'] }), ['spec.ipFamilies[0]: Unsupported value: "IPv5": supported values: "IPv4", "IPv6"']);
    assert.deepEqual(check({ ipFamilyPolicy: 'Maybe' }), [
      'spec.ipFamilyPolicy: Unsupported value: "Maybe": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    ]);
    assert.deepEqual(check({ clusterIP: 'fd00::5', ipFamilies: ['IPv4'] }), ['spec.clusterIPs[0]: Invalid value: "fd00::5": expected an IPv4 value as indicated by `ipFamilies[0]`']);
    assert.deepEqual(check({ clusterIP: 'None', clusterIPs: ['None', '10.0.0.1'] }), ['spec.clusterIPs: Invalid value: []string{"None", "10.0.0.1"}: \'None\' must be the first and only value']);
  });

  it('adds the DNS-1035 rule to names', () => {
    assert.match(lines(serviceStrategy.validate!(created({ ports: [{ port: 80 }] }, '1web'), ctx()))[0]!, /^metadata\.name: Invalid value: "1web": a DNS-1035 label must consist of/);
  });
});

describe('service updates', () => {
  const allocated = (): KObject => {
    const s = created({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
    const spec = s['spec'] as Record<string, unknown>;
    spec['clusterIP'] = '10.96.0.10';
    spec['clusterIPs'] = ['10.96.0.10'];
    (spec['ports'] as Record<string, unknown>[])[0]!['nodePort'] = 31000;
    return s;
  };

  it('keep the allocated cluster IP and node ports when the update leaves them out', () => {
    const old = allocated();
    const next = svc({ type: 'NodePort', ports: [{ name: 'http', port: 80 }] });
    serviceStrategy.defaults?.(next);
    serviceStrategy.prepareForUpdate?.(next, old, ctx());
    const spec = next['spec'] as Record<string, unknown>;
    assert.equal(spec['clusterIP'], '10.96.0.10');
    assert.deepEqual(spec['clusterIPs'], ['10.96.0.10']);
    assert.equal((spec['ports'] as Record<string, unknown>[])[0]!['nodePort'], 31000);
    assert.deepEqual(serviceStrategy.validateUpdate!(next, old, ctx()), []);
  });

  it('drop node ports when the type changes to ClusterIP, and cluster IPs and families when it changes to ExternalName', () => {
    const old = allocated();
    (old['spec'] as Record<string, unknown>)['ipFamilies'] = ['IPv4'];
    (old['spec'] as Record<string, unknown>)['ipFamilyPolicy'] = 'SingleStack';
    const toClusterIP = structuredClone(old);
    (toClusterIP['spec'] as Record<string, unknown>)['type'] = 'ClusterIP';
    serviceStrategy.defaults?.(toClusterIP);
    serviceStrategy.prepareForUpdate?.(toClusterIP, old, ctx());
    const spec = toClusterIP['spec'] as Record<string, unknown>;
    assert.equal((spec['ports'] as Record<string, unknown>[])[0]!['nodePort'], undefined);
    assert.equal(spec['externalTrafficPolicy'], undefined);
    assert.equal(spec['clusterIP'], '10.96.0.10');
    assert.deepEqual(serviceStrategy.validateUpdate!(toClusterIP, old, ctx()), []);

    const toExternal = structuredClone(old);
    Object.assign(toExternal['spec'] as Record<string, unknown>, { type: 'ExternalName', externalName: 'db.example.com' });
    serviceStrategy.defaults?.(toExternal);
    serviceStrategy.prepareForUpdate?.(toExternal, old, ctx());
    const ext = toExternal['spec'] as Record<string, unknown>;
    assert.equal(ext['clusterIP'], undefined);
    assert.equal(ext['clusterIPs'], undefined);
    assert.equal(ext['ipFamilies'], undefined);
    assert.equal(ext['ipFamilyPolicy'], undefined);
    assert.deepEqual(serviceStrategy.validateUpdate!(toExternal, old, ctx()), []);
  });

  it('refuse a changed cluster IP', () => {
    const old = allocated();
    const next = structuredClone(old);
    (next['spec'] as Record<string, unknown>)['clusterIP'] = '10.96.0.11';
    (next['spec'] as Record<string, unknown>)['clusterIPs'] = ['10.96.0.11'];
    assert.deepEqual(lines(serviceStrategy.validateUpdate!(next, old, ctx())), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
  });
});
