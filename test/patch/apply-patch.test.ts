/**
 * applyPatch, the entry point the PATCH handler calls: dispatch on the
 * content type and the Status errors of the original's patch handler
 * (apiserver pkg/endpoints/handlers/patch.go), code, reason and message.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../src/api/status.ts';
import { SchemaSet } from '../../src/openapi/schema-set.ts';
import { ALL_TYPES } from '../../src/openapi/types/index.ts';
import {
  applyPatch,
  JSON_PATCH_TYPE,
  MAX_PATCH_BODY_BYTES,
  MERGE_PATCH_TYPE,
  PatchError,
  schemaLookupFor,
  STRATEGIC_MERGE_PATCH_TYPE,
  supportedPatchTypes,
  type ApplyPatchRequest,
} from '../../src/patch/index.ts';

const set = new SchemaSet(ALL_TYPES);
const schema = schemaLookupFor(set, set.byKind({ group: '', version: 'v1', kind: 'ConfigMap' })!.name);
const original = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', labels: { a: '1' } }, data: { k: 'v' } };

function status(req: Partial<ApplyPatchRequest> & { patchBytes: string | Uint8Array }): StatusError {
  try {
    applyPatch({ contentType: JSON_PATCH_TYPE, original, schema, ...req });
  } catch (e) {
    assert.ok(e instanceof StatusError, `a StatusError, not ${String(e)}`);
    return e;
  }
  assert.fail('expected the patch to fail');
}

describe('applyPatch: dispatch', () => {
  it('applies each patch type and leaves the original alone', () => {
    const before = structuredClone(original);
    const json = applyPatch({ contentType: JSON_PATCH_TYPE, original, patchBytes: '[{"op":"replace","path":"/data/k","value":"w"}]', schema });
    const merge = applyPatch({ contentType: MERGE_PATCH_TYPE, original, patchBytes: '{"metadata":{"labels":{"a":null,"b":"2"}}}', schema });
    const smp = applyPatch({ contentType: STRATEGIC_MERGE_PATCH_TYPE, original, patchBytes: new TextEncoder().encode('{"data":{"k2":"v2"}}'), schema });
    assert.deepEqual(json['data'], { k: 'w' });
    assert.deepEqual((merge['metadata'] as Record<string, unknown>)['labels'], { b: '2' });
    assert.deepEqual(smp['data'], { k: 'v', k2: 'v2' });
    assert.deepEqual(original, before);
  });

  it('ignores media type parameters and case', () => {
    const out = applyPatch({ contentType: 'Application/Merge-Patch+JSON; charset=utf-8', original, patchBytes: '{"data":{"k":"x"}}', schema });
    assert.deepEqual(out['data'], { k: 'x' });
  });

  it('a null strategic merge patch changes nothing, as in the original', () => {
    assert.deepEqual(applyPatch({ contentType: STRATEGIC_MERGE_PATCH_TYPE, original, patchBytes: 'null', schema }), original);
  });
});

describe('applyPatch: 415', () => {
  it('for a strategic merge patch to a type without a schema, naming the types it takes', () => {
    const e = status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, schema: undefined, patchBytes: '{}' });
    assert.equal(e.code, 415);
    assert.equal(e.reason, 'UnsupportedMediaType');
    assert.equal(e.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json');
  });

  it('for server-side apply, until it exists', () => {
    const e = status({ contentType: 'application/apply-patch+yaml', patchBytes: 'metadata: {}' });
    assert.equal(e.code, 415);
    assert.equal(e.message, 'the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json');
  });

  it('for other or missing types', () => {
    assert.equal(status({ contentType: 'application/json', patchBytes: '{}' }).code, 415);
    assert.equal(status({ contentType: undefined, patchBytes: '{}' }).code, 415);
  });

  it('lists the supported types in the original order', () => {
    assert.deepEqual(supportedPatchTypes(true), ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json']);
    assert.deepEqual(supportedPatchTypes(false), ['application/json-patch+json', 'application/merge-patch+json']);
  });
});

describe('applyPatch: 413', () => {
  it('past the 3 MiB body limit, with the original message', () => {
    const big = `{"data":{"k":"${'x'.repeat(MAX_PATCH_BODY_BYTES)}"}}`;
    const e = status({ contentType: MERGE_PATCH_TYPE, patchBytes: big });
    assert.equal(e.code, 413);
    assert.equal(e.reason, 'RequestEntityTooLarge');
    assert.equal(e.message, 'Request entity too large: limit is 3145728');
    assert.equal(status({ contentType: MERGE_PATCH_TYPE, patchBytes: '{"a":1}', maxBodyBytes: 6 }).code, 413);
    assert.doesNotThrow(() => applyPatch({ contentType: MERGE_PATCH_TYPE, original, patchBytes: '{"a":1}', maxBodyBytes: 7, schema }));
  });

  it('past 10000 JSON patch operations', () => {
    const ops = JSON.stringify(Array.from({ length: 10_001 }, () => ({ op: 'test', path: '/kind', value: 'ConfigMap' })));
    const e = status({ patchBytes: ops });
    assert.equal(e.code, 413);
    assert.equal(e.message, 'The allowed maximum operations in a JSON patch is 10000, got 10001');
  });
});

describe('applyPatch: 400', () => {
  for (const type of [JSON_PATCH_TYPE, MERGE_PATCH_TYPE, STRATEGIC_MERGE_PATCH_TYPE]) {
    it(`a body that is not JSON (${type})`, () => {
      for (const body of ['', '{', 'metadata: {}']) {
        const e = status({ contentType: type, patchBytes: body });
        assert.equal(e.code, 400);
        assert.equal(e.reason, 'BadRequest');
        assert.equal(e.message, 'invalid JSON patch');
      }
    });
  }

  it('a JSON patch that is not a list of objects', () => {
    assert.equal(status({ patchBytes: '{"op":"add"}' }).message, 'json: cannot unmarshal object into Go value of type jsonpatch.Patch');
    assert.equal(status({ patchBytes: '["add"]' }).message, 'json: cannot unmarshal string into Go value of type jsonpatch.Operation');
    assert.equal(status({ patchBytes: '{"op":"add"}' }).code, 400);
  });

  it('a merge patch that is null or a scalar', () => {
    for (const body of ['null', '1', '"x"', 'true']) {
      const e = status({ contentType: MERGE_PATCH_TYPE, patchBytes: body });
      assert.equal(e.code, 400);
      assert.equal(e.message, 'Invalid JSON Patch');
    }
  });

  it('a strategic merge patch that is not an object', () => {
    const e = status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, patchBytes: '[1]' });
    assert.equal(e.code, 400);
    assert.equal(e.message, 'json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.equal(status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, patchBytes: '"x"' }).message, 'json: cannot unmarshal string into Go value of type map[string]interface {}');
  });

  it('malformed strategic merge directives', () => {
    assert.equal(status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, patchBytes: '{"metadata":{"$retainKeys":"name"}}' }).message, 'invalid patch format of retainKeys');
    assert.equal(status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, patchBytes: '{"metadata":{"$deleteFromPrimitiveListfinalizers":["a"]}}' }).message, 'invalid patch format of primitive list');
    assert.equal(status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, patchBytes: '{"metadata":{"$setElementOrderX/finalizers":["a"]}}' }).code, 400);
  });
});

describe('applyPatch: 422', () => {
  it('a JSON patch operation that does not apply: the generic message, the detail kept as the cause', () => {
    const e = status({ patchBytes: '[{"op":"test","path":"/data/k","value":"other"}]' });
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.equal(e.message, 'the server rejected our request due to an error in our request');
    assert.deepEqual(e.toStatus().details, {});
    assert.ok(e.cause instanceof PatchError);
    assert.equal(e.cause.message, 'testing value /data/k failed: test failed');
  });

  it('a JSON patch that makes the object a list', () => {
    const e = status({ patchBytes: '[{"op":"replace","path":"","value":[1]}]' });
    assert.equal(e.code, 422);
    assert.equal(e.message, ' "" is invalid: patch: Invalid value: "[1]": json: cannot unmarshal array into Go value of type map[string]interface {}');
    assert.deepEqual(e.details?.causes?.[0]?.field, 'patch');
  });

  it('a merge patch that is a list', () => {
    const e = status({ contentType: MERGE_PATCH_TYPE, patchBytes: '[{"a":null}]' });
    assert.equal(e.code, 422);
    assert.equal(e.reason, 'Invalid');
    assert.match(e.message, /^ "" is invalid: patch: Invalid value: "\[\{\}\]"/);
  });

  it('a strategic merge patch with a list of lists', () => {
    const pod = schemaLookupFor(set, set.byKind({ group: '', version: 'v1', kind: 'Pod' })!.name);
    const e = status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, schema: pod, original: { metadata: { finalizers: [] } }, patchBytes: '{"metadata":{"finalizers":[["b"]]}}' });
    assert.equal(e.code, 422);
    assert.equal(e.message, 'the server rejected our request due to an error in our request');
  });
});

describe('applyPatch: 500 for the strategic merge failures the original does not classify', () => {
  const pod = schemaLookupFor(set, set.byKind({ group: '', version: 'v1', kind: 'Pod' })!.name);
  const podObj = { metadata: { name: 'p' }, spec: { containers: [{ name: 'a', image: 'x' }] } };
  const smp = (patch: unknown): StatusError => status({ contentType: STRATEGIC_MERGE_PATCH_TYPE, schema: pod, original: podObj, patchBytes: JSON.stringify(patch) });

  it('a list item without its merge key', () => {
    const e = smp({ spec: { containers: [{ image: 'foo' }] } });
    assert.equal(e.code, 500);
    assert.equal(e.reason, '');
    assert.equal(e.message, 'map: map[image:foo] does not contain declared merge key: name');
  });

  it('an unknown $patch directive', () => {
    assert.equal(smp({ spec: { $patch: 'merge' } }).message, 'unknown patch type: merge in map: map[$patch:merge]');
    assert.equal(smp({ spec: { containers: [{ name: 'a', $patch: 'merge' }] } }).message, 'merging lists cannot yet be specified in the patch');
  });

  it('a $setElementOrder list that contradicts the patch list', () => {
    const e = smp({ spec: { '$setElementOrder/containers': [{ name: 'a' }, { name: 'b' }], containers: [{ name: 'b', image: 'y' }, { name: 'a', image: 'z' }] } });
    assert.equal(e.code, 500);
    assert.match(e.message, /doesn't match \$setElementOrder list/);
  });
});
