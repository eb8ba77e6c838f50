/**
 * Stored values in SharedArrayBuffers.
 *
 * Why: the store host holds every object's value for good, and V8 counts the
 * bytes of each ArrayBuffer as its isolate's external memory: every 64 MiB
 * of it retained starts a full marking of the thread's heap
 * (`--trace-incremental-marking`: "Start (external memory pressure)", about
 * every 45,000 creates of 1 KiB ConfigMaps), at a cost that grows with the
 * objects held. A SharedArrayBuffer's bytes are not counted per isolate, so
 * held values no longer schedule collections; and a SharedArrayBuffer crosses
 * threads by reference, so a value written once is not copied again on its
 * way from the serving thread through the shard to the store host, nor back
 * in the store's events (measured, a batch of 20 creates posted to a worker
 * that keeps them: 5.2 µs of CPU a message against 5.9).
 *
 * Not for what is copied out often: V8 copies out of shared memory with
 * relaxed atomics, word by word only where source and target are aligned
 * alike, else byte by byte (joining 50,000 objects of 1.4 KB: 7 ms from
 * ArrayBuffers, 15 from SharedArrayBuffers). The shard's cached JSON, which
 * every LIST answer and watch frame copies, stays in ArrayBuffers.
 *
 * Bytes made here are never written to after they are made: every thread
 * that holds them reads the same memory.
 */

const utf8 = new TextEncoder();

/** `text` as UTF-8 in a SharedArrayBuffer of its own (exactly its size). */
export function sharedUtf8(text: string): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')));
  utf8.encodeInto(text, out);
  return out;
}

/** A copy of `bytes` in a SharedArrayBuffer of its own. */
export function sharedCopy(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}
