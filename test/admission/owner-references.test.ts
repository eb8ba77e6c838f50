/**
 * OwnerReferencesPermissionEnforcement with the original's TestGCAdmission
 * and TestBlockOwnerDeletionAdmission cases (plugin/pkg/admission/gc): the
 * same fake authorizer users (super, non-deleter, non-pod-deleter,
 * non-rc-deleter, non-node-deleter) and the served kinds as the REST mapper.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { KObject, OwnerReference } from '../../src/registry/object.ts';
import type { Authorizer, AuthorizationAttributes } from '../../src/authz/types.ts';
import { kindMapperOf, ownerReferencesPermissionEnforcement } from '../../src/admission/plugins/owner-references-permission-enforcement.ts';
import { attrs, obj, registry, rt, run } from './misc-support.ts';

function fakeAuthorizer(): Authorizer & { seen: AuthorizationAttributes[] } {
  const seen: AuthorizationAttributes[] = [];
  const deny = (a: AuthorizationAttributes, resource: string): boolean =>
    (a.verb === 'delete' && a.resource === resource) || (a.verb === 'update' && a.resource === resource && a.subresource === 'finalizers');
  return {
    name: 'fake',
    seen,
    authorize(a) {
      seen.push(a);
      const no = { decision: 'noOpinion' as const, reason: '' };
      const u = a.user.name;
      const partial = u === 'non-deleter' || u === 'non-pod-deleter' || u === 'non-rc-deleter' || u === 'non-node-deleter';
      if (partial && a.apiGroup === '*' && a.resource === '*') return no; // this user does not have full rights
      if (u === 'non-deleter' && (a.verb === 'delete' || (a.verb === 'update' && a.subresource === 'finalizers'))) return no;
      if (u === 'non-pod-deleter' && deny(a, 'pods')) return no;
      if (u === 'non-rc-deleter' && deny(a, 'replicationcontrollers')) return no;
      if (u === 'non-node-deleter' && deny(a, 'nodes')) return no;
      return { decision: 'allow', reason: '' };
    },
  };
}

const pods = rt('', 'v1', 'pods');
const configmaps = rt('', 'v1', 'configmaps');
const withRefs = (...refs: Partial<OwnerReference>[]): KObject => obj('Pod', { name: 'foo', namespace: 'default', ownerReferences: refs as OwnerReference[] });
const plain = (): KObject => obj('Pod', { name: 'foo', namespace: 'default' });
const CANT_OWN = "cannot set an ownerRef on a resource you can't delete";
const CANT_BLOCK = "cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on";

async function check(user: string, resource: typeof pods, next: KObject, old: KObject | null, sub = ''): Promise<string | undefined> {
  const plugin = ownerReferencesPermissionEnforcement(fakeAuthorizer, kindMapperOf(registry.types));
  const err = await run(plugin, attrs({ rt: resource, op: old === null ? 'CREATE' : 'UPDATE', sub, ns: 'default', name: 'foo', obj: next, old, user: { name: user, groups: [] } }));
  if (err) assert.equal(err.code, 403);
  return err?.message;
}

test('OwnerReferencesPermissionEnforcement: the original TestGCAdmission cases', async () => {
  const first = { name: 'first' };
  const cases: Array<[string, string, typeof pods, KObject, KObject | null, string, boolean]> = [
    ['super-user, create, no objectref change', 'super', pods, plain(), null, '', true],
    ['super-user, create, objectref change', 'super', pods, withRefs(first), null, '', true],
    ['non-deleter, create, no objectref change', 'non-deleter', pods, plain(), null, '', true],
    ['non-deleter, create, objectref change', 'non-deleter', pods, withRefs(first), null, '', true],
    ['non-pod-deleter, create, no objectref change', 'non-pod-deleter', pods, plain(), null, '', true],
    ['non-pod-deleter, create, objectref change', 'non-pod-deleter', pods, withRefs(first), null, '', true],
    ['non-pod-deleter, create, objectref change, but not a pod', 'non-pod-deleter', configmaps, withRefs(first), null, '', true],
    ['super-user, update, no objectref change', 'super', pods, plain(), plain(), '', true],
    ['super-user, update, no objectref change two', 'super', pods, withRefs(first), withRefs(first), '', true],
    ['super-user, update, objectref change', 'super', pods, withRefs(first), plain(), '', true],
    ['non-deleter, update, no objectref change', 'non-deleter', pods, plain(), plain(), '', true],
    ['non-deleter, update, no objectref change two', 'non-deleter', pods, withRefs(first), withRefs(first), '', true],
    ['non-deleter, update, objectref change', 'non-deleter', pods, withRefs(first), plain(), '', false],
    ['non-deleter, update, objectref change two', 'non-deleter', pods, withRefs(first, { name: 'second' }), withRefs(first), '', false],
    ['non-pod-deleter, update, no objectref change', 'non-pod-deleter', pods, plain(), plain(), '', true],
    ['non-pod-deleter, update status, objectref change', 'non-pod-deleter', pods, withRefs(first), plain(), 'status', true],
    ['non-pod-deleter, update, objectref change', 'non-pod-deleter', pods, withRefs(first), plain(), '', false],
    ['non-pod-deleter, update, objectref change, but not a pod', 'non-pod-deleter', configmaps, withRefs(first), plain(), '', true],
  ];
  for (const [name, user, resource, next, old, sub, allowed] of cases) {
    const msg = await check(user, resource, next, old, sub);
    if (allowed) assert.equal(msg, undefined, name);
    else assert.match(msg ?? '<allowed>', new RegExp(CANT_OWN), name);
  }
  assert.equal(await check('non-deleter', pods, withRefs(first), plain()), `pods "foo" is forbidden: ${CANT_OWN}: , <nil>`);
});

test('OwnerReferencesPermissionEnforcement: the original TestBlockOwnerDeletionAdmission cases', async () => {
  const rc = (name: string, block?: boolean): Partial<OwnerReference> => ({ apiVersion: 'v1', kind: 'ReplicationController', name, uid: name, ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
  const ds = (block: boolean): Partial<OwnerReference> => ({ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds1', uid: 'ds1', blockOwnerDeletion: block });
  const node = (name: string, block?: boolean): Partial<OwnerReference> => ({ apiVersion: 'v1', kind: 'Node', name, uid: name, ...(block === undefined ? {} : { blockOwnerDeletion: block }) });
  const [blockRC1, blockRC2, notBlockRC1, notBlockRC2, nilBlockRC1, nilBlockRC2] = [rc('rc1', true), rc('rc2', true), rc('rc1', false), rc('rc2', false), rc('rc1'), rc('rc2')];
  const [blockDS1, notBlockDS1] = [ds(true), ds(false)];
  const [blockNode, notBlockNode, nilBlockNode] = [node('node1', true), node('node', false), node('node')];
  const cases: Array<[string, string, Partial<OwnerReference>[], Partial<OwnerReference>[] | null, boolean]> = [
    ['super-user, create, no ownerReferences', 'super', [], null, true],
    ['super-user, create, all ownerReferences have blockOwnerDeletion=false', 'super', [notBlockRC1, notBlockRC2], null, true],
    ['super-user, create, some ownerReferences have blockOwnerDeletion=true', 'super', [blockRC1, blockRC2, blockNode], null, true],
    ['non-rc-deleter, create, no ownerReferences', 'non-rc-deleter', [], null, true],
    ['non-rc-deleter, create, all ownerReferences have blockOwnerDeletion=false or nil', 'non-rc-deleter', [notBlockRC1, nilBlockRC2], null, true],
    ['non-node-deleter, create, all ownerReferences have blockOwnerDeletion=false', 'non-node-deleter', [notBlockNode], null, true],
    ['non-rc-deleter, create, some ownerReferences have blockOwnerDeletion=true', 'non-rc-deleter', [blockRC1, notBlockRC2], null, false],
    ['non-rc-deleter, create, some ownerReferences have blockOwnerDeletion=true, but are pointing to daemonset', 'non-rc-deleter', [blockDS1], null, true],
    ['non-node-deleter, create, some ownerReferences have blockOwnerDeletion=true', 'non-node-deleter', [blockNode], null, false],
    ['super-user, update, no ownerReferences change blockOwnerDeletion', 'super', [notBlockRC1, notBlockNode], [nilBlockRC1, nilBlockNode], true],
    ['super-user, update, some ownerReferences change to blockOwnerDeletion=true', 'super', [blockRC1, blockNode], [notBlockRC1, notBlockNode], true],
    ['super-user, update, add new ownerReferences with blockOwnerDeletion=true', 'super', [blockRC1, blockNode], [], true],
    ['non-rc-deleter, update, no ownerReferences change blockOwnerDeletion', 'non-rc-deleter', [notBlockRC1], [nilBlockRC1], true],
    ['non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=false to true', 'non-rc-deleter', [blockRC1], [notBlockRC1], false],
    ['non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=nil to true', 'non-rc-deleter', [blockRC1], [nilBlockRC1], false],
    ['non-node-deleter, update, some ownerReferences change from blockOwnerDeletion=nil to true', 'non-node-deleter', [blockNode], [nilBlockNode], false],
    ['non-rc-deleter, update, some ownerReferences change from blockOwnerDeletion=true to false', 'non-rc-deleter', [notBlockRC1], [blockRC1], true],
    ['non-node-deleter, update, some ownerReferences change from blockOwnerDeletion=true to false', 'non-node-deleter', [notBlockNode], [blockNode], true],
    ['non-rc-deleter, update, some ownerReferences change blockOwnerDeletion, but all such references are to daemonset', 'non-rc-deleter', [blockDS1], [notBlockDS1], true],
    ['non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=nil or false', 'non-rc-deleter', [notBlockRC1, nilBlockRC2], [], true],
    ['non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=true', 'non-rc-deleter', [blockRC1], [], false],
    ['non-rc-deleter, update, add new ownerReferences with blockOwnerDeletion=true, but the references are to daemonset', 'non-rc-deleter', [blockDS1], [], true],
    ['non-node-deleter, update, add ownerReferences with blockOwnerDeletion=true', 'non-node-deleter', [blockNode], [], false],
  ];
  for (const [name, user, next, old, allowed] of cases) {
    const msg = await check(user, pods, withRefs(...next), old === null ? null : withRefs(...old));
    if (allowed) assert.equal(msg, undefined, name);
    else assert.match(msg ?? '<allowed>', new RegExp(CANT_BLOCK), name);
  }
});

test('OwnerReferencesPermissionEnforcement: the owner check names the owner resource, its finalizers and the namespace when namespaced', async () => {
  const authz = fakeAuthorizer();
  const plugin = ownerReferencesPermissionEnforcement(() => authz, kindMapperOf(registry.types));
  const next = withRefs({ apiVersion: 'v1', kind: 'ReplicationController', name: 'rc1', uid: 'u', blockOwnerDeletion: true }, { apiVersion: 'v1', kind: 'Node', name: 'n', uid: 'n', blockOwnerDeletion: true });
  await run(plugin, attrs({ rt: pods, op: 'CREATE', ns: 'default', obj: next, user: { name: 'non-deleter', groups: [] } }));
  const owner = authz.seen.find((a) => a.resource === 'replicationcontrollers');
  assert.deepEqual(
    owner && { verb: owner.verb, subresource: owner.subresource, namespace: owner.namespace, name: owner.name, group: owner.apiGroup, version: owner.apiVersion },
    { verb: 'update', subresource: 'finalizers', namespace: 'default', name: 'rc1', group: '', version: 'v1' },
  );
  const unknown = await run(plugin, attrs({ rt: pods, op: 'CREATE', ns: 'default', name: 'foo', obj: withRefs({ apiVersion: 'example.com/v1', kind: 'Widget', name: 'w', uid: 'w', blockOwnerDeletion: true }), user: { name: 'non-deleter', groups: [] } }));
  assert.equal(
    unknown?.message,
    'pods "foo" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v1 Kind Widget: no matches for kind "Widget" in version "example.com/v1"',
  );
});
