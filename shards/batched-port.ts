/**
 * BatchedPort sends messages over a MessagePort in batches: everything sent
 * during one event-loop turn goes out as one postMessage at the next
 * setImmediate. The fixed cost of a cross-thread message (~19 µs here) is
 * then paid once per turn instead of once per request or event. With a
 * byte lane (byte-lane.ts), the kinds it knows go as bytes, a buffer per run
 * of them, moved rather than cloned.
 */
import type { MessagePort, TransferListItem } from 'node:worker_threads';
import { ByteReader, ByteWriter, CorruptLaneError, type ByteLane } from './byte-lane.ts';

/** The part of MessagePort this module needs (lets tests use either end of a MessageChannel). */
export type PortLike = Pick<MessagePort, 'postMessage' | 'on' | 'off' | 'close'>;

/**
 * The most room a run starts with (it grows by doubling past that): under
 * glibc's threshold for allocating by mmap, so the usual run (a turn's
 * writes, tens of KiB) costs no page faults.
 */
const MAX_START_BYTES = 64 * 1024;

export class BatchedPort<Out, In> {
  readonly #port: PortLike;
  /** Messages and, from the lane, runs of them as bytes (an ArrayBuffer each), in the order sent. */
  #queue: (Out | ArrayBuffer)[] = [];
  #transfer: TransferListItem[] = [];
  #scheduled = false;
  #closed = false;
  /** The lane's writer, when this end sends any kind as bytes. */
  readonly #encode: ((m: Out, w: ByteWriter) => boolean) | undefined;
  /** The run being written: the lane's messages since the last object message or flush. */
  #run: ByteWriter | undefined;
  /** The last run's size: the next run starts with room for about as much. */
  #runBytes = 0;
  /** Number of postMessage calls made, for benchmarks and tests. */
  posts = 0;

  /** `lane`: both ends of the channel must use the same one. */
  constructor(port: PortLike, onMessages: (messages: In[]) => void, lane?: ByteLane<Out, In>) {
    this.#port = port;
    this.#encode = lane?.encode;
    if (lane === undefined) port.on('message', (batch: In[]) => onMessages(batch));
    else port.on('message', (batch: (In | ArrayBuffer)[]) => onMessages(unpack(batch, lane.decode)));
  }

  /** Queues a message; `transfer` lists ArrayBuffers to move rather than copy. */
  send(message: Out, transfer?: readonly TransferListItem[]): void {
    if (this.#closed) return;
    if (this.#encode !== undefined && transfer === undefined) {
      const run = (this.#run ??= new ByteWriter(Math.min(Math.max(this.#runBytes * 1.25, 4096), MAX_START_BYTES)));
      if (this.#encode(message, run)) {
        this.#schedule();
        return;
      }
      this.#endRun();
    }
    this.#queue.push(message);
    if (transfer !== undefined) this.#transfer.push(...transfer);
    this.#schedule();
  }

  #schedule(): void {
    if (!this.#scheduled) {
      this.#scheduled = true;
      setImmediate(this.#flush);
    }
  }

  /** Puts the run written so far in the queue, in its place among the object messages. */
  #endRun(): void {
    const run = this.#run;
    if (run === undefined || run.length === 0) return;
    this.#run = undefined;
    this.#runBytes = run.length;
    const bytes = run.finish();
    this.#queue.push(bytes);
    this.#transfer.push(bytes);
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
    this.#endRun();
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

/** A batch with its runs of bytes read back into messages, in order. */
function unpack<In>(batch: (In | ArrayBuffer)[], decode: ByteLane<unknown, In>['decode']): In[] {
  const out: In[] = [];
  for (const m of batch) {
    if (!(m instanceof ArrayBuffer)) out.push(m);
    else if (decode !== undefined) decode(new ByteReader(m), (d) => out.push(d));
    else throw new CorruptLaneError('bytes on a channel whose lane reads none');
  }
  return out;
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
