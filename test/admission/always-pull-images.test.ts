/**
 * AlwaysPullImages and AlwaysDeny: the cases of the original's
 * alwayspullimages/admission_test.go (TestAdmission, TestValidate,
 * TestUpdatePod) and deny/admission_test.go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alwaysPullImages } from '../../src/admission/plugins/always-pull-images.ts';
import { alwaysDeny } from '../../src/admission/plugins/always-deny.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

const spec = (p: KObject) => p['spec'] as Record<string, any>;
const containers = () => ({
  initContainers: [{ name: 'init1', image: 'image' }, { name: 'init2', image: 'image', imagePullPolicy: 'Never' }],
  containers: [{ name: 'ctr1', image: 'image', imagePullPolicy: 'IfNotPresent' }, { name: 'ctr2', image: 'image', imagePullPolicy: 'Always' }],
  ephemeralContainers: [{ name: 'eph', image: 'image', imagePullPolicy: 'Never' }],
});

test('TestAdmission: every container of every kind pulls always', async () => {
  const created = pod(containers());
  await admitAndValidate(alwaysPullImages(), attrs({ object: created }));
  for (const key of ['initContainers', 'containers', 'ephemeralContainers']) for (const c of spec(created)[key]) assert.equal(c.imagePullPolicy, 'Always');
});

test('TestValidate: any other policy is refused with the field path', async () => {
  const p = alwaysPullImages();
  const one = pod({ containers: [{ name: 'c', image: 'i', imagePullPolicy: 'IfNotPresent' }] });
  const e = await rejection(() => p.validate!(attrs({ object: one })));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: spec.containers[0].imagePullPolicy: Unsupported value: "IfNotPresent": supported values: "Always"');
  const many = pod(containers());
  const e2 = await rejection(() => p.validate!(attrs({ object: many })));
  assert.equal(e2.code, 500, 'several: the original aggregate, not a Status');
  assert.match(e2.message, /^\[pods "mypod" is forbidden: spec\.initContainers\[0\]\.imagePullPolicy: Unsupported value: "": supported values: "Always", /);
  assert.match(e2.message, /spec\.ephemeralContainers\[0\]\.ephemeralContainerCommon\.imagePullPolicy/);
});

test('TestUpdatePod: an update with no new image is left alone; a new image pulls always', async () => {
  const p = alwaysPullImages();
  const old = pod({ containers: [{ name: 'c', image: 'image', imagePullPolicy: 'IfNotPresent' }] });
  const same = pod({ containers: [{ name: 'c', image: 'image', imagePullPolicy: 'IfNotPresent' }] });
  await admitAndValidate(p, attrs({ operation: 'UPDATE', object: same, oldObject: old }));
  assert.equal(spec(same)['containers'][0].imagePullPolicy, 'IfNotPresent');
  const changed = pod({ containers: [{ name: 'c', image: 'image2', imagePullPolicy: 'IfNotPresent' }] });
  await admitAndValidate(p, attrs({ operation: 'UPDATE', object: changed, oldObject: old }));
  assert.equal(spec(changed)['containers'][0].imagePullPolicy, 'Always');
});

test('handles pods only, create and update, no subresources', () => {
  const p = alwaysPullImages();
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, 'ephemeralcontainers', 'UPDATE'), false);
  assert.equal(p.handles!(rt.configmaps, '', 'CREATE'), false);
});

test('AlwaysDeny refuses every write in both phases (but the server\'s own)', async () => {
  const p = alwaysDeny();
  assert.equal(p.handles, undefined, 'every type and operation');
  const user = { name: 'alice', groups: ['system:authenticated'] };
  const e = await rejection(() => p.admit!({ ...attrs({ object: pod() }), user }));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: admission control is denying all modifications');
  const e2 = await rejection(() => p.validate!({ ...attrs({ rt: rt.configmaps, operation: 'DELETE', name: 'cm', object: null }), user }));
  assert.equal(e2.message, 'configmaps "cm" is forbidden: admission control is denying all modifications');
  await p.admit!({ ...attrs({ object: pod() }), user: { name: 'system:apiserver', groups: [] } });
});
