/**
 * `--profiling`: `/debug/pprof/profile?seconds=N` answers a V8 CPU profile
 * of the serving thread and `/debug/pprof/heap` a heap snapshot, to callers
 * the authorizer allows (RBAC: admin yes, anonymous no); a bad `seconds` is a
 * 400; `--profiling=false` serves neither. With `shard=N` the same of shard
 * thread N (its heap holds the shard's runtime, the serving thread's does
 * not); an unknown shard is a 400; one profile at a time per thread (429 for
 * a second on the same shard, while another thread can be profiled).
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

  test('an allocation profile counts garbage: what requests allocated and dropped during the seconds', async () => {
    // A 16 KiB interval allows up to 3 s (finer sampling, shorter windows: the samples V8 keeps stay bounded).
    const pending = t.request('GET', '/debug/pprof/allocs?seconds=3&interval=16384');
    await new Promise((r) => setTimeout(r, 100));
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(Array.from({ length: 15 }, () => t.request('GET', '/api/v1/namespaces/default/configmaps')));
      for (const r of answers) assert.equal(r.status, 200);
    }
    const r = await pending;
    assert.equal(r.status, 200, r.body.slice(0, 200));
    assert.match(String(r.headers['content-disposition']), /"allocs\.heapprofile"/);
    interface Node { callFrame: { functionName: string; url: string }; selfSize: number; children: Node[] }
    const profile = r.json<{ head: Node; samples: Array<{ size: number; nodeId: number }> }>();
    // 150 answered LISTs leave nothing alive, so only a profile that keeps collected objects has our code's samples.
    let requestPathBytes = 0;
    const walk = (n: Node): void => {
      if (/\/src\/(server|endpoints|frontends)\//.test(n.callFrame.url)) requestPathBytes += n.selfSize;
      n.children.forEach(walk);
    };
    walk(profile.head);
    assert.ok(profile.samples.length > 0, 'samples taken');
    assert.ok(requestPathBytes >= 800_000, `the request path's allocations: ${requestPathBytes} bytes sampled`);
    const shard = await t.request('GET', '/debug/pprof/allocs?seconds=1&shard=0');
    assert.equal(shard.status, 200, shard.body.slice(0, 200));
    assert.match(String(shard.headers['content-disposition']), /shard-0-allocs\.heapprofile/);
    assert.ok(shard.json<{ head: Node }>().head.children !== undefined);
  });

  test('an allocation profile\'s interval and window are bounded together', async () => {
    const message = async (q: string): Promise<string> => {
      const r = await t.request('GET', `/debug/pprof/allocs?${q}`);
      assert.equal(r.status, 400, `${q}: ${r.body.slice(0, 200)}`);
      return r.json<{ message: string }>().message;
    };
    assert.match(await message('seconds=61'), /seconds must be an integer from 1 to 60$/);
    assert.match(await message('seconds=2&interval=4096'), /from 1 to 1 at an interval of 4096 bytes/);
    assert.match(await message('seconds=16&interval=65536'), /from 1 to 15 at an interval of 65536 bytes/);
    for (const interval of ['4095', '67108865', '99999999999999999999', 'abc', '', '-1', '1e5', '4096.5', '%00']) {
      assert.match(await message(`seconds=1&interval=${interval}`), /interval must be a number of bytes from 4096 to 67108864/);
    }
  });

  test('a shard thread: heap snapshot and CPU profile of that thread', async () => {
    const shard = await t.request('GET', '/debug/pprof/heap?shard=1');
    assert.equal(shard.status, 200, shard.body.slice(0, 200));
    assert.match(String(shard.headers['content-disposition']), /shard-1-heap\.heapsnapshot/);
    assert.match(shard.body.slice(0, 100), /^\{"snapshot":\{"meta"/);
    // The shard's runtime lives in the shard thread only: its class name is in that heap, not the serving thread's.
    assert.ok(shard.body.includes('"ShardRuntime"'), 'the shard runtime in the shard heap');
    const main = await t.request('GET', '/debug/pprof/heap');
    assert.equal(main.status, 200);
    assert.ok(!main.body.includes('"ShardRuntime"'), 'no shard runtime in the serving thread');
    const cpu = await t.request('GET', '/debug/pprof/profile?seconds=1&shard=0');
    assert.equal(cpu.status, 200, cpu.body.slice(0, 200));
    const profile = cpu.json<{ nodes: unknown[]; startTime: number; endTime: number }>();
    assert.ok(profile.nodes.length > 0);
    assert.ok(profile.endTime - profile.startTime >= 900_000, 'about one second, in microseconds');
  });

  test('an unknown shard is a 400; anonymous callers are forbidden', async () => {
    for (const q of ['shard=2', 'shard=-1', 'shard=abc', 'shard=', 'shard=1e3']) {
      const r = await t.request('GET', `/debug/pprof/profile?seconds=1&${q}`);
      assert.equal(r.status, 400, `${q}: ${r.body}`);
    }
    assert.match((await t.request('GET', '/debug/pprof/heap?shard=7')).json<{ message: string }>().message, /unknown shard "7": shards are 0 to 1/);
    assert.equal((await t.request('GET', '/debug/pprof/heap?shard=0', undefined, { as: 'none' })).status, 403);
  });

  test('one profile at a time per thread', async () => {
    const [a, b, other] = await Promise.all([
      t.request('GET', '/debug/pprof/profile?seconds=2&shard=0'),
      new Promise((r) => setTimeout(r, 300)).then(() => t.request('GET', '/debug/pprof/profile?seconds=1&shard=0')),
      new Promise((r) => setTimeout(r, 300)).then(() => t.request('GET', '/debug/pprof/profile?seconds=1&shard=1')),
    ]);
    assert.equal(a.status, 200);
    assert.equal(b.status, 429, b.body);
    assert.ok(b.headers['retry-after'] !== undefined);
    assert.equal(other.status, 200, 'another shard is profiled meanwhile');
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
