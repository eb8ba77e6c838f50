/**
 * `--profiling`: `/debug/pprof/profile?seconds=N` answers a V8 CPU profile
 * of the serving thread and `/debug/pprof/heap` a heap snapshot, to callers
 * the authorizer allows (RBAC: admin yes, anonymous no); a bad `seconds` is a
 * 400; `--profiling=false` serves neither.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('profiling on (RBAC)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--authorization-mode=RBAC', '--anonymous-auth=true']);
  });
  after(async () => {
    await t?.stop();
  });

  test('anonymous callers are forbidden', async () => {
    const r = await t.request('GET', '/debug/pprof/profile?seconds=1', undefined, { as: 'none' });
    assert.equal(r.status, 403, r.body);
  });

  test('a CPU profile of N seconds', async () => {
    const r = await t.request('GET', '/debug/pprof/profile?seconds=1');
    assert.equal(r.status, 200, r.body.slice(0, 200));
    const profile = r.json<{ nodes: Array<{ callFrame: { functionName: string } }>; startTime: number; endTime: number }>();
    assert.ok(profile.nodes.length > 0);
    assert.ok(profile.endTime > profile.startTime);
  });

  test('a heap snapshot', async () => {
    const r = await t.request('GET', '/debug/pprof/heap');
    assert.equal(r.status, 200, r.body.slice(0, 200));
    assert.match(r.body.slice(0, 100), /^\{"snapshot":\{"meta"/);
  });

  test('seconds outside 1..60 is a 400; an unknown profile a 404', async () => {
    assert.equal((await t.request('GET', '/debug/pprof/profile?seconds=0')).status, 400);
    assert.equal((await t.request('GET', '/debug/pprof/profile?seconds=abc')).status, 400);
    assert.equal((await t.request('GET', '/debug/pprof/goroutine')).status, 404);
  });
});

describe('profiling off', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--profiling=false']);
  });
  after(async () => {
    await t?.stop();
  });

  test('the endpoints are not served', async () => {
    assert.equal((await t.request('GET', '/debug/pprof/profile?seconds=1')).status, 404);
    assert.equal((await t.request('GET', '/debug/pprof/heap')).status, 404);
  });
});
