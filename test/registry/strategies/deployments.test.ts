/** Deployments: defaults of spec 9.3, status reset, selector rules and the immutable selector. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { deploymentStrategy } from '../../../src/registry/strategies/deployments.ts';
import { ctx, lines, make, podTemplate } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

function deployment(spec: Record<string, unknown> = {}): KObject {
  return make('Deployment', { spec: { selector: { matchLabels: { app: 'web' } }, template: podTemplate(), ...spec } });
}

function created(spec: Record<string, unknown> = {}): KObject {
  const d = deployment(spec);
  deploymentStrategy.defaults?.(d);
  deploymentStrategy.prepareForCreate?.(d, ctx());
  return d;
}

describe('deployment defaults', () => {
  it('fill replicas, strategy, history and deadline, and the pod template', () => {
    const d = created();
    const spec = d['spec'] as Record<string, unknown>;
    assert.equal(spec['replicas'], 1);
    assert.deepEqual(spec['strategy'], { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '25%', maxSurge: '25%' } });
    assert.equal(spec['revisionHistoryLimit'], 10);
    assert.equal(spec['progressDeadlineSeconds'], 600);
    const podSpec = (spec['template'] as Record<string, Record<string, unknown>>)['spec']!;
    assert.equal(podSpec['restartPolicy'], 'Always');
    assert.equal(podSpec['schedulerName'], 'default-scheduler');
    // Pod-only defaults stay out of templates, as in the original.
    assert.equal(podSpec['enableServiceLinks'], undefined);
  });

  it('leave rollingUpdate out of a Recreate strategy', () => {
    const spec = created({ strategy: { type: 'Recreate' } })['spec'] as Record<string, unknown>;
    assert.deepEqual(spec['strategy'], { type: 'Recreate' });
  });

  it('reset the status on create', () => {
    const d = deployment();
    d['status'] = { replicas: 5, readyReplicas: 5 };
    deploymentStrategy.defaults?.(d);
    deploymentStrategy.prepareForCreate?.(d, ctx());
    assert.deepEqual(d['status'], {});
  });
});

describe('deployment validation', () => {
  it('accepts a defaulted deployment', () => {
    assert.deepEqual(deploymentStrategy.validate!(created(), ctx()), []);
  });

  it('requires a selector', () => {
    const errs = lines(deploymentStrategy.validate!(created({ selector: undefined }), ctx()));
    assert.deepEqual(errs, [
      'spec.selector: Required value',
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('requires the selector to match the template labels', () => {
    assert.deepEqual(lines(deploymentStrategy.validate!(created({ selector: { matchLabels: { app: 'api' } } }), ctx())), [
      'spec.template.metadata.labels: Invalid value: map[string]string{"app":"web"}: `selector` does not match template `labels`',
    ]);
  });

  it('refuses an empty selector', () => {
    assert.deepEqual(lines(deploymentStrategy.validate!(created({ selector: {} }), ctx())), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment',
    ]);
  });

  it('refuses a template that does not always restart', () => {
    const d = created({ template: podTemplate({ app: 'web' }, { restartPolicy: 'OnFailure' }) });
    assert.deepEqual(lines(deploymentStrategy.validate!(d, ctx())), ['spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"']);
  });

  it('checks the rolling update parameters', () => {
    const d = created({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 0 } } });
    assert.deepEqual(lines(deploymentStrategy.validate!(d, ctx())), [
      'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0',
    ]);
    const bad = created({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: '150%', maxSurge: 'x' } } });
    const errs = lines(deploymentStrategy.validate!(bad, ctx()));
    assert.ok(errs.some((e) => e.startsWith('spec.strategy.rollingUpdate.maxSurge: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"x"}: a valid percent string')));
    assert.ok(errs.includes('spec.strategy.rollingUpdate.maxUnavailable: Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%'));
  });

  it('checks counters', () => {
    const errs = lines(deploymentStrategy.validate!(created({ replicas: -1, progressDeadlineSeconds: 10, minReadySeconds: 10 }), ctx()));
    assert.deepEqual(errs, [
      'spec.replicas: Invalid value: -1: must be greater than or equal to 0',
      'spec.progressDeadlineSeconds: Invalid value: 10: must be greater than minReadySeconds',
    ]);
  });
});

describe('deployment updates', () => {
  it('refuse a changed selector', () => {
    const old = created();
    const next = created({ selector: { matchLabels: { app: 'web', tier: 'x' } }, template: podTemplate({ app: 'web', tier: 'x' }) });
    assert.deepEqual(lines(deploymentStrategy.validateUpdate!(next, old, ctx())), [
      'spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable',
    ]);
  });

  it('bump the generation for annotation changes the store does not see', () => {
    const old = created();
    old.metadata.generation = 3;
    const next = structuredClone(old);
    next.metadata.annotations = { 'example.com/note': 'x' };
    deploymentStrategy.defaults?.(next);
    deploymentStrategy.prepareForUpdate?.(next, old, ctx());
    assert.equal(next.metadata.generation, 4);
    const same = structuredClone(old);
    deploymentStrategy.defaults?.(same);
    deploymentStrategy.prepareForUpdate?.(same, old, ctx());
    assert.equal(same.metadata.generation, 3);
  });
});
