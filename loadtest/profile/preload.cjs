/*
 * Loaded into EVERY thread of the server under test by `NODE_OPTIONS=--require
 * <this file>` (Node re-reads NODE_OPTIONS for each worker thread started with
 * its own execArgv, as the shards and the store host are; `--cpu-prof` itself
 * is not allowed in NODE_OPTIONS and execArgv: [] keeps it from the workers,
 * and `--import` preloads do not reach them either: hence CommonJS here).
 *
 * Inert unless ORCH_PROFILE_DIR is set. Then each SIGUSR2 to the process
 * toggles V8's sampling profiler (the inspector's Profiler, what --cpu-prof
 * uses) in all threads at once: the main thread tells the others over a
 * BroadcastChannel. Stopping writes `w<window>.t<threadId>.tid<tid>.cpuprofile` into
 * ORCH_PROFILE_DIR, window counting from 0. Sampling interval:
 * ORCH_PROFILE_INTERVAL_US (default 250).
 */
'use strict';

const dir = process.env.ORCH_PROFILE_DIR;
if (dir) {
  const { Session } = require('node:inspector');
  const { threadId, isMainThread, BroadcastChannel } = require('node:worker_threads');
  const { writeFileSync } = require('node:fs');
  const { join } = require('node:path');
  const { readlinkSync } = require('node:fs');
  // The OS thread id (/proc/thread-self -> <pid>/task/<tid>), to match /proc's per-thread CPU.
  let tid = 0;
  try {
    tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    // not Linux
  }
  const interval = Number(process.env.ORCH_PROFILE_INTERVAL_US || 250);
  let session = null;
  let window = -1;

  const start = (n) => {
    if (session) return;
    window = n;
    session = new Session();
    session.connect();
    session.post('Profiler.enable');
    session.post('Profiler.setSamplingInterval', { interval });
    session.post('Profiler.start');
  };
  const stop = () => {
    if (!session) return;
    const s = session;
    session = null;
    s.post('Profiler.stop', (err, res) => {
      if (!err && res && res.profile) writeFileSync(join(dir, `w${window}.t${threadId}.tid${tid}.cpuprofile`), JSON.stringify(res.profile));
      s.disconnect();
    });
  };

  const channel = new BroadcastChannel('orch-profile');
  channel.unref();
  channel.onmessage = (e) => {
    const m = e.data;
    if (m && m.cmd === 'start') start(m.window);
    else if (m && m.cmd === 'stop') stop();
  };
  if (isMainThread) {
    let next = 0;
    let on = false;
    process.on('SIGUSR2', () => {
      if (!on) {
        on = true;
        channel.postMessage({ cmd: 'start', window: next });
        start(next);
      } else {
        on = false;
        next++;
        channel.postMessage({ cmd: 'stop' });
        stop();
      }
    });
  }
}
