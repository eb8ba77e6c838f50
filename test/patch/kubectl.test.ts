/**
 * End to end with the real kubectl (v1.32): what it sends for `apply`,
 * `label`, `annotate` and `patch`, computed by kubectl itself against a
 * loopback server that serves our OpenAPI documents (test/openapi's
 * harness), is recorded and applied with applyPatch to the stored object.
 * kubectl cannot compute an apply patch offline (it reads the live object
 * first), hence the harness. Skipped when kubectl is not installed.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/build.ts';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { ALL_TYPES } from '../../src/openapi/types/index.ts';
import { applyPatch, schemaLookupFor } from '../../src/patch/index.ts';
import { fixtureRegistry } from '../openapi/fixture-catalog.ts';
import { startHarness, type Harness, type RecordedRequest } from '../openapi/kubectl-harness.ts';

type Obj = Record<string, unknown>;

function hasKubectl(): boolean {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

const set = new SchemaSet(ALL_TYPES);
const deploymentSchema = schemaLookupFor(set, set.byKind({ group: 'apps', version: 'v1', kind: 'Deployment' })!.name);
const ITEM = '/apis/apps/v1/namespaces/default/deployments/web';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

const at = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (v as Obj | undefined)?.[k], o);

describe('kubectl patches applied with applyPatch', { skip: hasKubectl() ? false : 'kubectl not on PATH', timeout: 180_000 }, () => {
  let h: Harness;
  /** The object as our server would store it after each patch. */
  let live: Obj;

  /** Runs kubectl, returns the one PATCH it sent for our deployment. */
  async function patchSentBy(args: string[], stdin?: string): Promise<RecordedRequest> {
    const seen = h.requests.length;
    const r = await h.kubectl(args, stdin);
    assert.equal(r.code, 0, r.stderr);
    const patches = h.requests.slice(seen).filter((q) => q.method === 'PATCH' && q.url.startsWith(ITEM));
    assert.equal(patches.length, 1, `one PATCH from kubectl ${args.join(' ')}`);
    return patches[0]!;
  }

  /**
   * Applies what kubectl sent to our copy of the object, then hands the
   * result back to the harness (whose PATCH only echoes) by creating it
   * again, so kubectl's next read sees the patched object.
   */
  async function applySent(req: RecordedRequest): Promise<Obj> {
    live = applyPatch({ contentType: req.contentType, original: live, patchBytes: req.body, schema: deploymentSchema });
    const stored = await h.kubectl(['create', '-f', '-'], JSON.stringify(live));
    assert.equal(stored.code, 0, stored.stderr);
    return live;
  }

  before(async () => {
    const registry = fixtureRegistry();
    h = await startHarness(registry, buildOpenApi(registry));
  });
  after(async () => {
    await h.close();
  });

  // What `kubectl create deployment` would create, computed offline.
  let manifest: Obj;
  it('kubectl create --dry-run=client gives the object to start from', async () => {
    const r = await h.kubectl(['create', 'deployment', 'web', '--image=nginx', '--dry-run=client', '-o', 'json']);
    assert.equal(r.code, 0, r.stderr);
    manifest = JSON.parse(r.stdout) as Obj;
    (manifest['metadata'] as Obj)['namespace'] = 'default';
    assert.deepEqual(at(manifest, 'spec', 'template', 'spec', 'containers'), [{ name: 'nginx', image: 'nginx', resources: {} }]);
  });

  it('kubectl apply creates, then sends a strategic merge patch with $setElementOrder and the last-applied annotation', async () => {
    const created = await h.kubectl(['apply', '-f', '-'], JSON.stringify(manifest));
    assert.equal(created.code, 0, created.stderr);
    const post = h.requests.find((q) => q.method === 'POST' && q.url.startsWith('/apis/apps/v1/namespaces/default/deployments'));
    assert.ok(post, 'kubectl created the deployment');
    live = { ...(JSON.parse(post.body) as Obj) };

    const changed = structuredClone(manifest);
    const podSpec = at(changed, 'spec', 'template', 'spec') as Obj;
    podSpec['containers'] = [
      { name: 'nginx', image: 'nginx:1.27', resources: {}, env: [{ name: 'MODE', value: 'prod' }] },
      { name: 'sidecar', image: 'envoy:1.30', resources: {} },
    ];
    (at(changed, 'metadata', 'labels') as Obj)['tier'] = 'front';
    const sent = await patchSentBy(['apply', '-f', '-'], JSON.stringify(changed));

    assert.equal(sent.contentType, 'application/strategic-merge-patch+json');
    const body = JSON.parse(sent.body) as Obj;
    assert.deepEqual(at(body, 'spec', 'template', 'spec', '$setElementOrder/containers'), [{ name: 'nginx' }, { name: 'sidecar' }]);
    assert.equal(typeof at(body, 'metadata', 'annotations', LAST_APPLIED), 'string');

    const out = await applySent(sent);
    const containers = at(out, 'spec', 'template', 'spec', 'containers') as Obj[];
    assert.deepEqual(containers.map((c) => [c['name'], c['image']]), [['nginx', 'nginx:1.27'], ['sidecar', 'envoy:1.30']]);
    assert.deepEqual(containers[0]!['env'], [{ name: 'MODE', value: 'prod' }]);
    assert.deepEqual(at(out, 'metadata', 'labels'), { app: 'web', tier: 'front' });
    const recorded = JSON.parse(at(out, 'metadata', 'annotations', LAST_APPLIED) as string) as Obj;
    assert.deepEqual(recorded['spec'], changed['spec'], 'the annotation records the applied configuration');
    assert.deepEqual(at(out, 'spec', 'selector'), { matchLabels: { app: 'web' } }, 'untouched fields stay');
  });

  it('kubectl apply that drops a container and an env var sends deletions the merge honours', async () => {
    const changed = structuredClone(manifest);
    (at(changed, 'spec', 'template', 'spec') as Obj)['containers'] = [{ name: 'nginx', image: 'nginx:1.27', resources: {} }];
    (at(changed, 'metadata', 'labels') as Obj)['tier'] = 'front';
    const sent = await patchSentBy(['apply', '-f', '-'], JSON.stringify(changed));
    const body = JSON.parse(sent.body) as Obj;
    assert.equal(sent.contentType, 'application/strategic-merge-patch+json');
    assert.deepEqual(at(body, 'spec', 'template', 'spec', '$setElementOrder/containers'), [{ name: 'nginx' }]);
    assert.ok(sent.body.includes('"$patch":"delete"'), sent.body);
    const out = await applySent(sent);
    assert.deepEqual(at(out, 'spec', 'template', 'spec', 'containers'), [{ name: 'nginx', image: 'nginx:1.27', resources: {} }], sent.body);
  });

  it('kubectl label sends a JSON merge patch on metadata', async () => {
    const sent = await patchSentBy(['label', 'deployment', 'web', '-n', 'default', 'team=blue']);
    assert.equal(sent.contentType, 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(sent.body), { metadata: { labels: { team: 'blue' } } });
    assert.deepEqual(at((await applySent(sent)), 'metadata', 'labels'), { app: 'web', tier: 'front', team: 'blue' });
  });

  it('kubectl label key- removes it with a null', async () => {
    const sent = await patchSentBy(['label', 'deployment', 'web', '-n', 'default', 'app-']);
    assert.equal(sent.contentType, 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(sent.body), { metadata: { labels: { app: null } } });
    assert.equal(at((await applySent(sent)), 'metadata', 'labels', 'app'), undefined);
  });

  it('kubectl annotate sends a JSON merge patch on metadata', async () => {
    const sent = await patchSentBy(['annotate', 'deployment', 'web', '-n', 'default', 'note=hello']);
    assert.equal(sent.contentType, 'application/merge-patch+json');
    assert.deepEqual(JSON.parse(sent.body), { metadata: { annotations: { note: 'hello' } } });
    const out = await applySent(sent);
    assert.equal(at(out, 'metadata', 'annotations', 'note'), 'hello');
    assert.equal(typeof at(out, 'metadata', 'annotations', LAST_APPLIED), 'string', 'other annotations stay');
  });

  it('kubectl patch defaults to a strategic merge patch and merges the container by name', async () => {
    const p = { spec: { template: { spec: { containers: [{ name: 'nginx', image: 'nginx:1.28' }] } } } };
    const sent = await patchSentBy(['patch', 'deployment', 'web', '-n', 'default', '-p', JSON.stringify(p)]);
    assert.equal(sent.contentType, 'application/strategic-merge-patch+json');
    const containers = at((await applySent(sent)), 'spec', 'template', 'spec', 'containers') as Obj[];
    assert.deepEqual(containers.map((c) => [c['name'], c['image']]), [['nginx', 'nginx:1.28']]);
  });

  it('kubectl patch --type=json sends RFC 6902 operations', async () => {
    const ops = [{ op: 'replace', path: '/spec/replicas', value: 3 }, { op: 'test', path: '/metadata/name', value: 'web' }];
    const sent = await patchSentBy(['patch', 'deployment', 'web', '-n', 'default', '--type=json', '-p', JSON.stringify(ops)]);
    assert.equal(sent.contentType, 'application/json-patch+json');
    assert.equal(at((await applySent(sent)), 'spec', 'replicas'), 3);
  });
});
