/**
 * DefaultTolerationSeconds and TaintNodesByCondition: the cases of the
 * original's defaulttolerationseconds/admission_test.go and
 * nodetaint/admission_test.go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultTolerationSeconds } from '../../src/admission/plugins/default-toleration-seconds.ts';
import { taintNodesByCondition } from '../../src/admission/plugins/taint-nodes-by-condition.ts';
import { names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rt } from './pod-plugin-support.ts';

const NOT_READY = names.podAdmission.notReadyTaint;
const UNREACHABLE = names.podAdmission.unreachableTaint;
const notReady = (s = 300) => ({ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });
const unreachable = (s = 300) => ({ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: s });
const tolerations = (p: KObject) => (p['spec'] as Record<string, unknown>)['tolerations'];

async function run(given: unknown[] | undefined, op: 'CREATE' | 'UPDATE' = 'CREATE'): Promise<unknown> {
  const created = pod(given === undefined ? {} : { tolerations: given });
  await admitAndValidate(defaultTolerationSeconds(300, 300), attrs({ object: created, operation: op, oldObject: op === 'UPDATE' ? pod() : null }));
  return tolerations(created);
}

test('pod has no tolerations: both defaults are added', async () => {
  assert.deepEqual(await run(undefined), [notReady(), unreachable()]);
});

test('pod has unrelated tolerations: both defaults are appended after them', async () => {
  const own = [{ key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' }];
  assert.deepEqual(await run(own), [...own, notReady(), unreachable()]);
});

test('pod tolerates not-ready NoExecute: only unreachable is added; and the reverse', async () => {
  const own = [{ key: NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }];
  assert.deepEqual(await run(own), [...own, unreachable()]);
  const other = [{ key: UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 700 }];
  assert.deepEqual(await run(other), [...other, notReady()]);
});

test('pod tolerates both: nothing added; an empty effect or empty key counts as tolerating', async () => {
  const both = [notReady(700), unreachable(700)];
  assert.deepEqual(await run(both), both);
  const anyEffect = [{ key: NOT_READY, operator: 'Exists' }, { key: UNREACHABLE, operator: 'Exists' }];
  assert.deepEqual(await run(anyEffect), anyEffect);
  const all = [{ operator: 'Exists' }];
  assert.deepEqual(await run(all), all);
});

test('a NoSchedule toleration of the taint does not count', async () => {
  const own = [{ key: NOT_READY, operator: 'Exists', effect: 'NoSchedule' }];
  assert.deepEqual(await run(own), [...own, notReady(), unreachable()]);
});

test('the flags set the seconds; updates are handled too', async () => {
  const created = pod({});
  await admitAndValidate(defaultTolerationSeconds(60, 90), attrs({ object: created }));
  assert.deepEqual(tolerations(created), [notReady(60), unreachable(90)]);
  const p = defaultTolerationSeconds(1, 1);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), true);
  assert.equal(p.handles!(rt.pods, 'status', 'UPDATE'), false);
  assert.equal(p.handles!(rt.nodes, '', 'CREATE'), false);
});

test('tolerations that are not a list are left to validation', async () => {
  const created = pod({ tolerations: 'x' });
  await admitAndValidate(defaultTolerationSeconds(300, 300), attrs({ object: created }));
  assert.equal(tolerations(created), 'x');
});

test('TaintNodesByCondition: a new node gets not-ready:NoSchedule once', async () => {
  const p = taintNodesByCondition();
  assert.equal(p.handles!(rt.nodes, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.nodes, '', 'UPDATE'), false);
  assert.equal(p.handles!(rt.nodes, 'status', 'CREATE'), false);
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), false);
  const taint = { key: NOT_READY, effect: 'NoSchedule' };
  const node = (spec: Record<string, unknown>): KObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'mynode' }, spec });
  const cases: Array<{ given: Record<string, unknown>; want: unknown[] }> = [
    { given: {}, want: [taint] },
    { given: { taints: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }] }, want: [{ key: 'foo', value: 'bar', effect: 'NoSchedule' }, taint] },
    { given: { taints: [taint] }, want: [taint] },
    // MatchTaint compares key and effect only.
    { given: { taints: [{ key: NOT_READY, value: 'x', effect: 'NoSchedule' }] }, want: [{ key: NOT_READY, value: 'x', effect: 'NoSchedule' }] },
    { given: { taints: [{ key: NOT_READY, effect: 'NoExecute' }] }, want: [{ key: NOT_READY, effect: 'NoExecute' }, taint] },
  ];
  for (const c of cases) {
    const n = node(c.given);
    await admitAndValidate(p, attrs({ rt: rt.nodes, namespace: '', object: n }));
    assert.deepEqual((n['spec'] as Record<string, unknown>)['taints'], c.want);
  }
  const bare: KObject = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n' } };
  await admitAndValidate(p, attrs({ rt: rt.nodes, namespace: '', object: bare }));
  assert.deepEqual((bare['spec'] as Record<string, unknown>)['taints'], [taint]);
});
