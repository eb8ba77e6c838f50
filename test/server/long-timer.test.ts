import { describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TIMER_MS, setLongTimeout } from '../../src/server/long-timer.ts';

describe('setLongTimeout', () => {
  it('waits the whole delay past the 32-bit limit of setTimeout', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let fired = 0;
      const ms = 2_147_484 * 1000; // timeoutSeconds=2147484, the overflow case
      setLongTimeout(() => fired++, ms);
      mock.timers.tick(1);
      assert.equal(fired, 0, 'must not fire at once');
      mock.timers.tick(MAX_TIMER_MS - 1); // the first step ends and re-arms
      assert.equal(fired, 0);
      mock.timers.tick(ms - MAX_TIMER_MS - 1);
      assert.equal(fired, 0);
      mock.timers.tick(1);
      assert.equal(fired, 1);
    } finally {
      mock.timers.reset();
    }
  });

  it('fires short delays normally, can be cancelled, and never fires for Infinity', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      let a = 0;
      let b = 0;
      let c = 0;
      setLongTimeout(() => a++, 10);
      const t = setLongTimeout(() => b++, 3 * MAX_TIMER_MS);
      setLongTimeout(() => c++, Infinity);
      mock.timers.tick(10);
      assert.equal(a, 1);
      mock.timers.tick(MAX_TIMER_MS);
      t.cancel();
      mock.timers.tick(3 * MAX_TIMER_MS);
      assert.equal(b, 0);
      assert.equal(c, 0);
    } finally {
      mock.timers.reset();
    }
  });
});
