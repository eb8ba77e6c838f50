/**
 * A streamed body (a watch) written to a node stream (an HTTP/1.1
 * ServerResponse or an HTTP/2 stream) without letting node hold more than a
 * slice of it.
 *
 * Handed everything at once, node keeps every chunk a slow client has not
 * taken in its writable buffer and, at the next drain, passes them all to
 * the TLS socket, which encrypts them at once into memory of its own: a
 * second copy per watcher. Here node gets a slice at a time, the next only
 * after 'drain'; what waits meanwhile is a WatchQueue of references to the
 * callers' chunks (shared with every other watcher of the same event),
 * counted against the process's WatchBudget with what node holds.
 */
import { asBuffer } from './body-parts.ts';
import { SLICE_BYTES } from './node-parts-pump.ts';
import type { WatchBudget, WatchQueue, WatchQueueLabel } from './watch-budget.ts';
import { runAll } from './lifecycle.ts';

/** What the writer needs of ServerResponse and ServerHttp2Stream. */
export interface QueueSink {
  write(chunk: Uint8Array): boolean;
  readonly writableLength: number;
  once(event: 'drain', listener: () => void): unknown;
  off(event: 'drain', listener: () => void): unknown;
  readonly destroyed: boolean;
}

export class NodeWriteQueue {
  readonly #sink: QueueSink;
  readonly #queue: WatchQueue;
  /** Node refused the last slice: nothing more goes to it before 'drain'. */
  #waiting = false;
  #drains: (() => void)[] = [];
  /** Ends the response once everything queued is out; set by endAfter. */
  #end: (() => void) | undefined;

  /** `drop` ends the response at once (the budget is over and this stream holds the most). */
  constructor(sink: QueueSink, budget: WatchBudget, label: WatchQueueLabel, drop: () => void) {
    this.#sink = sink;
    this.#queue = budget.open(label, drop);
  }

  /** Bytes waiting here, not yet handed to node. */
  get queuedBytes(): number {
    return this.#queue.bytes;
  }

  /** Whether output is waiting (here or in node) for the client. */
  get backedUp(): boolean {
    return this.#waiting || this.#queue.bytes > 0;
  }

  /** Like stream.write: false once the client is not keeping up (then onDrain tells when it is). */
  write(chunk: Uint8Array): boolean {
    const queue = this.#queue;
    if (queue.closed) return false;
    if (!this.backedUp && chunk.byteLength <= SLICE_BYTES) {
      if (this.#sink.write(asBuffer(chunk))) return true;
      this.#startWaiting();
      return false;
    }
    queue.push(chunk);
    if (!this.#waiting && !queue.closed) this.#flow();
    return !this.backedUp;
  }

  onDrain(cb: () => void): void {
    if (!this.#queue.closed) this.#drains.push(cb);
  }

  /**
   * Ends the response with `parts` after what is queued, by `end` once all
   * is handed to node. Returns false (and does nothing) when nothing is
   * queued: the caller ends as usual.
   */
  endAfter(parts: readonly Uint8Array[], end: () => void): boolean {
    if (!this.backedUp || this.#queue.closed) return false;
    for (const part of parts) this.#queue.push(part);
    this.#end = end;
    return true;
  }

  /** The response is over: let go of everything. */
  close(): void {
    this.#sink.off('drain', this.#flow);
    this.#drains = [];
    this.#end = undefined;
    this.#queue.close();
  }

  readonly #flow = (): void => {
    const sink = this.#sink;
    const queue = this.#queue;
    this.#waiting = false;
    if (sink.destroyed || queue.closed) return;
    while (queue.bytes > 0) {
      const slice = queue.view(SLICE_BYTES);
      queue.advance(slice.byteLength);
      if (!sink.write(asBuffer(slice))) {
        this.#startWaiting();
        return;
      }
    }
    queue.setPrivate(0);
    const end = this.#end;
    if (end !== undefined) {
      this.#end = undefined;
      end();
      return;
    }
    const drains = this.#drains;
    this.#drains = [];
    runAll(drains);
  };

  #startWaiting(): void {
    this.#waiting = true;
    this.#sink.once('drain', this.#flow);
    // What node now holds of this stream (the slice, and its ciphertext while it goes out).
    this.#queue.setPrivate(this.#sink.writableLength);
  }
}
