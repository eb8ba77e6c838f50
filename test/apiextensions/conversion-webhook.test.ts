/**
 * Webhook conversion against a real HTTPS conversion webhook on loopback
 * (node:https, its own CA given as caBundle): a definition with v1 (stored)
 * and v2 (`spec.size` becomes `spec.dimensions.size`), the webhook named
 * first by URL, then by Service (resolved through its Endpoints, TLS name
 * `<service>.<namespace>.svc`). Objects written through v2 are stored as v1,
 * read back through both, listed and watched through v2; a webhook answering
 * Failure makes reads through v2 a 500 naming the webhook, and v1 reads
 * (no conversion needed) still work.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import type net from 'node:net';
import { webcrypto, createPrivateKey } from 'node:crypto';
import { startTestServer, freePort, type TestServer } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { EKU, issue, x509 } from '../authn/support/pki.ts';

const AX = apiGroup('apiextensions');

async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

type Obj = { apiVersion: string; kind: string; metadata: Record<string, unknown>; spec?: Record<string, unknown> };

/** The conversion the webhook performs: v1 spec.size <-> v2 spec.dimensions.size. */
function convert(o: Obj, desired: string): Obj {
  const spec = { ...(o.spec ?? {}) };
  if (desired.endsWith('/v2') && o.apiVersion.endsWith('/v1')) {
    if (spec['size'] !== undefined) spec['dimensions'] = { size: spec['size'] };
    delete spec['size'];
  } else if (desired.endsWith('/v1') && o.apiVersion.endsWith('/v2')) {
    const d = spec['dimensions'] as { size?: unknown } | undefined;
    if (d?.size !== undefined) spec['size'] = d.size;
    delete spec['dimensions'];
  }
  return { ...o, apiVersion: desired, spec };
}

