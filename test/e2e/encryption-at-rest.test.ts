/**
 * Encryption at rest over HTTP (--encryption-provider-config): secrets never
 * reach the embedded store's files or etcd in clear text, read back across
 * restarts, keys rotate by rewriting (kubectl replace), and a KMS v2 plugin
 * — a real gRPC process on a unix socket — seals the data keys.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { Etcd3 } from 'etcd3';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { encryptionPrefixRoot } from '../../src/storage/encryption/providers.ts';

const MARKER = 'plain-secret-marker-7f3a';
const MARKER_B64 = Buffer.from(MARKER).toString('base64');
const VISIBLE = 'visible-configmap-marker-19c2';
const root = encryptionPrefixRoot();
const KEY1 = Buffer.alloc(32, 11).toString('base64');
const KEY2 = Buffer.alloc(32, 22).toString('base64');

function encryptionConfig(providers: string): string {
  return `apiVersion: ${apiGroup('apiserver.config')}/v1\nkind: EncryptionConfiguration\nresources:\n  - resources: [secrets]\n    providers:\n${providers}`;
}

const secret = (name: string): Record<string, unknown> => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name }, data: { token: MARKER_B64 } });

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await filesUnder(p)));
    else if (e.isFile()) out.push(p);
  }
  return out;
}

/** Every file of the store directory (WAL segments, snapshots): which hold `needle`. */
async function storeFilesHolding(dataDir: string, needle: string): Promise<string[]> {
  const hits: string[] = [];
  for (const f of await filesUnder(path.join(dataDir, 'store'))) if ((await fs.readFile(f)).includes(needle)) hits.push(path.relative(dataDir, f));
  return hits;
}

