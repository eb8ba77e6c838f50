/**
 * Micro-benchmark: Protobuf encode and decode of a typical Pod (four volumes,
 * an init container, probes, managedFields, status). Measured at about 15 µs
 * and 27 µs on the development machine. Moved out of the tests: speed figures
 * belong in benchmarks, never in timed tests.
 *
 *   node --import tsx loadtest/micro/protobuf-pod.ts
 */
import { decodeObject, encodeObject } from '../../src/protobuf/index.ts';
import { POD } from '../../test/protobuf/fixtures.ts';

const GVK = { group: '', version: 'v1', kind: 'Pod' };

function microsPerCall(fn: () => void, n: number): number {
  for (let i = 0; i < 500; i++) fn();
  const start = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  return Number(process.hrtime.bigint() - start) / 1000 / n;
}

const bytes = encodeObject(POD, GVK);
console.log(`typical Pod, ${bytes.length} bytes of Protobuf:`);
console.log(`  encode ${microsPerCall(() => encodeObject(POD, GVK), 3000).toFixed(1)} µs`);
console.log(`  decode ${microsPerCall(() => decodeObject(bytes), 3000).toFixed(1)} µs`);
