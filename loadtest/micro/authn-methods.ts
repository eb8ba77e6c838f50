/**
 * Micro-benchmark: the cost of one authentication decision per method, in
 * process, with warm caches (the steady state of a client that keeps sending
 * the same credential), plus the impersonation filter's header parsing.
 *
 *   node --import tsx loadtest/micro/authn-methods.ts
 *
 * Async methods are awaited one at a time, so the figures include a promise
 * turn; the bootstrap lookup on a cache miss (a watch-cache read, one thread
 * hop) is not measured here: it happens once per token and change.
 */
import { BearerTokenAuthenticator } from '../../src/authn/bearer.ts';
import { StaticTokenAuthenticator } from '../../src/authn/token-file.ts';
import { BootstrapTokenAuthenticator } from '../../src/authn/bootstrap-token.ts';
import { RequestHeaderAuthenticator } from '../../src/authn/request-header.ts';
import { impersonationItems } from '../../src/server/filters/with-impersonation.ts';
import type { AuthnResource, ObjectChange, ObjectSource } from '../../src/authn/object-source.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { ApiRequest } from '../../src/server/http.ts';
import { names } from '../../src/naming/index.ts';
import { EKU, issue } from '../../test/authn/support/pki.ts';

async function microsPerCall(fn: () => unknown, n: number): Promise<number> {
  for (let i = 0; i < 2000; i++) await fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

function request(headers: Record<string, string>, chain?: readonly Uint8Array[]): ApiRequest {
  const map = new Map(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), [v]]));
  return {
    method: 'GET', path: '/api/v1/pods', rawQuery: '', query: new URLSearchParams(),
    header: (n) => map.get(n.toLowerCase())?.join(', '),
    headerValues: (n) => [...(map.get(n.toLowerCase()) ?? [])],
    headerNames: () => [...map.keys()],
    remoteAddress: '127.0.0.1', protocol: 'h2', frontend: 'node', peerCertificates: chain,
    body: () => Promise.reject(new Error('unused')), signal: new AbortController().signal,
  };
}

const secret: KObject = {
  apiVersion: 'v1', kind: 'Secret', metadata: { name: 'bootstrap-token-abcdef', namespace: names.systemNamespace },
  type: names.secretTypes.bootstrapToken,
  data: Object.fromEntries(Object.entries({ 'token-id': 'abcdef', 'token-secret': '0123456789abcdef', 'usage-bootstrap-authentication': 'true' }).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
};
const objects: ObjectSource = {
  get: async (_r: AuthnResource, ns: string, name: string) => (ns === names.systemNamespace && name === 'bootstrap-token-abcdef' ? secret : null),
  onChange: (_r: AuthnResource, _l: (c: ObjectChange) => void) => () => undefined,
  close: () => undefined,
};

const staticToken = 'Kt_mYaIKFo5ZKob0mdSen0Z7UJl2pBqFYp2pl3uJ-Cc';
const files = new StaticTokenAuthenticator([{ token: staticToken, user: { name: 'admin', groups: ['system:masters'] } }]);
const bootstrap = new BootstrapTokenAuthenticator({ objects });
const bearer = new BearerTokenAuthenticator([files, bootstrap]);
const ca = await issue({ subject: 'CN=front-proxy-ca', ca: true });
const proxy = await issue({ subject: 'CN=front-proxy', issuer: ca, eku: [EKU.clientAuth] });
const rh = new RequestHeaderAuthenticator({ usernameHeaders: ['X-Remote-User'], groupHeaders: ['X-Remote-Group'], extraHeaderPrefixes: ['X-Remote-Extra-'], allowedNames: ['front-proxy'], clientCA: [ca.der] });

const staticReq = request({ authorization: `Bearer ${staticToken}` });
const bootReq = request({ authorization: 'Bearer abcdef.0123456789abcdef' });
const proxyReq = request({ 'X-Remote-User': 'alice', 'X-Remote-Group': 'dev', 'X-Remote-Extra-Scopes': 'view' }, [proxy.der]);
const impReq = request({ 'Impersonate-User': 'jane', 'Impersonate-Group': 'devs', 'Impersonate-Extra-Scopes': 'view' });

const N = 50_000;
console.log(`authentication, warm caches, µs per decision (${N} calls each):`);
console.log(`  static token (bearer union)      ${(await microsPerCall(() => bearer.authenticate(staticReq), N)).toFixed(2)}`);
console.log(`  bootstrap token (bearer union)   ${(await microsPerCall(() => bearer.authenticate(bootReq), N)).toFixed(2)}`);
console.log(`  request header (proxy cert)      ${(await microsPerCall(() => rh.authenticate(proxyReq), N)).toFixed(2)}`);
console.log(`  impersonation headers parsed     ${(await microsPerCall(() => impersonationItems(impReq), N)).toFixed(2)}`);
bootstrap.close();
