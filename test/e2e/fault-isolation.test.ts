/**
 * Fault isolation: an object the Protobuf encoder cannot represent (a
 * ConfigMap whose data holds a boolean, put into the store behind the API's
 * back) fails only what must encode it. Protobuf watches that would carry it
 * end with an ERROR Status frame; JSON watches, Protobuf watches whose
 * selector excludes it, the write itself, the shard and the process carry on.
 * Protobuf LIST and GET answer 500 for that request only. Each failure is
 * logged once with the request's audit ID and counted in a metric. Both
 * front ends (the secure port and the uWS listener).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import https from 'node:https';
import { Writable } from 'node:stream';
import { readFileSync } from 'node:fs';
import { decodeObject, decodeWatchEvent, type DecodedWatchEvent } from '../../src/protobuf/index.ts';
import { serializeForStorage } from '../../src/watchcache/json-codec.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';

const PB = 'application/vnd.orch.protobuf';
const NS = '/api/v1/namespaces/fi';
// The no-uWS test leg (ORCH_TEST_NO_UWS=1) runs the secure port alone.
const FRONT_ENDS = [
  { name: 'the secure port', uws: false },
  { name: 'the uWS listener', uws: true },
].filter((fe) => !fe.uws || !UWS_DISABLED);

interface PbWatch {
  frames: Buffer[];
  events(): DecodedWatchEvent[];
  ended(): boolean;
  close(): void;
  until(pred: () => boolean, what: string): Promise<void>;
}

/** A raw Protobuf watch collecting whole length-prefixed frames. */
function pbWatch(t: TestServer, path: string, uws: boolean): Promise<PbWatch> {
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
        assert.equal(res.statusCode, 200, `watch ${path}`);
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
        res.on('close', () => (ended = true));
        res.on('error', () => (ended = true));
        resolve({
          frames,
          events: () => frames.map((f) => decodeWatchEvent(f)),
          ended: () => ended,
          close: () => req.destroy(),
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

const nameOf = (obj: Record<string, unknown>): string | undefined => (obj['metadata'] as { name?: string } | undefined)?.name;

/** The protobuf watch's ERROR frame, asserted to be its last, carrying a 500 Status. */
function assertEndedWithInternalError(w: PbWatch, what: string): void {
  const events = w.events();
  const last = events.at(-1);
  assert.equal(last?.type, 'ERROR', `${what}: last frame is an ERROR, got ${JSON.stringify(events.map((e) => e.type))}`);
  assert.equal(last!.gvk.kind, 'Status');
  assert.equal(last!.object['code'], 500, `${what}: ${JSON.stringify(last!.object)}`);
  assert.equal(last!.object['reason'], 'InternalError');
  assert.match(String(last!.object['message']), /fi\/bad/, 'the message names the object');
  assert.ok(!events.some((e) => e.type !== 'ERROR' && e.type !== 'BOOKMARK' && nameOf(e.object) === 'bad'), `${what}: no frame for the bad object`);
}

describe('fault isolation: an object Protobuf cannot encode', () => {
  let t: TestServer;
  const logLines: Record<string, unknown>[] = [];
  let badWriteRevision = 0;
  let beforeBad = '';

  before(async () => {
    const destination = new Writable({
      write(chunk: Buffer, _enc, done) {
        for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') logLines.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    t = await startTestServer([], { logs: { level: 'warn', destination } });
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'fi' } })).status, 201);
    assert.equal((await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'good' }, data: { a: 'x' } })).status, 201);
    beforeBad = (await t.request('GET', `${NS}/configmaps`)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
  });
  after(async () => {
    await t?.stop();
  });

  it('a write of it ends the Protobuf watches that would carry it with an ERROR Status; the others, the write, the shard and the server carry on', async () => {
    const opened: Array<{ close(): void }> = [];
    try {
      const watchers = [];
      for (const fe of FRONT_ENDS) {
        const auth = fe.uws ? { uws: true, as: 'token' as const } : {};
        // Bookmarks and a start version carry the response head at once on uWS.
        const q = `watch=1&allowWatchBookmarks=true&resourceVersion=${beforeBad}`;
        const pbAll = await pbWatch(t, `${NS}/configmaps?${q}`, fe.uws);
        const pbKept = await pbWatch(t, `${NS}/configmaps?${q}&labelSelector=keep%3Dyes`, fe.uws);
        const json = await t.watch(`${NS}/configmaps?${q}`, auth);
        opened.push(pbAll, pbKept, json);
        watchers.push({ fe, pbAll, pbKept, json });
      }

      // Behind the API's back (typed decoding would refuse this body with 400).
      const rt = t.server.registry.lookup('', 'v1', 'configmaps')!;
      const bad = serializeForStorage({ kind: 'ConfigMap', apiVersion: 'v1', metadata: { name: 'bad', namespace: 'fi', uid: 'u-bad', creationTimestamp: '2026-01-01T00:00:00Z' }, data: { a: true } });
      const written = await t.server.router.create(rt.storageResource, `${rt.keyPrefix}fi/bad`, bad);
      badWriteRevision = written.revision;
      assert.ok(badWriteRevision > Number(beforeBad), 'the write is answered');

      // A later write through the API is answered and reaches the watchers still open.
      const later = await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'later', labels: { keep: 'yes' } }, data: { a: 'y' } });
      assert.equal(later.status, 201, later.body);

      for (const { fe, pbAll, pbKept, json } of watchers) {
        await pbAll.until(() => pbAll.ended(), `the unfiltered Protobuf watch on ${fe.name} to end`);
        assertEndedWithInternalError(pbAll, `the unfiltered Protobuf watch on ${fe.name}`);

        await json.until(() => json.events.some((e) => e.object.metadata.name === 'later'), `the JSON watch on ${fe.name} to see 'later'`);
        assert.deepEqual(
          json.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name),
          ['bad', 'later'],
          `the JSON watch on ${fe.name} got both events`,
        );
        assert.equal(json.ended, false, `the JSON watch on ${fe.name} is still open`);

        await pbKept.until(() => pbKept.events().some((e) => e.type === 'ADDED' && nameOf(e.object) === 'later'), `the filtered Protobuf watch on ${fe.name} to see 'later'`);
        assert.equal(pbKept.ended(), false, `the filtered Protobuf watch on ${fe.name} is still open`);
      }

      for (let i = 0; i < t.server.router.shardCount; i++) assert.equal(t.server.router.shard(i).restarts, 0, `shard ${i} never restarted`);
      assert.equal((await t.request('POST', `${NS}/configmaps`, { metadata: { name: 'still-served' } })).status, 201);
    } finally {
      for (const w of opened) w.close();
    }
  });

  for (const fe of FRONT_ENDS) {
    it(`on ${fe.name}, a Protobuf LIST or GET that must encode it answers 500; JSON, Table and other Protobuf reads are served`, async () => {
      assert.ok(badWriteRevision > 0, 'runs after the write test');
      const auth = fe.uws ? { uws: true, as: 'token' as const } : {};
      const pb = { ...auth, headers: { accept: PB } };

      for (const path of [`${NS}/configmaps`, `${NS}/configmaps/bad`, '/api/v1/configmaps']) {
        const r = await t.request('GET', path, undefined, pb);
        assert.equal(r.status, 500, `Protobuf GET ${path}: ${r.body.slice(0, 200)}`);
        const status = r.json<{ kind: string; code: number; reason: string }>();
        assert.equal(status.kind, 'Status');
        assert.equal(status.code, 500);
        assert.equal(status.reason, 'InternalError');
        const auditID = r.headers['audit-id'];
        assert.ok(typeof auditID === 'string' && logLines.some((l) => l['auditID'] === auditID), `the answer's Audit-Id (${String(auditID)}) is on its log line`);
      }

      const list = await t.request('GET', `${NS}/configmaps`, undefined, auth);
      assert.equal(list.status, 200, list.body);
      assert.ok(list.json<{ items: { metadata: { name: string } }[] }>().items.some((i) => i.metadata.name === 'bad'), 'JSON lists it');

      const table = await t.request('GET', `${NS}/configmaps`, undefined, { ...auth, headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
      assert.equal(table.status, 200, table.body);

      const one = await t.request('GET', `${NS}/configmaps/good`, undefined, pb);
      assert.equal(one.status, 200, one.body.slice(0, 200));
      assert.equal(nameOf(decodeObject(one.raw).object), 'good');

      const kept = await t.request('GET', `${NS}/configmaps?labelSelector=keep%3Dyes`, undefined, pb);
      assert.equal(kept.status, 200, 'a Protobuf list whose selector excludes it is served');
    });

    it(`on ${fe.name}, a Protobuf watch that starts with it or resumes into it ends with an ERROR Status`, async () => {
      assert.ok(badWriteRevision > 0, 'runs after the write test');
      // Initial state (resourceVersion=0) and a resume from before the write (the cache's window).
      for (const q of ['watch=1&resourceVersion=0', `watch=1&allowWatchBookmarks=true&resourceVersion=${beforeBad}`]) {
        const w = await pbWatch(t, `${NS}/configmaps?${q}`, fe.uws);
        try {
          await w.until(() => w.ended(), `the Protobuf watch ?${q} to end`);
          assertEndedWithInternalError(w, `?${q}`);
        } finally {
          w.close();
        }
      }
      assert.equal((await t.request('GET', '/readyz', undefined, fe.uws ? { uws: true, as: 'token' } : {})).status, 200);
    });
  }

  it('a Protobuf watch whose frames the main thread re-encodes (events of the events group) ends with an ERROR Status when one cannot be; the rest carry on', async () => {
    const rt = t.server.registry.types.find((r) => r.kind === 'Event' && r.group !== '' && r.conversion !== undefined)!;
    const core = t.server.registry.lookup('', 'v1', 'events')!;
    assert.equal(rt.storageResource, core.storageResource, 'stored as core events');
    const path = `/apis/${rt.group}/${rt.version}/namespaces/fi/events`;
    const rv = (await t.request('GET', path)).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const q = `watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`;
    const opened: Array<{ close(): void }> = [];
    try {
      const watchers = [];
      for (const fe of FRONT_ENDS) {
        const pb = await pbWatch(t, `${path}?${q}`, fe.uws);
        const json = await t.watch(`${path}?${q}`, fe.uws ? { uws: true, as: 'token' } : {});
        opened.push(pb, json);
        watchers.push({ fe, pb, json });
      }
      // A count that is no integer: fine as JSON, not as the v1 Event's int32.
      const event = (name: string, count: unknown): Uint8Array =>
        serializeForStorage({ kind: 'Event', apiVersion: 'v1', metadata: { name, namespace: 'fi' }, involvedObject: { kind: 'Pod', name: 'p' }, reason: 'R', count });
      await t.server.router.create(core.storageResource, `${core.keyPrefix}fi/odd`, event('odd', 'many'));
      await t.server.router.create(core.storageResource, `${core.keyPrefix}fi/fine`, event('fine', 2));
      for (const { fe, pb, json } of watchers) {
        await pb.until(() => pb.ended(), `the Protobuf watch on ${fe.name} to end`);
        const last = pb.events().at(-1)!;
        assert.equal(last.type, 'ERROR');
        assert.equal(last.object['code'], 500);
        await json.until(() => json.events.some((e) => e.object.metadata.name === 'fine'), `the JSON watch on ${fe.name} to get both`);
        assert.deepEqual(json.events.filter((e) => e.type === 'ADDED').map((e) => e.object.metadata.name), ['odd', 'fine']);
      }
      assert.equal((await t.request('GET', path)).status, 200, 'JSON lists of the type are served');
      assert.equal((await t.request('GET', path, undefined, { headers: { accept: PB } })).status, 500, 'a Protobuf list of it answers 500');
    } finally {
      for (const w of opened) w.close();
    }
  });

  it('the finding itself: a POST of {"data":{"a":true}} with a Protobuf watch open is answered, and the server serves on', async () => {
    assert.equal((await t.request('POST', '/api/v1/namespaces', { metadata: { name: 'fi2' } })).status, 201);
    const rv = (await t.request('GET', '/api/v1/namespaces/fi2/configmaps')).json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    const pb = await pbWatch(t, `/api/v1/namespaces/fi2/configmaps?watch=1&allowWatchBookmarks=true&resourceVersion=${rv}`, false);
    try {
      const r = await t.request('POST', '/api/v1/namespaces/fi2/configmaps', { metadata: { name: 'c' }, data: { a: true } });
      // 201 while bodies are not decoded by type (then the watch ends with an ERROR), 400 once they are.
      assert.ok(r.status === 201 || r.status === 400, `answered: ${r.status} ${r.body.slice(0, 200)}`);
      if (r.status === 201) {
        await pb.until(() => pb.ended(), 'the Protobuf watch to end');
        assert.equal(pb.events().at(-1)?.type, 'ERROR');
      }
      assert.equal((await t.request('POST', '/api/v1/namespaces/fi2/configmaps', { metadata: { name: 'd' }, data: { a: 'b' } })).status, 201);
      for (let i = 0; i < t.server.router.shardCount; i++) assert.equal(t.server.router.shard(i).restarts, 0);
    } finally {
      pb.close();
    }
  });

  it('a stored value that is not JSON past its head: reads that must parse it answer 500, and no log line or answer quotes it', async () => {
    const rt = t.server.registry.lookup('', 'v1', 'configmaps')!;
    // The head the fast decode path looks for, then a value no JSON parser accepts.
    const raw = new TextEncoder().encode('{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"","name":"leaky","namespace":"fi3"},"data":{"password":hunter2-is-secret}}');
    await t.server.router.create(rt.storageResource, `${rt.keyPrefix}fi3/leaky`, raw);
    const watch = await t.watch('/api/v1/namespaces/fi3/configmaps?watch=1&resourceVersion=0', { headers: { accept: 'application/json;as=Table;v=v1;g=meta.k8s.io' } });
    try {
      for (const fe of FRONT_ENDS) {
        const auth = fe.uws ? { uws: true, as: 'token' as const } : {};
        for (const accept of [PB, 'application/json;as=Table;v=v1;g=meta.k8s.io']) {
          for (const path of ['/api/v1/namespaces/fi3/configmaps/leaky', '/api/v1/namespaces/fi3/configmaps']) {
            const r = await t.request('GET', path, undefined, { ...auth, headers: { accept } });
            assert.equal(r.status, 500, `${accept} GET ${path} on ${fe.name}`);
            assert.doesNotMatch(r.body, /hunter2/);
          }
        }
      }
      await watch.until(() => watch.ended, 'the Table watch to end');
      assert.equal(watch.events.at(-1)?.type, 'ERROR');
      assert.doesNotMatch(JSON.stringify(watch.events), /hunter2/);
    } finally {
      watch.close();
    }
    assert.ok(!logLines.some((l) => JSON.stringify(l).includes('hunter2')), 'no log line quotes the stored value');
  });

  it('each failure is logged once with the request audit ID and counted in apiserver_internal_errors_total', async () => {
    const failures = logLines.filter((l) => l['msg'] === "apiserver panic'd");
    assert.ok(failures.length > 0, 'failures are logged');
    for (const l of failures) assert.match(String(l['auditID']), /^[0-9a-f-]{36}$/, `log line has an audit ID: ${JSON.stringify(l)}`);
    const ids = failures.map((l) => l['auditID']);
    assert.equal(new Set(ids).size, ids.length, 'one line per failed request');
    assert.ok(failures.some((l) => String((l['err'] as { message?: string } | undefined)?.message ?? '').includes('fi/bad')), 'the log names the object');

    const metrics = await t.request('GET', '/metrics');
    for (const verb of ['WATCH', 'LIST', 'GET']) {
      assert.match(metrics.body, new RegExp(`apiserver_internal_errors_total\\{[^}]*verb="${verb}"[^}]*resource="configmaps"[^}]*\\} [1-9]`), `${verb} failures counted`);
    }
  });
});
