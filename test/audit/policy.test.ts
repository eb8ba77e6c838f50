/**
 * The audit policy checker against a table in the manner of the original's
 * checker_test.go: each named rule alone, then rule lists where the first
 * match wins; stage and managed-field settings; the file's validation.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PolicyChecker, PolicyError, parsePolicy, type AuditAttributes } from '../../src/audit/policy.ts';
import { AUDIT_API_VERSION, type PolicyRule } from '../../src/audit/types.ts';

const tim = { name: 'tim', groups: ['humans'] };
const attrs: Record<string, AuditAttributes> = {
  namespaced: { user: tim, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/default/pods/busybox', namespace: 'default', apiGroup: '', resource: 'pods', subresource: '', name: 'busybox' },
  cluster: { user: tim, verb: 'get', isResourceRequest: true, path: '/api/v1/nodes/mynode', namespace: '', apiGroup: '', resource: 'nodes', subresource: '', name: 'mynode' },
  nonResource: { user: tim, verb: 'post', isResourceRequest: false, path: '/logs/kubelet.log', namespace: '', apiGroup: '', resource: '', subresource: '', name: '' },
  subresource: { user: tim, verb: 'get', isResourceRequest: true, path: '/api/v1/namespaces/default/pods/busybox/log', namespace: 'default', apiGroup: '', resource: 'pods', subresource: 'log', name: 'busybox' },
  anon: { user: { name: 'system:anonymous', groups: ['system:unauthenticated'] }, verb: 'get', isResourceRequest: false, path: '/healthz', namespace: '', apiGroup: '', resource: '', subresource: '', name: '' },
  clusterRole: { user: { name: 'ana', groups: ['system:serviceaccounts'] }, verb: 'get', isResourceRequest: true, path: '/apis/rbac/v1/clusterroles/admin', namespace: '', apiGroup: 'rbac.authorization.k8s.io', resource: 'clusterroles', subresource: '', name: 'admin' },
};

const rules: Record<string, PolicyRule> = {
  default: { level: 'Metadata' },
  create: { level: 'Request', verbs: ['create'] },
  tims: { level: 'Metadata', users: ['tim'] },
  humans: { level: 'Metadata', userGroups: ['humans'] },
  serviceAccounts: { level: 'Request', userGroups: ['system:serviceaccounts'] },
  getPods: { level: 'RequestResponse', verbs: ['get'], resources: [{ group: '', resources: ['pods'] }] },
  getPodLogs: { level: 'Request', verbs: ['get'], resources: [{ group: '', resources: ['pods/log'] }] },
  getPodWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ group: '', resources: ['*'] }] },
  getPodResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ group: '', resources: ['*/log'] }] },
  getPodSubResourceWildcardMatching: { level: 'Request', verbs: ['get'], resources: [{ group: '', resources: ['pods/*'] }] },
  getClusterRoles: { level: 'Request', verbs: ['get'], resources: [{ group: 'rbac.authorization.k8s.io', resources: ['clusterroles'] }] },
  anyGroupInCore: { level: 'Request', resources: [{ group: '' }] },
  getLogs: { level: 'RequestResponse', verbs: ['get'], nonResourceURLs: ['/logs*'] },
  postLogs: { level: 'RequestResponse', verbs: ['post'], nonResourceURLs: ['/logs*'] },
  healthz: { level: 'Metadata', nonResourceURLs: ['/healthz'] },
  everyURL: { level: 'Metadata', nonResourceURLs: ['*'] },
  namespaceDefault: { level: 'RequestResponse', namespaces: ['default'] },
  clusterScoped: { level: 'Request', namespaces: [''] },
  busyboxOnly: { level: 'Request', resources: [{ group: '', resources: ['pods'], resourceNames: ['busybox'] }] },
  otherName: { level: 'Request', resources: [{ group: '', resources: ['pods'], resourceNames: ['nginx'] }] },
  unauthenticated: { level: 'None', userGroups: ['system:unauthenticated'] },
};

/** [attributes, rule, expected level]; a rule that does not match gives None. */
const table: [string, string, string][] = [
  ['namespaced', 'default', 'Metadata'],
  ['namespaced', 'create', 'None'],
  ['namespaced', 'tims', 'Metadata'],
  ['namespaced', 'humans', 'Metadata'],
  ['namespaced', 'serviceAccounts', 'None'],
  ['namespaced', 'getPods', 'RequestResponse'],
  ['namespaced', 'getPodLogs', 'None'],
  ['namespaced', 'getPodWildcardMatching', 'Request'],
  ['namespaced', 'getPodResourceWildcardMatching', 'None'],
  ['namespaced', 'getPodSubResourceWildcardMatching', 'Request'], // the original's 'pods/*' also matches pods itself
  ['namespaced', 'getClusterRoles', 'None'],
  ['namespaced', 'anyGroupInCore', 'Request'],
  ['namespaced', 'getLogs', 'None'],
  ['namespaced', 'namespaceDefault', 'RequestResponse'],
  ['namespaced', 'clusterScoped', 'None'],
  ['namespaced', 'busyboxOnly', 'Request'],
  ['namespaced', 'otherName', 'None'],
  ['namespaced', 'everyURL', 'None'],
  ['cluster', 'default', 'Metadata'],
  ['cluster', 'getPods', 'None'],
  ['cluster', 'getPodWildcardMatching', 'Request'],
  ['cluster', 'namespaceDefault', 'None'],
  ['cluster', 'clusterScoped', 'Request'],
  ['cluster', 'getLogs', 'None'],
  ['nonResource', 'default', 'Metadata'],
  ['nonResource', 'tims', 'Metadata'],
  ['nonResource', 'getPods', 'None'],
  ['nonResource', 'getLogs', 'None'],
  ['nonResource', 'postLogs', 'RequestResponse'],
  ['nonResource', 'everyURL', 'Metadata'],
  ['nonResource', 'healthz', 'None'],
  ['nonResource', 'namespaceDefault', 'None'],
  ['nonResource', 'anyGroupInCore', 'None'],
  ['subresource', 'getPods', 'None'],
  ['subresource', 'getPodLogs', 'Request'],
  ['subresource', 'getPodWildcardMatching', 'Request'],
  ['subresource', 'getPodResourceWildcardMatching', 'Request'],
  ['subresource', 'getPodSubResourceWildcardMatching', 'Request'],
  ['subresource', 'busyboxOnly', 'None'],
  ['anon', 'healthz', 'Metadata'],
  ['anon', 'tims', 'None'],
  ['anon', 'unauthenticated', 'None'],
  ['clusterRole', 'getClusterRoles', 'Request'],
  ['clusterRole', 'getPodWildcardMatching', 'None'],
  ['clusterRole', 'serviceAccounts', 'Request'],
  ['clusterRole', 'humans', 'None'],
];

