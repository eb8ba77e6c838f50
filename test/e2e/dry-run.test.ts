/**
 * dryRun=All (spec 4.7): every stage runs, nothing is stored, the normal
 * status code and the would-be object come back; other values are 400.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';

type Obj = { metadata: { name: string; uid?: string; resourceVersion?: string; deletionTimestamp?: string }; data?: Record<string, string>; status?: string };
const NS = '/api/v1/namespaces/default/configmaps';

describe('dry-run', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    assert.equal((await t.request('POST', NS, { metadata: { name: 'real' }, data: { v: '1' } })).status, 201);
  });
  after(async () => {
    await t?.stop();
  });

  it('POST: 201 with the would-be object, nothing stored; validation still runs', async () => {
    const r = await t.request('POST', `${NS}?dryRun=All`, { metadata: { name: 'ghost' }, data: { v: '1' } });
    assert.equal(r.status, 201);
    const obj = r.json<Obj>();
    assert.equal(obj.metadata.name, 'ghost');
    assert.match(obj.metadata.uid!, /^[0-9a-f-]{36}$/, 'generated fields are filled');
    assert.equal((await t.request('GET', `${NS}/ghost`)).status, 404, 'not stored');
    assert.equal((await t.request('POST', `${NS}?dryRun=All`, { metadata: { name: 'BAD_NAME' } })).status, 422, 'validation runs');
    assert.equal((await t.request('POST', `${NS}?dryRun=All`, { metadata: { name: 'real' } })).status, 409, 'conflicts are found');
    assert.equal((await t.request('POST', '/api/v1/namespaces/nowhere/configmaps?dryRun=All', { metadata: { name: 'x' } })).status, 404, 'admission runs');
  });

  it('PUT and PATCH: 200 with the would-be object; the stored one is unchanged', async () => {
    const cur = (await t.request('GET', `${NS}/real`)).json<Obj>();
    const put = await t.request('PUT', `${NS}/real?dryRun=All`, { ...cur, data: { v: 'put' } });
    assert.equal(put.status, 200);
    assert.equal(put.json<Obj>().data!['v'], 'put');
    const patch = await t.request('PATCH', `${NS}/real?dryRun=All`, { data: { v: 'patched' } }, { headers: { 'content-type': 'application/merge-patch+json' } });
    assert.equal(patch.status, 200);
    assert.equal(patch.json<Obj>().data!['v'], 'patched');
    const after = (await t.request('GET', `${NS}/real`)).json<Obj>();
    assert.equal(after.data!['v'], '1');
    assert.equal(after.metadata.resourceVersion, cur.metadata.resourceVersion, 'no write happened');
  });

  it('DELETE: 200, the object stays; with finalizers the would-be object is returned', async () => {
    const del = await t.request('DELETE', `${NS}/real?dryRun=All`);
    assert.equal(del.status, 200);
    assert.equal((await t.request('GET', `${NS}/real`)).status, 200, 'still there');
    await t.request('POST', NS, { metadata: { name: 'held', finalizers: ['example.com/x'] } });
    const pending = await t.request('DELETE', `${NS}/held`, { dryRun: ['All'] });
    assert.equal(pending.status, 200);
    assert.ok(pending.json<Obj>().metadata.deletionTimestamp, 'the would-be object shows the deletion');
    const stored = (await t.request('GET', `${NS}/held`)).json<Obj>();
    assert.equal(stored.metadata.deletionTimestamp, undefined, 'not really deleted');
  });

  it('rejects dryRun values other than All, the empty one too (422 on the options kind, as the original)', async () => {
    for (const [method, path, body, kind] of [
      ['POST', `${NS}?dryRun=Yes`, { metadata: { name: 'x' } }, 'CreateOptions'],
      ['PUT', `${NS}/real?dryRun=true`, { metadata: { name: 'real' } }, 'UpdateOptions'],
      ['DELETE', `${NS}/real?dryRun=Server`, undefined, 'DeleteOptions'],
      ['POST', `${NS}?dryRun=`, { metadata: { name: 'empty-dry' } }, 'CreateOptions'],
    ] as const) {
      const r = await t.request(method, path, body);
      assert.equal(r.status, 422, `${method} ${path}`);
      assert.match(r.json<{ message: string }>().message, new RegExp(`^${kind}\\.meta\\.orch\\.io "" is invalid: dryRun: Unsupported value`));
    }
    assert.equal((await t.request('GET', `${NS}/empty-dry`)).status, 404);
  });
});
