/**
 * The object source authenticators use: reads come from the watch cache, and
 * changes (a deleted service account, a replaced pod) reach every listener.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import type { ObjectChange } from '../../src/authn/object-source.ts';

let srv: TestServer;
before(async () => {
  srv = await startTestServer();
});
after(async () => {
  await srv.stop();
});

async function waitFor(pred: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (pred()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  assert.fail(`timed out waiting for ${what}`);
}

test('get reads a service account the cache has, and null for one it does not', async () => {
  const created = await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'reader' } });
  assert.equal(created.status, 201, created.body);
  const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
  let got = await srv.server.objects.get('serviceaccounts', 'default', 'reader');
  for (let i = 0; got === null && i < 100; i++) {
    await new Promise((r) => setTimeout(r, 20));
    got = await srv.server.objects.get('serviceaccounts', 'default', 'reader');
  }
  assert.equal(got?.metadata.uid, uid);
  assert.equal(await srv.server.objects.get('serviceaccounts', 'default', 'nobody'), null);
  assert.equal(await srv.server.objects.get('pods', 'nowhere', 'x'), null);
});

test('onChange tells of modifications and deletions after it subscribed, with the uid', async () => {
  const seen: ObjectChange[] = [];
  const unsubscribe = srv.server.objects.onChange('serviceaccounts', (c) => seen.push(c));
  // The feed starts asynchronously: wait until it delivers something we make.
  await new Promise((r) => setTimeout(r, 200));
  const created = await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'revoked' } });
  assert.equal(created.status, 201, created.body);
  const uid = created.json<{ metadata: { uid: string } }>().metadata.uid;
  await waitFor(() => seen.some((c) => c.type === 'ADDED' && c.name === 'revoked'), 'ADDED');
  const deleted = await srv.request('DELETE', '/api/v1/namespaces/default/serviceaccounts/revoked');
  assert.equal(deleted.status, 200, deleted.body);
  await waitFor(() => seen.some((c) => c.type === 'DELETED' && c.name === 'revoked'), 'DELETED');
  const del = seen.find((c) => c.type === 'DELETED');
  assert.ok(del !== undefined && del.type === 'DELETED');
  assert.equal(del.uid, uid);
  assert.equal(del.namespace, 'default');
  unsubscribe();
  const before = seen.length;
  await srv.request('POST', '/api/v1/namespaces/default/serviceaccounts', { metadata: { name: 'after' } });
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(seen.length, before, 'an unsubscribed listener hears nothing more');
});
