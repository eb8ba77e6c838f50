import assert from 'node:assert/strict';
import { test } from 'node:test';
import { requestTimes } from '../../loadtest/list50k/stall.ts';

test("h2load's request times are read in ms whatever unit it prints", () => {
  const raw = `finished in 8.00s, 38530.12 req/s, 64.21MB/s
                     min         max         mean         sd        +/- sd
time for request:   151us     51.10ms      2.00ms      3.03ms    91.27%
time for connect:     1.20ms      8.01ms      4.31ms      1.98ms    62.50%`;
  assert.deepEqual(requestTimes(raw), { maxMs: 51.1, meanMs: 2 });
  assert.deepEqual(requestTimes('time for request:   1.2ms   1.5s   830us   1ms  50%'), { maxMs: 1500, meanMs: 0.83 });
  assert.throws(() => requestTimes('no report'), /no request times/);
});
