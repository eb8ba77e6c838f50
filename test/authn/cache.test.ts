import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { TtlLruCache } from '../../src/authn/cache.ts';

describe('TtlLruCache', () => {
  it('returns values until they expire', () => {
    let now = 1_000;
    const c = new TtlLruCache<string, number>({ maxEntries: 4, now: () => now });
    c.set('a', 1, 2_000);
    assert.equal(c.get('a'), 1);
    now = 1_999;
    assert.equal(c.get('a'), 1);
    now = 2_000;
    assert.equal(c.get('a'), undefined);
    assert.equal(c.size, 0, 'an expired entry is dropped when seen');
  });

  it('does not store an entry that is already expired, and drops the older value', () => {
    const c = new TtlLruCache<string, number>({ maxEntries: 4, now: () => 5_000 });
    c.set('a', 1, 6_000);
    c.set('a', 2, 5_000);
    assert.equal(c.get('a'), undefined);
  });

  it('evicts the least recently used entry past its size', () => {
    const c = new TtlLruCache<string, number>({ maxEntries: 2, now: () => 0 });
    c.set('a', 1, 10);
    c.set('b', 2, 10);
    assert.equal(c.get('a'), 1); // a is now more recent than b
    c.set('c', 3, 10);
    assert.equal(c.size, 2);
    assert.equal(c.get('b'), undefined);
    assert.equal(c.get('a'), 1);
    assert.equal(c.get('c'), 3);
  });

  it('refuses a non-positive size', () => {
    assert.throws(() => new TtlLruCache({ maxEntries: 0 }), RangeError);
    assert.throws(() => new TtlLruCache({ maxEntries: 1.5 }), RangeError);
  });
});
