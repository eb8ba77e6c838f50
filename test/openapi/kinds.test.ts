/**
 * Every served kind is findable the way clients find it: a schema carrying
 * its group/version/kind in both extension spellings, operations that name
 * the kind, and the `fieldValidation` parameter that tells kubectl the server
 * validates fields.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/build.ts';
import { fixtureRegistry } from './fixture-catalog.ts';
import { obj, parse, schemaByGvk } from './doc-helpers.ts';

const registry = fixtureRegistry();
const docs = buildOpenApi(registry);
const gvPath = (group: string, version: string): string => (group === '' ? `api/${version}` : `apis/${group}/${version}`);
const v3Schemas = (group: string, version: string) => obj(obj(parse(docs.v3ByPath.get(gvPath(group, version))!)['components'])['schemas']);
const v2 = parse(docs.v2);

describe('served kinds', () => {
  for (const rt of registry.types) {
    const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
    it(`${rt.apiVersion} ${rt.kind} has a schema with its GVK in both spellings, in v3 and v2`, () => {
      const schemas = v3Schemas(rt.group, rt.version);
      const k8s = schemaByGvk(schemas, gvk, 'kubernetes');
      const orch = schemaByGvk(schemas, gvk, 'orch');
      assert.ok(k8s, 'x-kubernetes-group-version-kind');
      assert.ok(orch, 'x-orch-group-version-kind');
      assert.equal(k8s[0], orch[0]);
      assert.ok(schemaByGvk(obj(v2['definitions']), gvk), 'v2 definition');
      if (rt.verbs.includes('list')) assert.ok(schemaByGvk(schemas, { ...gvk, kind: `${rt.kind}List` }), 'list kind');
      assert.ok(typeof k8s[1]['description'] === 'string' && k8s[1]['description'].length > 0);
    });
  }

  it('describes the kinds of subresources from other groups (deployments/scale is autoscaling/v1 Scale)', () => {
    const scale = schemaByGvk(v3Schemas('apps', 'v1'), { group: 'autoscaling', version: 'v1', kind: 'Scale' });
    assert.ok(scale);
    assert.equal(scale[0], 'io.orch.api.autoscaling.v1.Scale');
  });

  it('gives a kind nobody declared a minimal schema that keeps unknown fields', () => {
    const [, vwc] = schemaByGvk(v3Schemas('admissionregistration.orch.io', 'v1alpha1'), { group: 'admissionregistration.orch.io', version: 'v1alpha1', kind: 'ValidatingAdmissionPolicy' })!;
    assert.equal(vwc['x-kubernetes-preserve-unknown-fields'], true);
    assert.equal(vwc['x-orch-preserve-unknown-fields'], true);
    assert.ok(obj(vwc['properties'])['metadata']);
  });
});

describe('operations', () => {
  const ops = [...docs.v3ByPath.values()].flatMap((bytes) =>
    Object.entries(obj(parse(bytes)['paths'])).flatMap(([path, item]) =>
      Object.entries(obj(item))
        .filter(([m]) => m !== 'parameters')
        .map(([method, op]) => ({ path, method, op: obj(op) })),
    ),
  );

  it('name their action and kind in both spellings', () => {
    for (const { path, method, op } of ops) {
      assert.deepEqual(op['x-kubernetes-group-version-kind'], op['x-orch-group-version-kind'], `${method} ${path}`);
      assert.ok(op['x-kubernetes-group-version-kind'], `${method} ${path}`);
      assert.equal(op['x-kubernetes-action'], op['x-orch-action']);
    }
  });

  it('declare fieldValidation inline on every POST, PUT and PATCH that sends an object', () => {
    const writes = ops.filter((o) => ['post', 'put', 'patch'].includes(o.method) && o.op['x-kubernetes-action'] !== 'connect');
    assert.ok(writes.length > 100);
    for (const { path, method, op } of writes) {
      const params = (op['parameters'] as unknown[]).map((p) => obj(p as never));
      assert.ok(params.some((p) => p['name'] === 'fieldValidation' && p['in'] === 'query'), `${method} ${path}`);
    }
  });

  it('treat logs and exec as byte streams, not objects', () => {
    const paths = obj(parse(docs.v3ByPath.get('api/v1')!)['paths']);
    const exec = obj(obj(paths['/api/v1/namespaces/{namespace}/pods/{name}/exec'])['post']);
    assert.equal(exec['x-kubernetes-action'], 'connect');
    assert.equal(exec['requestBody'], undefined);
    const log = obj(obj(paths['/api/v1/namespaces/{namespace}/pods/{name}/log'])['get']);
    assert.deepEqual(obj(obj(obj(log['responses'])['200'])['content'])['*/*'], { schema: { type: 'string' } });
  });

  it('offer the list, create, read, replace, patch and delete operations the registry serves', () => {
    const pods = obj(parse(docs.v3ByPath.get('api/v1')!)['paths']);
    assert.deepEqual(Object.keys(obj(pods['/api/v1/namespaces/{namespace}/pods'])).sort(), ['delete', 'get', 'parameters', 'post']);
    assert.deepEqual(Object.keys(obj(pods['/api/v1/namespaces/{namespace}/pods/{name}'])).sort(), ['delete', 'get', 'parameters', 'patch', 'put']);
    assert.ok(pods['/api/v1/pods'], 'list across namespaces');
    assert.ok(pods['/api/v1/namespaces/{namespace}/pods/{name}/status']);
    // Services have no deletecollection in the catalog.
    assert.deepEqual(Object.keys(obj(pods['/api/v1/namespaces/{namespace}/services'])).sort(), ['get', 'parameters', 'post']);
    // Reviews are create-only.
    const authz = obj(parse(docs.v3ByPath.get('apis/authorization.orch.io/v1')!)['paths']);
    assert.deepEqual(Object.keys(obj(authz['/apis/authorization.orch.io/v1/selfsubjectaccessreviews'])).sort(), ['parameters', 'post']);
  });

  it('advertise strategic merge patch only for kinds whose schema is fully described', () => {
    const patchTypes = (gv: string, path: string) =>
      Object.keys(obj(obj(obj(obj(obj(parse(docs.v3ByPath.get(gv)!)['paths'])[path])['patch'])['requestBody'])['content']));
    assert.ok(patchTypes('api/v1', '/api/v1/namespaces/{namespace}/pods/{name}').includes('application/strategic-merge-patch+json'));
    assert.ok(patchTypes('apis/apps/v1', '/apis/apps/v1/namespaces/{namespace}/deployments/{name}').includes('application/strategic-merge-patch+json'));
    const ingress = patchTypes('apis/networking.orch.io/v1', '/apis/networking.orch.io/v1/namespaces/{namespace}/ingresses/{name}');
    assert.ok(!ingress.includes('application/strategic-merge-patch+json'));
    assert.ok(ingress.includes('application/merge-patch+json') && ingress.includes('application/apply-patch+yaml'));
  });
});