describe('encryption at rest, embedded store', () => {
  let dataDir: string;
  let configDir: string;
  before(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-enc-e2e-'));
    configDir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-enc-cfg-'));
  });
  after(async () => {
    await fs.rm(dataDir, { recursive: true, force: true });
    await fs.rm(configDir, { recursive: true, force: true });
  });

  const serve = async (providers: string): Promise<TestServer> => {
    const file = path.join(configDir, `enc-${Date.now()}.yaml`);
    await fs.writeFile(file, encryptionConfig(providers), { mode: 0o600 });
    return startTestServer([`--encryption-provider-config=${file}`], { dataDir });
  };

  it('stores secrets sealed, config maps as they are, and reads both back across a restart', async () => {
    let srv = await serve(`      - aescbc: {keys: [{name: key1, secret: ${KEY1}}]}\n      - identity: {}\n`);
    try {
      assert.equal((await srv.request('POST', '/api/v1/namespaces/default/secrets', secret('s1'))).status, 201);
      assert.equal((await srv.request('POST', '/api/v1/namespaces/default/configmaps', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c1' }, data: { v: VISIBLE } })).status, 201);
      const got = await srv.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.equal(got.json<{ data: Record<string, string> }>().data['token'], MARKER_B64);
    } finally {
      await srv.stop();
    }
    assert.deepEqual(await storeFilesHolding(dataDir, MARKER_B64), [], 'no store file holds the secret in clear');
    assert.deepEqual(await storeFilesHolding(dataDir, MARKER), []);
    assert.ok((await storeFilesHolding(dataDir, VISIBLE)).length > 0, 'the same grep finds what is not encrypted');
    assert.ok((await storeFilesHolding(dataDir, `${root}aescbc:v1:key1:`)).length > 0, 'sealed records carry the provider prefix');

    srv = await serve(`      - aescbc: {keys: [{name: key1, secret: ${KEY1}}]}\n`);
    try {
      const got = await srv.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.equal(got.status, 200);
      assert.equal(got.json<{ data: Record<string, string> }>().data['token'], MARKER_B64);
    } finally {
      await srv.stop();
    }
  });

  it('rotates keys by rewriting: new key first, kubectl replace, then the old key can go', async () => {
    let srv = await serve(`      - aescbc: {keys: [{name: key2, secret: ${KEY2}}, {name: key1, secret: ${KEY1}}]}\n`);
    try {
      const before = await srv.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.equal(before.status, 200, 'the old key still reads');
      const rv = before.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      const listed = await srv.kubectl(['get', 'secrets', '-n', 'default', '-o', 'json']);
      assert.equal(listed.code, 0, listed.stderr);
      const replaced = await srv.kubectl(['replace', '-f', '-'], { input: listed.stdout });
      assert.equal(replaced.code, 0, replaced.stderr);
      const afterReplace = await srv.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.notEqual(afterReplace.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion, rv, 'an unchanged object read through an old key is written again');
      const again = await srv.kubectl(['replace', '-f', '-'], { input: (await srv.kubectl(['get', 'secret', 's1', '-n', 'default', '-o', 'json'])).stdout });
      assert.equal(again.code, 0, again.stderr);
      const rv2 = (await srv.request('GET', '/api/v1/namespaces/default/secrets/s1')).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
      assert.equal(rv2, afterReplace.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion, 'once sealed with the writing key, an unchanged replace is a no-op again');
    } finally {
      await srv.stop();
    }
    srv = await serve(`      - aescbc: {keys: [{name: key2, secret: ${KEY2}}]}\n`);
    try {
      const got = await srv.request('GET', '/api/v1/namespaces/default/secrets/s1');
      assert.equal(got.status, 200, got.body);
      assert.equal(got.json<{ data: Record<string, string> }>().data['token'], MARKER_B64);
    } finally {
      await srv.stop();
    }
  });

  it('refuses to start on a bad configuration file, naming it', async () => {
    await assert.rejects(serve(`      - aescbc: {keys: [{name: key1, secret: c2hvcnQ=}]}\n`), /enc-.*\.yaml.*secret is not of the expected length/);
  });
});

describe('encryption at rest with a KMS v2 plugin, on etcd', () => {
  let etcd: EtcdServer;
  let dir: string;
  let plugin: ChildProcess | null = null;
  let srv: TestServer | null = null;
  const socket = (): string => path.join(dir, 'kms.sock');

  const startPlugin = async (): Promise<void> => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, '../support/kms-plugin.ts'), socket(), 'key-1'], { stdio: ['ignore', 'pipe', 'inherit'] });
    plugin = child;
    const [chunk] = (await once(child.stdout!, 'data')) as [Buffer];
    assert.match(chunk.toString(), /ready/);
  };

  before(async () => {
    etcd = await startEtcd({ unsafeNoFsync: true });
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'orch-kms-'));
    await startPlugin();
    const file = path.join(dir, 'enc.yaml');
    await fs.writeFile(file, encryptionConfig(`      - kms: {apiVersion: v2, name: test-kms, endpoint: "unix://${socket()}", timeout: 3s}\n      - identity: {}\n`), { mode: 0o600 });
    srv = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-kms', `--encryption-provider-config=${file}`]);
  });
  after(async () => {
    await srv?.stop();
    plugin?.kill('SIGKILL');
    await etcd?.stop();
    await fs.rm(dir, { recursive: true, force: true });
  });

  it('seals each secret as an EncryptedObject whose data key only the plugin can open', async () => {
    assert.equal((await srv!.request('POST', '/api/v1/namespaces/default/secrets', secret('k1'))).status, 201);
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      const raw = await client.get('/orch-kms/secrets/default/k1').buffer();
      assert.ok(raw !== null, 'the secret is in etcd');
      assert.ok(raw.toString('latin1').startsWith(`${root}kms:v2:test-kms:`), 'stored with the KMS v2 prefix');
      assert.ok(!raw.includes(MARKER_B64) && !raw.includes(MARKER), 'etcd never sees the secret in clear');
      assert.ok(raw.includes('key-1'), "the plugin's key id is kept with the object");
    } finally {
      client.close();
    }
    const got = await srv!.request('GET', '/api/v1/namespaces/default/secrets/k1');
    assert.equal(got.json<{ data: Record<string, string> }>().data['token'], MARKER_B64);
  });

  it('reads back after a restart through the plugin, and refuses writes while the plugin is down', async () => {
    const file = path.join(dir, 'enc.yaml');
    await srv!.stop();
    srv = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-kms', `--encryption-provider-config=${file}`]);
    const got = await srv.request('GET', '/api/v1/namespaces/default/secrets/k1');
    assert.equal(got.status, 200, got.body);
    assert.equal(got.json<{ data: Record<string, string> }>().data['token'], MARKER_B64);

    plugin!.kill('SIGKILL');
    await once(plugin!, 'exit');
    // The data key of this server's writes is cached: writes go on sealing with it. A fresh server could not.
    await srv.stop();
    srv = await startTestServer(['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-kms', `--encryption-provider-config=${file}`]);
    const refused = await srv.request('POST', '/api/v1/namespaces/default/secrets', secret('k2'));
    assert.equal(refused.status, 500, refused.body);
    assert.match(refused.body, /KMS plugin Encrypt failed/);
    assert.ok(!refused.body.includes(MARKER_B64));
    const client = new Etcd3({ hosts: etcd.endpoint });
    try {
      assert.equal(await client.get('/orch-kms/secrets/default/k2').buffer(), null, 'nothing stored in clear instead');
    } finally {
      client.close();
    }
    await startPlugin();
  });
});
