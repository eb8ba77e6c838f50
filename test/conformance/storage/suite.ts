/**
 * The one storage conformance suite every backend runs, in the spirit of
 * kubernetes/apiserver pkg/storage/testing/store_tests.go.
 *
 * Each case opens a fresh store from the factory. Backends may share one
 * revision counter between stores (etcd does, across prefixes), so cases only
 * compare revisions they saw themselves and never assume a start value or
 * contiguous numbering.
 */
import { describe, it, beforeEach, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import type { Store, StoreEvent, StoreWatch, Revision } from '../../../src/storage/interface.ts';
import {
  AlreadyExistsError,
  CompactedError,
  ConflictError,
  FutureRevisionError,
  NotFoundError,
} from '../../../src/storage/errors.ts';

export interface OpenedStore {
  store: Store;
  cleanup: () => Promise<void>;
}

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (b: Uint8Array | null): string | null => (b === null ? null : new TextDecoder().decode(b));

/** Collects a watch's output and lets a test wait for a number of events. */
class Recorder {
  events: StoreEvent[] = [];
  progress: Revision[] = [];
  batches = 0;
  error: Error | null = null;
  #waiters: Array<() => void> = [];

  readonly listener = {
    onEvents: (events: readonly StoreEvent[]): void => {
      assert.ok(events.length > 0, 'a batch is never empty');
      this.batches++;
      this.events.push(...events);
      this.#wake();
    },
    onProgress: (revision: Revision): void => {
      this.progress.push(revision);
      this.#wake();
    },
    onError: (error: Error): void => {
      this.error = error;
      this.#wake();
    },
  };

  #wake(): void {
    const waiters = this.#waiters;
    this.#waiters = [];
    for (const w of waiters) w();
  }

  async until(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      const left = deadline - Date.now();
      if (left <= 0) assert.fail(`timed out waiting for ${what}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, Math.min(left, 200));
        this.#waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }
}

async function rejectsWith<T extends Error>(
  p: Promise<unknown>,
  cls: new (...args: never[]) => T,
): Promise<T> {
  try {
    await p;
  } catch (err) {
    assert.ok(err instanceof cls, `expected ${cls.name}, got ${String(err)}`);
    return err as T;
  }
  assert.fail(`expected ${cls.name}, but the call succeeded`);
}

export function runStoreConformance(backendName: string, open: () => Promise<OpenedStore>): void {
  describe(`storage conformance: ${backendName}`, () => {
    let opened: OpenedStore;
    let store: Store;
    const watches: StoreWatch[] = [];

    beforeEach(async () => {
      opened = await open();
      store = opened.store;
    });
    afterEach(async () => {
      for (const w of watches.splice(0)) w.close();
      await opened.cleanup();
    });
    const watch = (prefix: string, after: Revision): Recorder => {
      const rec = new Recorder();
      watches.push(store.watch(prefix, after, rec.listener));
      return rec;
    };

    describe('create', () => {
      it('creates a key and returns its revisions', async () => {
        const before = await store.currentRevision();
        const kv = await store.create('/pods/ns1/a', enc('a1'));
        assert.equal(kv.key, '/pods/ns1/a');
        assert.equal(dec(kv.value), 'a1');
        assert.ok(kv.modRevision > before, 'revision advances');
        assert.equal(kv.createRevision, kv.modRevision);
        const got = await store.get('/pods/ns1/a');
        assert.equal(dec(got.kv!.value), 'a1');
        assert.equal(got.kv!.modRevision, kv.modRevision);
        assert.ok(got.revision >= kv.modRevision);
      });

      it('refuses to create an existing key', async () => {
        const kv = await store.create('/pods/ns1/a', enc('a1'));
        const err = await rejectsWith(store.create('/pods/ns1/a', enc('a2')), AlreadyExistsError);
        assert.equal(err.key, '/pods/ns1/a');
        const got = await store.get('/pods/ns1/a');
        assert.equal(dec(got.kv!.value), 'a1', 'the failed create changed nothing');
        assert.equal(got.kv!.modRevision, kv.modRevision);
      });

      it('re-creates a deleted key with a new createRevision', async () => {
        const first = await store.create('/pods/ns1/a', enc('a1'));
        await store.delete('/pods/ns1/a');
        const second = await store.create('/pods/ns1/a', enc('a2'));
        assert.ok(second.createRevision > first.createRevision);
      });

      it('stores arbitrary bytes unchanged', async () => {
        const bytes = new Uint8Array(256).map((_, i) => i);
        await store.create('/bin/x', bytes);
        const got = await store.get('/bin/x');
        assert.deepEqual(Array.from(got.kv!.value), Array.from(bytes));
        const empty = await store.create('/bin/empty', new Uint8Array(0));
        assert.equal((await store.get('/bin/empty')).kv!.value.length, 0);
        assert.ok(empty.modRevision > 0);
      });
    });

    describe('revisions', () => {
      it('hands out strictly increasing revisions across keys and operations', async () => {
        const revs: Revision[] = [];
        revs.push((await store.create('/r/a', enc('1'))).modRevision);
        revs.push((await store.create('/q/b', enc('1'))).modRevision);
        revs.push((await store.update('/r/a', enc('2'), revs[0]!)).modRevision);
        revs.push((await store.delete('/q/b')).revision);
        revs.push((await store.create('/q/b', enc('3'))).modRevision);
        for (let i = 1; i < revs.length; i++) assert.ok(revs[i]! > revs[i - 1]!, `rev ${i} increases`);
        assert.ok((await store.currentRevision()) >= revs.at(-1)!);
      });

      it('never hands out one revision twice under concurrency', async () => {
        const results = await Promise.all(
          Array.from({ length: 200 }, (_, i) => store.create(`/c/k${i}`, enc(String(i)))),
        );
        const revs = new Set(results.map((r) => r.modRevision));
        assert.equal(revs.size, 200);
      });

      it('does not advance the revision on a failed write', async () => {
        await store.create('/f/a', enc('1'));
        const before = await store.currentRevision();
        await rejectsWith(store.create('/f/a', enc('2')), AlreadyExistsError);
        await rejectsWith(store.update('/f/a', enc('2'), before + 1000), ConflictError);
        await rejectsWith(store.delete('/f/missing'), NotFoundError);
        // Each backend's store is the only writer during a case, so the
        // counter must not have moved.
        assert.equal(await store.currentRevision(), before);
      });
    });

    describe('get', () => {
      it('returns null for a missing key, with the current revision', async () => {
        const kv = await store.create('/g/present', enc('x'));
        const got = await store.get('/g/absent');
        assert.equal(got.kv, null);
        assert.ok(got.revision >= kv.modRevision);
      });

      it('reads a key as of a past revision', async () => {
        const v1 = await store.create('/g/a', enc('v1'));
        const v2 = await store.update('/g/a', enc('v2'), v1.modRevision);
        const del = await store.delete('/g/a');
        assert.equal(dec((await store.get('/g/a', v1.modRevision)).kv!.value), 'v1');
        assert.equal(dec((await store.get('/g/a', v2.modRevision)).kv!.value), 'v2');
        assert.equal((await store.get('/g/a', del.revision)).kv, null);
        assert.equal((await store.get('/g/a', v1.modRevision - 1)).kv, null, 'before creation');
        assert.equal((await store.get('/g/a', v1.modRevision)).revision, v1.modRevision);
      });

      it('fails for a future revision', async () => {
        const kv = await store.create('/g/a', enc('v1'));
        const err = await rejectsWith(store.get('/g/a', kv.modRevision + 1_000_000), FutureRevisionError);
        assert.equal(err.requestedRevision, kv.modRevision + 1_000_000);
      });

      it('fails for a compacted revision', async () => {
        const v1 = await store.create('/g/a', enc('v1'));
        const v2 = await store.update('/g/a', enc('v2'), v1.modRevision);
        await store.compact(v2.modRevision);
        const err = await rejectsWith(store.get('/g/a', v1.modRevision), CompactedError);
        assert.ok(err.compactRevision >= v2.modRevision);
        assert.equal(dec((await store.get('/g/a')).kv!.value), 'v2', 'latest survives compaction');
        assert.equal(dec((await store.get('/g/a', v2.modRevision)).kv!.value), 'v2');
      });
    });

    describe('update', () => {
      it('replaces the value when the revision matches', async () => {
        const v1 = await store.create('/u/a', enc('v1'));
        const v2 = await store.update('/u/a', enc('v2'), v1.modRevision);
        assert.ok(v2.modRevision > v1.modRevision);
        assert.equal(v2.createRevision, v1.createRevision);
        assert.equal(dec(v2.value), 'v2');
        const got = await store.get('/u/a');
        assert.equal(dec(got.kv!.value), 'v2');
        assert.equal(got.kv!.createRevision, v1.createRevision);
      });

      it('conflicts on a stale revision and reports the current value', async () => {
        const v1 = await store.create('/u/a', enc('v1'));
        const v2 = await store.update('/u/a', enc('v2'), v1.modRevision);
        const err = await rejectsWith(store.update('/u/a', enc('v3'), v1.modRevision), ConflictError);
        assert.equal(err.current.modRevision, v2.modRevision);
        assert.equal(dec(err.current.value), 'v2');
        assert.equal(dec((await store.get('/u/a')).kv!.value), 'v2');
      });

      it('fails with NotFound for a missing key', async () => {
        await rejectsWith(store.update('/u/missing', enc('v'), 1), NotFoundError);
        assert.equal((await store.get('/u/missing')).kv, null, 'update does not create');
      });

      it('serializes concurrent read-modify-write loops without losing an increment', async () => {
        await store.create('/u/counter', enc('0'));
        const bump = async (): Promise<number> => {
          for (let attempt = 0; ; attempt++) {
            const { kv } = await store.get('/u/counter');
            const next = Number(dec(kv!.value)) + 1;
            try {
              await store.update('/u/counter', enc(String(next)), kv!.modRevision);
              return attempt;
            } catch (err) {
              if (!(err instanceof ConflictError)) throw err;
            }
          }
        };
        const attempts = await Promise.all(Array.from({ length: 20 }, bump));
        assert.equal(dec((await store.get('/u/counter')).kv!.value), '20');
        assert.ok(attempts.some((a) => a > 0), 'some writers had to retry');
      });
    });

    describe('delete', () => {
      it('deletes and returns the previous value', async () => {
        const v1 = await store.create('/d/a', enc('v1'));
        const res = await store.delete('/d/a');
        assert.ok(res.revision > v1.modRevision);
        assert.equal(dec(res.prev.value), 'v1');
        assert.equal(res.prev.modRevision, v1.modRevision);
        assert.equal((await store.get('/d/a')).kv, null);
      });

      it('honours the revision precondition', async () => {
        const v1 = await store.create('/d/a', enc('v1'));
        const v2 = await store.update('/d/a', enc('v2'), v1.modRevision);
        const err = await rejectsWith(store.delete('/d/a', v1.modRevision), ConflictError);
        assert.equal(err.current.modRevision, v2.modRevision);
        assert.ok((await store.get('/d/a')).kv !== null, 'still there');
        await store.delete('/d/a', v2.modRevision);
        assert.equal((await store.get('/d/a')).kv, null);
      });

      it('fails with NotFound for a missing key', async () => {
        const err = await rejectsWith(store.delete('/d/missing'), NotFoundError);
        assert.equal(err.key, '/d/missing');
      });
    });

    describe('range', () => {
      const seed = async (): Promise<Revision> => {
        let last = 0;
        for (const k of ['/l/ns2/b', '/l/ns1/c', '/l/ns1/a', '/l/ns1/b', '/lx/other', '/k/before']) {
          last = (await store.create(k, enc(k))).modRevision;
        }
        return last;
      };

      it('lists only keys under the prefix, in key order', async () => {
        const last = await seed();
        const res = await store.range('/l/');
        assert.deepEqual(
          res.kvs.map((kv) => kv.key),
          ['/l/ns1/a', '/l/ns1/b', '/l/ns1/c', '/l/ns2/b'],
        );
        assert.equal(res.count, 4);
        assert.equal(res.more, false);
        assert.ok(res.revision >= last);
        assert.deepEqual(
          (await store.range('/l/ns1/')).kvs.map((kv) => dec(kv.value)),
          ['/l/ns1/a', '/l/ns1/b', '/l/ns1/c'],
        );
        assert.equal((await store.range('/nothing/')).kvs.length, 0);
      });

      it('pages with limit and a resume key, reporting count and more', async () => {
        await seed();
        const p1 = await store.range('/l/', { limit: 3 });
        assert.deepEqual(p1.kvs.map((kv) => kv.key), ['/l/ns1/a', '/l/ns1/b', '/l/ns1/c']);
        assert.equal(p1.more, true);
        assert.equal(p1.count, 4);
        // Resume after the last key, at the first page's revision.
        const p2 = await store.range('/l/', {
          limit: 3,
          startKey: p1.kvs.at(-1)!.key + '\x00',
          revision: p1.revision,
        });
        assert.deepEqual(p2.kvs.map((kv) => kv.key), ['/l/ns2/b']);
        assert.equal(p2.more, false);
        assert.equal(p2.count, 1);
        assert.equal(p2.revision, p1.revision);
      });

      it('shows an exact snapshot at a past revision', async () => {
        const a = await store.create('/s/a', enc('a1'));
        const b = await store.create('/s/b', enc('b1'));
        const snapshot = b.modRevision;
        await store.update('/s/a', enc('a2'), a.modRevision);
        await store.delete('/s/b');
        await store.create('/s/c', enc('c1'));
        const past = await store.range('/s/', { revision: snapshot });
        assert.equal(past.revision, snapshot);
        assert.deepEqual(
          past.kvs.map((kv) => [kv.key, dec(kv.value), kv.modRevision]),
          [
            ['/s/a', 'a1', a.modRevision],
            ['/s/b', 'b1', b.modRevision],
          ],
        );
        const now = await store.range('/s/');
        assert.deepEqual(now.kvs.map((kv) => dec(kv.value)), ['a2', 'c1']);
      });

      it('fails for compacted and future revisions', async () => {
        const a = await store.create('/s/a', enc('a1'));
        const a2 = await store.update('/s/a', enc('a2'), a.modRevision);
        await store.compact(a2.modRevision);
        await rejectsWith(store.range('/s/', { revision: a.modRevision }), CompactedError);
        await rejectsWith(store.range('/s/', { revision: a2.modRevision + 1_000_000 }), FutureRevisionError);
        assert.equal((await store.range('/s/', { revision: a2.modRevision })).kvs.length, 1);
      });

      it('keeps large values intact in lists', async () => {
        const big = 'x'.repeat(100_000);
        await store.create('/big/a', enc(big));
        const res = await store.range('/big/');
        assert.equal(dec(res.kvs[0]!.value), big);
      });
    });

    describe('watch', () => {
      it('delivers puts and deletes under the prefix in order, with previous values', async () => {
        const start = await store.currentRevision();
        const rec = watch('/w/', start);
        const a1 = await store.create('/w/a', enc('a1'));
        await store.create('/other/x', enc('x'));
        const a2 = await store.update('/w/a', enc('a2'), a1.modRevision);
        const del = await store.delete('/w/a');
        await rec.until(() => rec.events.length >= 3, '3 events');
        const evs = rec.events;
        assert.deepEqual(
          evs.map((e) => [e.type, e.key, e.revision, dec(e.value), dec(e.prevValue)]),
          [
            ['put', '/w/a', a1.modRevision, 'a1', null],
            ['put', '/w/a', a2.modRevision, 'a2', 'a1'],
            ['delete', '/w/a', del.revision, null, 'a2'],
          ],
        );
        assert.equal(evs[0]!.prevModRevision, 0);
        assert.equal(evs[1]!.prevModRevision, a1.modRevision);
        assert.equal(evs[1]!.createRevision, a1.modRevision);
        assert.equal(evs[2]!.prevModRevision, a2.modRevision);
        assert.equal(rec.error, null);
      });

      it('replays history from a past revision', async () => {
        const a1 = await store.create('/w/a', enc('a1'));
        const b1 = await store.create('/w/b', enc('b1'));
        const a2 = await store.update('/w/a', enc('a2'), a1.modRevision);
        const rec = watch('/w/', a1.modRevision);
        await rec.until(() => rec.events.length >= 2, 'replayed events');
        assert.deepEqual(
          rec.events.map((e) => e.revision),
          [b1.modRevision, a2.modRevision],
          'events after the start revision only',
        );
        const c = await store.create('/w/c', enc('c'));
        await rec.until(() => rec.events.length >= 3, 'live event');
        assert.equal(rec.events[2]!.revision, c.modRevision);
      });

      it('fails with Compacted for a start revision in compacted history', async () => {
        const a1 = await store.create('/w/a', enc('a1'));
        const a2 = await store.update('/w/a', enc('a2'), a1.modRevision);
        await store.update('/w/a', enc('a3'), a2.modRevision);
        await store.compact(a2.modRevision);
        const rec = watch('/w/', a1.modRevision - 1);
        await rec.until(() => rec.error !== null, 'compacted error');
        assert.ok(rec.error instanceof CompactedError, `got ${String(rec.error)}`);
        assert.equal(rec.events.length, 0);
        // Starting exactly at the compacted revision is fine: no event at or below it is owed.
        const ok = watch('/w/', a2.modRevision);
        await ok.until(() => ok.events.length >= 1, 'event after the compacted revision');
        assert.equal(dec(ok.events[0]!.value), 'a3');
        assert.equal(ok.error, null);
      });

      it('answers progress requests once caught up', async () => {
        const rec = watch('/w/', await store.currentRevision());
        const kv = await store.create('/elsewhere/a', enc('a'));
        rec.progress.length = 0;
        watches.at(-1)!.requestProgress();
        await rec.until(() => rec.progress.some((r) => r >= kv.modRevision), 'progress >= last write');
        assert.equal(rec.events.length, 0, 'no events outside the prefix');
      });

      it('gives every watcher of a prefix the same complete, ordered stream under concurrent writes', async () => {
        const start = await store.currentRevision();
        const recs = [watch('/cw/', start), watch('/cw/', start), watch('/cw/k1', start)];
        const writes = await Promise.all(
          Array.from({ length: 50 }, (_, i) => store.create(`/cw/k${i}`, enc(String(i)))),
        );
        const expected = writes.map((w) => w.modRevision).sort((x, y) => x - y);
        await recs[0]!.until(() => recs[0]!.events.length >= 50, 'all events (0)');
        await recs[1]!.until(() => recs[1]!.events.length >= 50, 'all events (1)');
        assert.deepEqual(recs[0]!.events.map((e) => e.revision), expected);
        assert.deepEqual(recs[1]!.events.map((e) => e.revision), expected);
        const k1 = writes.filter((w) => w.key.startsWith('/cw/k1')).map((w) => w.modRevision).sort((x, y) => x - y);
        await recs[2]!.until(() => recs[2]!.events.length >= k1.length, 'prefix k1 events');
        assert.deepEqual(recs[2]!.events.map((e) => e.revision), k1);
      });

      it('stops delivering after close', async () => {
        const rec = new Recorder();
        const w = store.watch('/w/', await store.currentRevision(), rec.listener);
        await store.create('/w/a', enc('a'));
        await rec.until(() => rec.events.length === 1, 'first event');
        w.close();
        await store.create('/w/b', enc('b'));
        await new Promise((r) => setTimeout(r, 200));
        assert.equal(rec.events.length, 1);
      });
    });

    describe('compaction', () => {
      it('reports the compacted revision and keeps the latest state', async () => {
        const a1 = await store.create('/cp/a', enc('a1'));
        const b1 = await store.create('/cp/b', enc('b1'));
        await store.delete('/cp/b');
        const a2 = await store.update('/cp/a', enc('a2'), a1.modRevision);
        await store.compact(a2.modRevision);
        assert.ok((await store.compactedRevision()) >= a2.modRevision);
        const res = await store.range('/cp/');
        assert.deepEqual(res.kvs.map((kv) => [kv.key, dec(kv.value)]), [['/cp/a', 'a2']]);
        await rejectsWith(store.range('/cp/', { revision: b1.modRevision }), CompactedError);
        // Writes continue above the compacted revision.
        const c = await store.create('/cp/c', enc('c'));
        assert.ok(c.modRevision > a2.modRevision);
      });
    });
  });
}
