/**
 * Lone surrogates are replaced with U+FFFD when a body is decoded, as Go's
 * decoders do, so JSON and Protobuf answers carry the same text.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mayHoldSurrogateEscape, replaceLoneSurrogates } from '../../src/typed/well-formed.ts';
import { startTestServer } from '../support/test-server.ts';
import { decodeObject } from '../../src/protobuf/index.ts';

describe('lone surrogates', () => {
  it('are found only through a \\uD8xx-\\uDFxx escape', () => {
    assert.equal(mayHoldSurrogateEscape(Buffer.from('{"a":"\\udfff"}')), true);
    assert.equal(mayHoldSurrogateEscape(Buffer.from('{"a":"\\uD800x"}')), true);
    assert.equal(mayHoldSurrogateEscape(Buffer.from('{"a":"\\u0041 \\\\udfff"}')), false, 'an escaped backslash');
    assert.equal(mayHoldSurrogateEscape(Buffer.from('{"a":"plain ü"}')), false);
  });

  it('are replaced in values and keys, nested and in lists; well-formed pairs stay', () => {
    const v = JSON.parse('{"a":"x\\udfffy","\\ud800k":[{"b":"\\ud83d\\ude00"},"\\udc00"]}') as Record<string, unknown>;
    replaceLoneSurrogates(v);
    assert.deepEqual(v, { a: 'x\ufffdy', '\ufffdk': [{ b: '😀' }, '\ufffd'] });
  });

  it('reach neither JSON nor Protobuf answers: both carry U+FFFD (create, merge patch, apply)', async () => {
    const t = await startTestServer();
    try {
      const cm = '/api/v1/namespaces/default/configmaps';
      const created = await t.request('POST', cm, '{"metadata":{"name":"sur","annotations":{"a":"\\udfff\\ud800"}},"data":{"k":"\\ud800"}}');
      assert.equal(created.status, 201, created.body);
      const patched = await t.request('PATCH', `${cm}/sur`, '{"data":{"m":"\\udc00"}}', { headers: { 'content-type': 'application/merge-patch+json' } });
      assert.equal(patched.status, 200, patched.body);
      const applied = await t.request('PATCH', `${cm}/sur?fieldManager=m`, 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: sur\ndata:\n  z: "\\udfff"\n', { headers: { 'content-type': 'application/apply-patch+yaml' } });
      assert.equal(applied.status, 200, applied.body);
      const json = (await t.request('GET', `${cm}/sur`)).json<{ metadata: { annotations: Record<string, string> }; data: Record<string, string> }>();
      assert.equal(json.metadata.annotations['a'], '\ufffd\ufffd');
      assert.deepEqual(json.data, { k: '\ufffd', m: '\ufffd', z: '\ufffd' });
      const pb = await t.request('GET', `${cm}/sur`, undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      const fromPb = decodeObject(pb.raw).object as { data: Record<string, string> };
      assert.deepEqual(fromPb.data, json.data);
    } finally {
      await t.stop();
    }
  });
});

describe('inline embedded structs of supplement types', () => {
  it('keep their fields in the host: an Ingress rule\'s http survives decoding, JSON and Protobuf', async () => {
    const t = await startTestServer();
    try {
      const path = '/apis/networking.orch.io/v1/namespaces/default/ingresses';
      const body = { metadata: { name: 'ing' }, spec: { rules: [{ host: 'a.example.com', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 's', port: { number: 80 } } } }] } }] } };
      const created = await t.request('POST', `${path}?fieldValidation=Strict`, body);
      assert.equal(created.status, 201, created.body);
      const json = (await t.request('GET', `${path}/ing`)).json<{ spec: { rules: Array<{ http?: unknown }> } }>();
      assert.deepEqual(json.spec.rules[0]!.http, body.spec.rules[0]!.http);
      const pb = await t.request('GET', `${path}/ing`, undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      const fromPb = decodeObject(pb.raw).object as { spec: { rules: Array<{ http?: unknown }> } };
      assert.deepEqual(fromPb.spec.rules[0]!.http, body.spec.rules[0]!.http);
    } finally {
      await t.stop();
    }
  });
});

describe('quantities sent as JSON numbers', () => {
  it('are stored as strings, as the original\'s Quantity writes them, so JSON and Protobuf agree', async () => {
    const t = await startTestServer();
    try {
      const quota = { metadata: { name: 'q' }, spec: { hard: { cpu: 2, memory: 1.5, pods: 10 } } };
      const created = await t.request('POST', '/api/v1/namespaces/default/resourcequotas', quota);
      assert.equal(created.status, 201, created.body);
      const json = (await t.request('GET', '/api/v1/namespaces/default/resourcequotas/q')).json<{ spec: { hard: Record<string, unknown> } }>();
      assert.deepEqual(json.spec.hard, { cpu: '2', memory: '1.5', pods: '10' });
      const pb = await t.request('GET', '/api/v1/namespaces/default/resourcequotas/q', undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      assert.deepEqual((decodeObject(pb.raw).object as { spec: { hard: unknown } }).spec.hard, json.spec.hard);
    } finally {
      await t.stop();
    }
  });
});

describe('null elements of typed lists and maps', () => {
  it('become the element type\'s zero value, as Go decodes them (fuzz seed 3, case 13506)', async () => {
    const t = await startTestServer();
    try {
      const path = '/apis/rbac.authorization.orch.io/v1/namespaces/default/roles';
      const created = await t.request('POST', path, { metadata: { name: 'r', labels: { a: 'b' } }, rules: [{ apiGroups: [null], resources: ['pods'], verbs: ['get'] }] });
      assert.equal(created.status, 201, created.body);
      const json = (await t.request('GET', `${path}/r`)).json<{ rules: Array<{ apiGroups: unknown[] }> }>();
      assert.deepEqual(json.rules[0]!.apiGroups, ['']);
      const pb = await t.request('GET', `${path}/r`, undefined, { headers: { accept: 'application/vnd.kubernetes.protobuf' } });
      assert.deepEqual((decodeObject(pb.raw).object as { rules: Array<{ apiGroups: unknown[] }> }).rules[0]!.apiGroups, ['']);
      const cm = await t.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: 'nulls' }, data: { a: null } });
      assert.equal(cm.status, 201, cm.body);
      assert.deepEqual(cm.json<{ data: unknown }>().data, { a: '' });
    } finally {
      await t.stop();
    }
  });
});
