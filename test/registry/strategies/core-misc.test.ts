/** ServiceAccounts, Nodes, Leases, PersistentVolumes, PodTemplates. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { serviceAccountStrategy } from '../../../src/registry/strategies/serviceaccounts.ts';
import { nodeStrategy } from '../../../src/registry/strategies/nodes.ts';
import { leaseStrategy } from '../../../src/registry/strategies/leases.ts';
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from '../../../src/registry/strategies/persistentvolumes.ts';
import { podTemplateStrategy } from '../../../src/registry/strategies/podtemplates.ts';
import { NOW, ctx, lines, make } from './helpers.ts';

describe('serviceaccounts', () => {
  it('keep only the names of secret references and answer deletes with the object', () => {
    const sa = make('ServiceAccount', { secrets: [{ name: 'tok', namespace: 'other', uid: 'x' }] });
    serviceAccountStrategy.defaults?.(sa);
    serviceAccountStrategy.prepareForCreate?.(sa, ctx());
    assert.deepEqual(sa['secrets'], [{ name: 'tok' }]);
    assert.equal(serviceAccountStrategy.returnDeletedObject, true);
  });
});

describe('nodes', () => {
  it('keep the reported status and default allocatable from capacity', () => {
    const node = make('Node', { status: { capacity: { cpu: '4', memory: '8Gi' } } }, { name: 'node-1' });
    nodeStrategy.defaults?.(node);
    nodeStrategy.prepareForCreate?.(node, ctx());
    assert.deepEqual(node['status'], { capacity: { cpu: '4', memory: '8Gi' }, allocatable: { cpu: '4', memory: '8Gi' } });
  });

  it('validate taints', () => {
    const node = make('Node', { spec: { taints: [{ key: 'a', effect: 'NoSchedule' }, { key: 'a', effect: 'NoSchedule' }, { key: 'b', effect: 'Sometimes' }] } }, { name: 'n' });
    const errs = lines(nodeStrategy.validate!(node, ctx()));
    assert.match(errs[0]!, /^spec\.taints\[1\]: Duplicate value: .*: taints must be unique by key and effect pair$/);
    assert.equal(errs[1], 'spec.taints[2].effect: Unsupported value: "Sometimes": supported values: "NoSchedule", "PreferNoSchedule", "NoExecute"');
  });

  it('keep podCIDRs and providerID once set', () => {
    const old = make('Node', { spec: { podCIDRs: ['10.0.1.0/24'], providerID: 'aws:///i-1' } }, { name: 'n' });
    const next = make('Node', { spec: { podCIDRs: ['10.0.2.0/24'], providerID: 'aws:///i-2' } }, { name: 'n' });
    assert.deepEqual(lines(nodeStrategy.validateUpdate!(next, old, ctx())), [
      'spec.podCIDRs: Forbidden: may not change once set',
      'spec.providerID: Forbidden: node updates may not change providerID except from "" to valid',
    ]);
  });
});

describe('leases', () => {
  it('require positive durations and non-negative transitions', () => {
    const lease = make('Lease', { spec: { holderIdentity: 'a', leaseDurationSeconds: 0, leaseTransitions: -1 } });
    assert.deepEqual(lines(leaseStrategy.validate!(lease, ctx())), [
      'spec.leaseDurationSeconds: Invalid value: 0: must be greater than 0',
      'spec.leaseTransitions: Invalid value: -1: must be greater than or equal to 0',
    ]);
  });

  it('drop the fields of the disabled coordinated election feature', () => {
    const lease = make('Lease', { spec: { holderIdentity: 'a', strategy: 'OldestEmulationVersion', preferredHolder: 'b' } });
    leaseStrategy.defaults?.(lease);
    leaseStrategy.prepareForCreate?.(lease, ctx());
    assert.deepEqual(lease['spec'], { holderIdentity: 'a' });
  });
});

describe('persistent volumes', () => {
  it('start Pending, with the phase time, and default policies', () => {
    const pv = make('PersistentVolume', { spec: { capacity: { storage: '1Gi' } }, status: { phase: 'Bound' } }, { name: 'pv1' });
    persistentVolumeStrategy.defaults?.(pv);
    persistentVolumeStrategy.prepareForCreate?.(pv, ctx());
    assert.deepEqual(pv['status'], { phase: 'Pending', lastPhaseTransitionTime: NOW });
    assert.equal((pv['spec'] as Record<string, unknown>)['persistentVolumeReclaimPolicy'], 'Retain');
    const pvc = make('PersistentVolumeClaim', { spec: {} });
    persistentVolumeClaimStrategy.defaults?.(pvc);
    persistentVolumeClaimStrategy.prepareForCreate?.(pvc, ctx());
    assert.deepEqual(pvc['status'], { phase: 'Pending' });
    assert.equal((pvc['spec'] as Record<string, unknown>)['volumeMode'], 'Filesystem');
  });

  it('stamp a phase change made through /status', () => {
    const old = make('PersistentVolume', { status: { phase: 'Pending', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' } }, { name: 'pv1' });
    const next = make('PersistentVolume', { status: { phase: 'Bound', lastPhaseTransitionTime: '2020-01-01T00:00:00Z' } }, { name: 'pv1' });
    persistentVolumeStrategy.defaults?.(next);
    persistentVolumeStrategy.prepareForUpdate?.(next, old, ctx('status'));
    assert.deepEqual(next['status'], { phase: 'Bound', lastPhaseTransitionTime: NOW });
  });
});

describe('podtemplates', () => {
  it('default and validate the template', () => {
    const pt = make('PodTemplate', { template: { spec: { containers: [{ name: 'a', image: '' }] } } });
    podTemplateStrategy.defaults?.(pt);
    podTemplateStrategy.prepareForCreate?.(pt, ctx());
    assert.equal(((pt['template'] as Record<string, Record<string, unknown>>)['spec']!)['restartPolicy'], 'Always');
    assert.deepEqual(lines(podTemplateStrategy.validate!(pt, ctx())), ['template.spec.containers[0].image: Required value']);
  });
});
