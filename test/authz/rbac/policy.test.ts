import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RbacPolicy } from '../../../src/authz/rbac/policy.ts';
import { compileRule, ruleAllows } from '../../../src/authz/rbac/rules.ts';
import type { BindingRecord, PolicyRule, RoleRecord } from '../../../src/authz/rbac/types.ts';
import type { AuthorizationAttributes } from '../../../src/authz/types.ts';
import { attrs } from '../support.ts';

const G = 'rbac.authorization.test';

function role(namespace: string, name: string, rules: PolicyRule[], labels: Record<string, string> = {}): RoleRecord {
  return { namespace, name, labels, rules, aggregationSelectors: null };
}
function binding(namespace: string, name: string, kind: 'Role' | 'ClusterRole', roleName: string, subjects: BindingRecord['subjects']): BindingRecord {
  return { namespace, name, roleRef: { apiGroup: G, kind, name: roleName }, subjects };
}
function allows(rule: PolicyRule, a: Partial<AuthorizationAttributes>): boolean {
  return ruleAllows(compileRule(rule), attrs(a));
}

describe('RBAC rule matching', () => {
  it('verbs, groups and resources: exact or *', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
    assert.equal(allows(rule, { verb: 'list' }), true);
    assert.equal(allows(rule, { verb: 'delete' }), false);
    assert.equal(allows(rule, { apiGroup: 'apps' }), false);
    assert.equal(allows(rule, { resource: 'secrets' }), false);
    assert.equal(allows({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }, { verb: 'escalate', apiGroup: 'x', resource: 'y', subresource: 'z' }), true);
  });

  it('subresources: pods does not cover pods/log; pods/log and */log do', () => {
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods'] }, { verb: 'get', subresource: 'log' }), false);
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, { verb: 'get', subresource: 'log' }), true);
    assert.equal(allows({ verbs: ['get'], apiGroups: [''], resources: ['pods/log'] }, { verb: 'get' }), false);
    assert.equal(allows({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, { verb: 'get', apiGroup: 'apps', resource: 'deployments', subresource: 'scale' }), true);
    assert.equal(allows({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, { verb: 'get', apiGroup: 'apps', resource: 'deployments' }), false);
    assert.equal(allows({ verbs: ['get'], apiGroups: ['*'], resources: ['*/scale'] }, { verb: 'get', resource: 'pods', subresource: 'status' }), false);
  });

  it('resourceNames restrict to named objects (and so never match a list or a create without a name)', () => {
    const rule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['configmaps'], resourceNames: ['a'] };
    assert.equal(allows(rule, { verb: 'get', resource: 'configmaps', name: 'a' }), true);
    assert.equal(allows(rule, { verb: 'get', resource: 'configmaps', name: 'b' }), false);
    assert.equal(allows(rule, { verb: 'list', resource: 'configmaps', name: '' }), false);
  });

  it('non-resource URLs: exact, trailing *, and never for resource requests', () => {
    const rule = { verbs: ['get'], nonResourceURLs: ['/healthz', '/apis/*'] };
    const path = (p: string): Partial<AuthorizationAttributes> => ({ isResourceRequest: false, path: p, verb: 'get' });
    assert.equal(allows(rule, path('/healthz')), true);
    assert.equal(allows(rule, path('/healthz/etcd')), false);
    assert.equal(allows(rule, path('/apis/apps/v1')), true);
    assert.equal(allows(rule, path('/apis')), false);
    assert.equal(allows(rule, { ...path('/healthz'), verb: 'post' }), false);
    assert.equal(allows({ verbs: ['*'], nonResourceURLs: ['*'] }, path('/anything')), true);
    assert.equal(allows(rule, { verb: 'get' }), false, 'a URL rule grants no resource');
    assert.equal(allows({ verbs: ['get'], apiGroups: ['*'], resources: ['*'] }, path('/healthz')), false, 'a resource rule grants no URL');
  });
});

