/**
 * End to end with the real kubectl (v1.32 understands only the
 * x-kubernetes-* spellings): `explain` reads our descriptions, client-side
 * `apply` computes strategic merge patches from our merge keys, and kubectl
 * learns from the `fieldValidation` parameter that the server validates.
 * All traffic stays on 127.0.0.1; skipped when kubectl is not installed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/build.ts';
import { fixtureRegistry } from './fixture-catalog.ts';
import { startHarness, type Harness } from './kubectl-harness.ts';

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** kubectl explain wraps and indents; compare with whitespace collapsed. */
const flat = (s: string): string => s.replace(/\s+/g, ' ');

describe('kubectl', { skip: hasKubectl() ? false : 'kubectl not on PATH', timeout: 180_000 }, () => {
  const registry = fixtureRegistry();
  let h: Harness;
  before(async () => {
    h = await startHarness(registry, buildOpenApi(registry));
  });
  after(async () => {
    await h.close();
  });

  it('explain pods.spec.containers shows our field descriptions', async () => {
    const r = await h.kubectl(['explain', 'pods.spec.containers']);
    assert.equal(r.code, 0, r.stderr);
    const out = flat(r.stdout);
    assert.match(out, /KIND: Pod VERSION: v1/);
    assert.match(out, /FIELD: containers <\[\]Container>/);
    assert.ok(out.includes('The app containers of the pod; at least one.'), out);
    assert.ok(out.includes('name <string> -required- Container name; a DNS label, unique within the pod.'), out);
    assert.ok(out.includes('ports <[]ContainerPort> Ports the container exposes; informational.'), out);
    assert.ok(out.includes('enum: Always, Never, IfNotPresent'), out);
  });

  it('explain deployments.spec.strategy finds the apps group and shows the strategy fields', async () => {
    const r = await h.kubectl(['explain', 'deployments.spec.strategy']);
    assert.equal(r.code, 0, r.stderr);
    const out = flat(r.stdout);
    assert.match(out, /GROUP: apps KIND: Deployment VERSION: v1/);
    assert.ok(out.includes('How old pods are replaced by new ones.'), out);
    assert.ok(out.includes('rollingUpdate <RollingUpdateDeployment>'), out);
    assert.ok(out.includes('type <string> enum: Recreate, RollingUpdate Recreate or RollingUpdate; default RollingUpdate.'), out);
  });

  it('explain works for a group kubectl has never heard of', async () => {
    const r = await h.kubectl(['explain', 'leases.spec.holderIdentity']);
    assert.equal(r.code, 0, r.stderr);
    assert.ok(flat(r.stdout).includes('Identity of the current holder.'), r.stdout);
  });

  it('apply merges a keyed list by its patch merge key and asks for strict validation', async () => {
    // An orch.io group is not compiled into kubectl: a strategic merge patch
    // can only have come from the merge keys in our v3 document.
    const config = (names: string[]): string =>
      JSON.stringify({
        apiVersion: 'admissionregistration.orch.io/v1',
        kind: 'ValidatingWebhookConfiguration',
        metadata: { name: 'demo' },
        webhooks: names.map((n) => ({ name: n, clientConfig: { url: `https://${n}/check` }, sideEffects: 'None', admissionReviewVersions: ['v1'] })),
      });
    const created = await h.kubectl(['apply', '-f', '-'], config(['a.example.com']));
    assert.equal(created.code, 0, created.stderr);
    const changed = await h.kubectl(['apply', '-f', '-'], config(['a.example.com', 'b.example.com']));
    assert.equal(changed.code, 0, changed.stderr);
    assert.ok(!changed.stderr.includes('warning'), changed.stderr);

    const post = h.requests.find((q) => q.method === 'POST' && q.url.startsWith('/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations'));
    assert.ok(post?.url.includes('fieldValidation=Strict'), post?.url);
    const patch = h.requests.find((q) => q.method === 'PATCH' && q.url.startsWith('/apis/admissionregistration.orch.io/v1/validatingwebhookconfigurations/demo'));
    assert.ok(patch, 'kubectl sent a PATCH');
    assert.equal(patch.contentType, 'application/strategic-merge-patch+json');
    const body = JSON.parse(patch.body) as Record<string, unknown>;
    assert.deepEqual(body['$setElementOrder/webhooks'], [{ name: 'a.example.com' }, { name: 'b.example.com' }]);
    assert.deepEqual((body['webhooks'] as { name: string }[]).map((w) => w.name), ['b.example.com']);
  });

  it('apply of a shallowly described kind falls back to a JSON merge patch, without warnings', async () => {
    const ingress = (host: string): string =>
      JSON.stringify({
        apiVersion: 'networking.orch.io/v1',
        kind: 'Ingress',
        metadata: { name: 'web', namespace: 'default' },
        spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } }] } }] },
      });
    assert.equal((await h.kubectl(['apply', '-f', '-'], ingress('a.example.com'))).code, 0);
    const changed = await h.kubectl(['apply', '-f', '-'], ingress('b.example.com'));
    assert.equal(changed.code, 0, changed.stderr);
    assert.ok(!changed.stderr.includes('warning'), changed.stderr);
    const patch = h.requests.find((q) => q.method === 'PATCH' && q.url.includes('/ingresses/web'));
    assert.equal(patch?.contentType, 'application/merge-patch+json');
  });
});
