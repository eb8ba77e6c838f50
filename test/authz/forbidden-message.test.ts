import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { forbiddenError, forbiddenMessage, forbiddenReasonMessage } from '../../src/authz/forbidden-message.ts';
import { attrs } from './support.ts';

const nonResource = attrs({ isResourceRequest: false, verb: 'get', path: '/foo', namespace: '', resource: '', apiVersion: '' });

describe('403 messages', () => {
  it('names user, verb, resource, group and namespace', () => {
    assert.equal(forbiddenMessage(attrs()), 'User "bob" cannot list resource "pods" in API group "" in the namespace "default"');
  });

  it('says "at the cluster scope" without a namespace, and includes the subresource', () => {
    assert.equal(
      forbiddenMessage(attrs({ namespace: '', verb: 'get', apiGroup: 'certificates.orch.io', resource: 'certificatesigningrequests', subresource: 'approval' })),
      'User "bob" cannot get resource "certificatesigningrequests/approval" in API group "certificates.orch.io" at the cluster scope',
    );
  });

  it('describes non-resource requests by path', () => {
    assert.equal(forbiddenMessage(nonResource), 'User "bob" cannot get path "/foo"');
  });

  it('appends the reason when there is one', () => {
    assert.equal(forbiddenReasonMessage(nonResource, ''), 'User "bob" cannot get path "/foo"');
    assert.equal(forbiddenReasonMessage(nonResource, 'Everything is forbidden.'), 'User "bob" cannot get path "/foo": Everything is forbidden.');
  });

  it('quotes as Go %q does and HTML-escapes the user-derived part only', () => {
    const a = attrs({ user: { name: 'x"<b>&', groups: [] }, isResourceRequest: false, verb: 'get', path: '/a\nb' });
    assert.equal(forbiddenReasonMessage(a, 'r <i>'), 'User "x\\"&lt;b&gt;&amp;" cannot get path "/a\\nb": r <i>');
  });

  it('builds the Status error as the original does', () => {
    const named = forbiddenError(attrs({ verb: 'get', apiGroup: 'apps', resource: 'deployments', subresource: 'scale', name: 'web' }), 'no role');
    assert.equal(named.code, 403);
    assert.equal(named.reason, 'Forbidden');
    assert.equal(
      named.message,
      'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments/scale" in API group "apps" in the namespace "default": no role',
    );
    assert.deepEqual(named.details, { name: 'web', group: 'apps', kind: 'deployments' });

    const list = forbiddenError(attrs(), '');
    assert.equal(list.message, 'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "default"');
    assert.deepEqual(list.details, { kind: 'pods' });

    const path = forbiddenError(nonResource, '');
    assert.equal(path.message, 'forbidden: User "bob" cannot get path "/foo"');
    assert.deepEqual(path.toStatus().details, {});
  });
});
