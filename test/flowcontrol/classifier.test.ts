/**
 * The classifier on its own: subjects (user, group, service account, `*`),
 * resource rules (verbs, groups, resources with subresources, cluster
 * scope, namespaces), non-resource rules (exact and `/prefix/*`),
 * matchingPrecedence then name, dangling schemas, and distinguishers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Classifier, flowDistinguisher } from '../../src/flowcontrol/classifier.ts';
import { parseFlowSchema, parsePriorityLevel } from '../../src/flowcontrol/parse.ts';
import { MANDATORY_FS_CATCH_ALL, MANDATORY_FS_EXEMPT } from '../../src/flowcontrol/mandatory.ts';
import type { FlowSchemaConfig, PolicyRule } from '../../src/flowcontrol/types.ts';
import type { RequestInfo, UserInfo } from '../../src/server/context.ts';

function info(p: Partial<RequestInfo>): RequestInfo {
  return { isResourceRequest: true, path: '/', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: '', resource: '', subresource: '', name: '', parts: [], ...p };
}
const user = (name: string, ...groups: string[]): UserInfo => ({ name, groups: [...groups, 'system:authenticated'] });
const everything = { resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] };

function fs(name: string, precedence: number, level: string, rules: PolicyRule[], distinguisher: FlowSchemaConfig['distinguisher'] = 'ByUser'): FlowSchemaConfig {
  return { name, uid: `uid-${name}`, priorityLevel: level, matchingPrecedence: precedence, distinguisher, rules };
}

const levels = new Set(['exempt', 'catch-all', 'pods', 'system', 'web', 'sa']);
const classifier = new Classifier<string>(
  [
    MANDATORY_FS_CATCH_ALL,
    fs('pods-in-ns', 200, 'pods', [{ subjects: [{ kind: 'Group', name: 'tenants' }], resourceRules: [{ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods', 'pods/log'], clusterScope: false, namespaces: ['team-a'] }], nonResourceRules: [] }]),
    fs('nodes', 200, 'system', [{ subjects: [{ kind: 'User', name: '*' }], resourceRules: [{ verbs: ['*'], apiGroups: [''], resources: ['nodes'], clusterScope: true, namespaces: [] }], nonResourceRules: [] }]),
    fs('a-web', 300, 'web', [{ subjects: [{ kind: 'User', name: 'alice' }], resourceRules: [], nonResourceRules: [{ verbs: ['get'], nonResourceURLs: ['/healthz', '/logs/*'] }] }]),
    fs('b-web', 300, 'system', [{ subjects: [{ kind: 'User', name: 'alice' }], resourceRules: [], nonResourceRules: [{ verbs: ['*'], nonResourceURLs: ['*'] }] }]),
    fs('sa-all', 400, 'sa', [{ subjects: [{ kind: 'ServiceAccount', namespace: 'ci', name: '*' }, { kind: 'ServiceAccount', namespace: 'prod', name: 'deployer' }], ...everything }]),
    fs('dangling', 50, 'no-such-level', [{ subjects: [{ kind: 'Group', name: '*' }], ...everything }]),
    MANDATORY_FS_EXEMPT,
  ],
  (s) => (levels.has(s.priorityLevel) ? s.name : undefined),
);
const classify = (i: Partial<RequestInfo>, u: UserInfo): string | undefined => classifier.classify(info(i), u)?.level;

test('system:masters goes to exempt before anything else; the dangling schema is skipped', () => {
  assert.equal(classify({ resource: 'pods', namespace: 'x' }, user('root', 'system:masters')), 'exempt');
  assert.equal(classify({ resource: 'configmaps', namespace: 'x' }, user('nobody')), 'catch-all');
});

test('resource rules: verbs, resources with subresources, namespaces and cluster scope', () => {
  const tenant = user('t', 'tenants');
  assert.equal(classify({ resource: 'pods', namespace: 'team-a', verb: 'list' }, tenant), 'pods-in-ns');
  assert.equal(classify({ resource: 'pods', subresource: 'log', namespace: 'team-a' }, tenant), 'pods-in-ns');
  assert.equal(classify({ resource: 'pods', subresource: 'exec', namespace: 'team-a' }, tenant), 'catch-all');
  assert.equal(classify({ resource: 'pods', namespace: 'team-a', verb: 'delete' }, tenant), 'catch-all');
  assert.equal(classify({ resource: 'pods', namespace: 'team-b' }, tenant), 'catch-all');
  assert.equal(classify({ resource: 'pods', namespace: '' }, tenant), 'catch-all', 'not clusterScope');
  assert.equal(classify({ resource: 'pods', namespace: 'team-a', apiGroup: 'apps' }, tenant), 'catch-all');
  assert.equal(classify({ resource: 'nodes' }, user('anyone')), 'nodes', 'User * and clusterScope');
  assert.equal(classify({ resource: 'nodes', namespace: 'x' }, user('anyone')), 'catch-all', 'namespaced request, no namespaces listed');
});

test('non-resource rules: exact paths, prefixes, verbs; precedence ties go by name', () => {
  const nr = (path: string, verb = 'get'): Partial<RequestInfo> => ({ isResourceRequest: false, path, verb, apiPrefix: '' });
  assert.equal(classify(nr('/healthz'), user('alice')), 'a-web');
  assert.equal(classify(nr('/logs/kube.log'), user('alice')), 'a-web');
  assert.equal(classify(nr('/logs'), user('alice')), 'b-web');
  assert.equal(classify(nr('/healthz', 'post'), user('alice')), 'b-web');
  assert.equal(classify(nr('/healthz'), user('bob')), 'catch-all');
  // Resource requests never match schemas with only non-resource rules.
  assert.equal(classify({ resource: 'configmaps', namespace: 'x' }, user('alice')), 'catch-all');
});

test('service-account subjects: a named one, and every one of a namespace', () => {
  assert.equal(classify({ resource: 'secrets', namespace: 'x' }, user('system:serviceaccount:ci:builder')), 'sa-all');
  assert.equal(classify({ resource: 'secrets', namespace: 'x' }, user('system:serviceaccount:prod:deployer')), 'sa-all');
  assert.equal(classify({ resource: 'secrets', namespace: 'x' }, user('system:serviceaccount:prod:other')), 'catch-all');
  assert.equal(classify({ resource: 'secrets', namespace: 'x' }, user('system:serviceaccount:cix:builder')), 'catch-all');
});

test('distinguishers', () => {
  const i = info({ namespace: 'ns1', resource: 'pods' });
  assert.equal(flowDistinguisher('ByUser', i, user('u')), 'u');
  assert.equal(flowDistinguisher('ByNamespace', i, user('u')), 'ns1');
  assert.equal(flowDistinguisher('', i, user('u')), '');
});

test('parse: v1beta2 objects with the original defaults; unreadable objects are skipped', () => {
  const pl = parsePriorityLevel({ metadata: { name: 'q', uid: 'u1' }, spec: { type: 'Limited', limited: { limitResponse: { type: 'Queue', queuing: {} } } } } as never);
  assert.deepEqual(pl, { name: 'q', uid: 'u1', type: 'Limited', shares: 30, queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } });
  assert.equal(parsePriorityLevel({ metadata: { name: 'r' }, spec: { type: 'Limited', limited: { assuredConcurrencyShares: 7, limitResponse: { type: 'Reject' } } } } as never)?.queuing, null);
  assert.equal(parsePriorityLevel({ metadata: { name: 'e' }, spec: { type: 'Exempt' } } as never)?.type, 'Exempt');
  assert.equal(parsePriorityLevel({ metadata: { name: 'x' }, spec: 'nope' } as never), undefined);
  const f = parseFlowSchema({ metadata: { name: 'f' }, spec: { priorityLevelConfiguration: { name: 'q' }, rules: [{ subjects: [{ kind: 'ServiceAccount', serviceAccount: { namespace: 'n', name: 's' } }, { kind: 'Bogus' }], resourceRules: [{ verbs: ['get'] }] }] } } as never);
  assert.equal(f?.matchingPrecedence, 1000);
  assert.equal(f?.distinguisher, '');
  assert.deepEqual(f?.rules[0]?.subjects, [{ kind: 'ServiceAccount', namespace: 'n', name: 's' }]);
  assert.equal(parseFlowSchema({ metadata: { name: 'g' }, spec: {} } as never), undefined);
});
