/**
 * The caching rules of the document endpoints: ETags, immutable hashed URLs,
 * redirects for stale hashes, and 406 for protobuf-only requests.
 */
import { decodeOpenApiV2Protobuf } from '../../src/openapi/v2-protobuf.ts';
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildOpenApi } from '../../src/openapi/build.ts';
import { openApiResponse, type OpenApiRequest } from '../../src/openapi/serve.ts';
import { fixtureRegistry } from './fixture-catalog.ts';

const docs = buildOpenApi(fixtureRegistry());
const get = (path: string, extra: Partial<OpenApiRequest> = {}) => {
  const [p, q] = path.split('?');
  return openApiResponse(docs, { path: p!, query: new URLSearchParams(q ?? ''), ...extra });
};

describe('OpenApiDocuments.document', () => {
  it('finds each document by its path, as the server routes ask', () => {
    assert.equal(docs.document('/openapi/v2')?.body, docs.v2);
    assert.equal(docs.document('/openapi/v3')?.etag, docs.etags.v3Index);
    assert.equal(docs.document('/openapi/v3/')?.body, docs.v3Index);
    const apps = docs.document('/openapi/v3/apis/apps/v1');
    assert.equal(apps?.body, docs.v3ByPath.get('apis/apps/v1'));
    assert.equal(apps?.contentType, 'application/json');
    assert.equal(docs.document('/openapi/v3/apis/apps/v9'), undefined);
  });
});

describe('openApiResponse', () => {
  it('serves v2, the v3 index and group/version documents with ETags', () => {
    const v2 = get('/openapi/v2')!;
    assert.equal(v2.status, 200);
    assert.equal(v2.headers['etag'], docs.etags.v2);
    assert.equal(v2.headers['content-type'], 'application/json');
    assert.equal(get('/openapi/v3')!.body, docs.v3Index);
    assert.equal(get('/openapi/v3/apis/apps/v1')!.body, docs.v3ByPath.get('apis/apps/v1'));
  });

  it('answers 304 when the ETag matches', () => {
    const r = get('/openapi/v3/api/v1', { ifNoneMatch: docs.etags.v3.get('api/v1') })!;
    assert.equal(r.status, 304);
    assert.equal(r.body.length, 0);
  });

  it('marks a document fetched by its current hash immutable', () => {
    const hash = docs.v3Hashes.get('api/v1')!;
    const r = get(`/openapi/v3/api/v1?hash=${hash}`)!;
    assert.equal(r.status, 200);
    assert.equal(r.headers['cache-control'], 'public, immutable');
    assert.equal(get('/openapi/v3/api/v1')!.headers['cache-control'], 'no-cache, private');
  });

  it('redirects a stale hash to the current URL', () => {
    const r = get('/openapi/v3/api/v1?hash=0123')!;
    assert.equal(r.status, 301);
    assert.equal(r.headers['location'], `/openapi/v3/api/v1?hash=${docs.v3Hashes.get('api/v1')}`);
  });

  it('serves v2 as the gnostic Protobuf Document to clients that ask for it first, and JSON to the rest', () => {
    const pb = get('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' })!;
    assert.equal(pb.status, 200);
    assert.equal(pb.headers['content-type'], 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', 'a media type Go can parse: no `@`');
    assert.notEqual(pb.headers['etag'], docs.etags.v2, 'its own ETag');
    assert.equal(get('/openapi/v2', { accept: pb.headers['content-type']!, ifNoneMatch: pb.headers['etag'] })!.status, 304);
    const doc = decodeOpenApiV2Protobuf(pb.body) as { swagger: string; definitions: { additionalProperties: Array<{ name: string; value: { vendorExtension?: Array<{ name: string; value: { yaml: string } }>; properties?: unknown } }> }; paths: { path: Array<{ name: string }> } };
    const json = JSON.parse(Buffer.from(docs.v2).toString()) as { swagger: string; definitions: Record<string, unknown>; paths: Record<string, unknown> };
    assert.equal(doc.swagger, json.swagger);
    assert.deepEqual(doc.definitions.additionalProperties.map((d) => d.name), Object.keys(json.definitions), 'every definition, in order');
    assert.deepEqual(doc.paths.path.map((p) => p.name), Object.keys(json.paths), 'every path, in order');
    const pod = doc.definitions.additionalProperties.find((d) => d.name.endsWith('.core.v1.Pod'))!;
    const gvk = pod.value.vendorExtension!.find((e) => e.name.endsWith('-group-version-kind'))!;
    assert.deepEqual(JSON.parse(gvk.value.yaml), [{ group: '', kind: 'Pod', version: 'v1' }]);
    assert.equal(get('/openapi/v2', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf, application/json' })!.headers['content-type'], pb.headers['content-type']);
    assert.equal(get('/openapi/v2', { accept: 'application/json, application/com.github.proto-openapi.spec.v2@v1.0+protobuf' })!.headers['content-type'], 'application/json');
    assert.equal(get('/openapi/v2', { accept: '*/*' })!.headers['content-type'], 'application/json');
    assert.equal(get('/openapi/v3/api/v1', { accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' })!.status, 406, 'v3 has no Protobuf form');
  });

  it('leaves other paths to the caller', () => {
    assert.equal(get('/openapi/v3/apis/nothing/v1'), undefined);
    assert.equal(get('/api/v1'), undefined);
  });
});
