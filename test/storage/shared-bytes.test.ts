/**
 * Stored values live in SharedArrayBuffers (src/storage/shared-bytes.ts): what
 * the registry writes and the embedded store's own copy, so that held values
 * do not count as V8 external memory and cross threads uncopied; a shard's
 * cached JSON, copied by every LIST and watch frame, stays in ArrayBuffers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, Worker } from 'node:worker_threads';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EmbeddedStore } from '../../src/storage/embedded/index.ts';
import { sharedCopy, sharedUtf8 } from '../../src/storage/shared-bytes.ts';
import { JsonObjectCodec, serializeForStorage } from '../../src/watchcache/json-codec.ts';

const isShared = (b: Uint8Array): boolean => b.buffer instanceof SharedArrayBuffer;

describe('shared bytes', () => {
  it('sharedUtf8 writes exactly the UTF-8 of its text into a SharedArrayBuffer of that size', () => {
    for (const text of ['', 'plain ascii', 'héllo wörld', '日本語のテキスト', 'emoji 😀 and more 🎉', '"\\ud800" escaped', 'x'.repeat(70_000)]) {
      const out = sharedUtf8(text);
      assert.ok(isShared(out), text.slice(0, 20));
      assert.equal(out.buffer.byteLength, out.byteLength);
      assert.equal(out.byteOffset, 0);
      assert.deepEqual(Buffer.from(out), Buffer.from(text, 'utf8'));
    }
  });

  it('sharedCopy copies into a SharedArrayBuffer of its own, from any view', () => {
    const backing = Buffer.from('..abcdef..');
    const out = sharedCopy(backing.subarray(2, 8));
    assert.ok(isShared(out));
    assert.equal(out.buffer.byteLength, 6);
    assert.equal(Buffer.from(out).toString(), 'abcdef');
    backing[2] = 0x41;
    assert.equal(Buffer.from(out).toString(), 'abcdef', 'a copy, not a view');
  });

  it('serializeForStorage gives shared bytes in the canonical layout', () => {
    const bytes = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '7' }, data: { k: 'vé' } });
    assert.ok(isShared(bytes));
    assert.equal(Buffer.from(bytes).toString('utf8'), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"","name":"a"},"data":{"k":"vé"}}');
  });

  it("the embedded store keeps its own shared copy of each value, and hands it out in reads and events", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'orch-shared-bytes-'));
    const store = await EmbeddedStore.open({ dir });
    try {
      const events: Uint8Array[] = [];
      const watch = store.watch('/configmaps/', 0, { onEvents: (evs) => evs.forEach((e) => e.value !== null && events.push(e.value)), onProgress() {}, onError() {} });
      const written = new Uint8Array(new ArrayBuffer(5));
      written.set(Buffer.from('hello'));
      const created = await store.create('/configmaps/ns/a', written);
      written[0] = 0x4a; // the caller reuses its buffer: the store's copy must not change
      const read = await store.get('/configmaps/ns/a');
      assert.ok(read.kv !== null && isShared(read.kv.value));
      assert.equal(Buffer.from(read.kv.value).toString(), 'hello');
      assert.ok(isShared(created.value) || created.value === written, 'the write answers with the stored value or the caller\'s own bytes');
      const updated = await store.update('/configmaps/ns/a', sharedUtf8('world'), read.kv.modRevision);
      assert.equal(Buffer.from((await store.get('/configmaps/ns/a')).kv!.value).toString(), 'world');
      for (let i = 0; i < 50 && events.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
      watch.close();
      assert.deepEqual(events.map((v) => [isShared(v), Buffer.from(v).toString()]), [[true, 'hello'], [true, 'world']]);
      assert.ok(updated.modRevision > created.modRevision);
    } finally {
      await store.close();
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a shard's cached JSON is an ArrayBuffer of its own, with the resourceVersion in place", () => {
    const codec = new JsonObjectCodec({ prefix: '/configmaps/', namespaced: true, apiVersion: 'v1', kind: 'ConfigMap' });
    const stored = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } });
    const obj = codec.decode('/configmaps/ns/a', stored, 42);
    assert.ok(obj.json.buffer instanceof ArrayBuffer);
    assert.equal(obj.json.buffer.byteLength, obj.json.byteLength);
    assert.equal(Buffer.from(obj.json).toString('utf8'), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"42","name":"a","namespace":"ns"},"data":{"k":"v"}}');
  });

  it('a stored value posted to another thread arrives as the same memory, not a copy', async () => {
    const worker = new Worker(
      `const { parentPort } = require('node:worker_threads');
       parentPort.once('message', ({ value, port }) => {
         port.postMessage({ shared: value.buffer instanceof SharedArrayBuffer, text: Buffer.from(value).toString('utf8') });
       });`,
      { eval: true },
    );
    try {
      const { port1, port2 } = new MessageChannel();
      const value = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } });
      const reply = new Promise<{ shared: boolean; text: string }>((resolve) => port1.once('message', resolve));
      worker.postMessage({ value, port: port2 }, [port2]);
      const r = await reply;
      port1.close();
      assert.equal(r.shared, true);
      assert.equal(r.text, Buffer.from(value).toString('utf8'));
    } finally {
      await worker.terminate();
    }
  });
});
