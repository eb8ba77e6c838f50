/**
 * A real project's CRD (cert-manager's Certificate, trimmed: test/fixtures/crds)
 * through kubectl 1.32 against a real server in the kubernetes flavor: apply
 * the definition, wait for Established, apply resources, get with the
 * printer columns, explain from OpenAPI, patch (merge and strategic: 415), edit,
 * validation (422) and pruning, watch with get -w, the status subresource,
 * and deletion of the definition removing its instances first.
 */
import '../support/kubernetes-flavor.ts';
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { spawn } from 'node:child_process';
import { startTestServer, type TestServer } from '../support/test-server.ts';

const FIXTURE = new URL('../fixtures/crds/cert-manager-certificates.yaml', import.meta.url);

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const CERT = (name: string, extra = ''): string => `
apiVersion: cert-manager.io/v1
kind: Certificate
metadata: { name: ${name}, namespace: default }
spec:
  secretName: ${name}-tls
  issuerRef: { name: letsencrypt, kind: ClusterIssuer }
  dnsNames: [${name}.example.com]
${extra}`;

describe('CustomResourceDefinitions with kubectl', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('applies the CRD and waits for it to be established', async () => {
    const r = await t.kubectl(['apply', '-f', '-'], { input: await readFile(FIXTURE, 'utf8') });
    assert.equal(r.code, 0, r.stderr);
    const w = await t.kubectl(['wait', '--for=condition=Established', 'crd/certificates.cert-manager.io', '--timeout=20s']);
    assert.equal(w.code, 0, w.stderr);
    const crd = (await t.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/certificates.cert-manager.io')).json<{ status: { acceptedNames: { kind: string }; storedVersions: string[]; conditions: Array<{ type: string; status: string }> } }>();
    assert.equal(crd.status.acceptedNames.kind, 'Certificate');
    assert.deepEqual(crd.status.storedVersions, ['v1']);
    assert.equal(crd.status.conditions.find((c) => c.type === 'NamesAccepted')?.status, 'True');
    await eventually('discovery of cert-manager.io/v1', async () => (await t.request('GET', '/apis/cert-manager.io/v1')).status === 200);
    const disco = (await t.request('GET', '/apis/cert-manager.io/v1')).json<{ resources: Array<{ name: string; shortNames?: string[]; categories?: string[]; kind: string }> }>();
    const main = disco.resources.find((x) => x.name === 'certificates')!;
    assert.deepEqual(main.shortNames, ['cert', 'certs']);
    assert.deepEqual(main.categories, ['cert-manager']);
    assert.ok(disco.resources.some((x) => x.name === 'certificates/status'));
  });

  it('creates resources and shows the printer columns', async () => {
    const r = await t.kubectl(['apply', '-f', '-'], { input: CERT('web') + '---\n' + CERT('api') });
    assert.equal(r.code, 0, r.stderr);
    const g = await t.kubectl(['get', 'certs', '-n', 'default']);
    assert.equal(g.code, 0, g.stderr);
    const lines = g.stdout.trim().split('\n');
    assert.match(lines[0]!, /^NAME\s+READY\s+SECRET\s+AGE$/);
    assert.match(lines[1]!, /^api\s+api-tls\s+\d+s$/);
    const wide = await t.kubectl(['get', 'certificate', 'web', '-n', 'default', '-o', 'wide']);
    assert.match(wide.stdout, /ISSUER/);
    assert.match(wide.stdout, /letsencrypt/);
    // Applied again with a change: kubectl patches (JSON merge patch for a custom resource).
    const again = await t.kubectl(['apply', '-f', '-'], { input: CERT('api', '  commonName: api.example.com') });
    assert.equal(again.code, 0, again.stderr);
    assert.match(again.stdout, /configured/);
    const all = await t.kubectl(['get', 'cert-manager', '-n', 'default', '-o', 'name']);
    assert.deepEqual(all.stdout.trim().split('\n').sort(), ['certificate.cert-manager.io/api', 'certificate.cert-manager.io/web']);
  });

  it('validates against the schema (422) and prunes unknown fields', async () => {
    const bad = await t.kubectl(['create', '-f', '-'], { input: CERT('bad', '  privateKey: { algorithm: DSA, size: "big" }') });
    assert.notEqual(bad.code, 0);
    assert.match(bad.stderr, /spec.privateKey.algorithm: Unsupported value: "DSA": supported values: "RSA", "ECDSA", "Ed25519"/);
    assert.match(bad.stderr, /spec.privateKey.size: Invalid value: "string": spec.privateKey.size in body must be of type integer: "string"/);
    const missing = await t.request('POST', '/apis/cert-manager.io/v1/namespaces/default/certificates', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'x' }, spec: { issuerRef: { name: 'i' } } });
    assert.equal(missing.status, 422, missing.body);
    assert.match(missing.json<{ message: string }>().message, /spec.secretName: Required value/);
    const pruned = await t.request('POST', '/apis/cert-manager.io/v1/namespaces/default/certificates', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'pruned' }, spec: { secretName: 's', issuerRef: { name: 'i' }, bogus: 1 } });
    assert.equal(pruned.status, 201, pruned.body);
    assert.equal((pruned.json<{ spec: Record<string, unknown> }>().spec)['bogus'], undefined);
    assert.match(String(pruned.headers['warning'] ?? ''), /unknown field .+spec.bogus/);
    const strict = await t.request('POST', '/apis/cert-manager.io/v1/namespaces/default/certificates?fieldValidation=Strict', { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'strict' }, spec: { secretName: 's', issuerRef: { name: 'i' }, bogus: 1 } });
    assert.equal(strict.status, 400, strict.body);
    assert.match(strict.body, /unknown field \\"spec.bogus\\"/);
  });

  it('patches: merge and JSON patch work, strategic merge patch is 415', async () => {
    const m = await t.kubectl(['patch', 'certificate', 'web', '-n', 'default', '--type=merge', '-p', '{"spec":{"secretName":"web-tls-2"}}']);
    assert.equal(m.code, 0, m.stderr);
    const j = await t.kubectl(['patch', 'certificate', 'web', '-n', 'default', '--type=json', '-p', '[{"op":"add","path":"/spec/isCA","value":true}]']);
    assert.equal(j.code, 0, j.stderr);
    const got = (await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates/web')).json<{ spec: { secretName: string; isCA: boolean }; metadata: { generation: number } }>();
    assert.equal(got.spec.secretName, 'web-tls-2');
    assert.equal(got.spec.isCA, true);
    assert.equal(got.metadata.generation, 3);
    const s = await t.kubectl(['patch', 'certificate', 'web', '-n', 'default', '--type=strategic', '-p', '{"spec":{"isCA":false}}']);
    assert.notEqual(s.code, 0);
    assert.match(s.stderr, /UnsupportedMediaType|the body of the request was in an unknown format/);
  });

  it('edits with kubectl edit', async () => {
    process.env['KUBE_EDITOR'] = 'sed -i s/letsencrypt/edited-issuer/';
    try {
      const r = await t.kubectl(['edit', 'certificate', 'web', '-n', 'default']);
      assert.equal(r.code, 0, r.stderr);
    } finally {
      delete process.env['KUBE_EDITOR'];
    }
    const got = (await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates/web')).json<{ spec: { issuerRef: { name: string } } }>();
    assert.equal(got.spec.issuerRef.name, 'edited-issuer');
  });

  it('writes status only through the status subresource', async () => {
    const status = { conditions: [{ type: 'Ready', status: 'True', reason: 'Issued', message: 'Certificate is up to date' }] };
    const main = await t.request('PATCH', '/apis/cert-manager.io/v1/namespaces/default/certificates/api', { status }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(main.status, 200);
    assert.equal((main.json<{ status?: unknown }>()).status, undefined);
    const sub = await t.request('PATCH', '/apis/cert-manager.io/v1/namespaces/default/certificates/api/status', { status }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(sub.status, 200, sub.body);
    const g = await t.kubectl(['get', 'cert', 'api', '-n', 'default', '--no-headers']);
    assert.match(g.stdout, /^api\s+True\s+api-tls\s+\d+s/);
  });

  it('server-side apply uses the list-map keys of the schema', async () => {
    const apply = (manager: string, conditions: unknown[]) =>
      t.request('PATCH', `/apis/cert-manager.io/v1/namespaces/default/certificates/api/status?fieldManager=${manager}`, { apiVersion: 'cert-manager.io/v1', kind: 'Certificate', metadata: { name: 'api', namespace: 'default' }, status: { conditions } }, { headers: { 'content-type': 'application/apply-patch+yaml' } });
    const a = await apply('one', [{ type: 'Issuing', status: 'False' }]);
    assert.equal(a.status, 200, a.body);
    const conds = a.json<{ status: { conditions: Array<{ type: string }> } }>().status.conditions.map((c) => c.type).sort();
    assert.deepEqual(conds, ['Issuing', 'Ready']);
  });

  it('explains the resource from OpenAPI', async () => {
    const r = await t.kubectl(['explain', 'certificates.spec.issuerRef']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /Reference to the issuer responsible for issuing the certificate/);
    assert.match(r.stdout, /name\s+<string> -required-/);
  });

  it('watches with get -w', async () => {
    const child = spawn('kubectl', ['--kubeconfig', t.kubeconfig, 'get', 'certificates', '-n', 'default', '-w', '--no-headers', '-o', 'name'], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    try {
      await eventually('the initial list', async () => out.includes('certificate.cert-manager.io/web'));
      const r = await t.kubectl(['apply', '-f', '-'], { input: CERT('watched') });
      assert.equal(r.code, 0, r.stderr);
      await eventually('the new certificate in the watch', async () => out.includes('certificate.cert-manager.io/watched'));
    } finally {
      child.kill();
    }
  });

  it('refuses Protobuf with 406 and answers JSON when the Accept list allows it', async () => {
    const only = await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates', undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
    assert.equal(only.status, 406);
    const both = await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates', undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf, application/json' } });
    assert.equal(both.status, 200);
    assert.equal(both.json<{ kind: string }>().kind, 'CertificateList');
    const body = await t.request('POST', '/apis/cert-manager.io/v1/namespaces/default/certificates', new Uint8Array([0x6b, 0x38, 0x73, 0x00]), { headers: { 'content-type': 'application/vnd.kubernetes.protobuf' } });
    assert.equal(body.status, 415, body.body);
  });

  it('lists with paging and selectors', async () => {
    await t.kubectl(['label', 'certificate', 'web', '-n', 'default', 'tier=front']);
    const sel = (await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates?labelSelector=tier%3Dfront')).json<{ items: Array<{ metadata: { name: string } }> }>();
    assert.deepEqual(sel.items.map((i) => i.metadata.name), ['web']);
    const byName = (await t.request('GET', '/apis/cert-manager.io/v1/certificates?fieldSelector=metadata.name%3Dapi')).json<{ items: Array<{ metadata: { name: string } }> }>();
    assert.deepEqual(byName.items.map((i) => i.metadata.name), ['api']);
    const page = (await t.request('GET', '/apis/cert-manager.io/v1/namespaces/default/certificates?limit=1')).json<{ items: unknown[]; metadata: { continue?: string } }>();
    assert.equal(page.items.length, 1);
    assert.ok(page.metadata.continue);
    const next = (await t.request('GET', `/apis/cert-manager.io/v1/namespaces/default/certificates?limit=1&continue=${encodeURIComponent(page.metadata.continue!)}`)).json<{ items: unknown[] }>();
    assert.equal(next.items.length, 1);
  });

  it('deleting the CRD deletes its resources first, then the CRD', async () => {
    const r = await t.kubectl(['delete', 'crd', 'certificates.cert-manager.io', '--wait=false']);
    assert.equal(r.code, 0, r.stderr);
    await eventually('the CRD to be gone', async () => (await t.request('GET', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/certificates.cert-manager.io')).status === 404);
    await eventually('discovery to drop cert-manager.io', async () => (await t.request('GET', '/apis/cert-manager.io/v1')).status === 404);
    // Created again, the definition starts with no instances.
    const again = await t.kubectl(['apply', '-f', '-'], { input: await readFile(FIXTURE, 'utf8') });
    assert.equal(again.code, 0, again.stderr);
    await t.kubectl(['wait', '--for=condition=Established', 'crd/certificates.cert-manager.io', '--timeout=20s']);
    await eventually('serving again', async () => (await t.request('GET', '/apis/cert-manager.io/v1/certificates')).status === 200);
    const list = (await t.request('GET', '/apis/cert-manager.io/v1/certificates')).json<{ items: unknown[] }>();
    assert.equal(list.items.length, 0);
  });
});