describe('conversion webhook', () => {
  let t: TestServer;
  let hook: https.Server;
  let caPem = '';
  let port = 0;
  const calls: Array<{ desired: string; count: number; apiVersion: string }> = [];
  let fail = false;
  const sockets = new Set<net.Socket>();

  before(async () => {
    const ca = await issue({ subject: 'CN=conversion test CA', ca: true });
    const server = await issue({
      subject: 'CN=conv.default.svc',
      issuer: ca,
      eku: [EKU.serverAuth],
      extraExtensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: 'conv.default.svc' }, { type: 'ip', value: '127.0.0.1' }])],
    });
    const key = createPrivateKey({ key: Buffer.from(await webcrypto.subtle.exportKey('pkcs8', server.keys.privateKey)), format: 'der', type: 'pkcs8' }).export({ format: 'pem', type: 'pkcs8' }).toString();
    caPem = ca.pem;
    port = await freePort();
    hook = https.createServer({ cert: server.pem, key }, (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const review = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { apiVersion: string; request: { uid: string; desiredAPIVersion: string; objects: Obj[] } };
        calls.push({ desired: review.request.desiredAPIVersion, count: review.request.objects.length, apiVersion: review.apiVersion });
        const response = fail
          ? { uid: review.request.uid, result: { status: 'Failure', message: 'refusing on purpose' } }
          : { uid: review.request.uid, convertedObjects: review.request.objects.map((o) => convert(o, review.request.desiredAPIVersion)), result: { status: 'Success' } };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ apiVersion: review.apiVersion, kind: 'ConversionReview', response }));
      });
    });
    hook.on('connection', (s: net.Socket) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((r) => hook.listen(port, '127.0.0.1', r));
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
    for (const s of sockets) s.destroy();
    await new Promise<void>((r) => hook?.close(() => r()));
  });

  const schema = (v2: boolean) => ({
    openAPIV3Schema: {
      type: 'object',
      properties: { spec: { type: 'object', properties: v2 ? { dimensions: { type: 'object', properties: { size: { type: 'string' } } } } : { size: { type: 'string' } } } },
    },
  });
  const crd = (clientConfig: Record<string, unknown>) => ({
    apiVersion: `${AX}/v1`,
    kind: 'CustomResourceDefinition',
    metadata: { name: 'boxes.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Namespaced',
      names: { plural: 'boxes', kind: 'Box' },
      versions: [
        { name: 'v1', served: true, storage: true, schema: schema(false) },
        { name: 'v2', served: true, storage: false, schema: schema(true) },
      ],
      conversion: { strategy: 'Webhook', webhook: { conversionReviewVersions: ['v1'], clientConfig } },
    },
  });

  it('converts writes and reads through the webhook named by URL', async () => {
    const r = await t.request('POST', `/apis/${AX}/v1/customresourcedefinitions`, crd({ url: `https://127.0.0.1:${port}/convert`, caBundle: Buffer.from(caPem).toString('base64') }));
    assert.equal(r.status, 201, r.body);
    await eventually('boxes served', async () => (await t.request('GET', '/apis/example.com/v2/boxes')).status === 200);
    const c = await t.request('POST', '/apis/example.com/v2/namespaces/default/boxes', { apiVersion: 'example.com/v2', kind: 'Box', metadata: { name: 'b1' }, spec: { dimensions: { size: 'L' } } });
    assert.equal(c.status, 201, c.body);
    assert.deepEqual(c.json<Obj>().spec, { dimensions: { size: 'L' } });
    assert.ok(calls.some((x) => x.desired === 'example.com/v1' && x.apiVersion === `${AX}/v1`), 'the write converted to the storage version');
    const v1 = (await t.request('GET', '/apis/example.com/v1/namespaces/default/boxes/b1')).json<Obj>();
    assert.deepEqual([v1.apiVersion, v1.spec], ['example.com/v1', { size: 'L' }]);
    await t.request('POST', '/apis/example.com/v1/namespaces/default/boxes', { apiVersion: 'example.com/v1', kind: 'Box', metadata: { name: 'b2' }, spec: { size: 'S' } });
    const before = calls.length;
    const list = (await t.request('GET', '/apis/example.com/v2/namespaces/default/boxes')).json<{ items: Obj[] }>();
    assert.deepEqual(list.items.map((i) => [i.apiVersion, i.spec]), [['example.com/v2', { dimensions: { size: 'L' } }], ['example.com/v2', { dimensions: { size: 'S' } }]]);
    assert.equal(calls.length, before + 1, 'a list converts in one review');
    assert.equal(calls.at(-1)!.count, 2);
  });

  it('converts watch events', async () => {
    const w = await t.watch('/apis/example.com/v2/namespaces/default/boxes?watch=1');
    try {
      await w.until(() => w.events.length >= 2, 'the initial events');
      await t.request('POST', '/apis/example.com/v1/namespaces/default/boxes', { apiVersion: 'example.com/v1', kind: 'Box', metadata: { name: 'b3' }, spec: { size: 'M' } });
      await w.until(() => w.events.some((e) => e.object.metadata.name === 'b3'), 'the new box');
      const ev = w.events.find((e) => e.object.metadata.name === 'b3')!.object as unknown as Obj;
      assert.deepEqual([ev.apiVersion, ev.spec], ['example.com/v2', { dimensions: { size: 'M' } }]);
    } finally {
      w.close();
    }
  });

  it('reports a failing webhook as the original does', async () => {
    fail = true;
    try {
      const r = await t.request('GET', '/apis/example.com/v2/namespaces/default/boxes/b1');
      assert.equal(r.status, 500);
      assert.match(r.json<{ message: string }>().message, /conversion webhook for example.com\/v2, Kind=Box failed: refusing on purpose/);
      assert.equal((await t.request('GET', '/apis/example.com/v1/namespaces/default/boxes/b1')).status, 200, 'no conversion needed, no call');
    } finally {
      fail = false;
    }
  });

  it('reaches the webhook through a Service and its Endpoints', async () => {
    const svc = await t.request('POST', '/api/v1/namespaces/default/services', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'conv' }, spec: { ports: [{ port: 443 }] } });
    assert.equal(svc.status, 201, svc.body);
    const ep = await t.request('POST', '/api/v1/namespaces/default/endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'conv' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ port }] }] });
    assert.equal(ep.status, 201, ep.body);
    const cur = (await t.request('GET', `/apis/${AX}/v1/customresourcedefinitions/boxes.example.com`)).json<{ spec: Record<string, unknown> }>();
    const next = crd({ service: { namespace: 'default', name: 'conv', path: '/convert', port: 443 }, caBundle: Buffer.from(caPem).toString('base64') });
    const u = await t.request('PUT', `/apis/${AX}/v1/customresourcedefinitions/boxes.example.com`, { ...next, metadata: { ...next.metadata, resourceVersion: (cur as unknown as { metadata: { resourceVersion: string } }).metadata.resourceVersion } });
    assert.equal(u.status, 200, u.body);
    const before = calls.length;
    await eventually('a read through the service', async () => {
      const r = await t.request('GET', '/apis/example.com/v2/namespaces/default/boxes/b2');
      return r.status === 200 && calls.length > before;
    });
    const got = (await t.request('GET', '/apis/example.com/v2/namespaces/default/boxes/b2')).json<Obj>();
    assert.deepEqual(got.spec, { dimensions: { size: 'S' } });
  });
});
