/**
 * A read of a resourceVersion the store has not reached (a client's future
 * revision: 504 after the original's 3 s wait) must not keep later
 * consistent reads of that type from asking the store's watch for progress.
 * It did: the outstanding request was recorded at the future revision, so
 * every later consistent read of the type waited the whole 3 s and then read
 * the store (found by the long fuzz run: seed 11, case 3795 onwards).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer } from '../support/test-server.ts';

test('a future-revision read does not slow later consistent reads of the type', async () => {
  const s = await startTestServer();
  try {
    const list = '/api/v1/namespaces/default/limitranges';
    const future = await s.request('GET', `${list}?resourceVersion=2147483648`);
    assert.equal(future.status, 504, future.body);
    assert.match(future.body, /Too large resource version/);
    for (let i = 0; i < 3; i++) {
      // Another type's write moves the store past the limit ranges cache: the next read must ask for progress.
      const cm = await s.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { generateName: 'p-' } });
      assert.equal(cm.status, 201, cm.body);
      const started = performance.now();
      const consistent = await s.request('GET', list);
      const took = performance.now() - started;
      assert.equal(consistent.status, 200, consistent.body);
      // With the fault every such read took the full 3 s wait; a healthy one takes milliseconds.
      assert.ok(took < 2_000, `consistent read ${i} took ${took.toFixed(0)} ms`);
    }
  } finally {
    await s.stop();
  }
});
