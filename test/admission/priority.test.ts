/**
 * Priority admission: the cases of the original's
 * plugin/pkg/admission/priority/admission_test.go (TestPodAdmission,
 * TestPriorityClassAdmission, TestDefaultPriority).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { priorityPlugin, type PriorityClassSource } from '../../src/admission/plugins/priority.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

function pc(name: string, value: number, globalDefault = false, preemptionPolicy?: string): KObject {
  return { apiVersion: 'scheduling/v1', kind: 'PriorityClass', metadata: { name }, value, globalDefault, ...(preemptionPolicy ? { preemptionPolicy } : {}) };
}

function plugin(classes: KObject[]) {
  const source: PriorityClassSource = {
    get: async (name) => classes.find((c) => c.metadata.name === name) ?? null,
    list: async () => classes,
  };
  return priorityPlugin(source, (a) => a.resourceType === rt.priorityclasses);
}

const defaultClass1 = pc('default1', 1000, true);
const defaultClass2 = pc('default2', 2000, true);
const nondefault = pc('nondefault1', 2000);
const neverClass = pc('nopreemption1', 2000, false, 'Never');
const spec = (p: KObject) => p['spec'] as Record<string, any>;

test('handles pods and priorityclasses, create and update, no subresources', () => {
  const p = plugin([]);
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), true);
  assert.equal(p.handles!(rt.pods, 'status', 'UPDATE'), false);
  assert.equal(p.handles!(rt.pods, '', 'DELETE'), false);
  assert.equal(p.handles!(rt.priorityclasses, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.configmaps, '', 'CREATE'), false);
});

test('TestPodAdmission: no class and no default gives 0 and PreemptLowerPriority', async () => {
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(plugin([nondefault]), attrs({ object: created }));
  assert.equal(spec(created)['priority'], 0);
  assert.equal(spec(created)['preemptionPolicy'], 'PreemptLowerPriority');
  assert.equal(spec(created)['priorityClassName'], undefined);
});

test('TestPodAdmission: no class, a default exists: its name, value and policy', async () => {
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(plugin([defaultClass1, nondefault]), attrs({ object: created }));
  assert.equal(spec(created)['priority'], 1000);
  assert.equal(spec(created)['priorityClassName'], 'default1');
});

test('TestPodAdmission: several defaults (a race): the lowest value wins', async () => {
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(plugin([defaultClass2, defaultClass1]), attrs({ object: created }));
  assert.equal(spec(created)['priority'], 1000);
  assert.equal(spec(created)['priorityClassName'], 'default1');
});

test('TestPodAdmission: a named class gives its value; an unknown one is refused', async () => {
  const created = pod({ priorityClassName: 'nondefault1', containers: [{ name: 'c' }] });
  await admitAndValidate(plugin([defaultClass1, nondefault]), attrs({ object: created }));
  assert.equal(spec(created)['priority'], 2000);
  const e = await rejection(admitAndValidate(plugin([defaultClass1]), attrs({ object: pod({ priorityClassName: 'foo' }) })));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: no PriorityClass with name foo was found');
});

test('TestPodAdmission: system classes resolve to their fixed values', async () => {
  const node = pod({ priorityClassName: 'system-node-critical' });
  await admitAndValidate(plugin([]), attrs({ object: node, namespace: 'kube-system' }));
  assert.equal(spec(node)['priority'], 2000001000);
  const cluster = pod({ priorityClassName: 'system-cluster-critical' });
  await admitAndValidate(plugin([]), attrs({ object: cluster }));
  assert.equal(spec(cluster)['priority'], 2000000000);
});

test('TestPodAdmission: an integer priority different from the class is refused; the same one passes', async () => {
  const e = await rejection(admitAndValidate(plugin([nondefault]), attrs({ object: pod({ priorityClassName: 'nondefault1', priority: 10 }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: the integer value of priority (10) must not be provided in pod spec; priority admission controller computed 2000 from the given PriorityClass name');
  const e2 = await rejection(admitAndValidate(plugin([]), attrs({ object: pod({ priority: 5 }) })));
  assert.match(e2.message, /the integer value of priority \(5\) must not be provided in pod spec; priority admission controller computed 0/);
  await admitAndValidate(plugin([nondefault]), attrs({ object: pod({ priorityClassName: 'nondefault1', priority: 2000 }) }));
});

test('TestPodAdmission: preemptionPolicy comes from the class; a different one is refused', async () => {
  const created = pod({ priorityClassName: 'nopreemption1' });
  await admitAndValidate(plugin([neverClass]), attrs({ object: created }));
  assert.equal(spec(created)['preemptionPolicy'], 'Never');
  const e = await rejection(admitAndValidate(plugin([neverClass]), attrs({ object: pod({ priorityClassName: 'nopreemption1', preemptionPolicy: 'PreemptLowerPriority' }) })));
  assert.equal(
    e.message,
    'pods "mypod" is forbidden: the string value of PreemptionPolicy (PreemptLowerPriority) must not be provided in pod spec; priority admission controller computed Never from the given PriorityClass name',
  );
});

test('pod update keeps the old priority and policy when the new body leaves them out', async () => {
  const old = pod({ priorityClassName: 'nondefault1', priority: 2000, preemptionPolicy: 'PreemptLowerPriority' });
  const next = pod({ priorityClassName: 'nondefault1' });
  await admitAndValidate(plugin([nondefault]), attrs({ operation: 'UPDATE', object: next, oldObject: old }));
  assert.equal(spec(next)['priority'], 2000);
  assert.equal(spec(next)['preemptionPolicy'], 'PreemptLowerPriority');
});

test('TestPriorityClassAdmission: one global default only', async () => {
  const p = plugin([defaultClass1]);
  const e = await rejection(admitAndValidate(p, attrs({ rt: rt.priorityclasses, namespace: '', object: pc('default2', 2000, true) })));
  assert.equal(e.code, 403);
  assert.equal(e.message, `priorityclasses.${rt.priorityclasses.group}` + ' "default2" is forbidden: PriorityClass default1 is already marked as default. Only one default can exist');
  // Updating the default itself is fine; making another one the default is not.
  await admitAndValidate(p, attrs({ rt: rt.priorityclasses, namespace: '', operation: 'UPDATE', object: pc('default1', 1000, true), oldObject: defaultClass1 }));
  await rejection(admitAndValidate(p, attrs({ rt: rt.priorityclasses, namespace: '', operation: 'UPDATE', object: pc('nondefault1', 2000, true), oldObject: nondefault })));
  // A class that is not a default, or a default when there is none, passes.
  await admitAndValidate(p, attrs({ rt: rt.priorityclasses, namespace: '', object: pc('other', 5) }));
  await admitAndValidate(plugin([]), attrs({ rt: rt.priorityclasses, namespace: '', object: pc('first', 5, true) }));
});

test('classes are read fresh for each pod (a default added later applies to the next pod)', async () => {
  const classes: KObject[] = [];
  const p = priorityPlugin({ get: async () => null, list: async () => classes }, () => false);
  const first = pod({});
  await admitAndValidate(p, attrs({ object: first }));
  assert.equal(spec(first)['priority'], 0);
  classes.push(defaultClass1);
  const second = pod({});
  await admitAndValidate(p, attrs({ object: second }));
  assert.equal(spec(second)['priority'], 1000);
});
