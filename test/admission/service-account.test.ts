/**
 * ServiceAccount admission: the cases of the original's
 * plugin/pkg/admission/serviceaccount/admission_test.go (v1.25).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceAccountPlugin, DEFAULT_SERVICE_ACCOUNT, tokenVolume } from '../../src/admission/plugins/service-account.ts';
import type { KObject } from '../../src/registry/object.ts';
import { names } from '../../src/naming/index.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

const MOUNT = names.podAdmission.tokenMountPath;
const VOLUME = `${names.podAdmission.tokenVolumePrefix}-xxxxx`;

function sa(name: string, extra: Record<string, unknown> = {}, annotations?: Record<string, string>): KObject {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: 'myns', ...(annotations ? { annotations } : {}) }, ...extra };
}

function plugin(accounts: KObject[], opts: { onGet?: () => void; later?: KObject[] } = {}) {
  let calls = 0;
  const p = serviceAccountPlugin(
    {
      async get(namespace, name) {
        calls++;
        opts.onGet?.();
        const pool = calls > 1 && opts.later ? [...accounts, ...opts.later] : accounts;
        return pool.find((a) => a.metadata.namespace === namespace && a.metadata.name === name) ?? null;
      },
    },
    { sleep: async () => undefined, randomSuffix: () => 'xxxxx' },
  );
  return { p, calls: () => calls };
}

const spec = (p: KObject) => p['spec'] as Record<string, any>;

test('handles pod creates and pods/ephemeralcontainers updates only', () => {
  const { p } = plugin([]);
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), false, 'IgnoresNonCreate');
  assert.equal(p.handles!(rt.pods, 'ephemeralcontainers', 'UPDATE'), true);
  assert.equal(p.handles!(rt.pods, 'status', 'UPDATE'), false);
  assert.equal(p.handles!(rt.configmaps, '', 'CREATE'), false, 'IgnoresNonPodResource');
});

test('IgnoresNilObject: a null object passes', async () => {
  const { p } = plugin([]);
  await admitAndValidate(p, attrs({ object: null }));
});

test('IgnoresMirrorPod: a mirror pod is not changed', async () => {
  const { p } = plugin([]);
  const mirror = pod({ volumes: [{ name: 'v', configMap: { name: 'c' } }] }, { annotations: { [names.annotations.mirrorPod]: '' } });
  await admitAndValidate(p, attrs({ object: mirror }));
  assert.equal(spec(mirror)['serviceAccountName'], undefined);
  assert.equal(spec(mirror)['volumes'].length, 1);
});

test('mirror pods may not reference service accounts, secrets or token projections', async () => {
  const { p } = plugin([sa('default')]);
  const ann = { annotations: { [names.annotations.mirrorPod]: 'x' } };
  let e = await rejection(admitAndValidate(p, attrs({ object: pod({ serviceAccountName: 'default' }, ann) })));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: a mirror pod may not reference service accounts');
  e = await rejection(admitAndValidate(p, attrs({ object: pod({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, ann) })));
  assert.match(e.message, /a mirror pod may not reference secrets$/);
  e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, ann) })));
  assert.match(e.message, /a mirror pod may not reference secrets$/);
  e = await rejection(
    admitAndValidate(p, attrs({ object: pod({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 'token' } }] } }] }, ann) })),
  );
  assert.match(e.message, /a mirror pod may not use ServiceAccountToken volume projections$/);
});

test('AssignsDefaultServiceAccountAndBoundTokenWithNoSecretTokens: default account, the projected volume in every container', async () => {
  const { p } = plugin([sa(DEFAULT_SERVICE_ACCOUNT)]);
  const created = pod({ initContainers: [{ name: 'init' }], containers: [{ name: 'c1' }, { name: 'c2' }] });
  await admitAndValidate(p, attrs({ object: created }));
  const s = spec(created);
  assert.equal(s['serviceAccountName'], 'default');
  assert.deepEqual(s['volumes'], [tokenVolume(VOLUME)]);
  assert.deepEqual(s['volumes'][0], {
    name: VOLUME,
    projected: {
      defaultMode: 420,
      sources: [
        { serviceAccountToken: { expirationSeconds: 3607, path: 'token' } },
        { configMap: { name: names.rootCaConfigMap, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  });
  for (const c of [...s['initContainers'], ...s['containers']]) assert.deepEqual(c.volumeMounts, [{ name: VOLUME, readOnly: true, mountPath: MOUNT }]);
  assert.match(VOLUME, names.flavor === 'orch' ? /^orch-api-access-/ : /^kube-api-access-/);
});

test('the volume name is the prefix and 5 characters of the original alphabet', async () => {
  const p = serviceAccountPlugin({ get: async () => sa('default') });
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(p, attrs({ object: created }));
  assert.match(spec(created)['volumes'][0].name, new RegExp(`^${names.podAdmission.tokenVolumePrefix}-[bcdfghjklmnpqrstvwxz2456789]{5}$`));
});

test('FetchesUncachedServiceAccount: a default account not yet in the cache is looked up again', async () => {
  const { p, calls } = plugin([], { later: [sa('default')] });
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(p, attrs({ object: created }));
  assert.equal(spec(created)['serviceAccountName'], 'default');
  assert.ok(calls() >= 2);
});

test('DeniesInvalidServiceAccount: a missing account is refused with the original message', async () => {
  const { p, calls } = plugin([]);
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ serviceAccountName: 'missing', containers: [{ name: 'c' }] }) })));
  assert.equal(e.code, 403);
  assert.equal(e.reason, 'Forbidden');
  assert.equal(e.message, 'pods "mypod" is forbidden: error looking up service account myns/missing: serviceaccount "missing" not found');
  assert.equal(calls(), 2, 'a named account: the cache and one more look');
});

test('a missing default account is looked up ten more times, then refused', async () => {
  const { p, calls } = plugin([]);
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }] }, { name: undefined, generateName: 'web-' }), name: '' })));
  assert.equal(e.message, 'pods "web-" is forbidden: error looking up service account myns/default: serviceaccount "default" not found');
  assert.equal(calls(), 11);
});

test('RespectsExistingMount: a container with a mount at the path keeps it; others get the volume', async () => {
  const { p } = plugin([sa('default')]);
  const own = { name: 'mine', mountPath: MOUNT, readOnly: true };
  const created = pod({ containers: [{ name: 'c1', volumeMounts: [own] }, { name: 'c2' }], initContainers: [{ name: 'i', volumeMounts: [own] }] });
  await admitAndValidate(p, attrs({ object: created }));
  const s = spec(created);
  assert.deepEqual(s['containers'][0].volumeMounts, [own]);
  assert.deepEqual(s['initContainers'][0].volumeMounts, [own]);
  assert.deepEqual(s['containers'][1].volumeMounts, [{ name: VOLUME, readOnly: true, mountPath: MOUNT }]);
  assert.equal(s['volumes'].length, 1);
});

test('no container needs the token: no volume is added', async () => {
  const { p } = plugin([sa('default')]);
  const created = pod({ containers: [{ name: 'c', volumeMounts: [{ name: 'mine', mountPath: MOUNT }] }] });
  await admitAndValidate(p, attrs({ object: created }));
  assert.equal(spec(created)['volumes'], undefined);
});

test('an existing token volume (by prefix) is reused, not added twice', async () => {
  const { p } = plugin([sa('default')]);
  const existing = tokenVolume(`${names.podAdmission.tokenVolumePrefix}-abcde`);
  const created = pod({ containers: [{ name: 'c' }], volumes: [existing] });
  await admitAndValidate(p, attrs({ object: created }));
  assert.equal(spec(created)['volumes'].length, 1);
  assert.equal(spec(created)['containers'][0].volumeMounts[0].name, existing['name']);
});

test('AutomountServiceAccountToken: the pod decides first, then the account', async () => {
  const cases: Array<{ sa?: boolean; pod?: boolean; mount: boolean }> = [
    { mount: true },
    { sa: false, mount: false },
    { sa: true, mount: true },
    { pod: false, mount: false },
    { pod: true, sa: false, mount: true },
    { pod: false, sa: true, mount: false },
  ];
  for (const c of cases) {
    const { p } = plugin([sa('default', c.sa === undefined ? {} : { automountServiceAccountToken: c.sa })]);
    const created = pod({ containers: [{ name: 'c' }], ...(c.pod === undefined ? {} : { automountServiceAccountToken: c.pod }) });
    await admitAndValidate(p, attrs({ object: created }));
    assert.equal(spec(created)['volumes'] !== undefined, c.mount, JSON.stringify(c));
    assert.equal(spec(created)['containers'][0].volumeMounts !== undefined, c.mount, JSON.stringify(c));
  }
});

const ENFORCE = { [names.podAdmission.enforceMountableSecrets]: 'true' };

test('AllowsReferencedSecret / RejectsUnreferencedSecretVolumes with enforce-mountable-secrets', async () => {
  const { p } = plugin([sa('default', { secrets: [{ name: 'foo' }] }, ENFORCE)]);
  await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'foo' } }] }) }));
  await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'foo', key: 'k' } } }] }] }) }));
  await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c', envFrom: [{ secretRef: { name: 'foo' } }] }] }) }));

  let e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'bar' } }] }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: volume with secret.secretName="bar" is not allowed because service account default does not reference that secret');
  e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'bar', key: 'k' } } }] }] }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: container c with envVar E referencing secret.secretName="bar" is not allowed because service account default does not reference that secret');
  e = await rejection(admitAndValidate(p, attrs({ object: pod({ initContainers: [{ name: 'i', envFrom: [{ secretRef: { name: 'bar' } }] }], containers: [{ name: 'c' }] }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: init container i with envFrom referencing secret.secretName="bar" is not allowed because service account default does not reference that secret');
});

test('AllowUnreferencedSecretVolumesForPermissiveSAs: without the annotation (or not true) anything goes', async () => {
  for (const annotations of [undefined, { [names.podAdmission.enforceMountableSecrets]: 'false' }, { [names.podAdmission.enforceMountableSecrets]: 'yes' }]) {
    const { p } = plugin([sa('default', {}, annotations)]);
    await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], volumes: [{ name: 'v', secret: { secretName: 'bar' } }] }) }));
  }
});

test('Allows/RejectsUnreferencedImagePullSecrets with enforcement', async () => {
  const { p } = plugin([sa('default', { imagePullSecrets: [{ name: 'foo' }] }, ENFORCE)]);
  await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'foo' }] }) }));
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] }) })));
  assert.equal(e.message, 'pods "mypod" is forbidden: imagePullSecrets[1].name="bar" is not allowed because service account default does not reference that imagePullSecret');
});

test('AddImagePullSecrets / DoNotAddImagePullSecrets', async () => {
  const account = sa('default', { imagePullSecrets: [{ name: 'foo' }, { name: 'bar' }] });
  const { p } = plugin([account]);
  const bare = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(p, attrs({ object: bare }));
  assert.deepEqual(spec(bare)['imagePullSecrets'], [{ name: 'foo' }, { name: 'bar' }]);
  const own = pod({ containers: [{ name: 'c' }], imagePullSecrets: [{ name: 'mine' }] });
  await admitAndValidate(p, attrs({ object: own }));
  assert.deepEqual(spec(own)['imagePullSecrets'], [{ name: 'mine' }]);
});

test('ephemeral containers: only the secrets the account lists when enforced', async () => {
  const { p } = plugin([sa('default', { secrets: [{ name: 'foo' }] }, ENFORCE)]);
  const ok = pod({ serviceAccountName: 'default', ephemeralContainers: [{ name: 'debug', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'foo', key: 'k' } } }] }] });
  await admitAndValidate(p, attrs({ operation: 'UPDATE', subresource: 'ephemeralcontainers', object: ok, oldObject: ok }));
  const bad = pod({ serviceAccountName: 'default', ephemeralContainers: [{ name: 'debug', envFrom: [{ secretRef: { name: 'bar' } }] }] });
  const e = await rejection(admitAndValidate(p, attrs({ operation: 'UPDATE', subresource: 'ephemeralcontainers', object: bad, oldObject: ok })));
  assert.equal(e.message, 'ephemeral container debug with envFrom referencing secret.secretName="bar" is not allowed because service account default does not reference that secret');
  const none = pod({ ephemeralContainers: [{ name: 'debug' }] });
  const e2 = await rejection(admitAndValidate(p, attrs({ operation: 'UPDATE', subresource: 'ephemeralcontainers', object: none, oldObject: none })));
  assert.equal(e2.message, 'pods "mypod" is forbidden: no service account specified for pod myns/mypod');
});

test('a malformed pod body is left to validation, never a crash', async () => {
  const { p } = plugin([sa('default')]);
  for (const s of [{ containers: 'x' }, { containers: [1, null, 'c'] }, { volumes: 'v', containers: [{ name: 'c' }] }, { containers: [{ name: 'c', volumeMounts: 7 }] }]) {
    await admitAndValidate(p, attrs({ object: pod(s as Record<string, unknown>) }));
  }
  await admitAndValidate(p, attrs({ object: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'x' }, spec: 'nope' } }));
});
