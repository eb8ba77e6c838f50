/**
 * Small pure pieces of the chain: Go duration parsing for ?timeout=, the
 * watch timeout choice, 403 texts for edge attributes, and the response
 * tracker the timeout and metrics filters rely on.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DurationError, parseGoDuration } from '../../src/server/filters/go-duration.ts';
import { watchTimeoutMs } from '../../src/server/filters/with-timeout.ts';
import { forbiddenError } from '../../src/server/filters/with-authorization.ts';
import type { AuthorizationAttributes } from '../../src/authz/types.ts';
import { TrackedResponse } from '../../src/server/filters/tracked-response.ts';
import { FakeResponse } from './fake-http.ts';

describe('parseGoDuration', () => {
  const good: [string, number][] = [
    ['0', 0],
    ['5s', 5000],
    ['300ms', 300],
    ['1.5h', 5_400_000],
    ['2m30s', 150_000],
    ['-1s', -1000],
    ['+.5s', 500],
    ['1500us', 1.5],
    ['1µs', 0.001],
  ];
  for (const [text, ms] of good) {
    it(`${text} = ${ms} ms`, () => assert.ok(Math.abs(parseGoDuration(text) - ms) < 1e-9));
  }
  const bad: [string, string][] = [
    ['', 'time: invalid duration ""'],
    ['soon', 'time: invalid duration "soon"'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['.s', 'time: invalid duration ".s"'],
  ];
  for (const [text, message] of bad) {
    it(`rejects ${JSON.stringify(text)}`, () => assert.throws(() => parseGoDuration(text), (e: unknown) => e instanceof DurationError && e.message === message));
  }
});

describe('watchTimeoutMs', () => {
  it('prefers timeoutSeconds, else picks between one and two times the minimum', () => {
    assert.equal(watchTimeoutMs(new URLSearchParams('timeoutSeconds=30'), 1800, () => 0.5), 30_000);
    assert.equal(watchTimeoutMs(new URLSearchParams(''), 1800, () => 0), 1_800_000);
    assert.equal(watchTimeoutMs(new URLSearchParams('timeoutSeconds=0'), 1800, () => 0.5), 2_700_000);
    assert.equal(Math.round(watchTimeoutMs(new URLSearchParams('timeoutSeconds=abc'), 10, () => 0.999)!), 19_990);
    assert.equal(watchTimeoutMs(new URLSearchParams(''), 0), undefined);
  });
});

describe('forbiddenError', () => {
  const bob = { name: 'bob', groups: [] };
  const attrs = (over: Partial<AuthorizationAttributes>): AuthorizationAttributes => ({
    user: bob,
    verb: 'get',
    isResourceRequest: true,
    path: '/',
    namespace: '',
    apiGroup: '',
    apiVersion: 'v1',
    resource: 'nodes',
    subresource: '',
    name: '',
    ...over,
  });

  it('prints cluster-scoped collections and names', () => {
    assert.equal(forbiddenError(attrs({ verb: 'list' }), '').message, 'nodes is forbidden: User "bob" cannot list resource "nodes" in API group "" at the cluster scope');
    const named = forbiddenError(attrs({ name: 'n1', apiGroup: 'apps', resource: 'deployments', namespace: 'ns', subresource: 'scale', verb: 'update' }), '');
    assert.equal(named.message, 'deployments.apps "n1" is forbidden: User "bob" cannot update resource "deployments/scale" in API group "apps" in the namespace "ns"');
    assert.equal(named.code, 403);
    assert.deepEqual(named.details, { name: 'n1', group: 'apps', kind: 'deployments' });
  });

  it('prints "forbidden:" alone when there is no group or resource', () => {
    assert.equal(forbiddenError(attrs({ isResourceRequest: false, path: '/version', verb: 'get', resource: '' }), '').message, 'forbidden: User "bob" cannot get path "/version"');
  });
});

describe('TrackedResponse', () => {
  it('records an implicit 200, drops handler writes after takeOver, and reports finishing once', () => {
    const inner = new FakeResponse();
    const tracked = new TrackedResponse(inner);
    const statuses: number[] = [];
    tracked.onHeadWritten((s) => statuses.push(s));
    tracked.write(new TextEncoder().encode('a'));
    assert.equal(tracked.status, 200);
    assert.deepEqual(statuses, [200]);

    let finished = 0;
    tracked.onFinished(() => finished++);
    const out = tracked.takeOver();
    assert.equal(tracked.closed, true, 'the handler sees a closed response');
    tracked.write(new TextEncoder().encode('dropped'));
    tracked.end('dropped too');
    assert.equal(inner.text, 'a');
    out.end('b');
    assert.equal(inner.text, 'ab');
    assert.equal(finished, 1);
    tracked.onFinished(() => finished++);
    assert.equal(finished, 2, 'a late listener runs at once');
  });

  it('finishes when the client goes away', () => {
    const inner = new FakeResponse();
    const tracked = new TrackedResponse(inner);
    let closed = false;
    tracked.onClose(() => (closed = true));
    inner.disconnect();
    assert.equal(tracked.finished, true);
    assert.equal(closed, true);
  });
});
