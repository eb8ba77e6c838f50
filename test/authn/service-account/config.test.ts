/**
 * The service-account flags: parsing and checks, and how they resolve into
 * keys, issuers and audiences (data-dir fallback for a quick start, the TLS
 * key fallback of the original, ECDSA key files).
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, createPublicKey } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs, OptionsError } from '../../../src/server/options.ts';
import { resolveServiceAccountConfig } from '../../../src/authn/service-account/config.ts';
import { keyId } from '../../../src/authn/service-account/keys.ts';
import { buildIssuerDiscovery } from '../../../src/authn/service-account/discovery.ts';
import { names } from '../../../src/naming/index.ts';

describe('service-account flags', () => {
  it('have the original defaults', () => {
    const o = parseArgs([]);
    assert.deepEqual(o.serviceAccountIssuers, []);
    assert.equal(o.serviceAccountExtendTokenExpiration, true);
    assert.equal(o.serviceAccountLookup, true);
    assert.equal(o.serviceAccountMaxTokenExpirationSeconds, 0);
    assert.deepEqual(o.apiAudiences, []);
    assert.equal(o.serviceAccountJwksUri, undefined);
  });

  it('parse: repeatable issuers in order, audiences, booleans, durations', () => {
    const o = parseArgs([
      '--service-account-issuer=https://a.example',
      '--service-account-issuer', 'https://b.example',
      '--service-account-issuer=https://a.example',
      '--api-audiences=x,y',
      '--service-account-lookup=false',
      '--service-account-extend-token-expiration=false',
      '--service-account-max-token-expiration=48h',
      '--service-account-jwks-uri=https://keys.example/jwks',
    ]);
    assert.deepEqual(o.serviceAccountIssuers, ['https://a.example', 'https://b.example']);
    assert.deepEqual(o.apiAudiences, ['x', 'y']);
    assert.equal(o.serviceAccountLookup, false);
    assert.equal(o.serviceAccountExtendTokenExpiration, false);
    assert.equal(o.serviceAccountMaxTokenExpirationSeconds, 48 * 3600);
    assert.equal(o.serviceAccountJwksUri, 'https://keys.example/jwks');
  });

  it('reject bad values with the flag in the message', () => {
    assert.throws(() => parseArgs(['--service-account-max-token-expiration=30m']), (e: unknown) => e instanceof OptionsError && /between 1 hour and 2\^32 seconds/.test(e.message));
    assert.throws(() => parseArgs(['--service-account-issuer=']), OptionsError);
    assert.throws(() => parseArgs(['--service-account-issuer=http://[bad']), /contains a ':' but is not a URL/);
    assert.throws(() => parseArgs(['--service-account-jwks-uri=http://plain.example/jwks']), /must be an https URL/);
    assert.throws(() => parseArgs(['--service-account-lookup=maybe']), /service-account-lookup/);
  });
});

describe('resolving the service-account configuration', () => {
  let dir: string;
  const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const dataDir = {
    saPrivateKey: rsa.privateKey,
    saPublicKeys: [rsa.publicKey],
    saPrivateKeyPath: '/data/sa.key',
    saPublicKeyPath: '/data/sa.pub',
  };
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'sa-config-'));
    await writeFile(path.join(dir, 'ec.key'), ec.privateKey.export({ type: 'sec1', format: 'pem' }), { mode: 0o600 });
    await writeFile(path.join(dir, 'ec.pub'), ec.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(path.join(dir, 'rsa.pub'), rsa.publicKey.export({ type: 'spki', format: 'pem' }));
    await writeFile(path.join(dir, 'junk.pem'), 'not a key', { mode: 0o600 });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a quick start signs with the data dir key, verifies with sa.pub, under the flavor issuer and audience', async () => {
    const c = await resolveServiceAccountConfig(parseArgs([]), dataDir);
    assert.deepEqual(c.issuers, [names.serviceAccountTokens.defaultIssuer]);
    assert.deepEqual(c.apiAudiences, [names.serviceAccountTokens.defaultIssuer]);
    assert.equal(c.signingKey.alg, 'RS256');
    assert.deepEqual(c.verificationKeys.map((k) => k.kid), [keyId(rsa.publicKey)]);
    assert.deepEqual(c.warnings, []);
    assert.deepEqual(c.keySources, { signing: '/data/sa.key', verification: ['/data/sa.pub'] });
  });

  it('key files: an ECDSA signing key with every verification key given', async () => {
    const o = parseArgs([`--service-account-signing-key-file=${dir}/ec.key`, `--service-account-key-file=${dir}/ec.pub`, `--service-account-key-file=${dir}/rsa.pub`, '--service-account-issuer=https://i.example', '--api-audiences=api']);
    const c = await resolveServiceAccountConfig(o, dataDir);
    assert.equal(c.signingKey.alg, 'ES256');
    assert.equal(c.signingKey.kid, keyId(createPublicKey(ec.privateKey)));
    assert.deepEqual(c.verificationKeys.map((k) => k.alg), ['ES256', 'RS256']);
    assert.deepEqual(c.apiAudiences, ['api']);
  });

  it('a signing key file needs key files, or the TLS key the original falls back to', async () => {
    await assert.rejects(resolveServiceAccountConfig(parseArgs([`--service-account-signing-key-file=${dir}/ec.key`]), dataDir), /--service-account-key-file is required/);
    const o = parseArgs([`--service-account-signing-key-file=${dir}/ec.key`]);
    o.tlsPrivateKeyFile = `${dir}/ec.key`;
    const c = await resolveServiceAccountConfig(o, dataDir);
    assert.deepEqual(c.verificationKeys.map((k) => k.kid), [keyId(createPublicKey(ec.privateKey))]);
  });

  it('warns when the signing key cannot verify here, and refuses a key file without keys', async () => {
    const c = await resolveServiceAccountConfig(parseArgs([`--service-account-key-file=${dir}/ec.pub`]), dataDir);
    assert.match(c.warnings.join(), /signing key is not among the verification keys/);
    await assert.rejects(resolveServiceAccountConfig(parseArgs([`--service-account-key-file=${dir}/junk.pem`]), dataDir), /junk.pem: data does not contain any valid RSA or ECDSA public keys/);
  });

  it('issuer discovery is served only for an https issuer', async () => {
    const keys = (await resolveServiceAccountConfig(parseArgs([]), dataDir)).verificationKeys;
    const notUrl = await buildIssuerDiscovery({ issuer: 'api', jwksUri: undefined, externalAddress: '127.0.0.1:6443', keys });
    assert.equal(notUrl.served, false);
    const plain = await buildIssuerDiscovery({ issuer: 'http://x.example', jwksUri: undefined, externalAddress: '127.0.0.1:6443', keys });
    assert.deepEqual(plain, { served: false, reason: 'issuer URL must use https scheme, got: http://x.example' });
    const given = await buildIssuerDiscovery({ issuer: 'https://x.example', jwksUri: 'https://keys.example/jwks', externalAddress: '127.0.0.1:6443', keys });
    assert.equal(given.served, true);
    if (given.served) {
      const doc = JSON.parse(Buffer.from(given.documents.get('/.well-known/openid-configuration')!.body).toString()) as { jwks_uri: string };
      assert.equal(doc.jwks_uri, 'https://keys.example/jwks');
    }
  });
});
