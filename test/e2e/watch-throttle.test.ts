/**
 * --max-connection-bytes-per-sec on watches, on both front ends: events
 * larger than a second's worth of bytes still arrive whole and in order
 * (the rate holds frames back, never splits them), no sooner than the rate
 * allows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TestServer } from '../support/test-server.ts';
import { startTestServer } from '../support/test-server.ts';

describe('--max-connection-bytes-per-sec', () => {
  let ts: TestServer;

  before(async () => {
    ts = await startTestServer(['--max-connection-bytes-per-sec=4096']);
  });
  after(async () => {
    await ts.stop();
  });

  for (const uws of [false, true]) {
    it(`paces a watch without splitting its events (${uws ? 'uWS' : 'node'})`, async (t) => {
      if (uws && ts.uwsPort === null) return t.skip('uWS is off');
      const ns = uws ? 'throttle-uws' : 'throttle-node';
      assert.equal((await ts.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }, { as: 'token', uws })).status, 201);
      const w = await ts.watch(`/api/v1/namespaces/${ns}/configmaps?watch=true`, { as: 'token', uws });
      const names = ['a', 'b', 'c', 'd'];
      const started = Date.now();
      for (const name of names) {
        // 5 KB of data: more than the bucket holds, so each event waits for a full one.
        const a = await ts.request('POST', `/api/v1/namespaces/${ns}/configmaps`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { big: 'x'.repeat(5000) } }, { as: 'token', uws });
        assert.equal(a.status, 201);
      }
      await w.until(() => w.events.length >= names.length, 'every event', 20_000);
      w.close();
      // A lower bound, not a speed test: ~20 KB through a 4 KB/s bucket that starts full cannot take less than ~4 s.
      assert.ok(Date.now() - started >= 2000, `the events were paced (${Date.now() - started} ms)`);
      assert.deepEqual(
        w.events.map((e) => [e.type, e.object.metadata.name]),
        names.map((n) => ['ADDED', n]),
      );
    });
  }
});
