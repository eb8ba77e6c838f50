/**
 * What the secure port's two HTTP/2 responses share (node:http2's stream in
 * node-h2-exchange.ts, our engine's in js-h2-exchange.ts): the head held
 * until the first byte goes out, the write queue that holds what a slow
 * reader has not taken (counted against the watch budget), and the calls
 * that only move that state. Each engine says how its stream is given its
 * head, ended, reset, and how much it still holds.
 */
import type { ExchangeLifecycle } from './lifecycle.ts';
import { NodeWriteQueue, type QueueSink } from './node-write-queue.ts';
import { DEFAULT_HEAD, type PendingHead, type ResponseHeaders } from './response-head.ts';
import type { FrontendResponse } from './run-handler.ts';
import type { WatchBudget } from './watch-budget.ts';

export abstract class H2StreamResponse implements FrontendResponse {
  protected readonly method: string;
  protected readonly lifecycle: ExchangeLifecycle;
  readonly #path: string;
  readonly #budget: WatchBudget;
  /** The status and headers writeHead set, sent with the first byte of the body (or the end). */
  protected head: PendingHead = DEFAULT_HEAD;
  /** The head went out. */
  protected sent = false;
  /** The handler ended the response. */
  protected finished = false;
  /** The request or status has no body (HEAD, 204, 304): what is written after the head goes nowhere. */
  protected bodyless = false;
  /** What write() could not hand to the stream yet; made at the first write. */
  protected writes: NodeWriteQueue | undefined;

  constructor(method: string, path: string, lifecycle: ExchangeLifecycle, budget: WatchBudget) {
    this.method = method;
    this.#path = path;
    this.lifecycle = lifecycle;
    this.#budget = budget;
  }

  /** The stream the write queue writes to and waits on. */
  protected abstract get sink(): QueueSink;
  /** The stream is over on the engine's side (closed or reset). */
  protected abstract get streamGone(): boolean;
  /** Sends the head (with END_STREAM when `endStream`), `length` its Content-Length when known. */
  protected abstract sendHead(endStream: boolean, length: number | undefined): void;
  /** RST_STREAM(CANCEL): this stream ends, the other streams of the connection go on. */
  protected abstract resetStream(): void;
  abstract get bufferedBytes(): number;
  abstract end(chunk?: Uint8Array | string): void;
  abstract endParts(parts: readonly Uint8Array[]): void;

  get closed(): boolean {
    return this.finished || this.lifecycle.closed || this.streamGone;
  }

  get headSent(): boolean {
    return this.sent;
  }

  /** True once the handler ended the response. */
  get ended(): boolean {
    return this.finished;
  }

  writeHead(status: number, headers: ResponseHeaders): void {
    if (this.sent) throw new Error('writeHead after the response head was sent');
    this.head = { status, headers };
  }

  write(chunk: Uint8Array): boolean {
    if (this.closed) return false;
    if (!this.sent) this.sendHead(false, undefined);
    if (this.bodyless) return true;
    return this.#writeQueue().write(chunk);
  }

  #writeQueue(): NodeWriteQueue {
    if (this.writes === undefined) {
      const writes = new NodeWriteQueue(this.sink, this.#budget, { frontend: 'node', path: this.#path }, () => this.destroy());
      this.writes = writes;
      this.lifecycle.onClose(() => writes.close());
    }
    return this.writes;
  }

  /** Output written earlier still waits for the client: `parts` and then `end` go after it (true), or nothing waits (false). */
  protected endAfterWrites(parts: readonly Uint8Array[], end: () => void): boolean {
    const writes = this.writes;
    if (writes === undefined || !writes.endAfter(parts, end)) return false;
    this.finished = true;
    return true;
  }

  onDrain(cb: () => void): void {
    if (this.writes !== undefined) this.writes.onDrain(cb);
    else this.sink.once('drain', cb);
  }

  destroy(): void {
    if (this.lifecycle.closed) return;
    this.resetStream();
    this.lifecycle.finish(true);
  }

  flushHead(): boolean {
    if (this.closed) return false;
    if (!this.sent) this.sendHead(false, undefined);
    return true;
  }

  onClose(cb: () => void): void {
    this.lifecycle.onClose(cb);
  }
}
