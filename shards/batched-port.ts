/**
 * BatchedPort sends messages over a MessagePort in batches: everything sent
 * during one event-loop turn goes out as one postMessage at the next
 * setImmediate. The fixed cost of a cross-thread message (~19 µs here) is
 * then paid once per turn instead of once per request or event.
 */
import type { MessagePort, TransferListItem } from 'node:worker_threads';

/** The part of MessagePort this module needs (lets tests use either end of a MessageChannel). */
export type PortLike = Pick<MessagePort, 'postMessage' | 'on' | 'off' | 'close'>;

export class BatchedPort<Out, In> {
  readonly #port: PortLike;
  #queue: Out[] = [];
  #transfer: TransferListItem[] = [];
  #scheduled = false;
  #closed = false;
  /** Number of postMessage calls made, for benchmarks and tests. */
  posts = 0;

  constructor(port: PortLike, onMessages: (messages: In[]) => void) {
    this.#port = port;
    port.on('message', (batch: In[]) => onMessages(batch));
  }

  /** Queues a message; `transfer` lists ArrayBuffers to move rather than copy. */
  send(message: Out, transfer?: readonly TransferListItem[]): void {
    if (this.#closed) return;
    this.#queue.push(message);
    if (transfer !== undefined) this.#transfer.push(...transfer);
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** True once closed: what is sent then goes nowhere. */
  get closed(): boolean {
    return this.#closed;
  }

  /** Sends what is queued now (e.g. before a thread ends). */
  flush(): void {
    this.#flush();
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    if (this.#queue.length === 0 || this.#closed) return;
    const batch = this.#queue;
    const transfer = this.#transfer;
    this.#queue = [];
    this.#transfer = [];
    this.posts++;
    this.#port.postMessage(batch, transfer);
  };

  close(): void {
    this.#flush();
    this.#closed = true;
    this.#port.close();
  }
}

/** A copy of `bytes` in an ArrayBuffer of its own, safe to put in a transfer list. */
export function ownedBytes(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(new ArrayBuffer(bytes.byteLength));
  out.set(bytes);
  return out;
}

/**
 * Joins byte chunks into one buffer that owns its ArrayBuffer (transferable),
 * or into what `alloc` gives for the total size (a SharedArrayBuffer to share).
 */
export function concatOwned(chunks: readonly Uint8Array[], separator?: Uint8Array, alloc?: (bytes: number) => Uint8Array): Uint8Array {
  let total = 0;
  for (const c of chunks) total += c.byteLength;
  if (separator !== undefined && chunks.length > 1) total += separator.byteLength * (chunks.length - 1);
  const out = alloc !== undefined ? alloc(total) : new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  for (let i = 0; i < chunks.length; i++) {
    if (i > 0 && separator !== undefined) {
      out.set(separator, at);
      at += separator.byteLength;
    }
    out.set(chunks[i]!, at);
    at += chunks[i]!.byteLength;
  }
  return out;
}
