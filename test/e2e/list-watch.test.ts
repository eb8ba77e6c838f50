/**
 * List and watch over HTTP, row by row of the spec's 4.5 tables: get, list
 * (with and without limit/continue/resourceVersionMatch) and watch, plus
 * chunking, 410 and 504 answers, bookmarks, streaming lists and timeouts.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS } from '../support/uws-toggle.ts';

interface List {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: Array<{ metadata: { name: string; resourceVersion: string }; data?: Record<string, string> }>;
}
interface Status {
  kind: string;
  code: number;
  reason: string;
  message: string;
}

const NS = '/api/v1/namespaces/default/configmaps';
const names = (l: List): string[] => l.items.map((i) => i.metadata.name);

describe('list and watch semantics (spec 4.5)', () => {
  let t: TestServer;
  /** Revision after c0..c4 existed, before c5 and the change of c0. */
  let before5: number;
  let latest: number;

  before(async () => {
    t = await startTestServer(['--watch-bookmark-interval=500ms']);
    for (let i = 0; i < 5; i++) await t.request('POST', NS, { metadata: { name: `c${i}`, labels: { n: String(i % 2) } }, data: { v: 'old' } });
    before5 = Number((await t.request('GET', NS)).json<List>().metadata.resourceVersion);
    await t.request('POST', NS, { metadata: { name: 'c5' } });
    const c0 = (await t.request('GET', `${NS}/c0`)).json<{ metadata: Record<string, unknown> }>();
    const upd = await t.request('PUT', `${NS}/c0`, { ...c0, data: { v: 'new' } });
    latest = Number(upd.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion);
  });
  after(async () => {
    await t?.stop();
  });

  describe('get', () => {
    it('unset: the most recent state', async () => {
      const r = await t.request('GET', `${NS}/c0`);
      assert.equal(r.json<{ data: { v: string } }>().data.v, 'new');
    });
    it('"0": any state', async () => {
      assert.equal((await t.request('GET', `${NS}/c0?resourceVersion=0`)).status, 200);
    });
    it('other: not older than; a version the server has not reached is 504 Too large', async () => {
      const ok = await t.request('GET', `${NS}/c0?resourceVersion=${before5}`);
      assert.equal(ok.json<{ data: { v: string } }>().data.v, 'new', 'not older than: the latest satisfies it');
      const future = await t.request('GET', `${NS}/c0?resourceVersion=${latest + 100000}`);
      assert.equal(future.status, 504);
      assert.equal(future.headers['retry-after'], '1');
      assert.match(future.json<Status>().message, /Too large resource version/);
    });
  });

  describe('list without limit', () => {
    it('unset: most recent', async () => {
      const l = (await t.request('GET', NS)).json<List>();
      assert.ok(Number(l.metadata.resourceVersion) >= latest);
      assert.ok(names(l).includes('c5'));
    });
    it('"0": any', async () => {
      const l = (await t.request('GET', `${NS}?resourceVersion=0`)).json<List>();
      assert.ok(names(l).includes('c5'), 'the cache is current here');
    });
    it('other: not older than', async () => {
      const l = (await t.request('GET', `${NS}?resourceVersion=${before5}`)).json<List>();
      assert.ok(Number(l.metadata.resourceVersion) >= before5);
      assert.equal((await t.request('GET', `${NS}?resourceVersion=${latest + 100000}`)).status, 504);
    });
  });

  describe('list with limit, no continue', () => {
    it('unset: most recent, chunked with remainingItemCount', async () => {
      const l = (await t.request('GET', `${NS}?limit=2`)).json<List>();
      assert.deepEqual(names(l), ['c0', 'c1']);
      assert.ok(l.metadata.continue);
      assert.equal(l.metadata.remainingItemCount, 4);
    });
    it('"0": any', async () => {
      const l = (await t.request('GET', `${NS}?limit=2&resourceVersion=0`)).json<List>();
      assert.equal(l.items.length, 2);
    });
    it('other: exact', async () => {
      const l = (await t.request('GET', `${NS}?limit=10&resourceVersion=${before5}`)).json<List>();
      assert.equal(l.metadata.resourceVersion, String(before5));
      assert.deepEqual(names(l), ['c0', 'c1', 'c2', 'c3', 'c4'], 'c5 did not exist yet');
      assert.equal(l.items[0]!.data!['v'], 'old', 'c0 as it was then');
    });
  });

  describe('list with continue', () => {
    it('pages keep the first page\'s snapshot; the last page has no continue or count', async () => {
      const p1 = (await t.request('GET', `${NS}?limit=4`)).json<List>();
      await t.request('POST', NS, { metadata: { name: 'c1a' } }); // must not appear in later pages
      const p2 = (await t.request('GET', `${NS}?limit=4&continue=${encodeURIComponent(p1.metadata.continue!)}`)).json<List>();
      assert.equal(p2.metadata.resourceVersion, p1.metadata.resourceVersion, 'constant resourceVersion');
      assert.deepEqual([...names(p1), ...names(p2)], ['c0', 'c1', 'c2', 'c3', 'c4', 'c5']);
      assert.equal(p2.metadata.continue, undefined);
      assert.equal(p2.metadata.remainingItemCount, undefined);
      await t.request('DELETE', `${NS}/c1a`);
    });
    it('"0" with a token: tolerated, served from the token', async () => {
      const p1 = (await t.request('GET', `${NS}?limit=3`)).json<List>();
      const p2 = await t.request('GET', `${NS}?limit=3&resourceVersion=0&continue=${encodeURIComponent(p1.metadata.continue!)}`);
      assert.equal(p2.status, 200);
      assert.equal(p2.json<List>().metadata.resourceVersion, p1.metadata.resourceVersion);
    });
    it('other with a token: 400 naming the parameter', async () => {
      const p1 = (await t.request('GET', `${NS}?limit=3`)).json<List>();
      const r = await t.request('GET', `${NS}?limit=3&resourceVersion=${before5}&continue=${encodeURIComponent(p1.metadata.continue!)}`);
      assert.equal(r.status, 400);
      assert.match(r.json<Status>().message, /resourceVersion/);
    });
    it('remainingItemCount on every page counts what follows it, also when the filter changes between pages', async () => {
      const all = (await t.request('GET', NS)).json<List>().items.length;
      let cont = '';
      let seen = 0;
      const counts: Array<number | undefined> = [];
      do {
        const l = (await t.request('GET', `${NS}?limit=2${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`)).json<List>();
        seen += l.items.length;
        counts.push(l.metadata.remainingItemCount);
        if (l.metadata.continue) assert.equal(l.metadata.remainingItemCount, all - seen, `after ${seen} items`);
        cont = l.metadata.continue ?? '';
      } while (cont !== '');
      assert.equal(seen, all);
      assert.equal(counts.at(-1), undefined, 'none on the last page');
      // The first page counted in one namespace; the next asks across all of them: it must count anew.
      await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'zz-remaining' } });
      assert.equal((await t.request('POST', '/api/v1/namespaces/zz-remaining/configmaps', { metadata: { name: 'elsewhere' } })).status, 201);
      const p1 = (await t.request('GET', `${NS}?limit=1`)).json<List>();
      const across = (await t.request('GET', `/api/v1/configmaps?limit=1&continue=${encodeURIComponent(p1.metadata.continue!)}`)).json<List>();
      const later = (await t.request('GET', `/api/v1/configmaps?resourceVersion=${p1.metadata.resourceVersion}&resourceVersionMatch=Exact`)).json<List>();
      const key = (o: { metadata: { namespace?: string; name?: string } }): string => `${o.metadata.namespace}/${o.metadata.name}`;
      const firstKey = key(across.items[0] as never);
      const after = later.items.filter((o) => key(o as never) > firstKey).length;
      assert.equal(across.metadata.remainingItemCount, after, 'counted under the new filter');
      assert.equal((await t.request('DELETE', '/api/v1/namespaces/zz-remaining/configmaps/elsewhere')).status, 200);
    });

    it('omits remainingItemCount with selectors', async () => {
      const l = (await t.request('GET', `${NS}?limit=1&labelSelector=n%3D0`)).json<List>();
      assert.equal(l.items.length, 1);
      assert.ok(l.metadata.continue);
      assert.equal(l.metadata.remainingItemCount, undefined);
    });
  });

  describe('resourceVersionMatch', () => {
    it('Exact: unset and "0" are invalid (400), other is exact with or without limit', async () => {
      for (const q of ['resourceVersionMatch=Exact', 'resourceVersionMatch=Exact&resourceVersion=0', 'resourceVersionMatch=Exact&limit=2&resourceVersion=0']) {
        const r = await t.request('GET', `${NS}?${q}`);
        assert.equal(r.status, 400, q);
        assert.match(r.json<Status>().message, /resourceVersionMatch/);
      }
      const exact = (await t.request('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=${before5}`)).json<List>();
      assert.equal(exact.metadata.resourceVersion, String(before5));
      assert.deepEqual(names(exact), ['c0', 'c1', 'c2', 'c3', 'c4']);
      const paged = (await t.request('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=${before5}&limit=2`)).json<List>();
      assert.deepEqual(names(paged), ['c0', 'c1']);
    });
    it('NotOlderThan: unset is invalid, "0" is any, other is not older than', async () => {
      assert.equal((await t.request('GET', `${NS}?resourceVersionMatch=NotOlderThan`)).status, 400);
      assert.equal((await t.request('GET', `${NS}?resourceVersionMatch=NotOlderThan&resourceVersion=0`)).status, 200);
      const l = (await t.request('GET', `${NS}?resourceVersionMatch=NotOlderThan&resourceVersion=${before5}&limit=2`)).json<List>();
      assert.ok(Number(l.metadata.resourceVersion) >= latest);
      assert.equal((await t.request('GET', `${NS}?resourceVersionMatch=NotOlderThan&resourceVersion=${latest + 100000}`)).status, 504);
    });
    it('with a continue token, or an unknown value: 400', async () => {
      const p1 = (await t.request('GET', `${NS}?limit=3`)).json<List>();
      assert.equal((await t.request('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=5&continue=${encodeURIComponent(p1.metadata.continue!)}`)).status, 400);
      assert.equal((await t.request('GET', `${NS}?resourceVersionMatch=Newest&resourceVersion=5`)).status, 400);
    });
  });

  describe('watch', () => {
    it('unset: synthetic ADDED for the current state, then changes', async () => {
      const w = await t.watch(`${NS}?watch=1&labelSelector=n%3D1`);
      await w.until(() => w.events.length >= 2, 'initial events');
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED c1', 'ADDED c3']);
      await t.request('POST', NS, { metadata: { name: 'w1', labels: { n: '1' } } });
      await w.until(() => w.events.length >= 3, 'live event');
      assert.equal(w.events[2]!.object.metadata.name, 'w1');
      w.close();
      await t.request('DELETE', `${NS}/w1`);
    });
    it('"0": synthetic ADDED from any state', async () => {
      const w = await t.watch(`${NS}?watch=1&resourceVersion=0&fieldSelector=metadata.name%3Dc2`);
      await w.until(() => w.events.length >= 1, 'initial event');
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED c2']);
      w.close();
    });
    it('other: exactly the changes after it, no synthetic events', async () => {
      const w = await t.watch(`${NS}?watch=1&resourceVersion=${before5}`);
      await w.until(() => w.events.length >= 2, 'replayed changes');
      assert.deepEqual(w.events.slice(0, 2).map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED c5', 'MODIFIED c0']);
      w.close();
    });
    it('watches one object by name and all namespaces at once', async () => {
      await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'other' } });
      const all = await t.watch(`/api/v1/configmaps?watch=1&resourceVersion=${latest}`);
      const one = await t.watch(`${NS}?watch=1&resourceVersion=${latest}&fieldSelector=metadata.name%3Dsolo`);
      await t.request('POST', '/api/v1/namespaces/other/configmaps', { metadata: { name: 'x' } });
      await t.request('POST', NS, { metadata: { name: 'solo' } });
      await all.until(() => all.events.filter((e) => e.type !== 'BOOKMARK').length >= 2, 'events from two namespaces');
      await one.until(() => one.events.length >= 1, 'the one object');
      assert.deepEqual(one.events.map((e) => e.object.metadata.name), ['solo']);
      all.close();
      one.close();
    });
    it('sends bookmarks when allowed, and ends the initial state of a streaming list with an annotated one', async () => {
      const w = await t.watch(`${NS}?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=0&allowWatchBookmarks=true&labelSelector=n%3D0`);
      await w.until(() => w.events.some((e) => e.type === 'BOOKMARK'), 'the initial-events-end bookmark');
      const types = w.events.map((e) => e.type);
      const end = types.indexOf('BOOKMARK');
      assert.deepEqual(types.slice(0, end), ['ADDED', 'ADDED', 'ADDED'], 'c0, c2, c4 first');
      const mark = w.events[end]!;
      assert.equal(mark.object.metadata.annotations?.['orch.io/initial-events-end'], 'true');
      assert.equal(mark.object.kind, 'ConfigMap');
      assert.ok(Number(mark.object.metadata.resourceVersion) >= latest);
      // Periodic bookmarks (every 500 ms here).
      await w.until(() => w.events.filter((e) => e.type === 'BOOKMARK').length >= 2, 'a periodic bookmark', 5000);
      w.close();
      const bad = await t.request('GET', `${NS}?watch=1&sendInitialEvents=true`);
      assert.equal(bad.status, 400, 'sendInitialEvents needs resourceVersionMatch=NotOlderThan');
    });
    it('is established at once and streams on the uWS listener too', { skip: SKIP_WITHOUT_UWS }, async () => {
      const rv = (await t.request('GET', NS)).json<List>().metadata.resourceVersion;
      const w = await t.watch(`${NS}?watch=1&resourceVersion=${rv}`, { as: 'token', uws: true });
      assert.equal(w.status, 200, 'headers arrive before any event');
      await t.request('POST', NS, { metadata: { name: 'via-uws' } });
      await w.until(() => w.events.length >= 1, 'the event over uWS');
      assert.deepEqual(w.events.map((e) => `${e.type} ${e.object.metadata.name}`), ['ADDED via-uws']);
      w.close();
    });

    it('ends at timeoutSeconds', async () => {
      const started = Date.now();
      const w = await t.watch(`${NS}?watch=1&resourceVersion=${latest}&timeoutSeconds=1`);
      await w.until(() => w.ended, 'the stream to end', 5000);
      assert.ok(Date.now() - started >= 900);
    });
  });
});

describe('410 answers', () => {
  let t: TestServer;
  before(async () => {
    // No event window beyond the latest change, compaction every 500 ms, short-lived continue tokens.
    t = await startTestServer(['--default-watch-cache-size=0', '--watch-cache-retention=0s', '--etcd-compaction-interval=500ms', '--continue-token-lifetime=1s']);
  });
  after(async () => {
    await t?.stop();
  });

  it('expired continue token: 410 Expired', async () => {
    for (let i = 0; i < 3; i++) await t.request('POST', NS, { metadata: { name: `e${i}` } });
    const p1 = (await t.request('GET', `${NS}?limit=1`)).json<List>();
    await new Promise((r) => setTimeout(r, 1200));
    const r = await t.request('GET', `${NS}?limit=1&continue=${encodeURIComponent(p1.metadata.continue!)}`);
    assert.equal(r.status, 410);
    assert.equal(r.json<Status>().reason, 'Expired');
  });

  it('a compacted version: 410 Gone for exact lists, an ERROR event for watches', async () => {
    const v1 = (await t.request('POST', NS, { metadata: { name: 'g' }, data: { v: '1' } })).json<{ metadata: { resourceVersion: string } }>();
    const cur = (await t.request('GET', `${NS}/g`)).json<{ metadata: Record<string, unknown> }>();
    await t.request('PUT', `${NS}/g`, { ...cur, data: { v: '2' } });
    await new Promise((r) => setTimeout(r, 1600)); // two compaction ticks
    const list = await t.request('GET', `${NS}?resourceVersionMatch=Exact&resourceVersion=${v1.metadata.resourceVersion}`);
    assert.equal(list.status, 410, list.body);
    assert.equal(list.json<Status>().reason, 'Gone');
    const w = await t.watch(`${NS}?watch=1&resourceVersion=${v1.metadata.resourceVersion}`);
    assert.equal(w.status, 200);
    await w.until(() => w.events.some((e) => e.type === 'ERROR'), 'an ERROR event');
    const err = w.events.find((e) => e.type === 'ERROR')!.object;
    assert.equal(err.code, 410);
    assert.equal(err.kind, 'Status');
    await w.until(() => w.ended, 'the stream to end');
  });
});
