/**
 * GETs answered again from a serving thread's kept answers
 * (shards/object-read-cache.ts) are still consistent reads: over many
 * connections spread on two serving threads (the uWS port with
 * SO_REUSEPORT, and the secure port), a GET after an acknowledged update,
 * delete or re-create through any other connection sees it, however often
 * the object was read before; a write to another type of the same shard
 * leaves the answers good. With one serving thread the kept answers are
 * seen to be used: consistent and resourceVersion=0 GETs of an unchanged
 * object do not reach the shard, an exact resourceVersion does.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../support/test-server.ts';
import { UWS_DISABLED } from '../support/uws-toggle.ts';
import { KeepAliveConnection } from '../support/keepalive-connection.ts';
import { names } from '../../src/naming/index.ts';
import { decodeObject } from '../../src/protobuf/index.ts';

const NS = '/api/v1/namespaces/default/configmaps';

interface Answer {
  status: number;
  body: { metadata?: { uid?: string; resourceVersion?: string }; data?: Record<string, string> };
}

/** A keep-alive connection whose answers are read as JSON. */
class Conn extends KeepAliveConnection {
  async json(method: string, path: string, body?: unknown): Promise<Answer> {
    const answer = await this.request(method, path, body);
    return { status: answer.status, body: JSON.parse(answer.text || '{}') as Answer['body'] };
  }
}

const configMap = (name: string, v: string): unknown => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name }, data: { v } });

describe('kept GET answers over two serving threads', () => {
  let t: TestServer;
  let conns: Conn[];

  before(async () => {
    t = await startTestServer(['--frontend-threads=2']);
    const ca = readFileSync(t.server.files.caCertPath);
    const token = t.server.files.adminToken;
    // Six on the uWS port (the kernel spreads them over both threads) and six on the secure port.
    const ports = [...(UWS_DISABLED ? [] : Array<number>(6).fill(t.uwsPort!)), ...Array<number>(6).fill(t.securePort)];
    conns = ports.map((port) => new Conn(port, ca, token));
  });

  after(async () => {
    for (const c of conns ?? []) c.close();
    await t?.stop();
  });

  it('reads every acknowledged update, delete and re-create made through another connection', async () => {
    const names = ['rc-0', 'rc-1', 'rc-2'];
    for (const name of names) assert.equal((await conns[0]!.json('POST', NS, configMap(name, '0'))).status, 201);
    let seed = 7;
    const pick = (): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % conns.length;
    };
    for (let i = 1; i <= 150; i++) {
      const name = names[i % names.length]!;
      const writer = conns[pick()]!;
      let reader = conns[pick()]!;
      if (reader === writer) reader = conns[(conns.indexOf(writer) + 1) % conns.length]!;
      // Read first, twice, so that the reader's thread keeps the old answer.
      for (let k = 0; k < 2; k++) assert.equal((await reader.json('GET', `${NS}/${name}`)).status, 200);
      const put = await writer.json('PUT', `${NS}/${name}`, configMap(name, String(i)));
      assert.equal(put.status, 200);
      const got = await reader.json('GET', `${NS}/${name}`);
      assert.equal(got.status, 200);
      assert.equal(got.body.data?.['v'], String(i), `round ${i}: a read after the update was acknowledged`);
      assert.equal(got.body.metadata?.resourceVersion, put.body.metadata?.resourceVersion);
    }
    for (let i = 0; i < 12; i++) {
      const writer = conns[i % conns.length]!;
      const reader = conns[(i + 5) % conns.length]!;
      const name = `rc-life-${i}`;
      assert.equal((await writer.json('POST', NS, configMap(name, 'first'))).status, 201);
      const first = await reader.json('GET', `${NS}/${name}`);
      assert.equal((await reader.json('GET', `${NS}/${name}`)).body.metadata?.uid, first.body.metadata?.uid);
      assert.equal((await writer.json('DELETE', `${NS}/${name}`)).status, 200);
      assert.equal((await reader.json('GET', `${NS}/${name}`)).status, 404, 'a read after the delete was acknowledged');
      const again = await writer.json('POST', NS, configMap(name, 'second'));
      assert.equal(again.status, 201);
      const second = await reader.json('GET', `${NS}/${name}`);
      assert.equal(second.body.metadata?.uid, again.body.metadata?.uid, 'the re-created object, not the first');
      assert.notEqual(second.body.metadata?.uid, first.body.metadata?.uid);
      assert.equal(second.body.data?.['v'], 'second');
    }
  });

  it('keeps answers good across writes to other types of the same shard', async () => {
    const c = conns[0]!;
    assert.equal((await c.json('POST', NS, configMap('rc-other', 'x'))).status, 201);
    for (let i = 0; i < 5; i++) {
      const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: `rc-s-${i}` }, data: { k: 'dg==' } };
      assert.equal((await conns[(i + 1) % conns.length]!.json('POST', '/api/v1/namespaces/default/secrets', secret)).status, 201);
      const got = await c.json('GET', `${NS}/rc-other`);
      assert.equal(got.status, 200);
      assert.equal(got.body.data?.['v'], 'x');
    }
  });
});

