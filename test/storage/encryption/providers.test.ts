/**
 * Encryption at rest, below the store: the configuration's rules and
 * messages, each provider's layout (aescbc checked against openssl), prefix
 * matching, rotation's stale flag, and the TransformingStore over a real
 * embedded store whose files never hold the plain bytes.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseEncryptionConfig, EncryptionConfigError } from '../../../src/storage/encryption/config.ts';
import { compileEncryption } from '../../../src/storage/encryption/transformers.ts';
import { encryptionPrefixRoot } from '../../../src/storage/encryption/providers.ts';
import { TransformingStore } from '../../../src/storage/encryption/transforming-store.ts';
import { EmbeddedStore } from '../../../src/storage/embedded/index.ts';
import { apiGroup } from '../../../src/naming/index.ts';

const KEY1 = Buffer.alloc(32, 1).toString('base64');
const KEY2 = Buffer.alloc(32, 2).toString('base64');
const GCM = Buffer.alloc(16, 3).toString('base64');
const root = encryptionPrefixRoot();
const header = `apiVersion: ${apiGroup('apiserver.config')}/v1\nkind: EncryptionConfiguration\n`;

function config(body: string): ReturnType<typeof parseEncryptionConfig> {
  return parseEncryptionConfig(header + body, 'enc.yaml');
}

const text = (b: Uint8Array): string => Buffer.from(b).toString('latin1');

describe('EncryptionConfiguration', () => {
  it('reads providers in order with their keys', () => {
    const c = config(`resources:
  - resources: [secrets, configmaps]
    providers:
      - aescbc: {keys: [{name: key1, secret: ${KEY1}}, {name: key2, secret: ${KEY2}}]}
      - identity: {}
  - resources: ["*.apps"]
    providers:
      - kms: {apiVersion: v2, name: vault, endpoint: unix:///tmp/kms.sock, timeout: 2s}
`);
    assert.deepEqual(c.rules[0]!.resources, ['secrets', 'configmaps']);
    assert.deepEqual(c.rules[0]!.providers.map((p) => p.kind), ['aescbc', 'identity']);
    const kms = c.rules[1]!.providers[0]!;
    assert.ok(kms.kind === 'kms' && kms.timeoutMs === 2000 && kms.cachesize === 1000 && kms.apiVersion === 'v2');
  });

  const refusals: Array<[string, string, RegExp]> = [
    ['no resources', 'resources: []', /at least one item/],
    ['no providers', 'resources: [{resources: [secrets], providers: []}]', /at least one provider/],
    ['two kinds in one provider', `resources: [{resources: [secrets], providers: [{identity: {}, aescbc: {keys: [{name: k, secret: ${KEY1}}]}}]}]`, /exactly one of/],
    ['short key', `resources: [{resources: [secrets], providers: [{aescbc: {keys: [{name: k, secret: ${Buffer.alloc(10).toString('base64')}}]}}]}]`, /expected length, got 10/],
    ['secretbox wants 32 bytes', `resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: k, secret: ${GCM}}]}}]}]`, /got 16, expected one of \[32\]/],
    ['not base64', 'resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: k, secret: "not base64!"}]}}]}]', /must be base64 encoded/],
    ['duplicate key names', `resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: k, secret: ${GCM}}, {name: k, secret: ${GCM}}]}}]}]`, /Duplicate value: "k"/],
    ['duplicate resources', 'resources: [{resources: [secrets], providers: [{identity: {}}]}, {resources: [secrets], providers: [{identity: {}}]}]', /Duplicate value: "secrets"/],
    ['upper case resource', 'resources: [{resources: [Secrets], providers: [{identity: {}}]}]', /lower case/],
    ['kms over tcp', 'resources: [{resources: [secrets], providers: [{kms: {name: a, endpoint: "tcp://1.2.3.4:1"}}]}]', /only unix/],
    ['kms bad timeout', 'resources: [{resources: [secrets], providers: [{kms: {name: a, endpoint: "unix:///x", timeout: "-1s"}}]}]', /positive value/],
  ];
  for (const [what, body, message] of refusals) {
    it(`refuses ${what}, naming the file and never the secret`, () => {
      assert.throws(
        () => config(body),
        (err: unknown) => err instanceof EncryptionConfigError && message.test(err.message) && err.message.includes('enc.yaml') && !err.message.includes(KEY1) && !err.message.includes(GCM),
      );
    });
  }
  it('refuses another kind or apiVersion', () => {
    assert.throws(() => parseEncryptionConfig('apiVersion: v1\nkind: ConfigMap\n', 'enc.yaml'), /kind: must be EncryptionConfiguration/);
    assert.throws(() => parseEncryptionConfig('apiVersion: v1\nkind: EncryptionConfiguration\nresources: []\n', 'enc.yaml'), /apiVersion: must be/);
  });
});

describe('transformers', () => {
  const both = config(`resources:
  - resources: [secrets]
    providers:
      - aescbc: {keys: [{name: key1, secret: ${KEY1}}]}
      - aesgcm: {keys: [{name: g, secret: ${GCM}}]}
      - secretbox: {keys: [{name: s, secret: ${KEY2}}]}
      - identity: {}
  - resources: ["*.apps"]
    providers: [{aesgcm: {keys: [{name: g, secret: ${GCM}}]}}]
`);
  const forResource = compileEncryption(both);
  const plain = new TextEncoder().encode('{"data":{"password":"hunter2"}}');

  it('writes with the first provider and its first key, readable back', async () => {
    const sealed = await forResource('secrets').seal(plain, '/secrets/ns/a');
    assert.ok(text(sealed).startsWith(`${root}aescbc:v1:key1:`));
    assert.ok(!text(sealed).includes('hunter2'));
    const opened = await forResource('secrets').open(sealed, '/secrets/ns/a');
    assert.deepEqual(Buffer.from(opened.plain), Buffer.from(plain));
    assert.equal(opened.stale, false);
  });

  it('lays aescbc out as the original: IV then AES-CBC with PKCS#7, which openssl decrypts', async () => {
    const sealed = Buffer.from(await forResource('secrets').seal(plain, '/secrets/ns/a'));
    const body = sealed.subarray(`${root}aescbc:v1:key1:`.length);
    const iv = body.subarray(0, 16).toString('hex');
    const out = execFileSync('openssl', ['enc', '-d', '-aes-256-cbc', '-K', Buffer.alloc(32, 1).toString('hex'), '-iv', iv], { input: body.subarray(16) });
    assert.equal(out.toString(), Buffer.from(plain).toString());
  });

  it('reads every listed provider, marking all but the writing one stale', async () => {
    const olderFirst = compileEncryption(config(`resources:
  - resources: [secrets]
    providers:
      - aesgcm: {keys: [{name: g, secret: ${GCM}}]}
      - secretbox: {keys: [{name: s, secret: ${KEY2}}]}
`));
    for (const writer of [olderFirst, compileEncryption(config(`resources: [{resources: [secrets], providers: [{secretbox: {keys: [{name: s, secret: ${KEY2}}]}}]}]\n`))]) {
      const sealed = await writer('secrets').seal(plain, '/secrets/ns/a');
      const opened = await forResource('secrets').open(sealed, '/secrets/ns/a');
      assert.deepEqual(Buffer.from(opened.plain), Buffer.from(plain));
      assert.equal(opened.stale, true, 'read through a provider that does not write');
    }
    const unencrypted = await forResource('secrets').open(plain, '/secrets/ns/a');
    assert.equal(unencrypted.stale, true, 'plain data read through identity is rewritten sealed');
  });

  it('binds aesgcm data to its storage key', async () => {
    const sealed = await forResource('deployments.apps').seal(plain, '/apps/deployments/ns/a');
    await assert.rejects(forResource('deployments.apps').open(sealed, '/apps/deployments/ns/b'), /authentication failed/);
    assert.equal(Buffer.from((await forResource('deployments.apps').open(sealed, '/apps/deployments/ns/a')).plain).toString(), Buffer.from(plain).toString());
  });

  it('refuses what it cannot read: an unknown prefix, and encrypted bytes through identity', async () => {
    const unknownKey = new TextEncoder().encode(`${root}aescbc:v1:gone:xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx`);
    await assert.rejects(forResource('deployments.apps').open(plain, '/apps/deployments/ns/a'), /no matching prefix/);
    await assert.rejects(forResource('secrets').open(unknownKey, '/secrets/ns/a'), /identity transformer tried to read encrypted data/);
  });

  it('leaves resources no rule names as they are', async () => {
    const t = forResource('configmaps');
    assert.equal(t.writesPlain, true);
    assert.equal(await t.seal(plain, '/configmaps/ns/a'), plain);
    assert.equal(compileEncryption(both)('replicasets.apps').writesPlain, false, '*.apps matches every resource of the group');
  });
});

describe('TransformingStore over the embedded store', () => {
  it('keeps only sealed bytes on disk and plain bytes above it, through every read path', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-enc-'));
    try {
      const forResource = compileEncryption(config(`resources: [{resources: [secrets], providers: [{aesgcm: {keys: [{name: g, secret: ${GCM}}]}}]}]\n`));
      const inner = await EmbeddedStore.open({ dir });
      const store = new TransformingStore(inner, { forKey: (k) => forResource(k.startsWith('/secrets/') ? 'secrets' : 'configmaps') });
      const secret = new TextEncoder().encode('{"data":{"token":"s3cr3t-value"}}');
      const events: string[] = [];
      const w = store.watch('/secrets/', 0, { onEvents: (evs) => evs.forEach((e) => events.push(Buffer.from(e.value ?? e.prevValue!).toString())), onProgress: () => undefined, onError: () => undefined });
      const created = await store.create('/secrets/ns/a', secret);
      assert.equal(Buffer.from(created.value).toString(), Buffer.from(secret).toString());
      await store.create('/configmaps/ns/a', new TextEncoder().encode('{"data":{"plain":"visible-value"}}'));
      assert.equal(Buffer.from((await store.get('/secrets/ns/a')).kv!.value).toString(), Buffer.from(secret).toString());
      assert.equal(Buffer.from((await store.range('/secrets/')).kvs[0]!.value).toString(), Buffer.from(secret).toString());
      assert.ok(!Buffer.from((await inner.get('/secrets/ns/a')).kv!.value).toString().includes('s3cr3t'));
      const updated = await store.update('/secrets/ns/a', secret, created.modRevision);
      const deleted = await store.delete('/secrets/ns/a', updated.modRevision);
      assert.equal(Buffer.from(deleted.prev.value).toString(), Buffer.from(secret).toString());
      for (let i = 0; i < 100 && events.length < 3; i++) await new Promise((r) => setTimeout(r, 10));
      assert.deepEqual(events, [Buffer.from(secret).toString(), Buffer.from(secret).toString(), Buffer.from(secret).toString()], 'watch events carry plain values');
      w.close();
      await store.close();
      const files = await listFiles(dir);
      let sawPlain = false;
      for (const f of files) {
        const bytes = await fs.readFile(f);
        assert.ok(!bytes.includes('s3cr3t-value'), `${path.relative(dir, f)} holds the secret in clear`);
        if (bytes.includes('visible-value')) sawPlain = true;
      }
      assert.ok(sawPlain, 'the grep would find clear bytes: the unencrypted config map is there');
    } finally {
      await fs.rm(dir, { recursive: true, force: true });
    }
  });
});

async function listFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(p)));
    else out.push(p);
  }
  return out;
}
