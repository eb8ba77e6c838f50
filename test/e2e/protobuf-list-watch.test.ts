/**
 * Protobuf LISTs and watches over HTTP, now made from the shard's cached
 * per-object message bytes: each answer must be byte-identical to what the
 * reference encoder makes of the JSON answer at the same resourceVersion
 * (full lists, pages, selectors, exact revisions read from the store, watch
 * events, bookmarks, the ERROR frame of a 410), and types stored in another
 * shape (events.orch.io) still convert.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { readFileSync } from 'node:fs';
import { decodeObject, decodeWatchEvent, encodeList, encodeWatchEvent, type JsonObject } from '../../src/protobuf/index.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { SKIP_WITHOUT_UWS, UWS_DISABLED } from '../support/uws-toggle.ts';

const PB = 'application/vnd.orch.protobuf';
const PB_WATCH = 'application/vnd.orch.protobuf;stream=watch';
const NS = '/api/v1/namespaces/pb';

interface JsonList {
  metadata: { resourceVersion: string; continue?: string; remainingItemCount?: number };
  items: JsonObject[];
}

async function pbGet(t: TestServer, path: string, uws = false): Promise<Buffer> {
  const r = await t.request('GET', path, undefined, { headers: { accept: PB }, ...(uws ? { uws: true, as: 'token' as const } : {}) });
  assert.equal(r.status, 200, `GET ${path}: ${r.body.slice(0, 300)}`);
  assert.equal(r.headers['content-type'], PB);
  assert.equal(Number(r.headers['content-length']), r.raw.length, 'Content-Length matches the body');
  return r.raw;
}

async function jsonList(t: TestServer, path: string): Promise<JsonList> {
  const r = await t.request('GET', path);
  assert.equal(r.status, 200, r.body);
  return r.json<JsonList>();
}

function listMeta(l: JsonList): JsonObject {
  const md: JsonObject = { resourceVersion: l.metadata.resourceVersion };
  if (l.metadata.continue) md['continue'] = l.metadata.continue;
  if (l.metadata.remainingItemCount !== undefined) md['remainingItemCount'] = l.metadata.remainingItemCount;
  return md;
}

/** A raw protobuf watch: collects whole length-prefixed frames. */
function pbWatch(t: TestServer, path: string, uws = false): Promise<{ frames: Buffer[]; ended: () => boolean; close(): void; until(pred: () => boolean, what: string): Promise<void>; contentType: string }> {
  return new Promise((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        port: uws ? t.uwsPort! : t.securePort,
        path,
        method: 'GET',
        headers: { accept: PB, authorization: `Bearer ${t.server.files.adminToken}` },
        ca: readFileSync(t.server.files.caCertPath),
        servername: 'localhost',
      },
      (res) => {
        const frames: Buffer[] = [];
        let pending = Buffer.alloc(0);
        let ended = false;
        res.on('data', (c: Buffer) => {
          pending = Buffer.concat([pending, c]);
          while (pending.length >= 4 && pending.length >= 4 + pending.readUInt32BE(0)) {
            const n = 4 + pending.readUInt32BE(0);
            frames.push(pending.subarray(0, n));
            pending = pending.subarray(n);
          }
        });
        res.on('end', () => (ended = true));
        res.on('error', () => (ended = true));
        resolve({
          frames,
          ended: () => ended,
          close: () => req.destroy(),
          contentType: String(res.headers['content-type']),
          until: async (pred, what) => {
            const deadline = Date.now() + 10_000;
            while (!pred()) {
              if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; frames: ${frames.length}`);
              await new Promise((r) => setTimeout(r, 20));
            }
          },
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}

describe('Protobuf lists and watches from the shard', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer(['--watch-bookmark-interval=300ms']);
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'pb' } })).status, 201);
    for (let i = 0; i < 23; i++) {
      const r = await t.request('POST', `${NS}/configmaps`, { metadata: { name: `cm-${String(i).padStart(2, '0')}`, labels: { tier: i % 3 === 0 ? 'db' : 'web' } }, data: { i: String(i), fill: 'y'.repeat(i * 10) } });
      assert.equal(r.status, 201, r.body);
    }
    // Over 16 KiB: the item length needs a three-byte varint.
    assert.equal((await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'big' }, data: { blob: 'z'.repeat(200_000) } })).status, 201);
    for (let i = 0; i < 5; i++) {
      const r = await t.request('POST', `${NS}/pods`, { metadata: { name: `p${i}`, labels: { app: 'x' } }, spec: { nodeName: `node-${i % 2}`, containers: [{ name: 'c', image: 'nginx:1', ports: [{ containerPort: 80 + i }] }] } });
      assert.equal(r.status, 201, r.body);
    }
  });
  after(async () => {
    await t?.stop();
  });

  for (const [resource, listKind] of [['configmaps', 'ConfigMapList'], ['pods', 'PodList']] as const) {
    it(`a full ${resource} list is byte-identical to the reference encoding of the JSON list`, async () => {
      const json = await jsonList(t, `${NS}/${resource}`);
      const rv = json.metadata.resourceVersion;
      for (const uws of UWS_DISABLED ? [false] : [false, true]) {
        const body = await pbGet(t, `${NS}/${resource}?resourceVersion=${rv}&resourceVersionMatch=Exact`, uws);
        const expected = Buffer.from(encodeList({ group: '', version: 'v1', kind: listKind }, listMeta(json), json.items));
        assert.ok(body.equals(expected), `${resource} over ${uws ? 'uWS' : 'the secure port'}: ${body.length} bytes vs ${expected.length} expected`);
      }
      const decoded = decodeObject(await pbGet(t, `${NS}/${resource}`)).object as { items: Array<{ metadata: { name: string } }> };
      assert.deepEqual(decoded.items.map((o) => o.metadata.name), json.items.map((o) => (o['metadata'] as { name: string }).name));
    });
  }

  it('paged protobuf lists carry the same continue tokens and items as JSON pages', async () => {
    const full = await jsonList(t, `${NS}/configmaps`);
    const rv = full.metadata.resourceVersion;
    let cont = '';
    const names: string[] = [];
    let pages = 0;
    do {
      const q = cont === '' ? `limit=7&resourceVersion=${rv}&resourceVersionMatch=Exact` : `limit=7&continue=${encodeURIComponent(cont)}`;
      const json = await jsonList(t, `${NS}/configmaps?${q}`);
      const body = await pbGet(t, `${NS}/configmaps?${q}`);
      const decoded = decodeObject(body).object as { metadata: { continue?: string; remainingItemCount?: number }; items: Array<{ metadata: { name: string } }> };
      // Tokens carry their issue time: compare with the token this answer got.
      assert.equal(Boolean(decoded.metadata.continue), Boolean(json.metadata.continue), 'a token exactly when JSON has one');
      const meta = { ...listMeta(json), ...(decoded.metadata.continue ? { continue: decoded.metadata.continue } : {}) };
      const expected = Buffer.from(encodeList({ group: '', version: 'v1', kind: 'ConfigMapList' }, meta, json.items));
      assert.ok(body.equals(expected), `page ${pages + 1} byte-identical`);
      assert.equal(decoded.metadata.remainingItemCount, json.metadata.remainingItemCount);
      names.push(...decoded.items.map((o) => o.metadata.name));
      cont = json.metadata.continue ?? '';
      pages++;
    } while (cont !== '');
    assert.equal(pages, Math.ceil(full.items.length / 7));
    assert.deepEqual(names, full.items.map((o) => (o['metadata'] as { name: string }).name));
  });

  it('selectors apply to protobuf lists', async () => {
    const json = await jsonList(t, `${NS}/configmaps?labelSelector=tier%3Ddb`);
    assert.equal(json.items.length, 8);
    const body = await pbGet(t, `${NS}/configmaps?labelSelector=tier%3Ddb&resourceVersion=${json.metadata.resourceVersion}&resourceVersionMatch=Exact`);
    assert.ok(body.equals(Buffer.from(encodeList({ group: '', version: 'v1', kind: 'ConfigMapList' }, listMeta(json), json.items))));
    const pods = await pbGet(t, '/api/v1/pods?fieldSelector=spec.nodeName%3Dnode-1');
    const decoded = decodeObject(pods).object as { items: Array<{ metadata: { name: string } }> };
    assert.deepEqual(decoded.items.map((o) => o.metadata.name).sort(), ['p1', 'p3']);
  });

  it('an empty protobuf list has metadata and no items', async () => {
    const body = await pbGet(t, `${NS}/secrets`);
    const decoded = decodeObject(body).object as { kind: string; items: unknown[]; metadata: { resourceVersion: string } };
    assert.equal(decoded.kind, 'SecretList');
    assert.deepEqual(decoded.items, []);
    assert.match(decoded.metadata.resourceVersion, /^[0-9]+$/);
  });

  it('types stored in another shape (events.orch.io) convert before encoding', async () => {
    const ev = await t.request('POST', `${NS}/events`, { metadata: { name: 'e1' }, involvedObject: { kind: 'Pod', name: 'p0', namespace: 'pb' }, reason: 'Pulled', message: 'image pulled', type: 'Normal' });
    assert.equal(ev.status, 201, ev.body);
    const body = await pbGet(t, '/apis/events.orch.io/v1/namespaces/pb/events');
    const decoded = decodeObject(body);
    assert.equal(decoded.gvk.kind, 'EventList');
    const items = (decoded.object as { items: Array<{ metadata: { name: string }; note?: string; regarding?: { name: string } }> }).items;
    assert.equal(items.length, 1);
    assert.equal(items[0]!.note, 'image pulled', 'events.orch.io/v1 shape (note, not message)');
    assert.equal(items[0]!.regarding?.name, 'p0');
  });

  it('watch frames are byte-identical to the reference encoding of the JSON watch events', async () => {
    const start = (await jsonList(t, `${NS}/configmaps`)).metadata.resourceVersion;
    const path = `${NS}/configmaps?watch=1&resourceVersion=${start}`;
    const pb = await pbWatch(t, path);
    const js = await t.watch(path);
    assert.equal(pb.contentType, PB_WATCH);
    try {
      const created = await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'w1' }, data: { a: '1' } });
      assert.equal(created.status, 201);
      const cur = created.json<JsonObject>();
      assert.equal((await t.request('PUT', `${NS}/configmaps/w1`, { ...cur, data: { a: '2' } })).status, 200);
      assert.equal((await t.request('DELETE', `${NS}/configmaps/w1`)).status, 200);
      await js.until(() => js.events.filter((e) => e.type !== 'BOOKMARK').length >= 3, 'three JSON events');
      await pb.until(() => pb.frames.length >= 3, 'three protobuf frames');
      const jsonEvents = js.events.filter((e) => e.type !== 'BOOKMARK');
      assert.deepEqual(jsonEvents.map((e) => e.type), ['ADDED', 'MODIFIED', 'DELETED']);
      for (let i = 0; i < 3; i++) {
        const expected = Buffer.from(encodeWatchEvent(jsonEvents[i]!.type, jsonEvents[i]!.object as unknown as JsonObject, { group: '', version: 'v1', kind: 'ConfigMap' }));
        assert.ok(pb.frames[i]!.equals(expected), `frame ${i} (${jsonEvents[i]!.type}) byte-identical`);
      }
    } finally {
      pb.close();
      js.close();
    }
  });

  it('on uWS, a protobuf watch resuming with bookmarks gets its head at once, carried by a BOOKMARK at its start version', { skip: SKIP_WITHOUT_UWS }, async () => {
    const start = (await jsonList(t, `${NS}/configmaps`)).metadata.resourceVersion;
    const t0 = Date.now();
    // Resolves when the response head arrives: before any change is made.
    const pb = await pbWatch(t, `${NS}/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${start}`, true);
    try {
      assert.ok(Date.now() - t0 < 5_000, 'the head came without waiting for an event');
      assert.equal(pb.contentType, PB_WATCH);
      await pb.until(() => pb.frames.length >= 1, 'the first frame');
      const first = decodeWatchEvent(pb.frames[0]!);
      assert.equal(first.type, 'BOOKMARK');
      assert.equal(first.gvk.kind, 'ConfigMap');
      assert.equal((first.object['metadata'] as { resourceVersion: string }).resourceVersion, start);
      assert.equal((await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'after-bookmark' } })).status, 201);
      await pb.until(() => pb.frames.some((f) => decodeWatchEvent(f).type === 'ADDED'), 'the ADDED event');
      const added = pb.frames.map((f) => decodeWatchEvent(f)).find((e) => e.type === 'ADDED')!;
      assert.equal((added.object['metadata'] as { name: string }).name, 'after-bookmark');
    } finally {
      pb.close();
    }
  });

  it('a protobuf streaming list ends its initial events with an annotated bookmark', async () => {
    const pb = await pbWatch(t, '/api/v1/namespaces/pb/pods?watch=1&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true');
    try {
      await pb.until(() => pb.frames.some((f) => decodeWatchEvent(f).type === 'BOOKMARK'), 'the initial-events-end bookmark');
      const events = pb.frames.map((f) => decodeWatchEvent(f));
      const added = events.filter((e) => e.type === 'ADDED').map((e) => (e.object['metadata'] as { name: string }).name);
      assert.deepEqual(added.sort(), ['p0', 'p1', 'p2', 'p3', 'p4']);
      const bookmark = events.find((e) => e.type === 'BOOKMARK')!;
      assert.equal(bookmark.gvk.kind, 'Pod');
      const md = bookmark.object['metadata'] as { resourceVersion: string; annotations?: Record<string, string> };
      assert.equal(md.annotations?.['orch.io/initial-events-end'], 'true');
      assert.match(md.resourceVersion, /^[1-9][0-9]*$/);
    } finally {
      pb.close();
    }
  });
});

describe('Protobuf answers read from the store and 410s', () => {
  let t: TestServer;
  const CMS = '/api/v1/namespaces/default/configmaps';
  before(async () => {
    t = await startTestServer(['--default-watch-cache-size=0', '--watch-cache-retention=0s', '--etcd-compaction-interval=500ms']);
  });
  after(async () => {
    await t?.stop();
  });

  it('an exact list older than the cache window comes from the store, byte-identical', async () => {
    const v1 = (await t.request('POST', CMS, { metadata: { name: 's1' }, data: { v: '1' } })).json<{ metadata: { resourceVersion: string } }>();
    for (let i = 2; i < 5; i++) await t.request('POST', CMS, { metadata: { name: `s${i}` } });
    const path = `${CMS}?resourceVersionMatch=Exact&resourceVersion=${v1.metadata.resourceVersion}`;
    const json = await jsonList(t, path);
    assert.deepEqual(json.items.map((o) => (o['metadata'] as { name: string }).name), ['s1']);
    const body = await pbGet(t, path);
    assert.ok(body.equals(Buffer.from(encodeList({ group: '', version: 'v1', kind: 'ConfigMapList' }, listMeta(json), json.items))));
  });

  it('a protobuf watch from a compacted version ends with a protobuf ERROR frame holding a 410 Status', async () => {
    const v1 = (await t.request('POST', CMS, { metadata: { name: 'g' }, data: { v: '1' } })).json<{ metadata: { resourceVersion: string } }>();
    const cur = (await t.request('GET', `${CMS}/g`)).json<JsonObject>();
    await t.request('PUT', `${CMS}/g`, { ...cur, data: { v: '2' } });
    await new Promise((r) => setTimeout(r, 1600)); // two compaction ticks
    const pb = await pbWatch(t, `${CMS}?watch=1&resourceVersion=${v1.metadata.resourceVersion}`);
    try {
      await pb.until(() => pb.frames.length >= 1 && pb.ended(), 'the ERROR frame and the end of the stream');
      const ev = decodeWatchEvent(pb.frames[0]!);
      assert.equal(ev.type, 'ERROR');
      assert.equal(ev.gvk.kind, 'Status');
      assert.equal(ev.object['code'], 410);
      assert.equal(ev.object['reason'], 'Gone');
    } finally {
      pb.close();
    }
  });
});
