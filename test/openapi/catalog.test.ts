/**
 * The documents built from the server's own catalog: every served kind has a
 * schema with its GVK in both spellings, and the build stays fast. Kinds the
 * catalog adds later without a declaration still get a (minimal) schema.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { obj, parse, schemaByGvk } from './doc-helpers.ts';

describe('documents for the built-in catalog', () => {
  const registry = new ResourceRegistry(builtinResourceTypes);
  const docs = buildOpenApi(registry);

  it('gives every served kind a schema carrying its GVK in both spellings', () => {
    for (const rt of registry.types) {
      const gv = rt.group === '' ? `api/${rt.version}` : `apis/${rt.group}/${rt.version}`;
      const schemas = obj(obj(parse(docs.document(`/openapi/v3/${gv}`)!.body)['components'])['schemas']);
      const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
      assert.ok(schemaByGvk(schemas, gvk, 'kubernetes'), `${rt.apiVersion} ${rt.kind}`);
      assert.ok(schemaByGvk(schemas, gvk, 'orch'), `${rt.apiVersion} ${rt.kind}`);
    }
  });

  it('lists one v3 document per served group/version', () => {
    const listed = Object.keys(obj(parse(docs.v3Index)['paths'])).length;
    const served = [...registry.groupVersions().values()].reduce((n, vs) => n + vs.length, 0);
    assert.equal(listed, served);
  });
});
