/**
 * The authenticating proxy's authenticator with real certificates: headers
 * count only behind a chain that verifies against the request-header CA with
 * an allowed common name; user, groups and extras are read as the original
 * reads them. End to end over TLS: test/e2e/authn-proxy.test.ts.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RequestHeaderAuthenticator, requestHeaderNamesFilter, unescapeExtraKey, type RequestHeaderConfig } from '../../src/authn/request-header.ts';
import type { ApiRequest } from '../../src/server/http.ts';
import { withoutHeaders } from '../../src/server/masked-request.ts';
import { EKU, issue, type Issued } from './support/pki.ts';

const CONFIG: RequestHeaderConfig = {
  usernameHeaders: ['X-Remote-User', 'X-Other-User'],
  groupHeaders: ['X-Remote-Group'],
  extraHeaderPrefixes: ['X-Remote-Extra-', 'X-Second-Extra-'],
  allowedNames: ['front-proxy'],
};

/** A request with repeatable headers and a peer chain. */
function request(headers: Array<[string, string]>, chain?: readonly Uint8Array[]): ApiRequest {
  const map = new Map<string, string[]>();
  for (const [k, v] of headers) {
    const key = k.toLowerCase();
    map.set(key, [...(map.get(key) ?? []), v]);
  }
  return {
    method: 'GET',
    path: '/api/v1/pods',
    rawQuery: '',
    query: new URLSearchParams(),
    header: (n) => map.get(n.toLowerCase())?.join(', '),
    headerValues: (n) => [...(map.get(n.toLowerCase()) ?? [])],
    headerNames: () => [...map.keys()],
    remoteAddress: '127.0.0.1',
    protocol: 'h2',
    frontend: 'node',
    peerCertificates: chain,
    body: () => Promise.reject(new Error('not read')),
    signal: new AbortController().signal,
  };
}

let proxyCA: Issued;
let proxy: Issued;
let otherCN: Issued;
let noCN: Issued;
let clientCA: Issued;
let client: Issued;

before(async () => {
  proxyCA = await issue({ subject: 'CN=front-proxy-ca', ca: true });
  proxy = await issue({ subject: 'CN=front-proxy', issuer: proxyCA, eku: [EKU.clientAuth] });
  otherCN = await issue({ subject: 'CN=someone-else', issuer: proxyCA, eku: [EKU.clientAuth] });
  noCN = await issue({ subject: 'O=nobody', issuer: proxyCA, eku: [EKU.clientAuth] });
  clientCA = await issue({ subject: 'CN=client-ca', ca: true });
  client = await issue({ subject: 'CN=front-proxy', issuer: clientCA, eku: [EKU.clientAuth] });
});

const auth = (config: Partial<RequestHeaderConfig> = {}) => new RequestHeaderAuthenticator({ ...CONFIG, ...config, clientCA: [proxyCA.der] });

describe('request header authenticator', () => {
  it('reads user, groups and extras behind the right certificate', () => {
    const r = auth().authenticate(
      request(
        [
          ['X-Remote-User', 'alice'],
          ['X-Remote-User', 'mallory'],
          ['X-Remote-Group', 'dev'],
          ['X-Remote-Group', ''],
          ['X-Remote-Group', 'ops'],
          ['X-Remote-Extra-Scopes', 'view'],
          ['X-Remote-Extra-Scopes', 'edit'],
          ['X-Remote-Extra-Example.com%2FTeam', 'blue'],
          ['X-Second-Extra-Scopes', 'second'],
          ['X-Remote-Extra-Bad%zz', 'kept'],
        ],
        [proxy.der],
      ),
    );
    assert.ok(r.kind === 'user', JSON.stringify(r));
    assert.equal(r.method, 'requestheader');
    // First value of the first username header; empty group values dropped; extra keys lower-cased and decoded.
    assert.deepEqual(r.user, {
      name: 'alice',
      groups: ['dev', 'ops'],
      extra: { scopes: ['view', 'edit', 'second'], 'example.com/team': ['blue'], 'bad%zz': ['kept'] },
    });
  });

  it('falls back to the next username header with a value', () => {
    const r = auth().authenticate(request([['X-Remote-User', ''], ['X-Other-User', 'bob']], [proxy.der]));
    assert.ok(r.kind === 'user');
    assert.equal(r.user.name, 'bob');
    assert.deepEqual(r.user.groups, []);
    assert.equal(r.user.extra, undefined);
  });

  it('has no opinion without a certificate (the uWS listener never has one), whatever the headers say', () => {
    assert.deepEqual(auth().authenticate(request([['X-Remote-User', 'root'], ['X-Remote-Group', 'system:masters']])), { kind: 'none' });
  });

  it('has no opinion behind a good certificate without a user header', () => {
    assert.deepEqual(auth().authenticate(request([['X-Remote-Group', 'system:masters']], [proxy.der])), { kind: 'none' });
  });

  it('rejects a certificate from another CA, and one whose CN is not allowed', () => {
    const foreign = auth().authenticate(request([['X-Remote-User', 'root']], [client.der]));
    assert.equal(foreign.kind, 'invalid');
    const wrongCN = auth().authenticate(request([['X-Remote-User', 'root']], [otherCN.der]));
    assert.ok(wrongCN.kind === 'invalid');
    assert.equal(wrongCN.message, 'x509: subject with cn=someone-else is not in the allowed list');
  });

  it('with no allowed names any CN (even none) of the CA is accepted', () => {
    const any = auth({ allowedNames: [] });
    assert.equal(any.authenticate(request([['X-Remote-User', 'u']], [otherCN.der])).kind, 'user');
    assert.equal(any.authenticate(request([['X-Remote-User', 'u']], [noCN.der])).kind, 'user');
    assert.equal(auth().authenticate(request([['X-Remote-User', 'u']], [noCN.der])).kind, 'invalid');
  });

  it('needs at least one username header', () => {
    assert.throws(() => auth({ usernameHeaders: [] }), /username-headers/);
  });

  it('names the headers to strip, case-insensitively, and the masked request hides them', () => {
    const strip = requestHeaderNamesFilter(CONFIG);
    for (const h of ['x-remote-user', 'x-other-user', 'x-remote-group', 'x-remote-extra-anything', 'x-second-extra-']) assert.ok(strip(h), h);
    for (const h of ['authorization', 'x-remote-userx', 'x-remote-groups', 'user-agent']) assert.ok(!strip(h), h);
    const req = request([['X-Remote-User', 'root'], ['X-Remote-Extra-A', '1'], ['Accept', 'application/json']]);
    const masked = withoutHeaders(req, strip);
    assert.deepEqual(masked.headerNames(), ['accept']);
    assert.equal(masked.header('X-Remote-User'), undefined);
    assert.deepEqual(masked.headerValues('x-remote-extra-a'), []);
    assert.equal(masked.header('accept'), 'application/json');
    // Nothing to hide: the request itself.
    const plain = request([['Accept', 'x']]);
    assert.equal(withoutHeaders(plain, strip), plain);
  });

  it('unescapes extra keys as Go PathUnescape does, keeping malformed ones', () => {
    assert.equal(unescapeExtraKey('example.com%2fteam'), 'example.com/team');
    assert.equal(unescapeExtraKey('caf%c3%a9'), 'café');
    assert.equal(unescapeExtraKey('100%'), '100%');
    assert.equal(unescapeExtraKey('%zz'), '%zz');
    assert.equal(unescapeExtraKey('%ff'), '%ff');
  });
});
