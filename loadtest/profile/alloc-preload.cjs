/*
 * Loaded into the server's main thread by `--require <this file>` (worker
 * threads start with execArgv: [] and do not load it): with ORCH_ALLOC_PROFILE
 * set, each SIGUSR2 toggles V8's sampling heap profiler on that thread, keeping
 * the objects that minor and major collections freed too, so the profile shows
 * everything a request allocates, not only what outlives it (ORCH_ALLOC_SURVIVORS=1:
 * only what outlived a scavenge). Stopping writes
 * the profile (JSON) to the file ORCH_ALLOC_PROFILE names. Used by alloc.ts.
 */
'use strict';

const out = process.env.ORCH_ALLOC_PROFILE;
if (out && require('node:worker_threads').isMainThread) {
  const { Session } = require('node:inspector');
  const { writeFileSync } = require('node:fs');
  const interval = Number(process.env.ORCH_ALLOC_SAMPLING_BYTES || 256);
  let session = null;
  process.on('SIGUSR2', () => {
    if (session === null) {
      session = new Session();
      session.connect();
      session.post('HeapProfiler.enable');
      session.post('HeapProfiler.startSampling', {
        samplingInterval: interval,
        includeObjectsCollectedByMajorGC: true,
        // ORCH_ALLOC_SURVIVORS=1: leave out what a scavenge freed, so the profile shows what outlived the young
        // generation (promoted: what the old generation's marking and sweeping then pay for).
        includeObjectsCollectedByMinorGC: process.env.ORCH_ALLOC_SURVIVORS !== '1',
      });
      return;
    }
    const s = session;
    session = null;
    s.post('HeapProfiler.stopSampling', (err, res) => {
      if (!err && res && res.profile) writeFileSync(out, JSON.stringify(res.profile), { mode: 0o600 });
      s.disconnect();
    });
  });
}
