/**
 * Webhooks end to end: a real server, real HTTPS webhooks on loopback,
 * configurations created over the API. A mutating webhook's patch shows in
 * the stored object (kubectl), a validating webhook's denial reaches kubectl
 * with its message, a service-referenced webhook is found through its
 * Service and Endpoints, a slow webhook fails the request at its timeout
 * (Fail) or not at all (Ignore), warnings come back as Warning headers, and
 * /metrics counts the rejections. Configurations take effect through the
 * thread's watch, so each step polls until the webhook is in force.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFile } from 'node:fs/promises';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { startAdmissionWebhook, allow, deny, patch, type AdmissionWebhookServer } from './support/admission-webhook.ts';

const AR = `/apis/${apiGroup('admissionregistration')}/v1`;
const CM = '/api/v1/namespaces/hooked/configmaps';

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function webhookEntry(name: string, clientConfig: Record<string, unknown>, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    name,
    clientConfig,
    rules: [{ operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['configmaps'] }],
    sideEffects: 'None',
    admissionReviewVersions: ['v1'],
    namespaceSelector: { matchLabels: { webhooks: 'on' } },
    ...over,
  };
}

describe('admission webhooks end to end', () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;
  let n = 0;
  const create = (name: string, extra: Record<string, unknown> = {}): ReturnType<TestServer['request']> =>
    t.request('POST', CM, { metadata: { name, ...extra } });

  before(async () => {
    wh = await startAdmissionWebhook({ dnsNames: ['hooks.webhook-system.svc'] });
    wh.answer = (c) => {
      const p = c.path;
      const obj = c.review.request.object as { metadata: { name: string } };
      if (p.startsWith('/mutate')) return patch(c, [{ op: 'add', path: '/metadata/labels', value: { mutated: 'yes' } }], { warnings: ['mutated by the test webhook'] });
      if (p.startsWith('/validate')) return obj.metadata.name.startsWith('bad') ? deny(c, { code: 422, message: `name ${obj.metadata.name} is not allowed` }) : allow(c);
      if (p.startsWith('/slow')) return obj.metadata.name.startsWith('slow') ? 'hang' : allow(c);
      return allow(c);
    };
    t = await startTestServer(['--enable-admission-plugins=MutatingAdmissionWebhook,ValidatingAdmissionWebhook']);
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'hooked', labels: { webhooks: 'on' } } })).status, 201);
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'plain' } })).status, 201);
  });
  after(async () => {
    await t?.stop();
    await wh?.close();
  });

  it('configurations get the v1 defaults and are validated on create', async () => {
    const bad = await t.request('POST', `${AR}/validatingwebhookconfigurations`, {
      metadata: { name: 'bad' },
      webhooks: [{ name: 'x', clientConfig: { url: 'http://127.0.0.1/x?a=b' }, rules: [] }],
    });
    assert.equal(bad.status, 422);
    assert.match(bad.body, /sideEffects/);
    assert.match(bad.body, /admissionReviewVersions/);
    assert.match(bad.body, /'https' is the only allowed URL scheme/);
    const ok = await t.request('POST', `${AR}/mutatingwebhookconfigurations`, { metadata: { name: 'mutate' }, webhooks: [webhookEntry('mutate.example.com', { url: wh.url('/mutate'), caBundle: wh.caBundle })] });
    assert.equal(ok.status, 201, ok.body);
    const hook = (ok.json() as { webhooks: Array<Record<string, unknown>> }).webhooks[0]!;
    assert.equal(hook['failurePolicy'], 'Fail');
    assert.equal(hook['matchPolicy'], 'Equivalent');
    assert.equal(hook['timeoutSeconds'], 10);
    assert.equal(hook['reinvocationPolicy'], 'Never');
    assert.deepEqual(hook['objectSelector'], {});
  });

  it('a mutating webhook patches what is stored, with its warning; a namespace outside its selector is untouched', async () => {
    const r = await until('the mutating webhook', async () => {
      const a = await create(`m${n++}`);
      assert.equal(a.status, 201, a.body);
      return (a.json() as { metadata: { labels?: Record<string, string> } }).metadata.labels?.['mutated'] === 'yes' ? a : undefined;
    });
    assert.match(String(r.headers['warning']), /299 - "mutated by the test webhook"/);
    const name = (r.json() as { metadata: { name: string } }).metadata.name;
    const got = await t.kubectl(['get', 'configmap', '-n', 'hooked', name, '-o', 'jsonpath={.metadata.labels.mutated}']);
    assert.equal(got.stdout, 'yes');
    const plain = await t.request('POST', '/api/v1/namespaces/plain/configmaps', { metadata: { name: 'p' } });
    assert.equal((plain.json() as { metadata: { labels?: unknown } }).metadata.labels, undefined);
  });

  it('a validating webhook denial reaches kubectl with the webhook code and message', async () => {
    const cfg = await t.request('POST', `${AR}/validatingwebhookconfigurations`, { metadata: { name: 'validate' }, webhooks: [webhookEntry('validate.example.com', { url: wh.url('/validate'), caBundle: wh.caBundle })] });
    assert.equal(cfg.status, 201, cfg.body);
    const denied = await until('the validating webhook', async () => {
      const a = await create(`bad${n++}`);
      return a.status === 201 ? undefined : a;
    });
    assert.equal(denied.status, 422);
    assert.match(denied.json<{ message: string }>().message, /^admission webhook "validate.example.com" denied the request: name bad\d+ is not allowed$/);
    const k = await t.kubectl(['create', 'configmap', '-n', 'hooked', 'bad-kubectl']);
    assert.notEqual(k.code, 0);
    assert.match(k.stderr, /admission webhook "validate.example.com" denied the request: name bad-kubectl is not allowed/);
    assert.equal((await create('good')).status, 201);
    // Dry run: sideEffects None webhooks are called, and deny the same.
    assert.equal((await t.request('POST', `${CM}?dryRun=All`, { metadata: { name: 'bad-dry' } })).status, 422);
    const metrics = await t.request('GET', '/metrics');
    assert.match(metrics.body, /apiserver_admission_webhook_rejection_count\{name="validate.example.com",operation="CREATE",type="validating",error_type="no_error",rejection_code="422"\} [1-9]/);
    assert.equal((await t.request('DELETE', `${AR}/validatingwebhookconfigurations/validate`)).status, 200);
    await until('the validating webhook to go', async () => ((await create(`bad${n++}`)).status === 201 ? true : undefined));
  });

  it('a service reference is resolved through the Service and its Endpoints', async () => {
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'webhook-system' } });
    assert.equal((await t.request('POST', '/api/v1/namespaces/webhook-system/services', { metadata: { name: 'hooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: wh.port }] } })).status, 201);
    assert.equal(
      (await t.request('PUT', '/api/v1/namespaces/webhook-system/endpoints/hooks', { metadata: { name: 'hooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: wh.port }] }] })).status,
      201,
    );
    const cfg = await t.request('POST', `${AR}/validatingwebhookconfigurations`, {
      metadata: { name: 'svc' },
      webhooks: [webhookEntry('svc.example.com', { service: { namespace: 'webhook-system', name: 'hooks', path: '/validate' }, caBundle: wh.caBundle })],
    });
    assert.equal(cfg.status, 201, cfg.body);
    await until('the service webhook', async () => ((await create(`bad${n++}`)).status === 422 ? true : undefined));
    const call = wh.calls.at(-1)!;
    assert.equal(call.headers.host, 'hooks.webhook-system.svc:443');
    assert.equal(call.path, '/validate?timeout=10s');
    assert.equal((await t.request('DELETE', `${AR}/validatingwebhookconfigurations/svc`)).status, 200);
    await until('the service webhook to go', async () => ((await create(`bad${n++}`)).status === 201 ? true : undefined));
  });

  it('a slow webhook: Fail rejects at its timeout with 500, Ignore lets the write through', { timeout: 60_000 }, async () => {
    const cfg = await t.request('POST', `${AR}/validatingwebhookconfigurations`, {
      metadata: { name: 'slow' },
      webhooks: [webhookEntry('slow.example.com', { url: wh.url('/slow'), caBundle: wh.caBundle }, { timeoutSeconds: 1 })],
    });
    assert.equal(cfg.status, 201, cfg.body);
    const failed = await until('the slow webhook', async () => {
      const a = await create(`slow${n++}`);
      return a.status === 201 ? undefined : a;
    });
    assert.equal(failed.status, 500);
    assert.match(failed.json<{ message: string }>().message, /^Internal error occurred: failed calling webhook "slow.example.com": failed to call webhook: Post "https:\/\/127.0.0.1:\d+\/slow\?timeout=1s": context deadline exceeded$/);
    const cur = (await t.request('GET', `${AR}/validatingwebhookconfigurations/slow`)).json<{ webhooks: Array<Record<string, unknown>> }>();
    cur.webhooks[0]!['failurePolicy'] = 'Ignore';
    assert.equal((await t.request('PUT', `${AR}/validatingwebhookconfigurations/slow`, cur)).status, 200);
    await until('the failure policy Ignore', async () => ((await create(`slow${n++}`)).status === 201 ? true : undefined));
  });
});

describe('admission webhooks with --admission-control-config-file', () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;

  before(async () => {
    // This webhook takes only clients with a certificate of its CA.
    wh = await startAdmissionWebhook({ requireClientCert: true });
    const client = await wh.client('orch-apiserver');
    const kubeconfig = await wh.write(
      'webhook-users.yaml',
      [
        'apiVersion: v1',
        'kind: Config',
        'users:',
        `- name: "127.0.0.1:${wh.port}"`,
        '  user:',
        `    client-certificate-data: ${Buffer.from(client.certPem).toString('base64')}`,
        `    client-key-data: ${Buffer.from(client.keyPem).toString('base64')}`,
        '    token: webhook-secret-token',
        '',
      ].join('\n'),
    );
    const configFile = await wh.write(
      'admission.yaml',
      [
        `apiVersion: ${apiGroup('apiserver.config')}/v1`,
        'kind: AdmissionConfiguration',
        'plugins:',
        '- name: ValidatingAdmissionWebhook',
        '  configuration:',
        `    apiVersion: ${apiGroup('apiserver.config')}/v1`,
        '    kind: WebhookAdmissionConfiguration',
        `    kubeConfigFile: ${kubeconfig}`,
        '',
      ].join('\n'),
    );
    wh.answer = (c) => ((c.review.request.object as { metadata: { name: string } }).metadata.name.startsWith('bad') ? deny(c, { message: 'no' }) : allow(c));
    t = await startTestServer([`--admission-control-config-file=${configFile}`]);
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'hooked', labels: { webhooks: 'on' } } });
  });
  after(async () => {
    await t?.stop();
    await wh?.close();
  });

  it('the webhook is called with the client certificate and token of its host', async () => {
    const cfg = await t.request('POST', `${AR}/validatingwebhookconfigurations`, { metadata: { name: 'creds' }, webhooks: [webhookEntry('creds.example.com', { url: wh.url('/validate'), caBundle: wh.caBundle })] });
    assert.equal(cfg.status, 201, cfg.body);
    let i = 0;
    const denied = await until('the webhook', async () => {
      const a = await t.request('POST', CM, { metadata: { name: `bad${i++}` } });
      return a.status === 201 ? undefined : a;
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.json<{ message: string }>().message, 'admission webhook "creds.example.com" denied the request without explanation'.replace(' without explanation', ': no'));
    const call = wh.calls.at(-1)!;
    assert.equal(call.clientCN, 'orch-apiserver');
    assert.equal(call.headers.authorization, 'Bearer webhook-secret-token');
  });

  it('an unreadable configuration file stops the start with the file named', async () => {
    await assert.rejects(startTestServer(['--admission-control-config-file=/nonexistent/admission.yaml']), /\/nonexistent\/admission.yaml/);
  });
});

describe('admission webhooks with two serving threads (uWS listener)', { skip: SKIP_WITHOUT_UWS }, () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;
  let ca: Buffer;

  /** A create on a fresh connection to the uWS listener (the kernel spreads those over both threads). */
  const freshCreate = (name: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const body = Buffer.from(JSON.stringify({ metadata: { name } }));
      const req = https.request(
        { host: '127.0.0.1', port: t.uwsPort!, method: 'POST', path: CM, agent: false, ca, servername: 'localhost', headers: { authorization: `Bearer ${t.server.files.adminToken}`, 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(body);
    });

  before(async () => {
    wh = await startAdmissionWebhook();
    wh.answer = (c) => ((c.review.request.object as { metadata: { name: string } }).metadata.name.startsWith('bad') ? deny(c, { code: 409, message: 'no' }) : allow(c));
    t = await startTestServer(['--frontend-threads=2']);
    ca = await readFile(t.server.files.caCertPath);
    await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'hooked', labels: { webhooks: 'on' } } });
  });
  after(async () => {
    await t?.stop();
    await wh?.close();
  });

  it('a configuration reaches every thread: creates on fresh connections are all denied', async () => {
    const cfg = await t.request('POST', `${AR}/validatingwebhookconfigurations`, { metadata: { name: 'threads' }, webhooks: [webhookEntry('threads.example.com', { url: wh.url('/validate'), caBundle: wh.caBundle })] });
    assert.equal(cfg.status, 201, cfg.body);
    let i = 0;
    // Until ten in a row are denied: each thread learns of the configuration from its own watch.
    let streak = 0;
    await until('every thread to enforce the webhook', async () => {
      streak = (await freshCreate(`bad${i++}`)) === 409 ? streak + 1 : 0;
      return streak >= 10 ? true : undefined;
    });
    assert.equal(await freshCreate('good'), 201);
  });
});
