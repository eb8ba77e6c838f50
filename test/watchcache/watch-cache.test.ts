import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { KeyValue, Revision, StoreEvent } from '../../src/storage/interface.ts';
import { CompactedError, FutureRevisionError } from '../../src/storage/errors.ts';
import { WatchCache } from '../../src/watchcache/watch-cache.ts';
import { JsonObjectCodec, serializeForStorage } from '../../src/watchcache/json-codec.ts';
import { jsonFrames } from '../../src/watchcache/json-frames.ts';
import { makePredicate } from '../../src/watchcache/predicate.ts';
import { compileFilter } from '../../src/watchcache/filter.ts';
import type { WatchOutput } from '../../src/watchcache/watchers.ts';

interface Frame {
  type: string;
  object: { metadata: { name?: string; resourceVersion: string; labels?: Record<string, string>; annotations?: Record<string, string> } };
}

class Collector implements WatchOutput {
  frames = new Map<number, Frame[]>();
  sends = 0;
  closed = new Map<number, Error>();
  send(ids: readonly number[], frames: readonly Uint8Array[]): void {
    this.sends++;
    for (const id of ids) {
      const list = this.frames.get(id) ?? [];
      for (const f of frames) list.push(JSON.parse(Buffer.from(f).toString()) as Frame);
      this.frames.set(id, list);
    }
  }
  close(ids: readonly number[], error: Error): void {
    for (const id of ids) this.closed.set(id, error);
  }
  of(id: number): string[] {
    return (this.frames.get(id) ?? []).map((f) => `${f.type} ${f.object.metadata.name ?? ''}@${f.object.metadata.resourceVersion}`);
  }
}

const pod = (ns: string, name: string, labels: Record<string, string> = {}, phase = 'Running'): Uint8Array =>
  serializeForStorage({ kind: 'Pod', apiVersion: 'v1', metadata: { name, namespace: ns, labels }, spec: { nodeName: labels['node'] }, status: { phase } });

function setup(windowOpts = { minEvents: 100, maxEvents: 1000, retentionMs: 300_000 }, publish?: (revision: Revision, changes: number) => void) {
  const out = new Collector();
  const cache = new WatchCache({
    prefix: '/pods/',
    codec: new JsonObjectCodec({ prefix: '/pods/', namespaced: true, apiVersion: 'v1', kind: 'Pod' }),
    window: windowOpts,
    encoders: new Map([['json', jsonFrames]]),
    output: out,
    publish,
  });
  const live = new Map<string, { value: Uint8Array; create: Revision; mod: Revision }>();
  let rev = 10;
  const put = (ns: string, name: string, labels: Record<string, string> = {}, phase = 'Running'): Revision => {
    const key = `/pods/${ns}/${name}`;
    const prev = live.get(key);
    rev++;
    const value = pod(ns, name, labels, phase);
    const ev: StoreEvent = {
      type: 'put', key, revision: rev, value, createRevision: prev?.create ?? rev,
      prevValue: prev?.value ?? null, prevModRevision: prev?.mod ?? 0,
    };
    live.set(key, { value, create: prev?.create ?? rev, mod: rev });
    cache.applyEvents([ev]);
    return rev;
  };
  const del = (ns: string, name: string): Revision => {
    const key = `/pods/${ns}/${name}`;
    const prev = live.get(key)!;
    rev++;
    live.delete(key);
    cache.applyEvents([{ type: 'delete', key, revision: rev, value: null, createRevision: prev.create, prevValue: prev.value, prevModRevision: prev.mod }]);
    return rev;
  };
  const initial: KeyValue[] = [];
  cache.reset(initial, rev);
  return { cache, out, put, del, rev: () => rev };
}

const names = (items: { name: string }[]): string[] => items.map((o) => o.name);

