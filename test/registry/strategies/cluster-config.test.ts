/** RBAC objects, webhook configurations, StorageClasses and PriorityClasses. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clusterRoleBindingStrategy, roleBindingStrategy, roleStrategy } from '../../../src/registry/strategies/rbac.ts';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from '../../../src/registry/strategies/webhookconfigurations.ts';
import { storageClassStrategy } from '../../../src/registry/strategies/storageclasses.ts';
import { priorityClassStrategy } from '../../../src/registry/strategies/priorityclasses.ts';
import { ctx, lines, make } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

describe('rbac', () => {
  it('rules need verbs, groups and resources; namespaced rules no URLs', () => {
    const role = make('Role', { rules: [{ verbs: [], apiGroups: [''], resources: ['pods'] }, { verbs: ['get'], nonResourceURLs: ['/healthz'] }] });
    assert.deepEqual(lines(roleStrategy.validate!(role, ctx())), [
      'rules[0].verbs: Required value: verbs must contain at least one value',
      'rules[1].nonResourceURLs: Invalid value: ["/healthz"]: namespaced rules cannot apply to non-resource URLs',
    ]);
    const clusterRole = make('ClusterRole', { rules: [{ verbs: ['get'], nonResourceURLs: ['/healthz'] }] }, { name: 'health' });
    assert.deepEqual(roleStrategy.validate!(clusterRole, ctx()), []);
  });

  it('bindings default groups and check the role reference and subjects', () => {
    const rb = make('RoleBinding', { roleRef: { kind: 'ClusterRole', name: 'view' }, subjects: [{ kind: 'User', name: 'alice' }, { kind: 'ServiceAccount', name: 'default' }] });
    roleBindingStrategy.defaults?.(rb);
    roleBindingStrategy.prepareForCreate?.(rb, ctx());
    assert.deepEqual(rb['roleRef'], { kind: 'ClusterRole', name: 'view', apiGroup: 'rbac.authorization.orch.io' });
    assert.deepEqual(rb['subjects'], [
      { kind: 'User', name: 'alice', apiGroup: 'rbac.authorization.orch.io' },
      { kind: 'ServiceAccount', name: 'default', apiGroup: '' },
    ]);
    assert.deepEqual(roleBindingStrategy.validate!(rb, ctx()), []);
    const crb = make('ClusterRoleBinding', { roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'Role', name: 'x' }, subjects: [{ kind: 'ServiceAccount', name: 'sa' }] }, { name: 'b' });
    assert.deepEqual(lines(clusterRoleBindingStrategy.validate!(crb, ctx())), [
      'roleRef.kind: Unsupported value: "Role": supported values: "ClusterRole"',
      'subjects[0].namespace: Required value',
    ]);
  });

  it('a binding cannot be re-pointed', () => {
    const old = make('RoleBinding', { roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'view' } });
    const next = make('RoleBinding', { roleRef: { apiGroup: 'rbac.authorization.orch.io', kind: 'ClusterRole', name: 'admin' } });
    assert.deepEqual(lines(roleBindingStrategy.validateUpdate!(next, old, ctx())), [
      'roleRef: Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.orch.io", Kind:"ClusterRole", Name:"admin"}: cannot change roleRef',
    ]);
  });
});

function webhookConfig(hook: Record<string, unknown>): KObject {
  return make('ValidatingWebhookConfiguration', { webhooks: [hook] }, { name: 'policy' });
}

const goodHook = (): Record<string, unknown> => ({
  name: 'policy.example.com',
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  clientConfig: { service: { namespace: 'webhooks', name: 'policy' } },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
});

describe('webhook configurations', () => {
  it('get the v1 defaults', () => {
    const c = make('MutatingWebhookConfiguration', { webhooks: [goodHook()] }, { name: 'm' });
    mutatingWebhookConfigurationStrategy.defaults?.(c);
    mutatingWebhookConfigurationStrategy.prepareForCreate?.(c, ctx());
    const hook = (c['webhooks'] as Record<string, unknown>[])[0]!;
    assert.equal(hook['failurePolicy'], 'Fail');
    assert.equal(hook['matchPolicy'], 'Equivalent');
    assert.equal(hook['timeoutSeconds'], 10);
    assert.equal(hook['reinvocationPolicy'], 'Never');
    assert.deepEqual(hook['namespaceSelector'], {});
    assert.deepEqual(hook['objectSelector'], {});
    assert.equal((hook['rules'] as Record<string, unknown>[])[0]!['scope'], '*');
    assert.deepEqual((hook['clientConfig'] as Record<string, unknown>)['service'], { namespace: 'webhooks', name: 'policy', port: 443 });
    assert.deepEqual(mutatingWebhookConfigurationStrategy.validate!(c, ctx()), []);
  });

  it('require sideEffects and admissionReviewVersions, and a sane timeout', () => {
    const c = webhookConfig({ ...goodHook(), sideEffects: undefined, admissionReviewVersions: [], timeoutSeconds: 31 });
    validatingWebhookConfigurationStrategy.defaults?.(c);
    validatingWebhookConfigurationStrategy.prepareForCreate?.(c, ctx());
    assert.deepEqual(lines(validatingWebhookConfigurationStrategy.validate!(c, ctx())), [
      'webhooks[0].sideEffects: Required value: must specify one of None, NoneOnDryRun',
      'webhooks[0].admissionReviewVersions: Required value: must specify one of v1, v1beta1',
      'webhooks[0].timeoutSeconds: Invalid value: 31: the timeout value must be between 1 and 30 seconds',
    ]);
  });

  it('require unique, fully qualified names and exactly one client target', () => {
    const c = make('ValidatingWebhookConfiguration', { webhooks: [goodHook(), { ...goodHook(), clientConfig: {} }, { ...goodHook(), name: 'short.name' }] }, { name: 'p' });
    validatingWebhookConfigurationStrategy.defaults?.(c);
    validatingWebhookConfigurationStrategy.prepareForCreate?.(c, ctx());
    assert.deepEqual(lines(validatingWebhookConfigurationStrategy.validate!(c, ctx())), [
      'webhooks[1].clientConfig: Required value: exactly one of url or service is required',
      'webhooks[1].name: Duplicate value: "policy.example.com"',
      'webhooks[2].name: Invalid value: "short.name": should be a domain with at least three segments separated by dots',
    ]);
  });

  it('require https URLs without credentials, queries or fragments', () => {
    const c = webhookConfig({ ...goodHook(), clientConfig: { url: 'http://user@hooks.example.com/x?y=1#z' } });
    validatingWebhookConfigurationStrategy.defaults?.(c);
    validatingWebhookConfigurationStrategy.prepareForCreate?.(c, ctx());
    assert.deepEqual(lines(validatingWebhookConfigurationStrategy.validate!(c, ctx())), [
      "webhooks[0].clientConfig.url: Invalid value: \"http\": 'https' is the only allowed URL scheme; desired format: https://host[/path]",
      'webhooks[0].clientConfig.url: Invalid value: "user": user information is not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "z": fragments are not permitted in the URL',
      'webhooks[0].clientConfig.url: Invalid value: "y=1": query parameters are not permitted in the URL',
    ]);
  });

  it('check rule operations and scope', () => {
    const c = webhookConfig({ ...goodHook(), rules: [{ operations: ['PATCH'], apiGroups: [], apiVersions: ['v1'], resources: ['pods'], scope: 'Everywhere' }] });
    assert.deepEqual(lines(validatingWebhookConfigurationStrategy.validate!(c, ctx())), [
      'webhooks[0].rules[0].operations[0]: Unsupported value: "PATCH": supported values: "*", "CONNECT", "CREATE", "DELETE", "UPDATE"',
      'webhooks[0].rules[0].apiGroups: Required value',
      'webhooks[0].rules[0].scope: Unsupported value: "Everywhere": supported values: "*", "Cluster", "Namespaced"',
    ]);
  });
});

describe('storage classes', () => {
  it('default the reclaim policy and binding mode, and answer deletes with the object', () => {
    const sc = make('StorageClass', { provisioner: 'csi.example.com' }, { name: 'fast' });
    storageClassStrategy.defaults?.(sc);
    storageClassStrategy.prepareForCreate?.(sc, ctx());
    assert.equal(sc['reclaimPolicy'], 'Delete');
    assert.equal(sc['volumeBindingMode'], 'Immediate');
    assert.deepEqual(storageClassStrategy.validate!(sc, ctx()), []);
    assert.equal(storageClassStrategy.returnDeletedObject, true);
  });

  it('freeze provisioner and parameters', () => {
    const old = make('StorageClass', { provisioner: 'a.example.com', parameters: { type: 'ssd' }, reclaimPolicy: 'Delete', volumeBindingMode: 'Immediate' }, { name: 'x' });
    const next = { ...structuredClone(old), provisioner: 'b.example.com', parameters: { type: 'hdd' } };
    assert.deepEqual(lines(storageClassStrategy.validateUpdate!(next, old, ctx())), [
      'parameters: Forbidden: updates to parameters are forbidden.',
      'provisioner: Forbidden: updates to provisioner are forbidden.',
    ]);
  });
});

describe('priority classes', () => {
  it('default the preemption policy and cap user values', () => {
    const pc = make('PriorityClass', { value: 2_000_000_000 }, { name: 'urgent' });
    priorityClassStrategy.defaults?.(pc);
    priorityClassStrategy.prepareForCreate?.(pc, ctx());
    assert.equal(pc['preemptionPolicy'], 'PreemptLowerPriority');
    assert.deepEqual(lines(priorityClassStrategy.validate!(pc, ctx())), ['value: Forbidden: maximum allowed value of a user defined priority is 1000000000']);
  });

  it('reserve system- names and keep the value', () => {
    const pc = make('PriorityClass', { value: 5 }, { name: 'system-mine' });
    assert.deepEqual(lines(priorityClassStrategy.validate!(pc, ctx())), [
      "metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-mine is not a known system priority class",
    ]);
    const old = make('PriorityClass', { value: 5, preemptionPolicy: 'Never' }, { name: 'p' });
    assert.deepEqual(lines(priorityClassStrategy.validateUpdate!({ ...old, value: 6 }, old, ctx())), ['value: Forbidden: may not be changed in an update.']);
  });
});
