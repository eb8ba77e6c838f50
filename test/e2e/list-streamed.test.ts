/**
 * A large JSON LIST sent in pieces as the shard copies them
 * (shards/list-pieces.ts, `--list-stream-bytes`, default 4 MiB of items),
 * over a real server: the first LIST of a collection's state streams (no
 * Content-Length; chunked over HTTP/1.1, as the original sends a large list)
 * on every front end and protocol, with the items paged reads give; a
 * repeated LIST streams too (built in pieces to share, then those pieces
 * kept for the next asker); a slow reader gets every byte, a reader that
 * leaves mid-answer disturbs nothing; kubectl reads a streamed list.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { call, h1Target, h2Target, type Reply, type Target } from '../frontends/support/clients.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';

const NS = 'streamed';
const COUNT = 1_300;
// 1,300 × 4 KiB of data: about 5.5 MB of items, over the default 4 MiB.
const DATA = 'x'.repeat(4_096);
const LIST = `/api/v1/namespaces/${NS}/configmaps`;

interface ConfigMapList {
  kind: string;
  metadata: { resourceVersion?: string; continue?: string };
  items: Array<{ kind?: string; apiVersion?: string; metadata: { name: string }; data?: Record<string, string> }>;
}

/**
 * The answer parsed, or a failure that says which front end sent what: a cut or mixed answer (a piece reused too
 * early once showed another answer's bytes) must name its target, its length and how it ended.
 */
function listOf(r: Reply, target: string): ConfigMapList {
  try {
    return r.json<ConfigMapList>();
  } catch (err) {
    const tail = r.body.subarray(Math.max(0, r.body.byteLength - 120)).toString('utf8');
    assert.fail(`${target}: status ${r.status}, ${r.body.byteLength} bytes, not a JSON list (${(err as Error).message}); it ends ${JSON.stringify(tail)}`);
  }
}

