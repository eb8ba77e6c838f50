/**
 * A frame encoder that fails on one object (or on bookmarks) ends only the
 * watchers of that encoding whose frames needed it, with the error, after
 * the frames that came before it. The cache keeps applying events, and every
 * other watcher (other encoding, other selector) gets all of its frames.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Revision, StoreEvent } from '../../src/storage/interface.ts';
import { WatchCache } from '../../src/watchcache/watch-cache.ts';
import { JsonObjectCodec, serializeForStorage } from '../../src/watchcache/json-codec.ts';
import { jsonFrames } from '../../src/watchcache/json-frames.ts';
import { makePredicate } from '../../src/watchcache/predicate.ts';
import type { FrameEncoder, WatchOutput, WatchRequest } from '../../src/watchcache/watchers.ts';

class Collector implements WatchOutput {
  frames = new Map<number, string[]>();
  closed = new Map<number, Error>();
  send(ids: readonly number[], frames: readonly Uint8Array[]): void {
    for (const id of ids) {
      assert.ok(!this.closed.has(id), `no frames for watcher ${id} after it ended`);
      const list = this.frames.get(id) ?? [];
      for (const f of frames) {
        const ev = JSON.parse(Buffer.from(f).toString()) as { type: string; object: { metadata: { name?: string } } };
        list.push(`${ev.type} ${ev.object.metadata.name ?? ''}`.trim());
      }
      this.frames.set(id, list);
    }
  }
  close(ids: readonly number[], error: Error): void {
    for (const id of ids) this.closed.set(id, error);
  }
  of(id: number): string[] {
    return this.frames.get(id) ?? [];
  }
}

/** JSON frames, except that objects named `bad` (and bookmarks, when told) cannot be encoded. */
function pickyEncoder(): FrameEncoder & { refuseBookmarks: boolean } {
  return {
    refuseBookmarks: false,
    event(type, obj) {
      if (obj.name === 'bad') throw new Error(`cannot encode ${obj.name}`);
      return jsonFrames.event(type, obj);
    },
    bookmark(codec, revision, initialEventsEnd) {
      if (this.refuseBookmarks) throw new Error('cannot encode a bookmark');
      return jsonFrames.bookmark(codec, revision, initialEventsEnd);
    },
  };
}

function setup() {
  const out = new Collector();
  const picky = pickyEncoder();
  const cache = new WatchCache({
    prefix: '/pods/',
    codec: new JsonObjectCodec({ prefix: '/pods/', namespaced: true, apiVersion: 'v1', kind: 'Pod' }),
    window: { minEvents: 100, maxEvents: 1000, retentionMs: 300_000 },
    encoders: new Map<string, FrameEncoder>([
      ['json', jsonFrames],
      ['picky', picky],
    ]),
    output: out,
  });
  cache.reset([], 10);
  let rev = 10;
  const event = (name: string, ns = 'a'): StoreEvent => {
    rev++;
    const value = serializeForStorage({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: ns } });
    return { type: 'put', key: `/pods/${ns}/${name}`, revision: rev, value, createRevision: rev, prevValue: null, prevModRevision: 0 };
  };
  const watch = (id: number, encoding: string, extra: Partial<WatchRequest> = {}): void =>
    cache.watch({ id, startRevision: cache.revision, predicate: makePredicate({}), encoding, bookmarks: false, initialEventsEnd: false, ...extra });
  return { cache, out, picky, event, watch, rev: (): Revision => rev };
}

describe('watch cache fault isolation', () => {
  it('a batch with an object one encoding cannot carry ends only that encoding’s watchers, after the frames before it', () => {
    const { cache, out, event, watch } = setup();
    watch(1, 'picky');
    watch(2, 'picky');
    watch(3, 'json');
    watch(4, 'picky', { predicate: makePredicate({ namespace: 'b' }) });
    cache.applyEvents([event('p1'), event('bad'), event('p2'), event('q1', 'b')]);
    for (const id of [1, 2]) {
      assert.deepEqual(out.of(id), ['ADDED p1'], `watcher ${id} got the frame before the failure`);
      assert.match(out.closed.get(id)?.message ?? '', /cannot encode bad/);
    }
    assert.deepEqual(out.of(3), ['ADDED p1', 'ADDED bad', 'ADDED p2', 'ADDED q1'], 'the JSON watcher got the whole batch');
    assert.deepEqual(out.of(4), ['ADDED q1'], 'a watcher of the same encoding that never needed it carries on');
    assert.equal(out.closed.has(3) || out.closed.has(4), false);
    assert.equal(cache.watcherCount, 2, 'the ended watchers left their group');

    cache.applyEvents([event('p3'), event('q2', 'b')]);
    assert.deepEqual(out.of(3).slice(-2), ['ADDED p3', 'ADDED q2']);
    assert.deepEqual(out.of(4), ['ADDED q1', 'ADDED q2']);
    assert.equal(cache.list().items.length, 6, 'the cache applied every event');
  });

  it('a watcher whose catch-up needs the object ends alone, whether it starts with the state, from the window, or parked ahead', () => {
    const { cache, out, event, watch, rev } = setup();
    const before = cache.revision;
    cache.applyEvents([event('bad')]);
    watch(1, 'picky', { startRevision: null });
    watch(2, 'picky', { startRevision: before });
    watch(3, 'picky', { startRevision: rev() + 1 }); // parked: promoted by the next batch
    watch(4, 'json', { startRevision: before });
    assert.ok(out.closed.has(1), 'the initial-state watcher ended');
    assert.ok(out.closed.has(2), 'the window watcher ended');
    cache.applyEvents([event('p0'), event('bad', 'b'), event('p1')]);
    assert.ok(out.closed.has(3), 'the parked watcher ended when promoted');
    assert.deepEqual(out.of(4), ['ADDED bad', 'ADDED p0', 'ADDED bad', 'ADDED p1']);
    assert.equal(cache.watcherCount, 1);
  });

  it('a bookmark an encoding cannot make ends that encoding’s bookmark watchers only', () => {
    const { cache, out, picky, watch } = setup();
    watch(1, 'picky', { bookmarks: true });
    watch(2, 'json', { bookmarks: true });
    watch(3, 'picky', { bookmarks: false });
    picky.refuseBookmarks = true;
    cache.bookmark();
    assert.match(out.closed.get(1)?.message ?? '', /bookmark/);
    assert.deepEqual(out.of(2), ['BOOKMARK']);
    assert.equal(out.closed.has(3), false);
    assert.equal(cache.watcherCount, 2);
  });
});
