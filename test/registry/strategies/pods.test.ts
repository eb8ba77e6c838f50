/** Pods: defaults, status on create, validation, update rules and graceful deletion. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { podStrategy } from '../../../src/registry/strategies/pods.ts';
import { defaultImagePullPolicy } from '../../../src/registry/strategies/pod-defaults.ts';
import { podQOSClass } from '../../../src/registry/strategies/pod-qos.ts';
import { ctx, fields, lines, make } from './helpers.ts';

function pod(spec: Record<string, unknown> = {}) {
  return make('Pod', { spec: { containers: [{ name: 'web', image: 'nginx' }], ...spec } });
}

function created(spec: Record<string, unknown> = {}) {
  const p = pod(spec);
  podStrategy.defaults?.(p);
  podStrategy.prepareForCreate?.(p, ctx());
  return p;
}

describe('pod defaults', () => {
  it('fills the pod spec defaults', () => {
    const p = created();
    const spec = p['spec'] as Record<string, unknown>;
    assert.equal(spec['restartPolicy'], 'Always');
    assert.equal(spec['dnsPolicy'], 'ClusterFirst');
    assert.equal(spec['schedulerName'], 'default-scheduler');
    assert.equal(spec['terminationGracePeriodSeconds'], 30);
    assert.deepEqual(spec['securityContext'], {});
    assert.equal(spec['enableServiceLinks'], true);
    assert.equal(spec['priority'], 0);
    assert.equal(spec['preemptionPolicy'], 'PreemptLowerPriority');
    const c = (spec['containers'] as Record<string, unknown>[])[0]!;
    assert.equal(c['terminationMessagePath'], '/dev/termination-log');
    assert.equal(c['terminationMessagePolicy'], 'File');
    assert.equal(c['imagePullPolicy'], 'Always');
  });

  it('keeps values the client gave', () => {
    const p = created({ restartPolicy: 'Never', terminationGracePeriodSeconds: 5, containers: [{ name: 'a', image: 'x:1', imagePullPolicy: 'Never' }] });
    const spec = p['spec'] as Record<string, unknown>;
    assert.equal(spec['restartPolicy'], 'Never');
    assert.equal(spec['terminationGracePeriodSeconds'], 5);
    assert.equal((spec['containers'] as Record<string, unknown>[])[0]!['imagePullPolicy'], 'Never');
  });

  it('derives the pull policy from the tag', () => {
    assert.equal(defaultImagePullPolicy('nginx'), 'Always');
    assert.equal(defaultImagePullPolicy('nginx:latest'), 'Always');
    assert.equal(defaultImagePullPolicy('nginx:1.27'), 'IfNotPresent');
    assert.equal(defaultImagePullPolicy('registry.local:5000/team/app'), 'Always');
    assert.equal(defaultImagePullPolicy('registry.local:5000/team/app:v2'), 'IfNotPresent');
    assert.equal(defaultImagePullPolicy(`nginx@sha256:${'a'.repeat(64)}`), 'IfNotPresent');
  });

  it('defaults ports, probes and volumes', () => {
    const p = created({
      containers: [{ name: 'a', image: 'x:1', ports: [{ containerPort: 80 }], readinessProbe: { httpGet: { port: 80 } } }],
      volumes: [{ name: 'cache' }, { name: 'conf', configMap: { name: 'c' } }],
    });
    const spec = p['spec'] as Record<string, unknown>;
    const c = (spec['containers'] as Record<string, unknown>[])[0]!;
    assert.deepEqual(c['ports'], [{ containerPort: 80, protocol: 'TCP' }]);
    assert.deepEqual(c['readinessProbe'], { httpGet: { port: 80, path: '/', scheme: 'HTTP' }, timeoutSeconds: 1, periodSeconds: 10, successThreshold: 1, failureThreshold: 3 });
    assert.deepEqual(spec['volumes'], [{ name: 'cache', emptyDir: {} }, { name: 'conf', configMap: { name: 'c', defaultMode: 420 } }]);
  });

  it('copies limits into missing requests', () => {
    const p = created({ containers: [{ name: 'a', image: 'x', resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '500m' } } }] });
    const c = ((p['spec'] as Record<string, unknown>)['containers'] as Record<string, unknown>[])[0]!;
    assert.deepEqual((c['resources'] as Record<string, unknown>)['requests'], { cpu: '500m', memory: '1Gi' });
  });
});

describe('pod status on create', () => {
  it('replaces whatever the client sent with Pending and the QoS class', () => {
    const p = pod();
    p['status'] = { phase: 'Running', podIP: '10.0.0.1' };
    podStrategy.defaults?.(p);
    podStrategy.prepareForCreate?.(p, ctx());
    assert.deepEqual(p['status'], { phase: 'Pending', qosClass: 'BestEffort' });
  });

  it('computes QoS classes as the original', () => {
    const both = { cpu: '1', memory: '1Gi' };
    assert.equal(podQOSClass({ containers: [{ resources: { limits: both, requests: both } }] }), 'Guaranteed');
    assert.equal(podQOSClass({ containers: [{ resources: { limits: { cpu: '1', memory: '1Gi' }, requests: { cpu: '1000m', memory: '1024Mi' } } }] }), 'Guaranteed');
    assert.equal(podQOSClass({ containers: [{ resources: { requests: { cpu: '100m' } } }] }), 'Burstable');
    assert.equal(podQOSClass({ containers: [{ resources: { limits: both, requests: both } }, { name: 'b' }] }), 'Burstable');
    assert.equal(podQOSClass({ containers: [{ resources: { requests: { 'nvidia.com/gpu': '1' } } }] }), 'BestEffort');
  });

  it('marks a gated pod as not scheduled', () => {
    const p = created({ schedulingGates: [{ name: 'example.com/wait' }] });
    const conditions = (p['status'] as Record<string, unknown>)['conditions'] as Record<string, unknown>[];
    assert.equal(conditions[0]!['reason'], 'SchedulingGated');
  });
});

describe('pod validation', () => {
  it('accepts a defaulted pod', () => {
    assert.deepEqual(podStrategy.validate!(created(), ctx()), []);
  });

  it('requires at least one container', () => {
    assert.deepEqual(lines(podStrategy.validate!(created({ containers: [] }), ctx())), ['spec.containers: Required value']);
  });

  it('checks container names and images', () => {
    const p = created({ containers: [{ name: 'Web', image: 'a' }, { name: 'x', image: '' }, { name: 'x', image: 'b' }] });
    const errs = lines(podStrategy.validate!(p, ctx()));
    assert.match(errs[0]!, /^spec\.containers\[0\]\.name: Invalid value: "Web": a lowercase RFC 1123 label/);
    assert.ok(errs.includes('spec.containers[1].image: Required value'));
    assert.ok(errs.includes('spec.containers[2].name: Duplicate value: "x"'));
  });

  it('checks ports, protocols and policies', () => {
    const p = created({
      restartPolicy: 'Sometimes',
      containers: [{ name: 'a', image: 'x', imagePullPolicy: 'Maybe', ports: [{ containerPort: 70000, protocol: 'ICMP' }, { containerPort: 0 }] }],
    });
    const errs = lines(podStrategy.validate!(p, ctx()));
    assert.ok(errs.includes('spec.containers[0].ports[0].containerPort: Invalid value: 70000: must be between 1 and 65535, inclusive'));
    assert.ok(errs.includes('spec.containers[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"'));
    assert.ok(errs.includes('spec.containers[0].ports[1].containerPort: Required value'));
    assert.ok(errs.includes('spec.containers[0].imagePullPolicy: Unsupported value: "Maybe": supported values: "Always", "IfNotPresent", "Never"'));
    assert.ok(errs.includes('spec.restartPolicy: Unsupported value: "Sometimes": supported values: "Always", "OnFailure", "Never"'));
  });

  it('refuses requests above limits', () => {
    const p = created({ containers: [{ name: 'a', image: 'x', resources: { limits: { cpu: '500m' }, requests: { cpu: '1' } } }] });
    assert.deepEqual(lines(podStrategy.validate!(p, ctx())), ['spec.containers[0].resources.requests: Invalid value: "1": must be less than or equal to cpu limit of 500m']);
  });

  it('refuses a duplicate container name across init containers', () => {
    const p = created({ initContainers: [{ name: 'web', image: 'busybox' }], containers: [{ name: 'web', image: 'nginx' }] });
    assert.deepEqual(fields(podStrategy.validate!(p, ctx())), ['spec.initContainers[0].name']);
  });
});

describe('pod updates', () => {
  function update(mutate: (spec: Record<string, unknown>) => void) {
    const old = created();
    const next = structuredClone(old);
    mutate(next['spec'] as Record<string, unknown>);
    podStrategy.defaults?.(next);
    podStrategy.prepareForUpdate?.(next, old, ctx());
    return podStrategy.validateUpdate!(next, old, ctx());
  }

  it('allows image changes', () => {
    assert.deepEqual(update((s) => ((s['containers'] as Record<string, unknown>[])[0]!['image'] = 'nginx:1.28')), []);
  });

  it('forbids other spec changes', () => {
    const errs = update((s) => (s['restartPolicy'] = 'Never'));
    assert.equal(errs.length, 1);
    assert.equal(errs[0]!.field, 'spec');
    assert.match(errs[0]!.message, /^Forbidden: pod updates may not change fields other than `spec\.containers\[\*\]\.image`/);
  });

  it('allows adding tolerations and setting activeDeadlineSeconds, not raising it', () => {
    assert.deepEqual(update((s) => (s['tolerations'] = [{ key: 'k', operator: 'Exists' }])), []);
    assert.deepEqual(update((s) => (s['activeDeadlineSeconds'] = 100)), []);
    const old = created({ activeDeadlineSeconds: 10 });
    const next = structuredClone(old);
    (next['spec'] as Record<string, unknown>)['activeDeadlineSeconds'] = 20;
    assert.deepEqual(lines(podStrategy.validateUpdate!(next, old, ctx())), ['spec.activeDeadlineSeconds: Invalid value: 20: must be less than or equal to previous value']);
  });
});

describe('pod graceful deletion', () => {
  it('deletes an unscheduled pod at once', () => {
    assert.equal(podStrategy.gracePeriod!(created(), undefined), 0);
    assert.equal(podStrategy.gracePeriod!(created(), 60), 0);
  });

  it('uses the pod grace period unless one is requested', () => {
    const p = created({ nodeName: 'node-1' });
    assert.equal(podStrategy.gracePeriod!(p, undefined), 30);
    assert.equal(podStrategy.gracePeriod!(p, 5), 5);
    assert.equal(podStrategy.gracePeriod!(p, 0), 0);
    assert.equal(podStrategy.gracePeriod!(p, -3), 1);
  });

  it('deletes finished pods at once', () => {
    const p = created({ nodeName: 'node-1' });
    p['status'] = { phase: 'Succeeded' };
    assert.equal(podStrategy.gracePeriod!(p, undefined), 0);
  });

  it('answers a delete with the pod', () => {
    assert.equal(podStrategy.returnDeletedObject, true);
  });
});
