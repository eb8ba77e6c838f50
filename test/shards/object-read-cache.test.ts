/**
 * The serving thread's kept GET answers (shards/object-read-cache.ts) over
 * the shard's cells in shared memory (shards/read-cells.ts): an answer is
 * given again only while its type's cache has reached the store's committed
 * revision and counts no change since it was read; the bounds drop the
 * oldest answers first.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ObjectReadCache } from '../../shards/object-read-cache.ts';
import { ReadCells } from '../../shards/read-cells.ts';
import { SharedRevision } from '../../src/storage/shared-revision.ts';
import type { GetReply } from '../../shards/protocol.ts';

const RESOURCE = '/configmaps';

function reply(name: string, slot: number | undefined, changes: number | undefined, size = 100): GetReply {
  return { object: { json: new Uint8Array(size).fill(name.charCodeAt(0)), revision: 7 }, revision: 7, slot, changes };
}

function setup(limits = { maxEntries: 100, maxBytes: 1 << 20, maxObjectBytes: 64 << 10 }) {
  const cells = ReadCells.allocate(4);
  // The serving thread sees the same memory through its own views, as after a postMessage.
  const committed = SharedRevision.allocate();
  const cache = new ObjectReadCache(new ReadCells(cells.buffer), new SharedRevision(committed.buffer), limits);
  return { cells, committed, cache };
}

describe('ReadCells', () => {
  it('gives each resource type a slot of its own until all are taken', () => {
    const cells = ReadCells.allocate(3);
    assert.deepEqual([cells.claim(), cells.claim(), cells.claim(), cells.claim()], [0, 1, 2, undefined]);
  });

  it('says unchanged only at the same count and once the cache reached the committed revision', () => {
    const cells = ReadCells.allocate(2);
    const reader = new ReadCells(cells.buffer);
    cells.publish(1, 50, 3);
    assert.equal(reader.unchangedAt(1, 3, 50), true);
    assert.equal(reader.unchangedAt(1, 3, 49), true);
    assert.equal(reader.unchangedAt(1, 3, 51), false, 'a write the cache has not applied yet');
    assert.equal(reader.unchangedAt(1, 2, 50), false, 'a change since the read');
    assert.equal(reader.unchangedAt(0, 0, 0), true, 'an untouched slot is at revision 0 after 0 changes');
    assert.equal(reader.unchangedAt(2, 0, 0), false, 'a slot past the table is never unchanged');
    cells.publish(1, 2 ** 40, 2 ** 33);
    assert.equal(reader.unchangedAt(1, 2 ** 33, 2 ** 40), true, 'numbers past 32 bits');
  });
});

describe('ObjectReadCache', () => {
  it('answers again while nothing changed, and misses after a change, a write not yet applied, or on another resource', () => {
    const { cells, committed, cache } = setup();
    cells.publish(0, 10, 1);
    committed.publish(10);
    assert.equal(cache.lookup(RESOURCE, '/configmaps/ns/a'), undefined);
    const a = reply('a', 0, 1);
    cache.remember(RESOURCE, '/configmaps/ns/a', a);
    assert.equal(cache.lookup(RESOURCE, '/configmaps/ns/a'), a);
    assert.equal(cache.lookup('/secrets', '/configmaps/ns/a'), undefined, 'the same key under another resource');

    // Another type's write: the store moved on; until this type's cache has caught up, nothing is vouched for.
    committed.publish(11);
    assert.equal(cache.lookup(RESOURCE, '/configmaps/ns/a'), undefined);
    assert.equal(cache.size, 0, 'an answer found stale is dropped');
    cache.remember(RESOURCE, '/configmaps/ns/a', a);
    cells.publish(0, 11, 1);
    assert.equal(cache.lookup(RESOURCE, '/configmaps/ns/a'), a, 'progress without a change keeps the answer');

    cells.publish(0, 12, 2);
    committed.publish(12);
    assert.equal(cache.lookup(RESOURCE, '/configmaps/ns/a'), undefined, 'a change to the type');
    assert.equal(cache.hits, 2);
    assert.equal(cache.misses, 4);
  });

  it('keeps only answers from the latest state of a cache with a slot, found, and not too large', () => {
    const { cells, committed, cache } = setup({ maxEntries: 100, maxBytes: 1 << 20, maxObjectBytes: 1000 });
    cells.publish(0, 5, 1);
    committed.publish(5);
    cache.remember(RESOURCE, '/configmaps/ns/old', reply('o', undefined, undefined));
    cache.remember(RESOURCE, '/configmaps/ns/none', { object: null, revision: 5, slot: 0, changes: 1 });
    cache.remember(RESOURCE, '/configmaps/ns/big', reply('b', 0, 1, 2000));
    assert.equal(cache.size, 0);
    cache.remember(RESOURCE, '/configmaps/ns/small', reply('s', 0, 1, 900));
    assert.equal(cache.size, 1);
  });

  it('drops the oldest answers beyond its entries or bytes', () => {
    const { cells, committed, cache } = setup({ maxEntries: 3, maxBytes: 1000, maxObjectBytes: 1000 });
    cells.publish(0, 5, 1);
    committed.publish(5);
    for (const name of ['a', 'b', 'c', 'd']) cache.remember(RESOURCE, `/k/${name}`, reply(name, 0, 1, 100));
    assert.equal(cache.size, 3);
    assert.equal(cache.lookup(RESOURCE, '/k/a'), undefined, 'the oldest went first');
    assert.notEqual(cache.lookup(RESOURCE, '/k/d'), undefined);
    // Three of 108 bytes each (100 + the key) fit; one of 808 more does not: the oldest go until it does.
    cache.remember(RESOURCE, '/k/e', reply('e', 0, 1, 800));
    assert.equal(cache.lookup(RESOURCE, '/k/b'), undefined);
    assert.equal(cache.lookup(RESOURCE, '/k/c'), undefined);
    assert.notEqual(cache.lookup(RESOURCE, '/k/e'), undefined);
    assert.notEqual(cache.lookup(RESOURCE, '/k/d'), undefined);
    // Remembering a key again replaces its answer and its bytes.
    const d2 = reply('D', 0, 1, 100);
    cache.remember(RESOURCE, '/k/d', d2);
    assert.equal(cache.lookup(RESOURCE, '/k/d'), d2);
    assert.equal(cache.size, 2);
  });
});
