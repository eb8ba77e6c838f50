/** ReplicaSets, StatefulSets, DaemonSets and ReplicationControllers: defaults and the rules that differ from Deployments. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { daemonSetStrategy } from '../../../src/registry/strategies/daemonsets.ts';
import { replicaSetStrategy } from '../../../src/registry/strategies/replicasets.ts';
import { replicationControllerStrategy } from '../../../src/registry/strategies/replicationcontrollers.ts';
import { statefulSetStrategy } from '../../../src/registry/strategies/statefulsets.ts';
import type { Strategy } from '../../../src/registry/strategy.ts';
import { ctx, lines, make, podTemplate } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

function created(strategy: Strategy, kind: string, spec: Record<string, unknown>): KObject {
  const o = make(kind, { spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate(), ...spec } });
  strategy.defaults?.(o);
  strategy.prepareForCreate?.(o, ctx());
  return o;
}

describe('replicasets', () => {
  it('default replicas, show zero replicas in status and validate like deployments', () => {
    const rs = created(replicaSetStrategy, 'ReplicaSet', {});
    assert.equal((rs['spec'] as Record<string, unknown>)['replicas'], 1);
    assert.deepEqual(rs['status'], { replicas: 0 });
    assert.deepEqual(replicaSetStrategy.validate!(rs, ctx()), []);
    const empty = created(replicaSetStrategy, 'ReplicaSet', { selector: { matchLabels: {} } });
    assert.match(lines(replicaSetStrategy.validate!(empty, ctx()))[0]!, /empty selector is invalid for deployment$/);
  });
});

describe('statefulsets', () => {
  it('default policies, partition and PVC retention', () => {
    const sts = created(statefulSetStrategy, 'StatefulSet', { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: {} }] });
    const spec = sts['spec'] as Record<string, unknown>;
    assert.equal(spec['podManagementPolicy'], 'OrderedReady');
    assert.deepEqual(spec['updateStrategy'], { type: 'RollingUpdate', rollingUpdate: { partition: 0 } });
    assert.deepEqual(spec['persistentVolumeClaimRetentionPolicy'], { whenDeleted: 'Retain', whenScaled: 'Retain' });
    assert.equal(spec['replicas'], 1);
    assert.equal(spec['revisionHistoryLimit'], 10);
    assert.deepEqual(spec['volumeClaimTemplates'], [{ metadata: { name: 'data' }, spec: { volumeMode: 'Filesystem' }, status: { phase: 'Pending' } }]);
    assert.deepEqual(sts['status'], { replicas: 0, availableReplicas: 0 });
    assert.deepEqual(statefulSetStrategy.validate!(sts, ctx()), []);
  });

  it('leave OnDelete without rollingUpdate', () => {
    const sts = created(statefulSetStrategy, 'StatefulSet', { updateStrategy: { type: 'OnDelete' } });
    assert.deepEqual((sts['spec'] as Record<string, unknown>)['updateStrategy'], { type: 'OnDelete' });
  });

  it('check the pod management policy', () => {
    const sts = created(statefulSetStrategy, 'StatefulSet', { podManagementPolicy: 'Random' });
    assert.deepEqual(lines(statefulSetStrategy.validate!(sts, ctx())), ["spec.podManagementPolicy: Invalid value: \"Random\": must be 'OrderedReady' or 'Parallel'"]);
  });

  it('forbid changes outside the updatable fields', () => {
    const old = created(statefulSetStrategy, 'StatefulSet', { serviceName: 'web' });
    const scaled = structuredClone(old);
    (scaled['spec'] as Record<string, unknown>)['replicas'] = 3;
    assert.deepEqual(statefulSetStrategy.validateUpdate!(scaled, old, ctx()), []);
    const renamed = structuredClone(old);
    (renamed['spec'] as Record<string, unknown>)['serviceName'] = 'other';
    assert.deepEqual(lines(statefulSetStrategy.validateUpdate!(renamed, old, ctx())), [
      "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
    ]);
  });
});

describe('daemonsets', () => {
  it('default a rolling update of one pod at a time and record the template generation', () => {
    const ds = created(daemonSetStrategy, 'DaemonSet', {});
    const spec = ds['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['updateStrategy'], { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } });
    assert.equal(spec['revisionHistoryLimit'], 10);
    assert.equal(ds.metadata.annotations?.['deprecated.daemonset.template.generation'], '1');
    assert.deepEqual(daemonSetStrategy.validate!(ds, ctx()), []);
  });

  it('bump the template generation when the template changes', () => {
    const old = created(daemonSetStrategy, 'DaemonSet', {});
    const next = structuredClone(old);
    const template = (next['spec'] as Record<string, unknown>)['template'] as Record<string, Record<string, unknown>>;
    (template['spec']!['containers'] as Record<string, unknown>[])[0]!['image'] = 'nginx:2';
    daemonSetStrategy.defaults?.(next);
    daemonSetStrategy.prepareForUpdate?.(next, old, ctx());
    assert.equal(next.metadata.annotations?.['deprecated.daemonset.template.generation'], '2');
  });

  it('report a missing selector through the template check only', () => {
    const ds = created(daemonSetStrategy, 'DaemonSet', { selector: undefined });
    assert.deepEqual(lines(daemonSetStrategy.validate!(ds, ctx())), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('refuse both maxSurge and maxUnavailable', () => {
    const ds = created(daemonSetStrategy, 'DaemonSet', { updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 1 } } });
    assert.deepEqual(lines(daemonSetStrategy.validate!(ds, ctx())), [
      'spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: may not be set when maxUnavailable is non-zero',
    ]);
  });
});

describe('replicationcontrollers', () => {
  it('take selector and labels from the template', () => {
    const rc = make('ReplicationController', { spec: { template: podTemplate({ app: 'web' }) } });
    replicationControllerStrategy.defaults?.(rc);
    replicationControllerStrategy.prepareForCreate?.(rc, ctx());
    const spec = rc['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['selector'], { app: 'web' });
    assert.deepEqual(rc.metadata.labels, { app: 'web' });
    assert.equal(spec['replicas'], 1);
    assert.deepEqual(replicationControllerStrategy.validate!(rc, ctx()), []);
  });

  it('require the selector to match', () => {
    const rc = make('ReplicationController', { spec: { selector: { app: 'api' }, template: podTemplate({ app: 'web' }) } });
    replicationControllerStrategy.defaults?.(rc);
    replicationControllerStrategy.prepareForCreate?.(rc, ctx());
    assert.deepEqual(lines(replicationControllerStrategy.validate!(rc, ctx())), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });
});

describe('scale writes', () => {
  it('go through the main validation, as the original scale endpoint does', () => {
    const old = created(replicaSetStrategy, 'ReplicaSet', {});
    const next = structuredClone(old);
    (next['spec'] as Record<string, unknown>)['replicas'] = -2;
    replicaSetStrategy.defaults?.(next);
    replicaSetStrategy.prepareForUpdate?.(next, old, ctx('scale'));
    assert.deepEqual(lines(replicaSetStrategy.validateUpdate!(next, old, ctx('scale'))), ['spec.replicas: Invalid value: -2: must be greater than or equal to 0']);
    assert.deepEqual(replicaSetStrategy.validateUpdate!(next, old, ctx('status')), []);
  });
});
