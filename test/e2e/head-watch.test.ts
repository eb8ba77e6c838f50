/**
 * HEAD on a collection with `watch` set (found by the fuzzing harness: seed 2,
 * case 24203): answered at once with the list's head, on both front ends,
 * instead of a watch that never ends (on the uWS listener, which cannot send a
 * head without a body, the client waited forever).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';

async function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)));
  try {
    return await Promise.race([p, limit]);
  } finally {
    clearTimeout(timer);
  }
}

describe('HEAD with watch', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(async () => {
    await t?.stop();
  });

  it('is answered at once with no body on the secure port', async () => {
    const r = await within(t.request('HEAD', '/api/v1/namespaces/default/configmaps?watch=1'), 5_000, 'secure port');
    assert.equal(r.status, 200);
    assert.equal(r.raw.length, 0);
  });

  it('is answered at once with no body on the uWS listener', { skip: SKIP_WITHOUT_UWS }, async () => {
    const r = await within(t.request('HEAD', '/api/v1/namespaces/default/configmaps?watch=Infinity&pretty=Infinity', undefined, { as: 'token', uws: true }), 5_000, 'uWS');
    assert.equal(r.status, 200);
    assert.equal(r.raw.length, 0);
  });
});
