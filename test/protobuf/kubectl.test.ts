/**
 * The real client: kubectl 1.32's typed create commands send protobuf and
 * read protobuf back. Against a loopback server that decodes with our decoder
 * and answers with our encoder, kubectl must print the object (it decoded our
 * bytes), we must have read its fields (we decoded its bytes), and for every
 * kind tried:
 *   - kubectl's JSON of our response equals our decoder's JSON of it (our
 *     Go-faithful decoding agrees with Go's), and
 *   - re-encoding what we decoded gives kubectl's request bytes exactly.
 * For rich objects, `kubectl run` is answered with a fixture of any kind:
 * kubectl decodes whatever built-in kind comes back and prints it.
 * Skipped when no kubectl is installed.
 */
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { decodeObject, encodeObject, type JsonObject } from '../../src/protobuf/index.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-apiserver.ts';
import { FIXTURES, STATUS } from './fixtures.ts';
import { SUPPLEMENT_FIXTURES } from './fixtures-supplement.ts';

const run = promisify(execFile);

function kubectlVersion(): string | undefined {
  try {
    return execFileSync('kubectl', ['version', '--client', '-o', 'json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  } catch {
    return undefined;
  }
}
const version = kubectlVersion();
const skip = version === undefined ? 'kubectl is not installed' : false;

let server: FakeApiServer;
before(async () => {
  if (!skip) server = await startFakeApiServer();
});
after(async () => {
  if (!skip) await server.close();
});

async function kubectl(...args: string[]): Promise<JsonObject> {
  const { stdout } = await run('kubectl', ['--kubeconfig', server.kubeconfig, '--cache-dir', join(server.dir, 'cache'), ...args], {
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, HOME: server.dir, KUBECONFIG: server.kubeconfig },
  });
  return JSON.parse(stdout) as JsonObject;
}

function lastCreate(pathPart: string) {
  const rec = server.creates.at(-1);
  assert.ok(rec !== undefined && rec.path.includes(pathPart), `no create recorded for ${pathPart}`);
  return rec;
}

test('kubectl create namespace: it sends protobuf we decode, and prints our protobuf answer', { skip }, async () => {
  const printed = await kubectl('create', 'namespace', 'demo', '-o', 'json');
  const rec = lastCreate('/api/v1/namespaces');
  assert.match(rec.contentType, /^application\/vnd\.kubernetes\.protobuf/);
  assert.match(rec.accept, /application\/vnd\.kubernetes\.protobuf/);
  assert.deepEqual(rec.gvk, { group: '', version: 'v1', kind: 'Namespace' });
  assert.equal((rec.decoded.metadata as JsonObject).name, 'demo');
  assert.equal(printed.kind, 'Namespace');
  assert.equal((printed.metadata as JsonObject).name, 'demo');
  assert.equal((printed.metadata as JsonObject).uid, (rec.responseObject.metadata as JsonObject).uid, 'kubectl printed the server-set uid');
  assert.deepEqual(printed.status, { phase: 'Active' });
  assert.deepEqual(printed.spec, { finalizers: ['kubernetes'] });
});

test('kubectl create configmap: data survives both directions', { skip }, async () => {
  const printed = await kubectl('create', 'configmap', 'c', '--from-literal=a=b', '-n', 'default', '-o', 'json');
  const rec = lastCreate('/api/v1/namespaces/default/configmaps');
  assert.match(rec.contentType, /^application\/vnd\.kubernetes\.protobuf/);
  assert.equal((rec.decoded.metadata as JsonObject).name, 'c');
  assert.equal((rec.decoded.metadata as JsonObject).namespace, 'default');
  assert.deepEqual(rec.decoded.data, { a: 'b' });
  assert.equal(printed.kind, 'ConfigMap');
  assert.equal((printed.metadata as JsonObject).name, 'c');
  assert.equal((printed.metadata as JsonObject).resourceVersion, (rec.responseObject.metadata as JsonObject).resourceVersion);
  assert.deepEqual(printed.data, { a: 'b' });
});

/** Typed kubectl create commands across groups, bytes, int-or-string, quantities and supplement-described types. */
const COMMANDS: readonly (readonly string[])[] = [
  ['create', 'namespace', 'other'],
  ['create', 'configmap', 'c2', '--from-literal=x=1', '--from-literal=y=ü', '-n', 'default'],
  ['create', 'secret', 'generic', 's', '--from-literal=k=v', '--from-literal=empty=', '-n', 'default'],
  ['create', 'deployment', 'd', '--image=nginx', '--replicas=2', '--port=80', '-n', 'default'],
  ['create', 'service', 'clusterip', 'svc', '--tcp=80:8080', '-n', 'default'],
  ['create', 'job', 'j', '--image=busybox', '-n', 'default'],
  ['create', 'cronjob', 'cj', '--image=busybox', '--schedule=*/1 * * * *', '-n', 'default'],
  ['create', 'serviceaccount', 'sa', '-n', 'default'],
  ['create', 'priorityclass', 'pc', '--value=1000'],
  ['create', 'quota', 'q', '--hard=cpu=1,memory=1G', '-n', 'default'],
  ['create', 'poddisruptionbudget', 'pdb', '--selector=app=x', '--min-available=50%', '-n', 'default'],
  ['create', 'role', 'r', '--verb=get', '--resource=pods', '-n', 'default'],
  ['create', 'clusterrolebinding', 'crb', '--clusterrole=view', '--user=u'],
  ['create', 'ingress', 'ing', '--rule=foo.com/bar=svc1:8080', '-n', 'default'],
];

for (const cmd of COMMANDS) {
  test(`kubectl ${cmd.slice(0, 3).join(' ')}: Go's reading of our bytes equals ours, and we re-encode its bytes exactly`, { skip }, async () => {
    const before = server.creates.length;
    const printed = await kubectl(...cmd, '-o', 'json', '--show-managed-fields');
    assert.equal(server.creates.length, before + 1);
    const rec = server.creates.at(-1)!;
    assert.match(rec.contentType, /^application\/vnd\.kubernetes\.protobuf/);
    assert.deepEqual(printed, decodeObject(rec.response).object);
    assert.equal(Buffer.from(encodeObject(rec.decoded, rec.gvk)).toString('hex'), Buffer.from(rec.request).toString('hex'));
  });
}

/** kubectl knows the original's group names only. */
function originalGroup(group: string): string {
  return group.endsWith('.orch.io') ? `${group.slice(0, -'.orch.io'.length)}.k8s.io` : group;
}

for (const fx of [...FIXTURES, ...SUPPLEMENT_FIXTURES]) {
  if (fx.gvk.kind === 'Status') continue;
  test(`kubectl reads our ${fx.name} exactly as our decoder does`, { skip }, async () => {
    const group = originalGroup(fx.gvk.group);
    const apiVersion = group === '' ? fx.gvk.version : `${group}/${fx.gvk.version}`;
    server.canned.set('/api/v1/namespaces/default/pods', { gvk: { ...fx.gvk, group }, object: { ...fx.object, apiVersion } });
    try {
      const printed = await kubectl('run', 'p', '--image=nginx', '-n', 'default', '-o', 'json', '--show-managed-fields');
      assert.deepEqual(printed, decodeObject(server.creates.at(-1)!.response).object);
    } finally {
      server.canned.delete('/api/v1/namespaces/default/pods');
    }
  });
}

test('kubectl reads our Status: its message is what kubectl reports', { skip }, async () => {
  server.canned.set('/api/v1/namespaces/default/pods', { gvk: { group: '', version: 'v1', kind: 'Status' }, object: STATUS });
  try {
    await assert.rejects(kubectl('run', 'p', '--image=nginx', '-n', 'default', '-o', 'json'), (err: { stderr?: string }) => {
      assert.match(err.stderr ?? '', /pods "nope" not found/);
      return true;
    });
  } finally {
    server.canned.delete('/api/v1/namespaces/default/pods');
  }
});
