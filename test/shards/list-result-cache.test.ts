import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { itemBuffer, ListResultCache } from '../../shards/list-result-cache.ts';
import type { ListReply } from '../../shards/protocol.ts';

const reply = (bytes: number): ListReply => ({ items: itemBuffer(bytes, true), count: 1, revision: 1 });

describe('ListResultCache', () => {
  const opts = { budgetBytes: 1000, minEntryBytes: 100, maxEntryBytes: 600, ttlMs: 10_000, idleMs: 10_000 };

  it('wants an answer between the minimum and maximum size once it is asked for twice within the TTL', () => {
    let now = 0;
    const c = new ListResultCache(opts, () => now);
    assert.equal(c.wants('k', 99), false);
    assert.equal(c.wants('k', 99), false, 'too small, however often');
    assert.equal(c.wants('k', 601), false);
    assert.equal(c.wants('k', 601), false, 'too large, however often');
    assert.equal(c.wants('k', 100), false, 'the first ask only marks the key');
    assert.equal(c.wants('k', 100), true, 'the second is worth sharing');
    assert.equal(c.wants('j', 600), false);
    now += 10_001;
    assert.equal(c.wants('j', 600), false, 'a mark older than the TTL counts as a first ask');
    assert.equal(c.wants('j', 600), true);
  });

  it('counts an answer kept in pieces by its pieces, for the size limits and the budget alike', () => {
    const kept = (sizes: number[]): ListReply => ({ items: new Uint8Array(0), count: 1, revision: 1, streamed: sizes.reduce((a, b) => a + b, 0), kept: sizes.map((n) => itemBuffer(n, true)) });
    const c = new ListResultCache(opts);
    c.put('too-big', kept([300, 300, 100]));
    assert.equal(c.size, 0, '700 bytes in three pieces is over the maximum entry');
    c.put('a', kept([200, 200]));
    c.put('b', kept([400]));
    assert.equal(c.bytes, 800);
    c.put('c', kept([100, 300]));
    assert.equal(c.get('a'), undefined, 'the least recently used made room');
    assert.equal(c.bytes, 800);
  });

  it('replaces a kept answer with the same items in another form, and nothing else', () => {
    const c = new ListResultCache(opts);
    c.put('k', { items: new Uint8Array(0), count: 1, revision: 1, streamed: 300, kept: [itemBuffer(100, true), itemBuffer(200, true)] });
    const whole = reply(300);
    c.replace('k', whole);
    assert.equal(c.get('k'), whole);
    assert.equal(c.bytes, 300);
    c.replace('k', reply(299));
    assert.equal(c.get('k'), whole, 'other items (another size) are refused');
    c.replace('absent', reply(300));
    assert.equal(c.size, 1, 'an answer no longer kept is not put back');
  });

  it('keeps only answers between the minimum and maximum size', () => {
    const c = new ListResultCache(opts);
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

  it('never makes room for an answer by dropping a larger one', () => {
    const c = new ListResultCache(opts);
    const big = reply(550);
    c.put('big', big);
    c.put('p1', reply(200));
    c.put('p2', reply(200));
    assert.equal(c.bytes, 950);
    c.put('p3', reply(200));
    assert.equal(c.get('p1'), undefined, 'the least recently used page made room');
    assert.equal(c.get('big'), big, 'the larger answer stayed, though older');
    c.put('p4', reply(500));
    assert.equal(c.get('p4'), undefined, 'no room without dropping the larger answer: not kept');
    assert.equal(c.get('big'), big);
    assert.equal(c.bytes, 950);
    const big2 = reply(600);
    c.put('big2', big2);
    assert.equal(c.get('big2'), big2, 'a larger answer may push out anything');
    assert.equal(c.get('big'), undefined);
    assert.equal(c.bytes, 600);
  });

  it('forgets answers older than the TTL, on lookup and on a sweep', () => {
    let now = 1_000;
    const c = new ListResultCache(opts, () => now);
    const a = reply(300);
    c.put('a', a);
    now += 5_000;
    c.put('b', reply(300));
    assert.equal(c.get('a'), a, 'within the TTL');
    now += 5_001;
    assert.equal(c.get('a'), undefined, 'a expired');
    assert.equal(c.bytes, 300, 'its bytes are released');
    now += 5_000;
    c.sweep();
    assert.equal(c.size, 0, 'b swept');
    assert.equal(c.bytes, 0);
  });

  it("drops a type's answers of its latest state once a write superseded them, and keeps answers of past revisions", () => {
    const c = new ListResultCache(opts);
    c.put('cm@5', reply(200), { resource: '/configmaps', stateRevision: 5 });
    c.put('pods@5', reply(200), { resource: '/pods', stateRevision: 5 });
    c.put('cm-exact@3', reply(200));
    c.dropSuperseded('/configmaps', 5);
    assert.equal(c.size, 3, 'not superseded by its own state');
    c.dropSuperseded('/configmaps', 7);
    assert.equal(c.get('cm@5'), undefined, 'superseded by the write at 7');
    assert.ok(c.get('pods@5') !== undefined, 'other types keep theirs');
    assert.ok(c.get('cm-exact@3') !== undefined, 'an answer of a past revision stays until the TTL');
    assert.equal(c.bytes, 400);
    c.sweep((resource) => (resource === '/pods' ? 9 : undefined));
    assert.equal(c.get('pods@5'), undefined, 'the sweep drops superseded answers too');
    assert.ok(c.get('cm-exact@3') !== undefined);
    assert.equal(c.bytes, 200);
  });

  it('forgets an answer nobody asked for within the idle time, however young', () => {
    let now = 0;
    const c = new ListResultCache({ ...opts, idleMs: 1_000 }, () => now);
    const a = reply(300);
    c.put('a', a);
    now += 900;
    assert.equal(c.get('a'), a, 'asked for within the idle time');
    now += 900;
    assert.equal(c.get('a'), a, 'each ask keeps it another idle time');
    now += 1_001;
    c.sweep();
    assert.equal(c.size, 0, 'idle too long: dropped well inside the TTL');
    assert.equal(c.bytes, 0);
  });

  it('keeps nothing with a zero budget', () => {
    const c = new ListResultCache({ ...opts, budgetBytes: 0 });
    assert.equal(c.wants('a', 200), false);
    assert.equal(c.wants('a', 200), false);
    c.put('a', reply(200));
    assert.equal(c.size, 0);
  });

  it('allocates shared or transferable buffers', () => {
    assert.ok(itemBuffer(10, true).buffer instanceof SharedArrayBuffer);
    assert.ok(itemBuffer(10, false).buffer instanceof ArrayBuffer);
  });
});
