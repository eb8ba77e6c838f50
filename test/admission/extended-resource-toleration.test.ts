/**
 * ExtendedResourceToleration: the cases of the original's
 * extendedresourcetoleration/admission_test.go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { extendedResourceToleration, isExtendedResourceName } from '../../src/admission/plugins/extended-resource-toleration.ts';
import { names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rt } from './pod-plugin-support.ts';

const ext = (r: string) => ({ key: r, operator: 'Exists', effect: 'NoSchedule' });
const withRequests = (...rs: string[]) => ({ name: 'c', resources: { requests: Object.fromEntries(rs.map((r) => [r, '1'])) } });
const tolerations = (p: KObject) => (p['spec'] as Record<string, unknown>)['tolerations'];

test('extended resource names: domain-qualified, not native, not requests.-prefixed', () => {
  assert.equal(isExtendedResourceName('foo.com/bar'), true);
  assert.equal(isExtendedResourceName('cpu'), false);
  assert.equal(isExtendedResourceName(`${names.nativeResourcePrefix}gpu`), false);
  assert.equal(isExtendedResourceName('requests.foo.com/bar'), false);
  assert.equal(isExtendedResourceName('foo.com/bar/baz'), false);
});

test('no extended resources: nothing added', async () => {
  const created = pod({ containers: [withRequests('cpu', 'memory')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: created }));
  assert.equal(tolerations(created), undefined);
});

test('one extended resource in a container or init container: one toleration', async () => {
  const created = pod({ containers: [withRequests('cpu', 'foo.com/bar')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: created }));
  assert.deepEqual(tolerations(created), [ext('foo.com/bar')]);
  const init = pod({ initContainers: [withRequests('foo.com/bar')], containers: [withRequests('cpu')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: init }));
  assert.deepEqual(tolerations(init), [ext('foo.com/bar')]);
});

test('several extended resources: sorted, once each, after existing tolerations', async () => {
  const own = { key: 'foo', operator: 'Equal', value: 'bar', effect: 'NoSchedule' };
  const created = pod({ tolerations: [own], containers: [withRequests('foo.com/z'), withRequests('foo.com/a', 'foo.com/z')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: created }));
  assert.deepEqual(tolerations(created), [own, ext('foo.com/a'), ext('foo.com/z')]);
});

test('an existing matching toleration is not duplicated (and is replaced when only seconds differ)', async () => {
  const created = pod({ tolerations: [ext('foo.com/bar')], containers: [withRequests('foo.com/bar')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: created }));
  assert.deepEqual(tolerations(created), [ext('foo.com/bar')]);
  const other = pod({ tolerations: [{ key: 'foo.com/bar', operator: 'Exists', effect: 'NoExecute' }], containers: [withRequests('foo.com/bar')] });
  await admitAndValidate(extendedResourceToleration(), attrs({ object: other }));
  assert.deepEqual(tolerations(other), [{ key: 'foo.com/bar', operator: 'Exists', effect: 'NoExecute' }, ext('foo.com/bar')]);
});

test('handles pod create and update only', () => {
  const p = extendedResourceToleration();
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), true);
  assert.equal(p.handles!(rt.pods, 'status', 'UPDATE'), false);
  assert.equal(p.handles!(rt.nodes, '', 'CREATE'), false);
});
