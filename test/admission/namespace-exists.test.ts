/**
 * NamespaceExists and NamespaceAutoProvision: the cases of the original's
 * namespace/exists/admission_test.go and namespace/autoprovision/
 * admission_test.go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { namespaceExists } from '../../src/admission/plugins/namespace-exists.ts';
import { namespaceAutoProvision } from '../../src/admission/plugins/namespace-auto-provision.ts';
import { StatusError } from '../../src/api/status.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';

test('NamespaceExists: content in a missing namespace is its 404; an existing one passes', async () => {
  const p = namespaceExists({ exists: async (n) => n === 'there' });
  await admitAndValidate(p, attrs({ object: pod(), namespace: 'there' }));
  const e = await rejection(admitAndValidate(p, attrs({ object: pod(), namespace: 'gone' })));
  assert.equal(e.code, 404);
  assert.equal(e.message, 'namespaces "gone" not found');
  await rejection(admitAndValidate(p, attrs({ operation: 'DELETE', object: null, name: 'mypod', namespace: 'gone' })));
  assert.equal(p.handles!(rt.namespaces, '', 'CREATE'), false, 'namespaces themselves are not checked');
  assert.equal(p.handles!(rt.nodes, '', 'CREATE'), false, 'nor cluster-scoped content');
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), true);
});

function provisioner(existing: string[], fail?: StatusError) {
  const created: KObject[] = [];
  const known = new Set(existing);
  return {
    created,
    p: namespaceAutoProvision({
      exists: async (n) => known.has(n),
      create: async (ns) => {
        if (fail) throw fail;
        created.push(ns);
        known.add(ns.metadata.name!);
      },
    }),
  };
}

test('NamespaceAutoProvision: a missing namespace is created; an existing one is not', async () => {
  const a = provisioner([]);
  await admitAndValidate(a.p, attrs({ object: pod(), namespace: 'test' }));
  assert.deepEqual(a.created, [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'test' } }]);
  const b = provisioner(['test']);
  await admitAndValidate(b.p, attrs({ object: pod(), namespace: 'test' }));
  assert.equal(b.created.length, 0);
});

test('NamespaceAutoProvision: not on dry-run, not for cluster-scoped writes or namespaces', async () => {
  const a = provisioner([]);
  await admitAndValidate(a.p, attrs({ object: pod(), namespace: 'test', dryRun: true }));
  assert.equal(a.created.length, 0);
  assert.equal(a.p.handles!(rt.namespaces, '', 'CREATE'), false);
  assert.equal(a.p.handles!(rt.nodes, '', 'CREATE'), false);
  assert.equal(a.p.handles!(rt.pods, '', 'UPDATE'), false);
});

test('NamespaceAutoProvision: AlreadyExists is success; another failure refuses the request', async () => {
  await admitAndValidate(provisioner([], new StatusError(409, 'AlreadyExists', 'namespaces "test" already exists')).p, attrs({ object: pod(), namespace: 'test' }));
  const e = await rejection(admitAndValidate(provisioner([], new StatusError(500, 'InternalError', 'boom')).p, attrs({ object: pod(), namespace: 'test' })));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: boom');
});
