/**
 * The start of several serving threads: a worker thread that fails while it
 * starts fails the server's start with its error, and leaves nothing
 * serving; in-flight counts are one set for the whole process, whichever
 * thread counts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import { Worker } from 'node:worker_threads';
import { startTestServer, freePort } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';
import { TEST_HOOKS_ENV } from '../../src/server/frontend-threads.ts';
import { SHARED_INFLIGHT_BYTES, SharedInflightCounter } from '../../src/server/shared-inflight.ts';

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

describe('front-end threads: start and shared limits', () => {
  it('a worker thread that throws at start fails the server start with its error', { skip: SKIP_WITHOUT_UWS }, async () => {
    process.env[TEST_HOOKS_ENV] = 'fail-start';
    const uwsPort = await freePort();
    try {
      await assert.rejects(startTestServer(['--frontend-threads=2', `--uws-port=${uwsPort}`]), /front-end thread start failure requested by a test/);
    } finally {
      delete process.env[TEST_HOOKS_ENV];
    }
    assert.equal(await canConnect(uwsPort), false, 'nothing is left listening on the uWS port');
  });

  it('counts in-flight requests once for every thread sharing the buffer', async () => {
    const buffer = new SharedArrayBuffer(SHARED_INFLIGHT_BYTES);
    const here = new SharedInflightCounter(buffer);
    here.add(false, 1);
    here.add(true, 1);
    // Another thread (raw cells: the counter's layout) adds three read-only requests and one mutating, then ends one read-only.
    const worker = new Worker(
      `const { workerData, parentPort } = require('node:worker_threads');
       const cells = new Int32Array(workerData, 0, 4);
       for (let i = 0; i < 3; i++) { Atomics.add(cells, 0, 1); }
       Atomics.add(cells, 1, 1);
       Atomics.sub(cells, 0, 1);
       parentPort.postMessage('done');`,
      { eval: true, workerData: buffer },
    );
    await new Promise((resolve) => worker.once('message', resolve));
    await worker.terminate();
    assert.equal(here.readOnly, 3);
    assert.equal(here.mutating, 2);
    here.add(false, 1);
    here.add(false, -1);
    // The other thread's raw adds bypass the peak cells; this thread's raise it to what it saw.
    here.add(true, 1);
    here.add(true, -1);
    assert.deepEqual(here.takeWatermark(), { readOnly: 4, mutating: 3 }, 'the peak since the last period');
    assert.deepEqual(here.takeWatermark(), { readOnly: 3, mutating: 2 }, 'a new period starts from the current counts');
  });
});
