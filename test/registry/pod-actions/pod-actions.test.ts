/** The pure parts of the pod actions and the ephemeral containers strategy. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { isPodReady, setPodCondition } from '../../../src/registry/pod-actions/pod-conditions.ts';
import { evictionDeleteOptions } from '../../../src/registry/pod-actions/eviction-options.ts';
import { podActionFor } from '../../../src/registry/pod-actions/index.ts';
import { keepOnlyEphemeralChanges, validateEphemeralContainersUpdate } from '../../../src/registry/strategies/pod-ephemeral.ts';
import { StatusError } from '../../../src/api/status.ts';
import type { KObject } from '../../../src/registry/object.ts';
import { lines } from '../strategies/helpers.ts';

const T0 = '2025-01-01T00:00:00Z';
const T1 = '2025-01-01T00:01:00Z';

describe('setPodCondition (UpdatePodCondition)', () => {
  it('adds a condition with the transition time', () => {
    const pod: KObject = { metadata: {} };
    setPodCondition(pod, { type: 'PodScheduled', status: 'True' }, T0);
    assert.deepEqual(pod['status'], { conditions: [{ type: 'PodScheduled', status: 'True', lastTransitionTime: T0 }] });
  });

  it('keeps the transition time when the status stays; moves it when the status changes', () => {
    const pod: KObject = { metadata: {}, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'PodScheduled', status: 'False', reason: 'Unschedulable', lastTransitionTime: T0 }] } };
    setPodCondition(pod, { type: 'PodScheduled', status: 'True' }, T1);
    const conds = (pod['status'] as { conditions: Array<Record<string, unknown>> }).conditions;
    assert.deepEqual(conds[1], { type: 'PodScheduled', status: 'True', lastTransitionTime: T1 }, 'the old reason goes with the old status');
    setPodCondition(pod, { type: 'PodScheduled', status: 'True', reason: 'Again' }, '2030-01-01T00:00:00Z');
    assert.equal(conds[1]!['lastTransitionTime'], T1);
    assert.equal(isPodReady(pod), true);
    assert.equal(isPodReady({ metadata: {}, status: { conditions: 'garbage' } }), false);
  });
});

describe('evictionDeleteOptions (propagateDryRun)', () => {
  const req = { user: undefined, dryRun: false };
  it('takes the request dry run when the Eviction has no options', () => {
    assert.equal(evictionDeleteOptions(undefined, { ...req, dryRun: true }).dryRun, true);
    assert.equal(evictionDeleteOptions(null, req).dryRun, false);
  });

  it('reads grace period, preconditions, propagation and dry run from the body', () => {
    const o = evictionDeleteOptions({ gracePeriodSeconds: 0, preconditions: { uid: 'u', resourceVersion: '7' }, propagationPolicy: 'Foreground', dryRun: ['All'] }, req);
    assert.deepEqual([o.gracePeriodSeconds, o.preconditions, o.propagationPolicy, o.dryRun], [0, { uid: 'u', resourceVersion: '7' }, 'Foreground', true]);
  });

  it('refuses malformed options with a Status, never a throw of another kind', () => {
    for (const bad of ['now', { gracePeriodSeconds: '5' }, { gracePeriodSeconds: 1.5 }, { preconditions: [] }, { preconditions: { uid: 5 } }, { dryRun: 'All' }, { dryRun: ['Some'] }, { propagationPolicy: 'Sideways' }, { orphanDependents: 'yes' }, { orphanDependents: true, propagationPolicy: 'Orphan' }]) {
      assert.throws(() => evictionDeleteOptions(bad, req), (e: unknown) => e instanceof StatusError && (e.code === 400 || e.code === 422), JSON.stringify(bad));
    }
  });
});

describe('podActionFor', () => {
  it('routes the binding, eviction and deprecated bindings POSTs only', () => {
    assert.ok(podActionFor('', 'pods', 'binding'));
    assert.ok(podActionFor('', 'pods', 'eviction'));
    assert.ok(podActionFor('', 'bindings', ''));
    assert.equal(podActionFor('', 'pods', ''), undefined);
    assert.equal(podActionFor('', 'pods', 'status'), undefined);
  });
});

describe('ephemeral containers strategy', () => {
  /** An ephemeral container as the defaulter leaves it. */
  const ec = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, image: 'busybox', imagePullPolicy: 'Always', terminationMessagePolicy: 'File', terminationMessagePath: '/dev/termination-log', ...extra });
  const old = (): KObject => ({
    metadata: { name: 'p', uid: 'u', labels: { a: 'b' } },
    spec: { nodeName: 'n', containers: [{ name: 'app', image: 'x' }], ephemeralContainers: [ec('one')] },
    status: { phase: 'Running' },
  });

  it('keeps everything of the stored pod but the ephemeral containers', () => {
    const next: KObject = { metadata: { name: 'p', resourceVersion: '9', labels: {} }, spec: { nodeName: 'elsewhere', containers: [], ephemeralContainers: [ec('one'), ec('two')] }, status: {} };
    keepOnlyEphemeralChanges(next, old());
    assert.deepEqual(next['spec'], { nodeName: 'n', containers: [{ name: 'app', image: 'x' }], ephemeralContainers: [ec('one'), ec('two')] });
    assert.deepEqual(next.metadata, { name: 'p', uid: 'u', labels: { a: 'b' }, resourceVersion: '9' });
    assert.deepEqual(next['status'], { phase: 'Running' });
  });

  it('forbids removing or changing one, and static pods', () => {
    const removed = old();
    (removed['spec'] as Record<string, unknown>)['ephemeralContainers'] = [];
    assert.deepEqual(lines(validateEphemeralContainersUpdate(removed, old())), ['spec.ephemeralContainers: Forbidden: existing ephemeral containers "one" may not be removed\n']);
    const changed = old();
    (changed['spec'] as { ephemeralContainers: Array<Record<string, unknown>> }).ephemeralContainers[0]!['image'] = 'alpine';
    assert.deepEqual(lines(validateEphemeralContainersUpdate(changed, old())), ['spec.ephemeralContainers[one]: Forbidden: existing ephemeral containers "one" may not be changed\n']);
    const mirror = old();
    mirror.metadata.annotations = { 'kubernetes.io/config.mirror': 'x' };
    assert.deepEqual(lines(validateEphemeralContainersUpdate(old(), mirror)), [': Forbidden: static pods do not support ephemeral containers']);
  });

  it('forbids what only workload containers may set, zero values aside', () => {
    const pod = old();
    const ecs = (pod['spec'] as { ephemeralContainers: Array<Record<string, unknown>> }).ephemeralContainers;
    ecs.push(ec('two', { resources: {}, ports: [], lifecycle: { preStop: { exec: { command: ['x'] } } }, volumeMounts: [{ name: 'v', mountPath: '/m', subPath: 's' }] }));
    const errs = lines(validateEphemeralContainersUpdate(pod, old()));
    assert.ok(errs.includes('spec.ephemeralContainers[1].lifecycle: Forbidden: cannot be set for an Ephemeral Container'), errs.join('\n'));
    assert.ok(errs.includes('spec.ephemeralContainers[1].volumeMounts[0].subPath: Forbidden: cannot be set for an Ephemeral Container'), errs.join('\n'));
    assert.ok(!errs.some((e) => /\.(resources|ports):/.test(e)), 'empty resources and ports are zero values');
  });
});