describe('WatchCache', () => {
  it('serves gets and lists at the latest revision with resourceVersion set', () => {
    const { cache, put } = setup();
    put('a', 'p1');
    const r = put('b', 'p2');
    put('a', 'p0');
    const got = cache.get('/pods/b/p2')!;
    assert.equal(JSON.parse(Buffer.from(got.json).toString()).metadata.resourceVersion, String(r));
    assert.deepEqual(names(cache.list().items), ['p0', 'p1', 'p2']);
    assert.deepEqual(names(cache.list({ keyPrefix: '/pods/a/' }).items), ['p0', 'p1']);
    assert.equal(cache.list().revision, cache.revision);
  });

  it('tells the revision of the last change to its objects', () => {
    const { cache, put, del, rev } = setup();
    assert.equal(cache.changedAt, rev(), 'the load is the first change');
    put('a', 'p1');
    const b1 = put('b', 'p1');
    assert.equal(cache.changedAt, b1);
    const gone = del('a', 'p1');
    assert.equal(cache.changedAt, gone, 'a delete is a change');
    cache.markProgress(gone + 5);
    assert.equal(cache.revision, gone + 5);
    assert.equal(cache.changedAt, gone, 'progress changes no object');
    cache.reset([], gone + 10);
    assert.equal(cache.changedAt, gone + 10, 'a reset is a change');
  });

  it('publishes its revision and count of changes whenever either moves, before its watchers hear of a change', () => {
    const published: string[] = [];
    let sendsWhenPublished = -1;
    let sends = (): number => 0;
    const { cache, out, put, del, rev } = setup(undefined, (revision, changes) => {
      published.push(`${revision}/${changes}`);
      sendsWhenPublished = sends();
    });
    sends = () => out.sends;
    assert.deepEqual(published, [`${rev()}/1`], 'the load is published as the first change');
    cache.watch({ id: 1, startRevision: rev(), predicate: makePredicate({}), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    const sendsBefore = out.sends;
    const r1 = put('a', 'p1');
    assert.equal(published.at(-1), `${r1}/2`);
    assert.equal(sendsWhenPublished, sendsBefore, 'published before the event went to the watcher');
    assert.equal(out.sends, sendsBefore + 1);
    const r2 = del('a', 'p1');
    assert.equal(published.at(-1), `${r2}/3`, 'a delete is a change');
    cache.markProgress(r2 + 4);
    assert.equal(published.at(-1), `${r2 + 4}/3`, 'progress moves the revision only');
    cache.markProgress(r2 + 1);
    assert.equal(published.length, 4, 'an older progress publishes nothing');
    cache.reset([], r2 + 9);
    assert.equal(published.at(-1), `${r2 + 9}/4`, 'a reset is a change');
    assert.equal(cache.changes, 4);
  });

  it('lists an exact snapshot at a past revision in the window', () => {
    const { cache, put, del } = setup();
    put('a', 'p1', { v: '1' });
    put('a', 'p2');
    const snap = put('a', 'p3');
    put('a', 'p1', { v: '2' });
    del('a', 'p2');
    put('a', 'p4');
    const past = cache.list({ revision: snap });
    assert.equal(past.revision, snap);
    assert.deepEqual(names(past.items), ['p1', 'p2', 'p3']);
    assert.deepEqual(past.items[0]!.labels(), { v: '1' });
    assert.deepEqual(names(cache.list().items), ['p1', 'p3', 'p4']);
    assert.equal(cache.get('/pods/a/p2', snap)!.name, 'p2');
    assert.equal(cache.get('/pods/a/p4', snap), null);
  });

  it('pages with limit and start key, counting the remaining items', () => {
    const { cache, put } = setup();
    for (let i = 0; i < 7; i++) put('a', `p${i}`);
    const page1 = cache.list({ limit: 3 });
    assert.deepEqual(names(page1.items), ['p0', 'p1', 'p2']);
    assert.equal(page1.lastKey, '/pods/a/p2');
    assert.equal(page1.remaining, 4);
    put('a', 'p1'); // a change between pages must not show in a snapshot page
    const page2 = cache.list({ limit: 3, startKey: page1.lastKey + '\0', revision: page1.revision });
    assert.deepEqual(names(page2.items), ['p3', 'p4', 'p5']);
    assert.equal(page2.remaining, 1);
    const page3 = cache.list({ limit: 3, startKey: page2.lastKey + '\0', revision: page1.revision });
    assert.deepEqual(names(page3.items), ['p6']);
    assert.equal(page3.lastKey, undefined);
    // The byte count summed in the walk is that of the items returned (the page, not the item that ended it).
    for (const page of [page1, page2, page3]) assert.equal(page.jsonBytes, page.items.reduce((n, o) => n + o.json.byteLength, 0));
    const past = cache.list({ revision: page1.revision });
    assert.equal(past.jsonBytes, past.items.reduce((n, o) => n + o.json.byteLength, 0), 'at a past revision too');
  });

  it('walks exactly the key range of a prefix, names holding U+FFFF (sorting past the range scan bound) included', () => {
    const { cache, put } = setup();
    // More objects than a tree leaf holds, in three namespaces whose keys sort around each other's bounds.
    for (let i = 0; i < 100; i++) put('a', `p${String(i).padStart(3, '0')}`);
    for (let i = 0; i < 5; i++) put('a\uffff', `q${i}`);
    for (let i = 0; i < 5; i++) put('b', `r${i}`);
    put('a', '\uffff');
    put('a', '\uffffz');
    put('a', 'zz\uffff');
    const all = cache.list({ keyPrefix: '/pods/a/' });
    assert.equal(all.items.length, 103);
    assert.deepEqual(names(all.items).slice(-3), ['zz\uffff', '\uffff', '\uffffz']);
    assert.ok(all.items.every((o) => o.namespace === 'a'));
    assert.equal(all.jsonBytes, all.items.reduce((n, o) => n + o.json.byteLength, 0));
    // The same pages whatever page size, across the bound: every item once, in key order, with what remains counted.
    for (const limit of [1, 7, 50, 101, 102, 103]) {
      const seen: string[] = [];
      let startKey: string | undefined;
      for (;;) {
        const page = cache.list({ keyPrefix: '/pods/a/', limit, ...(startKey !== undefined ? { startKey } : {}) });
        seen.push(...names(page.items));
        if (page.lastKey === undefined) break;
        assert.equal(page.remaining, 103 - seen.length, `limit ${limit}: remaining after ${seen.length}`);
        startKey = page.lastKey + '\0';
      }
      assert.deepEqual(seen, names(all.items), `limit ${limit}`);
    }
    // A start key at or past the bound walks only what is left there.
    assert.deepEqual(names(cache.list({ keyPrefix: '/pods/a/', startKey: '/pods/a/\uffff' }).items), ['\uffff', '\uffffz']);
    assert.deepEqual(names(cache.list({ keyPrefix: '/pods/a/', startKey: '/pods/a/\uffffz\0' }).items), []);
    assert.equal(cache.list({ keyPrefix: '/pods/a\uffff/' }).items.length, 5);
  });

  it('filters lists with a predicate and omits the remaining count', () => {
    const { cache, put } = setup();
    put('a', 'p1', { app: 'web' });
    put('a', 'p2', { app: 'db' });
    put('b', 'p3', { app: 'web' });
    put('b', 'p4', { app: 'web' });
    const web = makePredicate({ conditionsId: 'app=web', test: (o) => o.labels()['app'] === 'web' });
    const res = cache.list({ predicate: web, limit: 2 });
    assert.deepEqual(names(res.items), ['p1', 'p3']);
    assert.equal(res.lastKey, '/pods/b/p3');
    assert.equal(res.remaining, undefined);
  });

  it('refuses revisions outside the window', () => {
    const { cache, put } = setup({ minEvents: 2, maxEvents: 2, retentionMs: 0 });
    const r1 = put('a', 'p1');
    put('a', 'p2');
    put('a', 'p3');
    put('a', 'p4');
    assert.throws(() => cache.list({ revision: r1 }), CompactedError);
    assert.throws(() => cache.list({ revision: cache.revision + 5 }), FutureRevisionError);
    assert.throws(() => cache.watch({ id: 1, startRevision: r1, predicate: makePredicate({}), encoding: 'json', bookmarks: false, initialEventsEnd: false }), CompactedError);
  });

  it('starts a watch with the initial state, then live events, once each', () => {
    const { cache, out, put } = setup();
    put('a', 'p1');
    put('a', 'p2');
    cache.watch({ id: 7, startRevision: null, predicate: makePredicate({}), encoding: 'json', bookmarks: false, initialEventsEnd: true });
    const r = put('a', 'p3');
    const frames = out.frames.get(7)!;
    assert.deepEqual(frames.map((f) => f.type), ['ADDED', 'ADDED', 'BOOKMARK', 'ADDED']);
    assert.equal(frames[2]!.object.metadata.annotations!['orch.io/initial-events-end'], 'true');
    assert.equal(frames[3]!.object.metadata.resourceVersion, String(r));
  });

  it('replays the window from a start revision, then continues live without a gap', () => {
    const { cache, out, put, del } = setup();
    const r1 = put('a', 'p1');
    put('a', 'p2');
    del('a', 'p1');
    cache.watch({ id: 1, startRevision: r1, predicate: makePredicate({}), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    put('a', 'p2');
    assert.deepEqual(out.of(1).map((s) => s.split('@')[0]), ['ADDED p2', 'DELETED p1', 'MODIFIED p2']);
    const revs = out.of(1).map((s) => Number(s.split('@')[1]));
    assert.deepEqual(revs, [...revs].sort((x, y) => x - y));
  });

  it('parks a watch ahead of the cache until the cache reaches its revision', () => {
    const { cache, out, put } = setup();
    const now = cache.revision;
    cache.watch({ id: 3, startRevision: now + 2, predicate: makePredicate({}), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    put('a', 'p1');
    put('a', 'p2');
    assert.equal(out.of(3).length, 0, 'nothing at or before the start revision');
    put('a', 'p3');
    assert.deepEqual(out.of(3).map((s) => s.split('@')[0]), ['ADDED p3']);
  });

  it('turns selector transitions into ADDED and DELETED as the original does', () => {
    const { cache, out, put } = setup();
    const running = makePredicate({ conditionsId: 'phase', test: (o) => o.field('status.phase') === 'Running' });
    cache.watch({ id: 1, startRevision: cache.revision, predicate: running, encoding: 'json', bookmarks: false, initialEventsEnd: false });
    put('a', 'p1', {}, 'Pending');
    put('a', 'p1', {}, 'Running');
    put('a', 'p1', {}, 'Running');
    const r = put('a', 'p1', {}, 'Failed');
    assert.deepEqual(out.of(1), [`ADDED p1@${r - 2}`, `MODIFIED p1@${r - 1}`, `DELETED p1@${r}`]);
  });

  it('encodes once per batch for a group of identical watchers', () => {
    const { cache, out, put } = setup();
    for (let id = 1; id <= 50; id++) {
      cache.watch({ id, startRevision: cache.revision, predicate: makePredicate({ namespace: 'a' }), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    }
    cache.watch({ id: 99, startRevision: cache.revision, predicate: makePredicate({ namespace: 'b' }), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    out.sends = 0;
    put('a', 'p1');
    assert.equal(out.sends, 1, 'one send for 50 watchers of namespace a, none for b');
    assert.equal(out.of(50).length, 1);
    assert.equal(out.of(99).length, 0);
    cache.unwatch(50);
    put('a', 'p2');
    assert.equal(out.of(50).length, 1, 'an unwatched watcher gets nothing more');
    assert.equal(out.of(49).length, 2);
  });

  it('indexes watchers pinned to a node name, and follows pods moving between nodes', () => {
    const { cache, out, put } = setup();
    for (let n = 0; n < 100; n++) {
      cache.watch({ id: n, startRevision: cache.revision, predicate: compileFilter({ fieldSelector: `spec.nodeName=n${n}` }), encoding: 'json', bookmarks: false, initialEventsEnd: false });
    }
    out.sends = 0;
    put('a', 'p1', { node: 'n7' });
    assert.equal(out.sends, 1, 'only the n7 group is sent to');
    assert.deepEqual(out.of(7).map((s) => s.split('@')[0]), ['ADDED p1']);
    put('a', 'p1', { node: 'n8' });
    assert.deepEqual(out.of(7).map((s) => s.split('@')[0]), ['ADDED p1', 'DELETED p1'], 'the old node sees the pod leave');
    assert.deepEqual(out.of(8).map((s) => s.split('@')[0]), ['ADDED p1'], 'the new node sees it arrive');
    assert.equal(out.of(9).length, 0);
  });

  it('closes watchers on reset and sends bookmarks on request', () => {
    const { cache, out, put } = setup();
    cache.watch({ id: 1, startRevision: cache.revision, predicate: makePredicate({}), encoding: 'json', bookmarks: true, initialEventsEnd: false });
    const r = put('a', 'p1');
    cache.bookmark();
    assert.deepEqual(out.frames.get(1)!.map((f) => f.type), ['ADDED', 'BOOKMARK']);
    assert.equal(out.frames.get(1)![1]!.object.metadata.resourceVersion, String(r));
    cache.reset([], r + 10);
    assert.ok(out.closed.get(1) instanceof CompactedError);
    assert.equal(cache.watcherCount, 0);
  });

  it('waits for a revision, then gives up with a too-large error', async () => {
    const { cache, put } = setup();
    const target = cache.revision + 1;
    const waiting = cache.waitFor(target, 1000);
    put('a', 'p1');
    await waiting;
    await assert.rejects(cache.waitFor(cache.revision + 100, 20), FutureRevisionError);
  });
});

describe('JsonObjectCodec: the type meta a bare list item leaves out', () => {
  const codec = new JsonObjectCodec({ prefix: '/pods/', namespaced: true, apiVersion: 'v1', kind: 'Pod' });
  const TYPE_META = '"kind":"Pod","apiVersion":"v1",';

  it('counts the type\'s own kind and apiVersion at the start, and what remains is the object without them', () => {
    const obj = codec.decode('/pods/ns/a', pod('ns', 'a'), 42);
    assert.equal(obj.typeMetaBytes, TYPE_META.length);
    const text = Buffer.from(obj.json).toString('utf8');
    const bare = JSON.parse(`{${text.slice(1 + obj.typeMetaBytes)}`) as Record<string, unknown>;
    const { kind: _k, apiVersion: _a, ...rest } = JSON.parse(text) as Record<string, unknown>;
    assert.deepEqual(bare, rest);
    assert.equal((bare['metadata'] as { resourceVersion: string }).resourceVersion, '42');
    assert.equal(codec.represent(obj, 50).typeMetaBytes, TYPE_META.length, 'the same at another revision');
  });

  it('counts nothing for objects that start otherwise: another version or kind, no type meta, another layout', () => {
    for (const value of [
      serializeForStorage({ kind: 'Pod', apiVersion: 'v2', metadata: { name: 'a' } }),
      serializeForStorage({ kind: 'Pods', apiVersion: 'v1', metadata: { name: 'a' } }),
      serializeForStorage({ metadata: { name: 'a' }, spec: {} }),
      serializeForStorage({ apiVersion: 'v1', metadata: { name: 'a' } }),
      // Fields before metadata (another writer's layout): none of them is left out.
      new TextEncoder().encode('{"spec":{"x":1},"metadata":{"resourceVersion":"","name":"a"},"kind":"Pod","apiVersion":"v1"}'),
      new TextEncoder().encode('{"kind":"Pod","spec":{},"metadata":{"resourceVersion":"","name":"a"}}'),
    ]) {
      const obj = codec.decode('/pods/ns/a', value, 7);
      assert.equal(obj.typeMetaBytes, 0, Buffer.from(value).toString('utf8'));
    }
  });
});
