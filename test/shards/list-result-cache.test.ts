import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { itemBuffer, ListResultCache } from '../../shards/list-result-cache.ts';
import type { ListReply } from '../../shards/protocol.ts';

const reply = (bytes: number): ListReply => ({ items: itemBuffer(bytes, true), count: 1, revision: 1 });

describe('ListResultCache', () => {
  const opts = { budgetBytes: 1000, minEntryBytes: 100, maxEntryBytes: 600 };

  it('keeps only answers between the minimum and maximum size', () => {
    const c = new ListResultCache(opts);
    assert.equal(c.wants(99), false);
    assert.equal(c.wants(100), true);
    assert.equal(c.wants(600), true);
    assert.equal(c.wants(601), false);
    c.put('small', reply(50));
    c.put('huge', reply(700));
    assert.equal(c.size, 0);
    assert.equal(c.get('small'), undefined);
  });

  it('evicts the least recently used entries past the byte budget', () => {
    const c = new ListResultCache(opts);
    const a = reply(400);
    c.put('a', a);
    c.put('b', reply(400));
    assert.equal(c.get('a'), a, 'a hit refreshes a');
    c.put('c', reply(400));
    assert.equal(c.bytes, 800);
    assert.equal(c.get('b'), undefined, 'b was the least recently used');
    assert.equal(c.get('a'), a);
    assert.ok(c.get('c') !== undefined);
    assert.equal(c.hits, 3);
    assert.equal(c.misses, 1);
  });

  it('keeps nothing with a zero budget', () => {
    const c = new ListResultCache({ ...opts, budgetBytes: 0 });
    assert.equal(c.wants(200), false);
    c.put('a', reply(200));
    assert.equal(c.size, 0);
  });

  it('allocates shared or transferable buffers', () => {
    assert.ok(itemBuffer(10, true).buffer instanceof SharedArrayBuffer);
    assert.ok(itemBuffer(10, false).buffer instanceof ArrayBuffer);
  });
});
