/**
 * RuntimeClass admission: the cases of the original's
 * plugin/pkg/admission/runtimeclass/admission_test.go (TestSetOverhead,
 * TestSetScheduling, TestValidate, TestAdmit with an unknown class).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runtimeClassPlugin } from '../../src/admission/plugins/runtime-class.ts';
import type { KObject } from '../../src/registry/object.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

function rc(name: string, extra: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'node/v1', kind: 'RuntimeClass', metadata: { name }, handler: 'h', ...extra };
}
const plugin = (classes: KObject[]) => runtimeClassPlugin({ get: async (n) => classes.find((c) => c.metadata.name === n) ?? null });
const spec = (p: KObject) => p['spec'] as Record<string, any>;
const overhead = { overhead: { podFixed: { cpu: '100m', memory: '32Mi' } } };

test('handles pod creates only', () => {
  const p = plugin([]);
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), false);
  assert.equal(p.handles!(rt.pods, 'status', 'CREATE'), false);
  assert.equal(p.handles!(rt.nodes, '', 'CREATE'), false);
});

test('a pod without a class passes untouched; an unknown class is the 404 of the class', async () => {
  const bare = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(plugin([]), attrs({ object: bare }));
  assert.deepEqual(spec(bare), { containers: [{ name: 'c' }] });
  const e = await rejection(admitAndValidate(plugin([]), attrs({ object: pod({ runtimeClassName: 'missing' }) })));
  assert.equal(e.code, 404);
  assert.equal(e.message, `runtimeclasses.${apiGroup('node')} "missing" not found`);
});

test('TestSetOverhead: the class overhead is set; an equal one (by value) passes; a different one is refused', async () => {
  const p = plugin([rc('foo', overhead)]);
  const created = pod({ runtimeClassName: 'foo' });
  await admitAndValidate(p, attrs({ object: created }));
  assert.deepEqual(spec(created)['overhead'], { cpu: '100m', memory: '32Mi' });
  await admitAndValidate(p, attrs({ object: pod({ runtimeClassName: 'foo', overhead: { cpu: '0.1', memory: '32Mi' } }) }));
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ runtimeClassName: 'foo', overhead: { cpu: '200m', memory: '32Mi' } }) })));
  assert.equal(e.code, 403);
  assert.equal(e.message, `pods "mypod" is forbidden: pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead`);
});

test('TestValidate: overhead without a class that defines one is refused', async () => {
  const e = await rejection(admitAndValidate(plugin([rc('plain')]), attrs({ object: pod({ runtimeClassName: 'plain', overhead: { cpu: '1' } }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
  const e2 = await rejection(admitAndValidate(plugin([]), attrs({ object: pod({ overhead: { cpu: '1' } }) })));
  assert.match(e2.message, /Pod Overhead set without corresponding RuntimeClass defined Overhead$/);
  // Validation alone (a later mutation changed the overhead) refuses a mismatch.
  const p = plugin([rc('foo', overhead)]);
  const e3 = await rejection(() => p.validate!(attrs({ object: pod({ runtimeClassName: 'foo', overhead: { cpu: '1' } }) })));
  assert.match(e3.message, /doesn't match RuntimeClass's defined Overhead$/);
});

test('TestSetScheduling: node selector merged, a conflict refused, tolerations merged', async () => {
  const scheduling = {
    scheduling: {
      nodeSelector: { foo: 'bar', fizz: 'buzz' },
      tolerations: [
        { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
        { key: 'fizz', operator: 'Exists', effect: 'NoSchedule' },
      ],
    },
  };
  const p = plugin([rc('sched', scheduling)]);
  const created = pod({
    runtimeClassName: 'sched',
    nodeSelector: { foo: 'bar', other: 'x' },
    tolerations: [
      { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
      { key: 'fizz', operator: 'Equal', value: 'x', effect: 'NoSchedule' },
      { key: 'mine', operator: 'Exists' },
    ],
  });
  await admitAndValidate(p, attrs({ object: created }));
  assert.deepEqual(spec(created)['nodeSelector'], { foo: 'bar', other: 'x', fizz: 'buzz' });
  // fizz=x is covered by fizz Exists, so it is dropped; the duplicate foo=bar is kept once.
  assert.deepEqual(spec(created)['tolerations'], [
    { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' },
    { key: 'mine', operator: 'Exists' },
    { key: 'fizz', operator: 'Exists', effect: 'NoSchedule' },
  ]);
  const bare = pod({ runtimeClassName: 'sched' });
  await admitAndValidate(p, attrs({ object: bare }));
  assert.deepEqual(spec(bare)['nodeSelector'], { foo: 'bar', fizz: 'buzz' });
  assert.equal(spec(bare)['tolerations'].length, 2);
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ runtimeClassName: 'sched', nodeSelector: { foo: 'other' } }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: conflict: runtimeClass.scheduling.nodeSelector[foo] = bar; pod.spec.nodeSelector[foo] = other');
});
