/**
 * Stored objects' bytes live in SharedArrayBuffers (src/storage/shared-bytes.ts):
 * what the registry writes and what a shard's cache keeps, so that held
 * objects do not count as V8 external memory and cross threads uncopied.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { MessageChannel, Worker } from 'node:worker_threads';
import { sharedBuffer, sharedUtf8 } from '../../src/storage/shared-bytes.ts';
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

  it('sharedBuffer is a Buffer over a SharedArrayBuffer of its own', () => {
    const b = sharedBuffer(10);
    assert.ok(Buffer.isBuffer(b));
    assert.ok(isShared(b));
    assert.equal(b.buffer.byteLength, 10);
  });

  it('serializeForStorage gives shared bytes in the canonical layout', () => {
    const bytes = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', resourceVersion: '7' }, data: { k: 'vé' } });
    assert.ok(isShared(bytes));
    assert.equal(Buffer.from(bytes).toString('utf8'), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"","name":"a"},"data":{"k":"vé"}}');
  });

  it("a cache's decoded object keeps its JSON in shared memory, with the resourceVersion in place", () => {
    const codec = new JsonObjectCodec({ prefix: '/configmaps/', namespaced: true, apiVersion: 'v1', kind: 'ConfigMap' });
    const stored = serializeForStorage({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'a', namespace: 'ns' }, data: { k: 'v' } });
    const obj = codec.decode('/configmaps/ns/a', stored, 42);
    assert.ok(isShared(obj.json));
    assert.equal(Buffer.from(obj.json).toString('utf8'), '{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"42","name":"a","namespace":"ns"},"data":{"k":"v"}}');
    // Decoding again at another revision (the cache's represent) leaves the first object's bytes as they were.
    const again = codec.represent(obj, 43);
    assert.ok(isShared(again.json));
    assert.match(Buffer.from(again.json).toString('utf8'), /"resourceVersion":"43"/);
    assert.match(Buffer.from(obj.json).toString('utf8'), /"resourceVersion":"42"/);
    // Bytes written by another tool (not in the canonical layout) come out shared too.
    const foreign = codec.decode('/configmaps/ns/b', Buffer.from('{"metadata":{"name":"b","namespace":"ns"},"kind":"ConfigMap","apiVersion":"v1"}'), 5);
    assert.ok(isShared(foreign.json));
    assert.match(Buffer.from(foreign.json).toString('utf8'), /^\{"kind":"ConfigMap","apiVersion":"v1","metadata":\{"resourceVersion":"5"/);
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
