/**
 * Defaulting before mutating admission, end to end (issue 14): a real
 * server and a real HTTPS mutating webhook on loopback. The webhook is sent
 * pods and Deployments already defaulted (imagePullPolicy, restartPolicy,
 * dnsPolicy, terminationMessagePath, the template's defaults), on create
 * and on a merge PATCH; a container the webhook's JSONPatch adds is
 * defaulted like the rest, as the original's decode of the patched object
 * defaults it.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { startAdmissionWebhook, allow, patch, type AdmissionWebhookServer } from './support/admission-webhook.ts';

const AR = `/apis/${apiGroup('admissionregistration')}/v1`;
const PODS = '/api/v1/namespaces/hooked/pods';
const DEPLOYMENTS = '/apis/apps/v1/namespaces/hooked/deployments';

type Json = Record<string, unknown>;
const spec = (o: unknown): Json => (o as { spec: Json }).spec;
const containers = (s: Json): Json[] => s['containers'] as Json[];

describe('defaulting before mutating webhooks, end to end', () => {
  let t: TestServer;
  let wh: AdmissionWebhookServer;
  /** What the webhook was sent, by object name and operation. */
  const seen = new Map<string, Json>();

  before(async () => {
    wh = await startAdmissionWebhook();
    wh.answer = (c) => {
      const req = c.review.request as unknown as { operation: string; object: { metadata: { name: string } } };
      seen.set(`${req.object.metadata.name}/${req.operation}`, req.object as unknown as Json);
      // Pods named side-* get a sidecar without any defaults.
      if (req.operation === 'CREATE' && req.object.metadata.name.startsWith('side')) {
        return patch(c, [{ op: 'add', path: '/spec/containers/-', value: { name: 'sidecar', image: 'busybox' } }]);
      }
      return allow(c);
    };
    t = await startTestServer(['--enable-admission-plugins=MutatingAdmissionWebhook']);
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'hooked', labels: { webhooks: 'on' } } })).status, 201);
    const cfg = await t.request('POST', `${AR}/mutatingwebhookconfigurations`, {
      metadata: { name: 'defaults' },
      webhooks: [
        {
          name: 'defaults.example.com',
          clientConfig: { url: wh.url('/mutate'), caBundle: wh.caBundle },
          rules: [
            { operations: ['CREATE', 'UPDATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] },
            { operations: ['CREATE', 'UPDATE'], apiGroups: ['apps'], apiVersions: ['v1'], resources: ['deployments'] },
          ],
          sideEffects: 'None',
          admissionReviewVersions: ['v1'],
          namespaceSelector: { matchLabels: { webhooks: 'on' } },
        },
      ],
    });
    assert.equal(cfg.status, 201, cfg.body);
    // The configuration takes effect through the thread's watch: wait until a pod create reaches the webhook.
    const end = Date.now() + 20_000;
    for (let i = 0; !seen.has(`probe${i - 1}/CREATE`); i++) {
      if (Date.now() > end) assert.fail('the webhook never took effect');
      const r = await t.request('POST', PODS, { metadata: { name: `probe${i}` }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
      assert.equal(r.status, 201, r.body);
      await new Promise((r) => setTimeout(r, 100));
    }
  });
  after(async () => {
    await t?.stop();
    await wh?.close();
  });

  it('the webhook is sent a defaulted pod on create, and on a merge PATCH', async () => {
    const r = await t.request('POST', PODS, { metadata: { name: 'p1' }, spec: { containers: [{ name: 'c', image: 'nginx:1.25' }] } });
    assert.equal(r.status, 201, r.body);
    const s = spec(seen.get('p1/CREATE'));
    const c = containers(s)[0]!;
    assert.equal(c['imagePullPolicy'], 'IfNotPresent');
    assert.equal(c['terminationMessagePath'], '/dev/termination-log');
    assert.equal(c['terminationMessagePolicy'], 'File');
    assert.equal(s['restartPolicy'], 'Always');
    assert.equal(s['dnsPolicy'], 'ClusterFirst');
    assert.equal(s['schedulerName'], 'default-scheduler');
    const p = await t.request('PATCH', `${PODS}/p1`, { metadata: { labels: { patched: 'yes' } } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(p.status, 200, p.body);
    const u = spec(seen.get('p1/UPDATE'));
    assert.equal(containers(u)[0]!['imagePullPolicy'], 'IfNotPresent');
    assert.equal(u['dnsPolicy'], 'ClusterFirst');
  });

  it('the webhook is sent a Deployment with its template defaulted', async () => {
    const r = await t.request('POST', DEPLOYMENTS, {
      metadata: { name: 'd1' },
      spec: { selector: { matchLabels: { app: 'd1' } }, template: { metadata: { labels: { app: 'd1' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    assert.equal(r.status, 201, r.body);
    const s = spec(seen.get('d1/CREATE'));
    assert.equal(s['replicas'], 1);
    assert.equal((s['strategy'] as Json)['type'], 'RollingUpdate');
    const tpl = spec(s['template']);
    assert.equal(tpl['restartPolicy'], 'Always');
    assert.equal(tpl['dnsPolicy'], 'ClusterFirst');
    assert.equal(containers(tpl)[0]!['imagePullPolicy'], 'Always');
    assert.equal(containers(tpl)[0]!['terminationMessagePath'], '/dev/termination-log');
  });

  it("a container the webhook's patch adds is defaulted in the stored pod (kubectl)", async () => {
    const r = await t.request('POST', PODS, { metadata: { name: 'side1' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    assert.equal(r.status, 201, r.body);
    const got = await t.kubectl(['get', 'pod', '-n', 'hooked', 'side1', '-o', 'jsonpath={.spec.containers[1].name} {.spec.containers[1].imagePullPolicy} {.spec.containers[1].terminationMessagePath}']);
    assert.equal(got.code, 0, got.stderr);
    assert.equal(got.stdout, 'sidecar Always /dev/termination-log');
  });
});
