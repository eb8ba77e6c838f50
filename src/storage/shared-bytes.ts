/**
 * Stored objects' bytes in SharedArrayBuffers.
 *
 * Why: every object the server holds is held twice for good, by the store
 * host (its value) and by the owner shard (its JSON with resourceVersion),
 * and V8 counts each ArrayBuffer's bytes as the isolate's external memory:
 * every 64 MiB of it retained starts a full marking of that thread's heap
 * (`--trace-incremental-marking`: "Start (external memory pressure)", about
 * every 45,000 creates of 1 KiB ConfigMaps), whose cost grows with the
 * objects held. A SharedArrayBuffer's bytes are not counted per isolate, so
 * held objects no longer schedule collections; and a SharedArrayBuffer
 * crosses threads by reference, so a value written once is not copied again
 * on its way from the serving thread through the shard to the store and back
 * in the store's events (measured, a batch of 20 creates posted to a worker
 * that keeps them: 5.2 µs of CPU a message against 5.9).
 *
 * Bytes made here are never written to after they are made: every thread
 * that holds them reads the same memory.
 */

/** A Buffer of `bytes` bytes over a SharedArrayBuffer of its own. */
export function sharedBuffer(bytes: number): Buffer {
  return Buffer.from(new SharedArrayBuffer(bytes));
}

const utf8 = new TextEncoder();

/** `text` as UTF-8 in a SharedArrayBuffer of its own (exactly its size). */
export function sharedUtf8(text: string): Uint8Array {
  const out = new Uint8Array(new SharedArrayBuffer(Buffer.byteLength(text, 'utf8')));
  utf8.encodeInto(text, out);
  return out;
}
