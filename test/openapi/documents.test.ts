/**
 * The documents are valid JSON with the expected structure: the v3 index
 * points at every group/version with the hash of its bytes, each document's
 * references resolve inside it, and v2 holds every path in one document.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApi, contentHash } from '../../src/openapi/build.ts';
import { fixtureRegistry } from './fixture-catalog.ts';
import { obj, parse, refs } from './doc-helpers.ts';

const registry = fixtureRegistry();
const docs = buildOpenApi(registry);

describe('OpenAPI v3 documents', () => {
  it('lists one document per served group/version, with the hash of its bytes', () => {
    const index = obj(parse(docs.v3Index)['paths']);
    const expected = [...registry.groupVersions()].flatMap(([g, vs]) => vs.map((v) => (g === '' ? `api/${v}` : `apis/${g}/${v}`))).sort();
    assert.deepEqual(Object.keys(index).sort(), expected);
    for (const [gv, entry] of Object.entries(index)) {
      const bytes = docs.v3ByPath.get(gv);
      assert.ok(bytes, gv);
      assert.equal(obj(entry)['serverRelativeURL'], `/openapi/v3/${gv}?hash=${contentHash(bytes)}`);
      assert.equal(docs.etags.v3.get(gv), `"${contentHash(bytes)}"`);
    }
  });

  it('gives each document the OpenAPI 3 shape, and every reference resolves within it', () => {
    for (const [gv, bytes] of docs.v3ByPath) {
      const doc = parse(bytes);
      assert.equal(doc['openapi'], '3.0.0', gv);
      const components = obj(doc['components']);
      const schemas = obj(components['schemas']);
      const parameters = obj(components['parameters']);
      assert.ok(Object.keys(obj(doc['paths'])).length > 0, gv);
      for (const ref of refs(doc)) {
        const m = /^#\/components\/(schemas|parameters)\/(.+)$/.exec(ref);
        assert.ok(m, `${gv}: odd reference ${ref}`);
        assert.ok((m[1] === 'schemas' ? schemas : parameters)[m[2]!] !== undefined, `${gv}: dangling ${ref}`);
      }
    }
  });

  it('puts a group/version\'s paths only in its own document', () => {
    for (const [gv, bytes] of docs.v3ByPath) {
      for (const path of Object.keys(obj(parse(bytes)['paths']))) assert.ok(path.startsWith(`/${gv}/`), `${path} in ${gv}`);
    }
  });

  it('carries only schemas the document reaches (core types stay out of coordination)', () => {
    const schemas = Object.keys(obj(obj(parse(docs.v3ByPath.get('apis/coordination.orch.io/v1')!)['components'])['schemas']));
    assert.ok(schemas.includes('io.orch.api.coordination.v1.Lease'));
    assert.ok(!schemas.some((s) => s.startsWith('io.orch.api.core.')), schemas.join(','));
  });
});

describe('OpenAPI v2 document', () => {
  const doc = parse(docs.v2);
  it('is swagger 2.0 with every path of every group/version', () => {
    assert.equal(doc['swagger'], '2.0');
    const v2Paths = Object.keys(obj(doc['paths'])).sort();
    const v3Paths = [...docs.v3ByPath.values()].flatMap((b) => Object.keys(obj(parse(b)['paths']))).sort();
    assert.deepEqual(v2Paths, v3Paths);
  });
  it('resolves every reference to definitions or parameters', () => {
    const definitions = obj(doc['definitions']);
    const parameters = obj(doc['parameters']);
    for (const ref of refs(doc)) {
      const m = /^#\/(definitions|parameters)\/(.+)$/.exec(ref);
      assert.ok(m, `odd reference ${ref}`);
      assert.ok((m[1] === 'definitions' ? definitions : parameters)[m[2]!] !== undefined, `dangling ${ref}`);
    }
  });
  it('uses v2 shapes: body parameters, consumes, no allOf wrappers', () => {
    const patch = obj(obj(obj(doc['paths'])['/api/v1/namespaces/{namespace}/pods/{name}'])['patch']);
    assert.ok(Array.isArray(patch['consumes']) && patch['consumes'].includes('application/strategic-merge-patch+json'));
    assert.ok(Array.isArray(patch['parameters']) && patch['parameters'].some((p) => obj(p)['in'] === 'body'));
    assert.ok(!new TextDecoder().decode(docs.v2).includes('"allOf"'));
  });
});

describe('build', () => {
  it('is deterministic: the same registry gives the same bytes', () => {
    const again = buildOpenApi(fixtureRegistry());
    assert.deepEqual(again.v2, docs.v2);
    assert.deepEqual(again.v3Index, docs.v3Index);
  });
});