describe('LIST answers streamed in pieces', () => {
  let srv: TestServer;
  let auth: Record<string, string>;
  let targets: Target[];
  let marker = 0;

  before(async () => {
    srv = await startTestServer([]);
    auth = { authorization: `Bearer ${srv.server.files.adminToken}` };
    const tls = { ca: srv.server.files.caCertPath };
    const ca = (await import('node:fs')).readFileSync(tls.ca, 'utf8');
    targets = [h2Target('secure port, HTTP/2', srv.securePort, { ca }), h1Target('secure port, HTTP/1.1', 'node', srv.securePort, { ca })];
    if (!UWS_DISABLED && srv.uwsPort !== null) targets.push(h1Target('uWS listener', 'uws', srv.uwsPort, { ca }));
    assert.equal((await srv.request('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } })).status, 201);
    for (let from = 0; from < COUNT; from += 50) {
      await Promise.all(
        Array.from({ length: Math.min(50, COUNT - from) }, async (_, k) => {
          const name = `cm-${String(from + k).padStart(5, '0')}`;
          const r = await srv.request('POST', LIST, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v: DATA } });
          assert.equal(r.status, 201, name);
        }),
      );
    }
    assert.equal((await srv.request('POST', LIST, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zz-marker' }, data: { n: '0' } })).status, 201);
  });
  after(async () => {
    for (const t of targets ?? []) t.close();
    await srv?.stop();
  });

  /** A write to the listed collection: the next LIST is of a new state, so it is a first answer (built afresh, streamed). */
  const touch = async (): Promise<void> => {
    marker++;
    const r = await srv.request('PUT', `${LIST}/zz-marker`, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'zz-marker' }, data: { n: String(marker) } });
    assert.equal(r.status, 200, `marker: ${r.body}`);
  };

  const pagedNames = async (): Promise<string[]> => {
    const names: string[] = [];
    let cont = '';
    do {
      const r = await srv.request('GET', `${LIST}?limit=500${cont ? `&continue=${encodeURIComponent(cont)}` : ''}`);
      assert.equal(r.status, 200);
      assert.ok(r.headers['content-length'] !== undefined, 'a page is small: sent whole');
      const page = r.json<ConfigMapList>();
      names.push(...page.items.map((i) => i.metadata.name));
      cont = page.metadata.continue ?? '';
    } while (cont !== '');
    return names;
  };

  it('streams a first LIST on every front end and protocol, with the items paged reads give', async () => {
    await touch();
    const expected = await pagedNames();
    assert.equal(expected.length, COUNT + 1);
    for (const t of targets) {
      await touch();
      const r = await call(t, { path: LIST, headers: { ...auth, accept: 'application/json' } });
      assert.equal(r.status, 200, t.name);
      assert.equal(r.headers['content-length'], undefined, `${t.name}: streamed, so no Content-Length`);
      if (t.protocol === 'http/1.1') assert.equal(r.headers['transfer-encoding'], 'chunked', t.name);
      assert.ok(r.body.byteLength > 5_000_000, `${t.name}: ${r.body.byteLength} bytes`);
      const list = listOf(r, t.name);
      assert.equal(list.kind, 'ConfigMapList');
      assert.match(String(list.metadata.resourceVersion), /^\d+$/);
      assert.deepEqual(
        list.items.map((i) => i.metadata.name),
        expected,
        t.name,
      );
      assert.equal(list.items.find((i) => i.metadata.name === 'zz-marker')?.data?.['n'], String(marker), `${t.name}: the state after the last write`);
      assert.ok(list.items.every((i) => i.metadata.name === 'zz-marker' || i.data?.['v'] === DATA));
      assert.ok(list.items.every((i) => i.kind === undefined && i.apiVersion === undefined), `${t.name}: items without kind and apiVersion, as the original's`);
    }
  });

  it('streams a LIST asked again (built in pieces to share) and the one after (the kept pieces), with the same items', async () => {
    await touch();
    const first = await call(targets[0]!, { path: LIST, headers: auth });
    const again = await call(targets[0]!, { path: LIST, headers: auth });
    const third = await call(targets[0]!, { path: LIST, headers: auth });
    for (const r of [first, again, third]) {
      assert.equal(r.status, 200);
      assert.equal(r.headers['content-length'], undefined, 'every answer of this size streams');
    }
    // The same items; the list's resourceVersion may have moved on with writes to other types (a lease renewed).
    const [a, b, c] = [listOf(first, 'first'), listOf(again, 'again'), listOf(third, 'third')];
    assert.equal(a.items.length, COUNT + 1);
    assert.deepEqual(b.items, a.items);
    assert.deepEqual(c.items, a.items);
    assert.ok(c.items.every((i) => i.kind === undefined && i.apiVersion === undefined), 'the kept pieces too');
    assert.ok(Number(c.metadata.resourceVersion) >= Number(a.metadata.resourceVersion));
  });

  it('gives a slow reader every byte, and a reader that leaves mid-answer disturbs nothing', async () => {
    for (const t of targets) {
      await touch();
      const open = await t.open({ path: LIST, headers: auth });
      assert.equal(open.status, 200);
      const chunks: Buffer[] = [];
      await new Promise<void>((resolve, reject) => {
        let paused = false;
        open.stream.on('data', (c: Buffer) => {
          chunks.push(c);
          if (!paused) {
            // Stop reading for a while: the server must wait, not drop the answer or buffer it without bound.
            paused = true;
            open.stream.pause();
            setTimeout(() => open.stream.resume(), 400);
          }
        });
        open.stream.on('end', resolve);
        open.stream.on('error', reject);
      });
      assert.equal((JSON.parse(Buffer.concat(chunks).toString('utf8')) as ConfigMapList).items.length, COUNT + 1, t.name);
    }

    for (const t of targets) {
      await touch();
      const open = await t.open({ path: LIST, headers: auth });
      assert.equal(open.status, 200);
      await new Promise<void>((resolve) => open.stream.once('data', () => resolve()));
      open.cancel();
    }
    const after = await srv.request('GET', `${LIST}?limit=1`);
    assert.equal(after.status, 200, 'the server still answers');
    // Every reader that left is counted out by its shard soon (not by the 2-minute sweep), whether it left while
    // the pieces still came or after the last one reached its serving thread.
    const readers = async (): Promise<number> => (await srv.server.router.stats()).reduce((n, s) => n + (s.listPieces?.readers ?? 0), 0);
    let left = await readers();
    for (let i = 0; i < 200 && left > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      left = await readers();
    }
    assert.equal(left, 0, 'no reader that left is still counted');
    await touch();
    const whole = await call(targets[0]!, { path: LIST, headers: auth });
    assert.equal(listOf(whole, targets[0]!.name).items.length, COUNT + 1);
  });

  it('makes later answers in the pieces of earlier ones, and no answer ever shows another\'s bytes', async () => {
    const reused = async (): Promise<number> => (await srv.server.router.stats()).reduce((n, s) => n + (s.listPieces?.reused ?? 0), 0);
    const before = await reused();
    for (let round = 0; round < 3; round++) {
      await touch();
      // Several at once on every front end (some share a kept answer, some are built), then one after the other.
      const answers = await Promise.all(targets.flatMap((t) => [t, t].map(async (x) => ({ t: x, r: await call(x, { path: LIST, headers: auth }) }))));
      for (const t of targets) answers.push({ t, r: await call(t, { path: LIST, headers: auth }) });
      for (const { t, r } of answers) {
        assert.equal(r.status, 200, t.name);
        const list = listOf(r, t.name);
        assert.equal(list.items.length, COUNT + 1, t.name);
        assert.equal(list.items.find((i) => i.metadata.name === 'zz-marker')?.data?.['n'], String(marker), `${t.name}: this round's state`);
        assert.ok(list.items.every((i) => i.metadata.name === 'zz-marker' || i.data?.['v'] === DATA), `${t.name}: every item whole`);
      }
    }
    assert.ok((await reused()) > before, 'later answers were made in pooled pieces');
  });

  it('kubectl reads a streamed list (one LIST: --chunk-size=0)', async () => {
    await touch();
    const r = await srv.kubectl(['get', 'configmaps', '-n', NS, '-o', 'json', '--chunk-size=0'], { timeoutMs: 60_000 });
    assert.equal(r.code, 0, r.stderr);
    const list = JSON.parse(r.stdout) as { items: unknown[] };
    assert.equal(list.items.length, COUNT + 1);
  });
});
