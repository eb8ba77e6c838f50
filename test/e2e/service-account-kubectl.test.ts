/**
 * kubectl with service-account tokens, in the kubernetes flavor (kubectl's
 * typed `create token` has the original's group compiled in): the quick-start
 * defaults (data-dir key pair, issuer https://kubernetes.default.svc.cluster.local)
 * issue a token, and `kubectl --token=<it>` works with no other credential,
 * on the secure port and on the uWS listener; once the service account is
 * deleted the same command is refused.
 */
import '../support/kubernetes-flavor.ts';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt } from 'jose';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';

describe('kubectl and service-account tokens (kubernetes flavor)', () => {
  let t: TestServer;
  let emptyKubeconfig: string;
  before(async () => {
    t = await startTestServer();
    // No user credentials at all: only --token authenticates.
    emptyKubeconfig = path.join(t.dataDir, 'empty.kubeconfig');
    await writeFile(emptyKubeconfig, 'apiVersion: v1\nkind: Config\nclusters: []\ncontexts: []\nusers: []\n', { mode: 0o600 });
  });
  after(async () => {
    await t?.stop();
  });

  const asToken = (token: string, port: number, args: string[]) =>
    t.kubectl([`--server=https://127.0.0.1:${port}`, `--certificate-authority=${t.server.files.caCertPath}`, `--token=${token}`, ...args], { kubeconfig: emptyKubeconfig });

  it('kubectl create token returns a token, and kubectl --token=<it> works', async () => {
    const sa = await t.kubectl(['create', 'serviceaccount', 'builder']);
    assert.equal(sa.code, 0, sa.stderr);
    const created = await t.kubectl(['create', 'token', 'builder', '--duration=20m']);
    assert.equal(created.code, 0, created.stderr);
    const token = created.stdout.trim();
    const claims = decodeJwt(token);
    assert.equal(claims.iss, 'https://kubernetes.default.svc.cluster.local');
    assert.equal(claims.sub, 'system:serviceaccount:default:builder');
    assert.equal(claims.exp! - claims.iat!, 1200);

    const got = await asToken(token, t.securePort, ['get', 'serviceaccounts', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /serviceaccount\/builder/);
  });

  it('works against the uWS listener, and stops once the service account is deleted', { skip: SKIP_WITHOUT_UWS }, async () => {
    assert.equal((await t.kubectl(['create', 'serviceaccount', 'temp'])).code, 0);
    const token = (await t.kubectl(['create', 'token', 'temp'])).stdout.trim();
    const ok = await asToken(token, t.uwsPort!, ['get', 'namespaces', '-o', 'name']);
    assert.equal(ok.code, 0, ok.stderr);
    assert.match(ok.stdout, /namespace\/default/);
    assert.equal((await t.kubectl(['delete', 'serviceaccount', 'temp'])).code, 0);
    let refused = await asToken(token, t.uwsPort!, ['get', 'namespaces']);
    for (let i = 0; refused.code === 0 && i < 20; i++) refused = await asToken(token, t.uwsPort!, ['get', 'namespaces']);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Unauthorized|must be logged in/);
  });

  it('kubectl create token with a bound pod', async () => {
    assert.equal((await t.kubectl(['create', 'serviceaccount', 'podsa'])).code, 0);
    const run = await t.kubectl(['run', 'bound-pod', '--image=busybox', '--overrides={"spec":{"serviceAccountName":"podsa"}}']);
    assert.equal(run.code, 0, run.stderr);
    const created = await t.kubectl(['create', 'token', 'podsa', '--bound-object-kind=Pod', '--bound-object-name=bound-pod']);
    assert.equal(created.code, 0, created.stderr);
    const claims = decodeJwt(created.stdout.trim());
    assert.equal((claims['kubernetes.io'] as { pod: { name: string } }).pod.name, 'bound-pod');
    const got = await asToken(created.stdout.trim(), t.securePort, ['get', 'pods', '-o', 'name']);
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /pod\/bound-pod/);
  });
});