test('each rule alone: the level of the original checker', () => {
  for (const [a, r, want] of table) {
    const checker = new PolicyChecker({ rules: [rules[r]!] });
    assert.equal(checker.evaluate(attrs[a]!).level, want, `${a} with rule ${r}`);
  }
});

test('the first matching rule wins', () => {
  const ordered = (...names: string[]): PolicyChecker => new PolicyChecker({ rules: names.map((n) => rules[n]!) });
  assert.equal(ordered('unauthenticated', 'default').evaluate(attrs['anon']!).level, 'None');
  assert.equal(ordered('default', 'unauthenticated').evaluate(attrs['anon']!).level, 'Metadata');
  assert.equal(ordered('getPodLogs', 'getPods', 'default').evaluate(attrs['subresource']!).level, 'Request');
  assert.equal(ordered('getPodLogs', 'getPods', 'default').evaluate(attrs['namespaced']!).level, 'RequestResponse');
  assert.equal(ordered('create', 'getLogs', 'otherName').evaluate(attrs['namespaced']!).level, 'None');
});

test('omitStages: the policy\'s and the rule\'s together; omitManagedFields: the rule\'s over the policy\'s', () => {
  const checker = new PolicyChecker({
    omitStages: ['RequestReceived'],
    omitManagedFields: true,
    rules: [
      { level: 'Request', users: ['tim'], omitStages: ['ResponseStarted'], omitManagedFields: false },
      { level: 'Metadata' },
    ],
  });
  const timCfg = checker.evaluate(attrs['namespaced']!);
  assert.deepEqual([...timCfg.omitStages].sort(), ['RequestReceived', 'ResponseStarted']);
  assert.equal(timCfg.omitManagedFields, false);
  const other = checker.evaluate(attrs['clusterRole']!);
  assert.deepEqual([...other.omitStages], ['RequestReceived']);
  assert.equal(other.omitManagedFields, true);
});

test('a policy that audits nothing says so (the filter is then left out)', () => {
  assert.equal(new PolicyChecker({ rules: [{ level: 'None' }] }).auditsNothing, true);
  assert.equal(new PolicyChecker({ rules: [{ level: 'None', users: ['a'] }, { level: 'Metadata' }] }).auditsNothing, false);
});

test('the policy file: YAML read, bad files refused with the reason', () => {
  const ok = parsePolicy(
    [
      `apiVersion: ${AUDIT_API_VERSION}`,
      'kind: Policy',
      'omitStages: ["RequestReceived"]',
      'rules:',
      '- level: None',
      '  nonResourceURLs: ["/healthz*", "/version"]',
      '- level: RequestResponse',
      '  resources:',
      '  - group: ""',
      '    resources: ["pods", "pods/log"]',
      '    resourceNames: ["web"]',
      '- level: Metadata',
    ].join('\n'),
  );
  assert.equal(ok.rules.length, 3);
  assert.deepEqual(ok.rules[1]!.resources, [{ group: '', resources: ['pods', 'pods/log'], resourceNames: ['web'] }]);
  const checker = new PolicyChecker(ok);
  assert.equal(checker.evaluate({ ...attrs['anon']!, path: '/healthz/etcd' }).level, 'None');
  assert.equal(checker.evaluate(attrs['anon']!).level, 'None');
  assert.equal(checker.evaluate(attrs['nonResource']!).level, 'Metadata');

  const bad = (text: string, re: RegExp): void => assert.throws(() => parsePolicy(text), (e: unknown) => e instanceof PolicyError && re.test(e.message), text);
  const head = `apiVersion: ${AUDIT_API_VERSION}\nkind: Policy\n`;
  bad(`${head}rules: []`, /0 rules/);
  bad(`${head}rules:\n- level: Loud`, /Unsupported value "Loud"/);
  bad(`${head}rules:\n- verbs: [get]`, /level: Required value/);
  bad(`${head}rules:\n- level: Metadata\n  nonResourceURLs: ["/a"]\n  namespaces: ["x"]`, /both regular resources and non-resource URLs/);
  bad(`${head}rules:\n- level: Metadata\n  nonResourceURLs: ["healthz"]`, /must begin with a '\/'/);
  bad(`${head}rules:\n- level: Metadata\n  nonResourceURLs: ["/a*b"]`, /final character/);
  bad(`${head}rules:\n- level: Metadata\n  omitStages: ["Later"]`, /unsupported stage/);
  bad(`apiVersion: v1\nkind: Policy\nrules:\n- level: Metadata`, /apiVersion must be/);
  bad(`${head}rules: {`, /not YAML/);
});
