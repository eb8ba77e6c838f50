/**
 * ABAC: the policy file format (v1beta1 and unversioned v0 lines, comments,
 * blank lines, errors with the line number) and the original's matching
 * rules as a table; then a real server started with --authorization-mode=ABAC
 * that allows what the file says and refuses to start on a bad file.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { AbacAuthorizer, ABAC_API_VERSION, parsePolicyFile, PolicyFileError } from '../../src/authz/abac/index.ts';
import type { AuthorizationAttributes } from '../../src/authz/types.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { attrs } from './support.ts';

const line = (spec: Record<string, unknown>): string => JSON.stringify({ apiVersion: ABAC_API_VERSION, kind: 'Policy', spec });

const FILE = [
  '# comment lines and blank lines are skipped',
  '',
  line({ user: 'alice', namespace: '*', resource: '*', apiGroup: '*' }),
  line({ user: 'bob', namespace: 'projectCaribou', resource: 'pods', apiGroup: '', readonly: true }),
  line({ group: 'devs', namespace: 'dev', resource: '*', apiGroup: 'apps' }),
  line({ user: '*', nonResourcePath: '/version', readonly: true }),
  line({ group: 'system:unauthenticated', nonResourcePath: '/healthz', readonly: true }),
  line({ user: 'carol', nonResourcePath: '/logs/*' }),
  '{"user":"legacy","readonly":true}',
].join('\n');

const user = (name: string, ...groups: string[]) => ({ name, groups: [...groups, 'system:authenticated'] });
const res = (u: ReturnType<typeof user>, verb: string, namespace: string, resource: string, apiGroup = ''): AuthorizationAttributes =>
  attrs({ user: u, verb, namespace, resource, apiGroup });
const path_ = (u: { name: string; groups: string[] }, verb: string, p: string): AuthorizationAttributes =>
  attrs({ user: u, verb, isResourceRequest: false, path: p, namespace: '', resource: '', apiGroup: '' });

describe('ABAC policy file', () => {
  it('reads versioned and unversioned lines, skipping comments and blanks', () => {
    const parsed = parsePolicyFile(FILE, 'policy.jsonl');
    assert.equal(parsed.policies.length, 7);
    assert.equal(parsed.unversionedLines, 1);
    // v0 defaults: authenticated users, every namespace, resource, group and path.
    assert.deepEqual(parsed.policies[6], { user: 'legacy', group: '', readonly: true, apiGroup: '*', resource: '*', namespace: '*', nonResourcePath: '*' });
    // v1beta1: `*` user means every authenticated subject.
    assert.deepEqual(parsed.policies[3], { user: '', group: 'system:authenticated', readonly: true, apiGroup: '', resource: '', namespace: '', nonResourcePath: '/version' });
  });

  it('refuses a bad line naming the file and the line', () => {
    const bad = [line({ user: 'a' }), '', '{"user": "x",', line({ user: 'b' })].join('\n');
    assert.throws(() => parsePolicyFile(bad, '/etc/p.jsonl'), (err: unknown) => err instanceof PolicyFileError && /^error reading policy file \/etc\/p\.jsonl, line 3: \{"user": "x",: /.test(err.message));
    assert.throws(() => parsePolicyFile('[1,2]', 'p'), /line 1: \[1,2\]: a policy must be a JSON object/);
    assert.throws(() => parsePolicyFile(line({ user: 'a', readonly: 'yes' }), 'p'), /line 1: .*spec\.readonly: expected a boolean/);
    assert.throws(() => parsePolicyFile(line({ user: 7 }), 'p'), /spec\.user: expected a string/);
  });

  it('decides as the original matching rules say', () => {
    const abac = new AbacAuthorizer(parsePolicyFile(FILE, 'p').policies);
    const alice = user('alice');
    const bob = user('bob');
    const dev = user('dan', 'devs');
    const carol = user('carol');
    const legacy = user('legacy');
    const anon = { name: 'system:anonymous', groups: ['system:unauthenticated'] };
    const cases: Array<[string, AuthorizationAttributes, 'allow' | 'noOpinion']> = [
      ['alice anything', res(alice, 'delete', 'x', 'secrets', 'apps'), 'allow'],
      ['bob reads pods in projectCaribou', res(bob, 'list', 'projectCaribou', 'pods'), 'allow'],
      ['bob is read-only', res(bob, 'create', 'projectCaribou', 'pods'), 'noOpinion'],
      ['bob only in his namespace', res(bob, 'get', 'other', 'pods'), 'noOpinion'],
      ['bob only pods', res(bob, 'get', 'projectCaribou', 'secrets'), 'noOpinion'],
      ['bob only the core group', res(bob, 'get', 'projectCaribou', 'pods', 'apps'), 'noOpinion'],
      ['devs group writes apps in dev', res(dev, 'update', 'dev', 'deployments', 'apps'), 'allow'],
      ['devs group: not core', res(dev, 'update', 'dev', 'pods'), 'noOpinion'],
      ['any authenticated user reads /version', path_(dev, 'get', '/version'), 'allow'],
      ['but may not post it', path_(dev, 'post', '/version'), 'noOpinion'],
      ['anonymous is not "*"', path_(anon, 'get', '/version'), 'noOpinion'],
      ['anonymous by its group', path_(anon, 'get', '/healthz'), 'allow'],
      ['trailing * is a prefix', path_(carol, 'post', '/logs/a/b'), 'allow'],
      ['prefix without the *', path_(carol, 'get', '/logs'), 'noOpinion'],
      ['a path policy never matches a resource', res(carol, 'get', 'x', 'logs'), 'noOpinion'],
      ['v0 line: every resource, read-only', res(legacy, 'get', 'kube-x', 'anything', 'any.group'), 'allow'],
      ['v0 line: and every path', path_(legacy, 'get', '/metrics'), 'allow'],
      ['v0 line: read-only', res(legacy, 'delete', 'x', 'pods'), 'noOpinion'],
      ['nobody else', res(user('eve'), 'get', 'x', 'pods'), 'noOpinion'],
    ];
    for (const [what, a, want] of cases) assert.equal(abac.authorize(a).decision, want, what);
    assert.equal(abac.authorize(res(user('eve'), 'get', 'x', 'pods')).reason, 'No policy matched.');
  });

  it('lists the rules of a user in a namespace, complete', () => {
    const abac = new AbacAuthorizer(parsePolicyFile(FILE, 'p').policies);
    const rules = abac.rulesFor(user('bob'), 'projectCaribou');
    assert.equal(rules.incomplete, false);
    assert.deepEqual(rules.resourceRules, [{ verbs: ['get', 'list', 'watch'], apiGroups: [''], resources: ['pods'], resourceNames: [] }]);
    // As the original: a policy is listed only when its namespace matches, so path policies
    // (namespace unset) are not listed; the v0 line (namespace `*`) lists both kinds.
    assert.deepEqual(rules.nonResourceRules, []);
    assert.deepEqual(abac.rulesFor(user('legacy'), 'x').nonResourceRules, [{ verbs: ['get', 'list', 'watch'], nonResourceURLs: ['*'] }]);
    assert.deepEqual(abac.rulesFor(user('bob'), 'other').resourceRules, []);
  });
});

describe('ABAC on a server', () => {
  let ts: TestServer;
  let dir: string;
  before(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'authz-abac-'));
    await fs.writeFile(path.join(dir, 'tokens.csv'), 'bob-token-0123456789,bob,uid-bob,"devs"\n', { mode: 0o600 });
    await fs.writeFile(path.join(dir, 'policy.jsonl'), line({ user: 'bob', namespace: 'default', resource: 'configmaps', apiGroup: '', readonly: true }) + '\n', { mode: 0o600 });
    ts = await startTestServer(['--authorization-mode=ABAC', `--authorization-policy-file=${path.join(dir, 'policy.jsonl')}`, `--token-auth-file=${path.join(dir, 'tokens.csv')}`]);
  });
  after(async () => {
    await ts?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('allows what the file says and nothing more', async () => {
    const as = { token: 'bob-token-0123456789' };
    assert.equal((await ts.request('GET', '/api/v1/namespaces/default/configmaps', undefined, { as })).status, 200);
    const denied = await ts.request('GET', '/api/v1/namespaces/default/secrets', undefined, { as });
    assert.equal(denied.status, 403);
    assert.match(String(denied.json()['message']), /User "bob" cannot list resource "secrets" in API group "" in the namespace "default": No policy matched\.$/);
    assert.equal((await ts.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }, { as })).status, 403);
  });

  it('refuses to start on a bad policy file, or without one', async () => {
    const bad = path.join(dir, 'bad.jsonl');
    await fs.writeFile(bad, `${line({ user: 'a' })}\nnot json\n`);
    await assert.rejects(startTestServer(['--authorization-mode=ABAC', `--authorization-policy-file=${bad}`]), /error reading policy file .*bad\.jsonl, line 2: not json: /);
    await assert.rejects(startTestServer(['--authorization-mode=ABAC']), /authorization-mode ABAC's authorization policy file not passed/);
    await assert.rejects(startTestServer([`--authorization-policy-file=${bad}`]), /cannot specify --authorization-policy-file without mode ABAC/);
  });
});
