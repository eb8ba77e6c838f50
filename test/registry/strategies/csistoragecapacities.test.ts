/** CSIStorageCapacities: validation as the original's ValidateCSIStorageCapacity(Update). */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { csiStorageCapacityStrategy } from '../../../src/registry/strategies/csistoragecapacities.ts';
import { ctx, lines, make } from './helpers.ts';

describe('csistoragecapacities', () => {
  const good = { storageClassName: 'fast', nodeTopology: { matchLabels: { zone: 'a' } }, capacity: '10Gi', maximumVolumeSize: '1Gi' };

  it('accept a class, topology and capacities', () => {
    assert.deepEqual(csiStorageCapacityStrategy.validate!(make('CSIStorageCapacity', good), ctx()), []);
  });

  it('refuse a missing or malformed class and negative or malformed capacities', () => {
    const errs = lines(csiStorageCapacityStrategy.validate!(make('CSIStorageCapacity', { storageClassName: 'Fast_', capacity: '-1', maximumVolumeSize: 'lots' }), ctx()));
    assert.match(errs[0]!, /^storageClassName: Invalid value: "Fast_": a lowercase RFC 1123 subdomain/);
    assert.equal(errs[1], 'capacity: Invalid value: "-1": must be greater than or equal to 0');
    assert.match(errs[2]!, /^maximumVolumeSize: Invalid value: "lots": quantities must match/);
    assert.match(lines(csiStorageCapacityStrategy.validate!(make('CSIStorageCapacity', {}), ctx()))[0]!, /^storageClassName: Invalid value: "": /);
  });

  it('keep the class and topology fixed; capacities may change', () => {
    const old = make('CSIStorageCapacity', good);
    assert.deepEqual(csiStorageCapacityStrategy.validateUpdate!(make('CSIStorageCapacity', { ...good, capacity: '5Gi' }), old, ctx()), []);
    const errs = lines(csiStorageCapacityStrategy.validateUpdate!(make('CSIStorageCapacity', { ...good, storageClassName: 'slow', nodeTopology: {} }), old, ctx()));
    assert.deepEqual(errs.map((e) => e.split(':')[0]), ['nodeTopology', 'storageClassName']);
  });

  it('report every bad requirement of a huge topology instead of overflowing the stack (fuzz seed 6, case 50976)', () => {
    const matchExpressions = Array.from({ length: 60_000 }, (_, i) => ({ [`k${i % 7}`]: i }));
    const errs = csiStorageCapacityStrategy.validate!(make('CSIStorageCapacity', { ...good, nodeTopology: { matchExpressions } }), ctx());
    assert.ok(errs.length >= 60_000, `${errs.length} errors`);
  });
});
