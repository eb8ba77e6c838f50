import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { covers } from '../../../src/authz/rbac/covers.ts';
import { confirmNoEscalation } from '../../../src/authz/rbac/escalation.ts';
import { RbacPolicy } from '../../../src/authz/rbac/policy.ts';
import { bindingObject, reconcileBinding, reconcileRole, roleObject } from '../../../src/authz/rbac/reconcile.ts';
import { AUTOUPDATE_ANNOTATION, defaultBindings, defaultRoles } from '../../../src/authz/rbac/bootstrap-policy.ts';
import { aggregatedRules } from '../../../src/controllers/clusterrole-aggregation-controller.ts';
import type { RoleRecord } from '../../../src/authz/rbac/types.ts';
import { apiGroup } from '../../../src/naming/index.ts';

describe('covers (escalation check)', () => {
  it('owner rules must grant every atomic permission requested', () => {
    const owner = [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'] }];
    assert.equal(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]).covered, true);
    const r = covers(owner, [{ verbs: ['get', 'delete'], apiGroups: [''], resources: ['pods'] }]);
    assert.deepEqual(r.uncovered, [{ apiGroups: [''], resources: ['pods'], verbs: ['delete'] }]);
    // A wildcard request is only covered by a wildcard.
    assert.equal(covers(owner, [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }]).covered, false);
    assert.equal(covers([{ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }], [{ verbs: ['get'], apiGroups: [''], resources: ['*'] }]).covered, true);
  });

  it('*/sub covers that subresource of every resource; resourceNames narrow', () => {
    assert.equal(covers([{ verbs: ['get'], apiGroups: ['apps'], resources: ['*/scale'] }], [{ verbs: ['get'], apiGroups: ['apps'], resources: ['deployments/scale'] }]).covered, true);
    const named = [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }];
    assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'], resourceNames: ['a'] }]).covered, true);
    assert.equal(covers(named, [{ verbs: ['get'], apiGroups: [''], resources: ['secrets'] }]).covered, false);
  });

  it('non-resource URLs with a trailing * cover what they prefix', () => {
    assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/apps'] }]).covered, true);
    assert.equal(covers([{ verbs: ['get'], nonResourceURLs: ['/apis'] }], [{ verbs: ['get'], nonResourceURLs: ['/apis/*'] }]).covered, false);
  });

  it('confirmNoEscalation names the user, groups and what is missing, as the original', () => {
    const p = new RbacPolicy('g');
    p.setRole('roles', { namespace: 'ns', name: 'r', labels: {}, rules: [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }], aggregationSelectors: null });
    p.setBinding('rolebindings', { namespace: 'ns', name: 'b', roleRef: { apiGroup: 'g', kind: 'Role', name: 'r' }, subjects: [{ kind: 'User', name: 'bob' }] });
    const bob = { name: 'bob', groups: ['system:authenticated'] };
    assert.equal(confirmNoEscalation(p, bob, 'ns', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), null);
    assert.equal(
      confirmNoEscalation(p, bob, 'ns', [{ verbs: ['get', 'list', 'delete'], apiGroups: [''], resources: ['pods', 'secrets'] }]),
      'user "bob" (groups=["system:authenticated"]) is attempting to grant RBAC permissions not currently held:\n' +
        '{APIGroups:[""], Resources:["pods"], Verbs:["list" "delete"]}\n{APIGroups:[""], Resources:["secrets"], Verbs:["get" "list" "delete"]}',
    );
    // Outside the namespace bob holds nothing.
    assert.notEqual(confirmNoEscalation(p, bob, 'other', [{ verbs: ['get'], apiGroups: [''], resources: ['pods'] }]), null);
  });
});