describe('RbacPolicy', () => {
  function policy(): RbacPolicy {
    const p = new RbacPolicy(G);
    p.setRole('clusterroles', role('', 'view', [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods', 'configmaps'] }]));
    p.setRole('clusterroles', role('', 'nodes-reader', [{ verbs: ['get'], apiGroups: [''], resources: ['nodes'] }]));
    p.setRole('roles', role('team', 'secrets', [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]));
    p.setBinding('rolebindings', binding('team', 'alice-view', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: G, name: 'alice' }]));
    p.setBinding('rolebindings', binding('team', 'sa-secrets', 'Role', 'secrets', [{ kind: 'ServiceAccount', name: 'robot' }]));
    p.setBinding('clusterrolebindings', binding('', 'ops-nodes', 'ClusterRole', 'nodes-reader', [{ kind: 'Group', apiGroup: G, name: 'ops' }]));
    return p;
  }
  const alice = { name: 'alice', groups: ['system:authenticated'] };

  it('a RoleBinding to a ClusterRole grants it in that namespace only', () => {
    const p = policy();
    const r = p.authorize(attrs({ user: alice, namespace: 'team', verb: 'list' }));
    assert.equal(r.decision, 'allow');
    assert.equal(r.reason, 'RBAC: allowed by RoleBinding "alice-view/team" of ClusterRole "view" to User "alice"');
    assert.equal(p.authorize(attrs({ user: alice, namespace: 'other' })).decision, 'noOpinion');
    assert.equal(p.authorize(attrs({ user: alice, namespace: '' })).decision, 'noOpinion');
    assert.equal(p.authorize(attrs({ user: alice, namespace: 'team', verb: 'delete' })).decision, 'noOpinion');
  });

  it('groups are subjects; ClusterRoleBindings grant everywhere', () => {
    const p = policy();
    const bob = { name: 'bob', groups: ['ops'] };
    assert.equal(p.authorize(attrs({ user: bob, namespace: '', verb: 'get', resource: 'nodes', name: 'n1' })).decision, 'allow');
    assert.equal(p.authorize(attrs({ user: { name: 'ops', groups: [] }, namespace: '', verb: 'get', resource: 'nodes' })).decision, 'noOpinion', 'a user named like a group is not in it');
  });

  it('an unqualified ServiceAccount subject of a RoleBinding is in the binding\'s namespace', () => {
    const p = policy();
    const robot = { name: 'system:serviceaccount:team:robot', groups: ['system:serviceaccounts'] };
    assert.equal(p.authorize(attrs({ user: robot, namespace: 'team', verb: 'get', resource: 'secrets', name: 's' })).decision, 'allow');
    const other = { name: 'system:serviceaccount:other:robot', groups: [] };
    assert.equal(p.authorize(attrs({ user: other, namespace: 'team', verb: 'get', resource: 'secrets', name: 's' })).decision, 'noOpinion');
  });

  it('changes take effect at once: new bindings, deleted bindings, changed roles', () => {
    const p = policy();
    const carol = { name: 'carol', groups: [] };
    const a = attrs({ user: carol, namespace: 'team', verb: 'get', resource: 'pods', name: 'x' });
    assert.equal(p.authorize(a).decision, 'noOpinion');
    p.setBinding('rolebindings', binding('team', 'carol', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: G, name: 'carol' }]));
    assert.equal(p.authorize(a).decision, 'allow');
    p.setRole('clusterroles', role('', 'view', [{ verbs: ['get'], apiGroups: [''], resources: ['configmaps'] }]));
    assert.equal(p.authorize(a).decision, 'noOpinion');
    p.setRole('clusterroles', role('', 'view', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]));
    assert.equal(p.authorize(a).decision, 'allow');
    // Re-pointing subjects: the old subject loses the grant.
    p.setBinding('rolebindings', binding('team', 'carol', 'ClusterRole', 'view', [{ kind: 'User', apiGroup: G, name: 'dave' }]));
    assert.equal(p.authorize(a).decision, 'noOpinion');
    p.remove('rolebindings', 'team', 'carol');
    assert.equal(p.authorize(attrs({ ...a, user: { name: 'dave', groups: [] } })).decision, 'noOpinion');
    assert.equal(p.sizes.roleBindings, 2);
  });

  it('a binding to a missing role grants nothing and says why', () => {
    const p = policy();
    p.setBinding('clusterrolebindings', binding('', 'ghost', 'ClusterRole', 'nope', [{ kind: 'User', apiGroup: G, name: 'eve' }]));
    const r = p.authorize(attrs({ user: { name: 'eve', groups: [] }, namespace: '' }));
    assert.deepEqual(r, { decision: 'noOpinion', reason: `RBAC: clusterrole.${G} "nope" not found` });
  });

  it('a ClusterRoleBinding cannot grant a Role', () => {
    const p = policy();
    p.setBinding('clusterrolebindings', binding('', 'odd', 'Role', 'secrets', [{ kind: 'User', apiGroup: G, name: 'eve' }]));
    assert.equal(p.authorize(attrs({ user: { name: 'eve', groups: [] }, namespace: 'team', resource: 'secrets', verb: 'get', name: 'x' })).decision, 'noOpinion');
  });

  it('rulesFor lists cluster-wide and namespace rules', () => {
    const p = policy();
    const robot = { name: 'system:serviceaccount:team:robot', groups: ['ops'] };
    assert.equal(p.rulesFor(robot, '').rules.length, 1);
    assert.equal(p.rulesFor(robot, 'team').rules.length, 2);
  });
});
