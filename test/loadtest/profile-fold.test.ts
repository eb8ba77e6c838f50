/**
 * The CPU-breakdown folder (loadtest/profile/): samples go to the stage of
 * the nearest recognized frame (leaf first, builtins charged to their
 * caller), idle samples count for nothing, a thread's samples never add up
 * to more than /proc says it ran (the rest shown as unsampled when /proc says
 * more), threads are told apart by what they ran, and non-JS threads come
 * from /proc with the profiler's own threads left out.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { classify, GC, PROGRAM } from '../../loadtest/profile/stages.ts';
import { foldWindow, perRequest, UNSAMPLED } from '../../loadtest/profile/fold.ts';
import type { Manifest } from '../../loadtest/profile/capture.ts';

const f = (functionName: string, path = ''): { functionName: string; url: string } => ({ functionName, url: path === '' ? '' : `file:///x/dist/${path}` });

test('a sample goes to the nearest frame a rule knows, leaf first', () => {
  assert.equal(classify([f('(idle)')]), null);
  assert.equal(classify([f('(garbage collector)')]), GC);
  assert.equal(classify([f('(program)')]), PROGRAM);
  // JSON.parse under the body decoder is decode; under the registry too (the builtin names its stage).
  assert.match(classify([f('parse'), f('readObject', 'src/endpoints/body.js'), f('(root)')])!, /^decode/);
  assert.match(classify([f('stringify'), f('create', 'src/registry/generic-store.js')])!, /^serialization/);
  // A hash under the token file: node's crypto frame is nearer than the token file's.
  assert.match(classify([f('digest'), { functionName: 'oneShotDigest', url: 'node:internal/crypto/hash' }, f('authenticateToken', 'src/authn/token-file.js')])!, /^crypto/);
  assert.equal(classify([f('authenticateToken', 'src/authn/token-file.js'), f('x', 'src/server/chain.js')]), 'authentication');
  assert.match(classify([f('collect'), f('#endInOneCork', 'src/frontends/uws-exchange.js')])!, /^response write/);
  assert.match(classify([f('postMessage'), f('#flush', 'shards/batched-port.js')])!, /^thread hop/);
  assert.match(classify([f('nothingKnown'), f('(root)')])!, /^other/);
});

interface Node {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

function profile(samples: Array<[string, string]>, periodUs: number): object {
  const nodes: Node[] = [{ id: 1, callFrame: f('(root)'), children: [] }];
  const ids = new Map<string, number>();
  const seq = samples.map(([fn, path]) => {
    const key = `${fn}@${path}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = nodes.length + 1;
      ids.set(key, id);
      nodes.push({ id, callFrame: f(fn, path) });
      nodes[0]!.children!.push(id);
    }
    return id;
  });
  return { nodes, samples: seq, startTime: 0, endTime: periodUs * seq.length, timeDeltas: seq.map(() => periodUs) };
}

test('a window folds to µs per request per thread and stage, never beyond /proc', () => {
  const dir = mkdtempSync(join(tmpdir(), 'fold-test-'));
  try {
    // Main thread: 4 authn + 4 idle samples of 100 µs = 400 µs sampled, but /proc says 200 µs ran: scaled to 200.
    writeFileSync(join(dir, 'w0.t0.tid10.cpuprofile'), JSON.stringify(profile([...Array(4).fill(['authenticate', 'src/authn/union.js']), ...Array(4).fill(['(idle)', ''])], 100)));
    // A shard: 2 samples of 100 µs in the shard runtime, /proc says 500 µs: 300 unsampled.
    writeFileSync(join(dir, 'w0.t1.tid11.cpuprofile'), JSON.stringify(profile([['#serve', 'shards/shard-runtime.js'], ['(idle)', ''], ['#serve', 'shards/shard-runtime.js']], 100)));
    const manifest: Manifest = {
      machine: 'm',
      server: 's',
      command: 'c',
      pid: 10,
      intervalUs: 100,
      clients: 1,
      seconds: 1,
      windows: [
        {
          frontEnd: 'uws-h1',
          op: 'get',
          startUs: 0,
          endUs: 1,
          succeeded: 2,
          failed: 0,
          threads: [
            { tid: 10, name: 'node', seconds: 200e-6 },
            { tid: 11, name: 'node', seconds: 500e-6 },
            { tid: 12, name: 'node', seconds: 100e-6 },
            { tid: 13, name: 'v8:ProfEvntProc', seconds: 900e-6 },
          ],
        },
      ],
    };
    const fold = foldWindow(dir, 0, manifest);
    assert.deepEqual(
      fold.threads.map((t) => t.kind),
      ['main', 'shard'],
    );
    assert.equal(fold.profilerSeconds, 900e-6);
    const us = perRequest(fold);
    const near = (key: string, want: number): void => assert.ok(Math.abs((us.get(key) ?? NaN) - want) < 1e-6, `${key}: ${us.get(key)} != ${want}`);
    near('main\u0000authentication', 100); // 200 µs over 2 requests
    near(`main\u0000${UNSAMPLED}`, 0);
    near('shard\u0000watch cache, cached resource, B+ tree (shards/, src/watchcache/)', 100);
    near(`shard\u0000${UNSAMPLED}`, 150);
    near('other threads\u0000V8 GC helpers, libuv pool (from /proc; no JS)', 50);
    // Everything /proc counted (800 µs over 2 requests) but the profiler's threads.
    const total = [...us.values()].reduce((a, b) => a + b, 0);
    assert.ok(Math.abs(total - 400) < 1e-6, `total ${total}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