describe('kept GET answers in one serving thread', () => {
  let t: TestServer;

  before(async () => {
    t = await startTestServer(['--frontend-threads=1']);
  });

  after(async () => {
    await t?.stop();
  });

  it('answers consistent and resourceVersion=0 GETs of an unchanged object without the shard, exact ones through it', async () => {
    assert.equal((await t.request('POST', NS, configMap('rc-one', '1'))).status, 201);
    const shard = t.server.router.shardOf('/configmaps');
    const stats = (): { hits: number; misses: number } => {
      const s = shard.readCacheStats();
      assert.ok(s !== null, 'the embedded store publishes its revision: answers are kept');
      return s;
    };
    const first = await t.request('GET', `${NS}/rc-one`);
    assert.equal(first.status, 200);
    const rv = first.json<{ metadata: { resourceVersion: string } }>().metadata.resourceVersion;
    // A write anywhere in the store (a controller's lease) makes the next read ask the shard once, and other
    // readers of this thread may hit meanwhile: a round counts when it saw exactly the hits of its 4 plain reads.
    const counted: number[] = [];
    for (let round = 0; round < 5 && counted.at(-1) !== 4; round++) {
      const before = stats().hits;
      for (const query of ['', '?resourceVersion=0', `?resourceVersion=${rv}`, `?resourceVersion=${rv}&resourceVersionMatch=Exact`, '', '?resourceVersion=0']) {
        const got = await t.request('GET', `${NS}/rc-one${query}`);
        if (query.includes('Exact')) {
          assert.ok(got.status === 200 || got.status === 400, `exact read: ${got.status}`);
          continue;
        }
        assert.equal(got.status, 200);
        assert.equal(got.body, first.body, 'the same bytes');
      }
      counted.push(stats().hits - before);
    }
    assert.equal(counted.at(-1), 4, `hits per round of 4 plain and 2 revision-bound reads: ${counted.join(', ')}`);

    // An update through the same thread: the next read misses, then is kept again.
    const put = await t.request('PUT', `${NS}/rc-one`, configMap('rc-one', '2'));
    assert.equal(put.status, 200);
    const missesBefore = stats().misses;
    const after = await t.request('GET', `${NS}/rc-one`);
    assert.equal(after.json<{ data: { v: string } }>().data.v, '2');
    assert.ok(stats().misses > missesBefore, 'the changed type is read from the shard');
    let kept = false;
    for (let round = 0; round < 5 && !kept; round++) {
      const hitsBefore = stats().hits;
      assert.equal((await t.request('GET', `${NS}/rc-one`)).body, after.body);
      kept = stats().hits === hitsBefore + 1;
    }
    assert.ok(kept, 'the new answer is kept');
  });

  it('encodes a kept answer to Protobuf once, and a changed object anew', async () => {
    const pb = { headers: { accept: names.protobufMediaType } };
    assert.equal((await t.request('POST', NS, configMap('rc-pb', '1'))).status, 201);
    const decoded = async (): Promise<{ raw: Buffer; v: string; rv: string }> => {
      const got = await t.request('GET', `${NS}/rc-pb`, undefined, pb);
      assert.equal(got.status, 200);
      assert.equal(got.headers['content-type'], names.protobufMediaType);
      const obj = decodeObject(got.raw).object as { metadata: { name: string; resourceVersion: string }; data: { v: string } };
      assert.equal(obj.metadata.name, 'rc-pb');
      return { raw: got.raw, v: obj.data.v, rv: obj.metadata.resourceVersion };
    };
    const first = await decoded();
    const again = await decoded();
    assert.equal(first.v, '1');
    assert.deepEqual(again.raw, first.raw, 'the same bytes, however they were made');
    const json = (await t.request('GET', `${NS}/rc-pb`)).json<{ metadata: { resourceVersion: string } }>();
    assert.equal(json.metadata.resourceVersion, first.rv, 'the same object as JSON');
    assert.equal((await t.request('PUT', `${NS}/rc-pb`, configMap('rc-pb', '2'))).status, 200);
    const changed = await decoded();
    assert.equal(changed.v, '2', 'a changed object is encoded anew');
    assert.notEqual(changed.rv, first.rv);
    assert.deepEqual((await decoded()).raw, changed.raw);
  });
});
