/**
 * The side-by-side benchmark's per-round ratios (loadtest/original/side-by-side.ts): each round's ours over the
 * original for rates, the original over ours for CPU, in round order with their median; a round missing on one side
 * or a rate of zero is left out rather than reported as a ratio.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { roundRatiosTable, type Sample } from '../../loadtest/original/side-by-side.ts';

const s = (rate: number, cpuUsPerRequest: number): Sample => ({ rate, cpuUsPerRequest, failed: 0, overlapped: false, partsUs: {} });

test('each round pairs ours with the original of the same round', () => {
  const samples = new Map<string, Sample[]>([
    ['ours-uws-h1/create', [s(4000, 250), s(3000, 400), s(5000, 220)]],
    ['orig-h1/create', [s(1000, 1000), s(1500, 1200), s(1250, 1100)]],
    ['ours-secure-h2/create', [s(3000, 400)]],
    ['orig-h2/create', [s(0, NaN)]],
    ['ours-uws-h1/get', [s(20000, 40), s(24000, 38)]],
    ['orig-h1/get', [s(2500, 500)]],
  ]);
  const lines = roundRatiosTable(samples);
  assert.equal(lines[0], '| each round | ours uWS h1 / original h1 | ours secure h2 / original h2 |');
  const creates = lines.find((l) => l.startsWith('| creates/s'))!;
  // 4000/1000, 3000/1500, 5000/1250 in round order; the median of 4, 2, 4.
  assert.equal(creates, '| creates/s | 4.00 / 2.00 / 4.00 (median 4.00×) | n/a |');
  // Only the first get round has both sides.
  assert.equal(lines.find((l) => l.startsWith('| gets/s')), '| gets/s | 8.00 (median 8.00×) | n/a |');
  // CPU: the original over ours.
  assert.equal(lines.find((l) => l.startsWith('| server CPU per create')), '| server CPU per create, times less | 4.00 / 3.00 / 5.00 (median 4.00×) | n/a |');
});
