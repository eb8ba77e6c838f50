/**
 * A real OpenID Connect identity provider on loopback for the OIDC tests:
 * HTTPS (node:https, a throwaway CA), discovery at
 * `/.well-known/openid-configuration`, a JWKS document, and ID tokens
 * signed with jose. It counts the requests it serves, can rotate its
 * signing key, and can stop and start again on the same port.
 */
import https from 'node:https';
import type net from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { freePort } from '../../support/test-server.ts';
import { createTestTls, type TestTls } from './tls.ts';

export interface SigningKey {
  readonly kid: string;
  readonly alg: string;
  readonly privateKey: CryptoKey;
  readonly jwk: JWK;
}

export interface SignOptions {
  /** Sign with this key (default: the current one). */
  readonly key?: SigningKey;
  /** Put this kid in the header instead of the key's (undefined: the key's; null: none). */
  readonly kid?: string | null;
}

export interface TestIdp {
  readonly issuer: string;
  readonly port: number;
  readonly tls: TestTls;
  readonly hits: { discovery: number; jwks: number };
  /** The key tokens are signed with now. */
  current: SigningKey;
  /** Makes a key without publishing it. */
  newKey(alg?: string): Promise<SigningKey>;
  /** Publishes a new key and signs with it from now on (the old one stays published). */
  rotate(): Promise<SigningKey>;
  /** Stops publishing a key. */
  withdraw(key: SigningKey): void;
  /** A signed token: iss, aud and a 10-minute exp by default, overridden or removed (undefined) by `claims`. */
  sign(claims?: Record<string, unknown>, options?: SignOptions): Promise<string>;
  listen(): Promise<void>;
  /** Stops serving (and drops open connections): the provider is down. */
  down(): Promise<void>;
  close(): Promise<void>;
}

let kidCounter = 0;

export async function createTestIdp(options: { clientId: string; listen?: boolean }): Promise<TestIdp> {
  const tls = await createTestTls('idp');
  const port = await freePort();
  const issuer = `https://127.0.0.1:${port}`;
  const published: SigningKey[] = [];
  const hits = { discovery: 0, jwks: 0 };
  const sockets = new Set<net.Socket>();
  const newKey = async (alg = 'RS256'): Promise<SigningKey> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${++kidCounter}`;
    return { kid, alg, privateKey, jwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' } };
  };
  const server = https.createServer({ cert: tls.serving.certPem, key: tls.serving.keyPem }, (req, res) => {
    const send = (body: unknown): void => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.url === '/.well-known/openid-configuration') {
      hits.discovery++;
      send({ issuer, jwks_uri: `${issuer}/keys`, id_token_signing_alg_values_supported: ['RS256'], response_types_supported: ['id_token'], subject_types_supported: ['public'] });
    } else if (req.url === '/keys') {
      hits.jwks++;
      send({ keys: published.map((k) => k.jwk) });
    } else {
      res.writeHead(404).end();
    }
  });
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  const first = await newKey();
  published.push(first);
  const idp: TestIdp = {
    issuer,
    port,
    tls,
    hits,
    current: first,
    newKey,
    rotate: async () => {
      const k = await newKey();
      published.push(k);
      idp.current = k;
      return k;
    },
    withdraw: (key) => {
      const i = published.indexOf(key);
      if (i >= 0) published.splice(i, 1);
    },
    sign: async (claims = {}, o = {}) => {
      const key = o.key ?? idp.current;
      const now = Math.floor(Date.now() / 1000);
      const payload: Record<string, unknown> = { iss: issuer, aud: options.clientId, sub: 'alice', iat: now, exp: now + 600, ...claims };
      for (const [k, v] of Object.entries(payload)) if (v === undefined) delete payload[k];
      const kid = o.kid === undefined ? key.kid : o.kid;
      return new SignJWT(payload as JWTPayload).setProtectedHeader({ alg: key.alg, typ: 'JWT', ...(kid === null ? {} : { kid }) }).sign(key.privateKey);
    },
    listen: () =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, '127.0.0.1', () => {
          server.off('error', reject);
          resolve();
        });
      }),
    down: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
    close: async () => {
      if (server.listening) await idp.down();
      await tls.remove();
    },
  };
  if (options.listen !== false) await idp.listen();
  return idp;
}
