/**
 * Write timestamps (creationTimestamp, managedFields times) keep the text of
 * the last second: each must still equal the Date's own RFC 3339 second,
 * across second boundaries, before 1970, at year 9999, when the clock goes
 * back, and an invalid Date must still throw.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nowRfc3339 } from '../../src/registry/object.ts';
import { formatTime } from '../../src/apply/managed-fields.ts';

const expected = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, 'Z');

test('the kept second is always the Date\'s own', () => {
  const ms = [0, 999, 1000, 1001, 59_999, 60_000, Date.UTC(2026, 10, 25, 12, 0, 0, 500), -1500, -1000, -999, -1, 253_402_300_799_999, 0, 1000, 999];
  for (const t of ms) {
    const d = new Date(t);
    assert.equal(nowRfc3339(d), expected(d), `nowRfc3339(${t})`);
    assert.equal(formatTime(d), expected(d), `formatTime(${t})`);
  }
  assert.match(nowRfc3339(), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
});

test('an invalid Date throws, as toISOString does', () => {
  assert.throws(() => nowRfc3339(new Date(NaN)), RangeError);
  assert.throws(() => formatTime(new Date(NaN)), RangeError);
});
