/**
 * Two API servers on one real etcd (--storage-backend=etcd3): each sees the
 * other's writes, through kubectl and through watches, in revision order.
 */
import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startEtcd, type EtcdServer } from '../support/etcd-server.ts';
import { startTestServer, type TestServer } from '../support/test-server.ts';

describe('two API servers on one etcd', () => {
  let etcd: EtcdServer;
  let a: TestServer;
  let b: TestServer;
  before(async () => {
    etcd = await startEtcd();
    const flags = ['--storage-backend=etcd3', `--etcd-servers=${etcd.endpoint}`, '--etcd-prefix=/orch-e2e'];
    a = await startTestServer(flags);
    b = await startTestServer(flags);
  });
  after(async () => {
    await a?.stop();
    await b?.stop();
    await etcd?.stop();
  });

  it('shares state: what one server writes the other reads', async () => {
    const created = await a.kubectl(['create', '-f', '-'], { input: 'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: shared, namespace: default }\ndata: { from: a }\n' });
    assert.equal(created.code, 0, created.stderr);
    const read = await b.kubectl(['get', 'configmap', 'shared', '-o', 'jsonpath={.data.from}']);
    assert.equal(read.code, 0, read.stderr);
    assert.equal(read.stdout, 'a', 'a consistent read on the other server sees the write at once');
    const ns = await b.kubectl(['get', 'namespaces', '-o', 'name']);
    assert.match(ns.stdout, /namespace\/orch-system/);
  });

  it('streams one server\'s writes to a watcher on the other, in order', async () => {
    const list = (await b.request('GET', '/api/v1/namespaces/default/configmaps')).json<{ metadata: { resourceVersion: string } }>();
    const events: Array<{ type: string; rv: number; name: string }> = [];
    const { request } = await import('node:https');
    const fs = await import('node:fs/promises');
    const files = b.server.files;
    const [ca, cert, key] = await Promise.all([fs.readFile(files.caCertPath), fs.readFile(files.adminCertPath), fs.readFile(files.adminKeyPath)]);
    const done = new Promise<void>((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port: b.securePort, path: `/api/v1/namespaces/default/configmaps?watch=1&resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=10`, ca, cert, key, servername: 'localhost' },
        (res) => {
          let buf = '';
          res.on('data', (chunk: Buffer) => {
            buf += chunk.toString();
            const lines = buf.split('\n');
            buf = lines.pop()!;
            for (const line of lines) {
              if (!line) continue;
              const ev = JSON.parse(line) as { type: string; object: { metadata: { name: string; resourceVersion: string } } };
              events.push({ type: ev.type, rv: Number(ev.object.metadata.resourceVersion), name: ev.object.metadata.name });
              if (events.length === 6) {
                req.destroy();
                resolve();
              }
            }
          });
        },
      );
      req.on('error', (err) => (events.length >= 6 ? resolve() : reject(err)));
      req.end();
    });
    for (let i = 0; i < 3; i++) {
      assert.equal((await a.request('POST', '/api/v1/namespaces/default/configmaps', { metadata: { name: `w${i}` } })).status, 201);
      assert.equal((await a.request('DELETE', `/api/v1/namespaces/default/configmaps/w${i}`)).status, 200);
    }
    await done;
    assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), ['ADDED w0', 'DELETED w0', 'ADDED w1', 'DELETED w1', 'ADDED w2', 'DELETED w2']);
    const revs = events.map((e) => e.rv);
    assert.deepEqual(revs, [...revs].sort((x, y) => x - y), 'in revision order');
    assert.equal(new Set(revs).size, revs.length, 'each once');
  });
});
