/**
 * DefaultStorageClass, StorageObjectInUseProtection and
 * PersistentVolumeClaimResize, with the original's test cases
 * (plugin/pkg/admission/storage/.../admission_test.go) and messages.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroup, names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { defaultStorageClass } from '../../src/admission/plugins/default-storage-class.ts';
import { storageObjectInUseProtection } from '../../src/admission/plugins/storage-object-in-use-protection.ts';
import { persistentVolumeClaimResize } from '../../src/admission/plugins/persistent-volume-claim-resize.ts';
import { attrs, obj, rt, run } from './misc-support.ts';

const pvcs = rt('', 'v1', 'persistentvolumeclaims');
const pvs = rt('', 'v1', 'persistentvolumes');
const [GA, BETA] = [names.annotations.defaultStorageClass[0]!, names.annotations.defaultStorageClass[1]!];

const sc = (name: string, annotations?: Record<string, string>, rest: Record<string, unknown> = {}): KObject =>
  ({ apiVersion: `${apiGroup('storage')}/v1`, kind: 'StorageClass', metadata: { name, ...(annotations ? { annotations } : {}) }, provisioner: 'x', ...rest });

// The original's TestAdmission classes.
const defaultClass1 = sc('default1', { [GA]: 'true' });
const defaultClass2 = sc('default2', { [GA]: 'true' });
const defaultClassWithBetaAnnotation = sc('default3', { [BETA]: 'true' });
const classWithFalseDefault = sc('nondefault1', { [GA]: 'false' });
const classWithNoDefault = sc('nondefault2');
const classWithEmptyDefault = sc('nondefault3', { [GA]: '' });

const claim = (spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject =>
  obj('PersistentVolumeClaim', { name: 'claimWithNoClass', namespace: 'ns', ...(annotations ? { annotations } : {}) }, { spec });

test('DefaultStorageClass: the original cases', async () => {
  const cases: Array<{ name: string; classes: KObject[]; claim: KObject; expected?: string | null; error?: string }> = [
    { name: 'no default, no modification of PVCs', classes: [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault], claim: claim(), expected: null },
    { name: 'one default, modify PVC with class=nil', classes: [defaultClass1, classWithFalseDefault, classWithNoDefault, classWithEmptyDefault], claim: claim(), expected: 'default1' },
    { name: 'one default, no modification of PVC with class=""', classes: [defaultClass1, classWithFalseDefault], claim: claim({ storageClassName: '' }), expected: '' },
    { name: 'one default, no modification of PVC with class="foo"', classes: [defaultClass1, classWithFalseDefault], claim: claim({ storageClassName: 'foo' }), expected: 'foo' },
    { name: 'one default with beta annotation, modify PVC with class=nil', classes: [defaultClassWithBetaAnnotation, classWithNoDefault], claim: claim(), expected: 'default3' },
    { name: 'beta class annotation on the claim counts as a class', classes: [defaultClass1], claim: claim({}, { [names.annotations.betaStorageClass[0]!]: 'gold' }), expected: null },
    {
      name: 'two defaults, error with PVC with class=nil',
      classes: [defaultClass1, defaultClass2, classWithFalseDefault],
      claim: claim(),
      error: 'persistentvolumeclaims "claimWithNoClass" is forbidden: Internal error occurred: 2 default StorageClasses were found',
    },
    { name: 'two defaults, no modification with PVC with class=""', classes: [defaultClass1, defaultClass2], claim: claim({ storageClassName: '' }), expected: '' },
  ];
  for (const c of cases) {
    const plugin = defaultStorageClass({ list: async () => c.classes });
    const a = attrs({ rt: pvcs, op: 'CREATE', ns: 'ns', name: 'claimWithNoClass', obj: c.claim });
    const err = await run(plugin, a);
    if (c.error !== undefined) {
      assert.equal(err?.code, 403, c.name);
      assert.equal(err?.message, c.error, c.name);
      continue;
    }
    assert.equal(err, undefined, c.name);
    const got = (a.object!['spec'] as Record<string, unknown>)['storageClassName'];
    assert.equal(got ?? null, c.expected, c.name);
  }
});

test('DefaultStorageClass: a generateName claim is named by its prefix in the message; only pvcs CREATE is handled', async () => {
  const plugin = defaultStorageClass({ list: async () => [defaultClass1, defaultClass2] });
  const a = attrs({ rt: pvcs, op: 'CREATE', ns: 'ns', obj: obj('PersistentVolumeClaim', { generateName: 'data-', namespace: 'ns' }, { spec: {} }) });
  assert.match((await run(plugin, a))!.message, /^persistentvolumeclaims "data-" is forbidden/);
  assert.equal(plugin.handles!(pvcs, '', 'UPDATE'), false);
  assert.equal(plugin.handles!(pvcs, 'status', 'CREATE'), false);
  assert.equal(plugin.handles!(pvs, '', 'CREATE'), false);
});

test('StorageObjectInUseProtection: PVs and PVCs get their finalizer once; other types are not handled', async () => {
  const plugin = storageObjectInUseProtection();
  const pvc = attrs({ rt: pvcs, op: 'CREATE', ns: 'ns', name: 'c', obj: obj('PersistentVolumeClaim', { name: 'c', namespace: 'ns', finalizers: ['a/b'] }) });
  await run(plugin, pvc);
  assert.deepEqual(pvc.object!.metadata.finalizers, ['a/b', names.admissionNames.pvcProtectionFinalizer]);
  const again = attrs({ rt: pvcs, op: 'CREATE', ns: 'ns', name: 'c', obj: pvc.object });
  await run(plugin, again);
  assert.deepEqual(again.object!.metadata.finalizers, ['a/b', names.admissionNames.pvcProtectionFinalizer], 'already present: unchanged');
  const pv = attrs({ rt: pvs, op: 'CREATE', name: 'v', obj: obj('PersistentVolume', { name: 'v' }) });
  await run(plugin, pv);
  assert.deepEqual(pv.object!.metadata.finalizers, [names.admissionNames.pvProtectionFinalizer]);
  assert.equal(plugin.handles!(rt('', 'v1', 'pods'), '', 'CREATE'), false);
  assert.equal(plugin.handles!(pvcs, '', 'UPDATE'), false);
});

test('PersistentVolumeClaimResize: the original cases', async () => {
  const gold = sc('gold', undefined, { allowVolumeExpansion: true });
  const silver = sc('silver', undefined, { allowVolumeExpansion: false });
  const plugin = persistentVolumeClaimResize({ get: async (n) => [gold, silver].find((c) => c.metadata.name === n) ?? null });
  const p = (size: string, phase: string, cls?: string, volumeName?: string): KObject =>
    obj('PersistentVolumeClaim', { name: 'foo', namespace: 'default' }, {
      spec: { ...(volumeName ? { volumeName } : {}), resources: { requests: { storage: size } }, ...(cls ? { storageClassName: cls } : {}) },
      status: { phase },
    });
  const dyn = 'persistentvolumeclaims "foo" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize';
  const cases: Array<{ name: string; old: KObject; next: KObject; error?: string }> = [
    { name: 'pvc-resize, update, no error', old: p('1Gi', 'Bound', 'gold', 'volume1'), next: p('2Gi', 'Bound', 'gold', 'volume1') },
    { name: 'pvc-resize, update, dynamically provisioned error (no class)', old: p('1Gi', 'Bound', undefined, 'volume3'), next: p('2Gi', 'Bound', undefined, 'volume3'), error: dyn },
    { name: 'pvc-resize, update, dynamically provisioned error (class forbids)', old: p('1Gi', 'Bound', 'silver', 'volume4'), next: p('2Gi', 'Bound', 'silver', 'volume4'), error: dyn },
    { name: 'PVC update with no change in size', old: p('1Gi', 'Pending', 'silver'), next: p('1Gi', 'Bound', 'silver', 'volume4') },
    { name: 'expand pvc in pending state', old: p('1Gi', 'Pending', 'silver'), next: p('2Gi', 'Pending', 'silver'), error: 'persistentvolumeclaims "foo" is forbidden: Only bound persistent volume claims can be expanded' },
    { name: 'class changed with the resize', old: p('1Gi', 'Bound', 'silver'), next: p('2Gi', 'Bound', 'gold'), error: dyn },
    { name: 'shrinking is left to validation', old: p('2Gi', 'Bound', 'silver'), next: p('1Gi', 'Bound', 'silver') },
    { name: 'units compare by value', old: p('1Gi', 'Bound', 'silver'), next: p('1024Mi', 'Bound', 'silver') },
  ];
  for (const c of cases) {
    const err = await run(plugin, attrs({ rt: pvcs, op: 'UPDATE', ns: 'default', name: 'foo', obj: c.next, old: c.old }));
    assert.equal(err?.message, c.error, c.name);
    if (c.error) assert.equal(err?.code, 403, c.name);
  }
});