describe('default policy reconciliation', () => {
  const view = defaultRoles().find((r) => r.name === 'system:aggregate-to-view')!;

  it('every default object carries the bootstrapping label and the autoupdate annotation', () => {
    for (const r of defaultRoles()) assert.equal(roleObject(r).metadata.annotations?.[AUTOUPDATE_ANNOTATION], 'true', r.name);
    for (const b of defaultBindings()) assert.equal(bindingObject(b).metadata.annotations?.[AUTOUPDATE_ANNOTATION], 'true', b.name);
    const names = defaultRoles().map((r) => `${r.namespace}/${r.name}`);
    assert.equal(new Set(names).size, names.length, 'no duplicates');
    for (const must of ['cluster-admin', 'admin', 'edit', 'view', 'system:discovery', 'system:basic-user', 'system:public-info-viewer', 'system:node', 'system:node-bootstrapper', `system:${apiGroup('certificates')}:certificatesigningrequests:nodeclient`]) {
      assert.ok(names.includes(`/${must}`), must);
    }
  });

  it('adds missing rules, labels and annotations, keeps additions', () => {
    const expected = roleObject(view);
    const existing = structuredClone(expected);
    existing['rules'] = [{ verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }];
    existing.metadata.labels = { mine: 'yes' };
    const next = reconcileRole(existing, expected)!;
    assert.ok(next !== null);
    const rules = next['rules'] as Array<{ resources?: string[] }>;
    assert.deepEqual(rules[0], { verbs: ['get'], apiGroups: ['example.com'], resources: ['widgets'] }, 'the admin addition stays first');
    assert.ok(covers(rules.map((r) => ({ verbs: [], ...r }) as never), view.rules).covered);
    assert.equal(next.metadata.labels?.['mine'], 'yes');
    assert.equal(reconcileRole(next, expected), null, 'a second pass changes nothing');
  });

  it('adds missing subjects to bindings', () => {
    const b = defaultBindings().find((x) => x.name === 'system:public-info-viewer')!;
    const expected = bindingObject(b);
    const existing = structuredClone(expected);
    existing['subjects'] = [{ kind: 'User', apiGroup: apiGroup('rbac.authorization'), name: 'extra' }];
    const next = reconcileBinding(existing, expected)!;
    assert.equal((next['subjects'] as unknown[]).length, 3);
    assert.equal(reconcileBinding(next, expected), null);
  });
});

describe('cluster role aggregation', () => {
  it('unions the selected roles\' rules, roles by name, each rule once, never the role itself', () => {
    const label = { 'agg': 'true' };
    const rule = (r: string) => ({ verbs: ['get'], apiGroups: [''], resources: [r] });
    const roles = new Map<string, RoleRecord>();
    const add = (name: string, labels: Record<string, string>, rules: ReturnType<typeof rule>[], sel: unknown[] | null = null): void => {
      roles.set(name, { namespace: '', name, labels, rules, aggregationSelectors: sel });
    };
    add('target', label, [rule('old')], [{ matchLabels: label }]);
    add('b', label, [rule('pods'), rule('secrets')]);
    add('a', label, [rule('secrets'), rule('configmaps')]);
    add('c', {}, [rule('nodes')]);
    assert.deepEqual(aggregatedRules(roles.get('target')!, roles), [rule('secrets'), rule('configmaps'), rule('pods')]);
  });
});

describe('reconcileDefaultPolicy', () => {
  it('writes every missing default, and one object that cannot be written does not stop the rest', async () => {
    const { reconcileDefaultPolicy } = await import('../../../src/authz/rbac/reconcile.ts');
    const { names } = await import('../../../src/naming/index.ts');
    const created: string[] = [];
    const store = {
      getObject: async () => null,
      create: async (rt: { resource: string }, namespace: string, obj: { metadata: { name?: string } }) => {
        if (namespace === names.publicNamespace) throw new Error(`namespaces "${namespace}" not found`);
        created.push(`${rt.resource}/${namespace}/${obj.metadata.name}`);
        return { status: 201, body: new Uint8Array() };
      },
    };
    const registry = { lookup: (_g: string, _v: string, resource: string) => ({ resource }) };
    const warnings: string[] = [];
    const report = await reconcileDefaultPolicy(store as never, registry as never, { info: () => undefined, warn: (o) => warnings.push(JSON.stringify(o)) });
    assert.deepEqual(report.failed, [`Role ${names.publicNamespace}/system:controller:bootstrap-signer`, `RoleBinding ${names.publicNamespace}/system:controller:bootstrap-signer`]);
    assert.equal(warnings.length, 2);
    assert.equal(created.length, defaultRoles().length + defaultBindings().length - 2);
    assert.ok(created.includes('clusterrolebindings//cluster-admin'));
  });
});
