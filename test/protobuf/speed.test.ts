/**
 * Speed budget: a typical Pod (four volumes, an init container, probes,
 * managedFields, status) encodes and decodes well under 100 µs. Measured at
 * about 15 µs and 27 µs on the development machine; the limit leaves room for
 * a loaded CI runner.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeObject, encodeObject } from '../../src/protobuf/index.ts';
import { POD } from './fixtures.ts';

const GVK = { group: '', version: 'v1', kind: 'Pod' };
const BUDGET_US = 100;

function microsPerCall(fn: () => void, n: number): number {
  for (let i = 0; i < 500; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

test(`a typical Pod encodes in under ${BUDGET_US} µs`, () => {
  const us = microsPerCall(() => encodeObject(POD, GVK), 3000);
  assert.ok(us < BUDGET_US, `encode took ${us.toFixed(1)} µs`);
});

test(`a typical Pod decodes in under ${BUDGET_US} µs`, () => {
  const bytes = encodeObject(POD, GVK);
  const us = microsPerCall(() => decodeObject(bytes), 3000);
  assert.ok(us < BUDGET_US, `decode took ${us.toFixed(1)} µs`);
});
