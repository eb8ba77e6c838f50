/**
 * Watches over the embedded store.
 *
 * A watcher is either catching up or live. A catching-up watcher replays
 * history from the change log in chunks, one chunk per event-loop turn, until
 * it reaches the committed revision; from then on it is live and receives the
 * events of each commit group as one batch, synchronously when the group
 * becomes durable. Both steps run on the event loop and neither re-enters a
 * listener, so listener calls never overlap and come in revision order.
 */
import type { Revision, StoreEvent, StoreWatch, WatchListener } from '../interface.ts';
import { CompactedError } from '../errors.ts';

/** What the hub needs from the store. */
export interface WatchSource {
  committedRevision(): number;
  compactedRevision(): number;
  /** Events under `prefix` in (after, upTo], scanning at most `maxScan` revisions. */
  events(after: number, upTo: number, prefix: string, maxScan: number): { events: StoreEvent[]; scannedTo: number };
}

/** Revisions examined per catch-up step; bounds the time one step holds the event loop. */
const CATCH_UP_SCAN = 10_000;

/** Listener exceptions are bugs in the caller; rethrow them outside the commit path, like EventEmitter would. */
function rethrowLater(err: unknown): void {
  queueMicrotask(() => {
    throw err;
  });
}

class Watcher implements StoreWatch {
  /** Every event with a revision <= cursor has been delivered. */
  cursor: number;
  live = false;
  closed = false;
  private pumping = false;
  private progressWanted = false;

  constructor(
    private readonly hub: WatchHub,
    readonly prefix: string,
    afterRevision: number,
    private readonly listener: WatchListener,
  ) {
    this.cursor = afterRevision;
  }

  requestProgress(): void {
    if (this.closed) return;
    this.progressWanted = true;
    // Never call the listener from inside requestProgress: the caller may be in one of its callbacks.
    if (this.live) setImmediate(() => this.sendProgressIfLive());
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.hub.remove(this);
  }

  /** End the watch with an error (unless already closed). */
  end(error: Error): void {
    if (this.closed) return;
    this.close();
    try {
      this.listener.onError(error);
    } catch (err) {
      rethrowLater(err);
    }
  }

  /** Deliver the live part of a commit group. */
  deliver(events: readonly StoreEvent[], upTo: number): void {
    let batch: StoreEvent[] | null = null;
    for (const e of events) {
      if (e.revision > this.cursor && e.key.startsWith(this.prefix)) (batch ??= []).push(e);
    }
    if (upTo > this.cursor) this.cursor = upTo;
    if (batch !== null) this.emit(batch);
  }

  private emit(batch: StoreEvent[]): void {
    try {
      this.listener.onEvents(batch);
    } catch (err) {
      rethrowLater(err);
    }
  }

  private sendProgressIfLive(): void {
    if (this.closed || !this.live || !this.progressWanted) return;
    this.progressWanted = false;
    try {
      this.listener.onProgress(this.hub.source.committedRevision());
    } catch (err) {
      rethrowLater(err);
    }
  }

  /** Schedule catch-up steps until live. */
  startCatchUp(): void {
    if (this.pumping) return;
    this.pumping = true;
    setImmediate(() => this.catchUpStep());
  }

  private catchUpStep(): void {
    this.pumping = false;
    if (this.closed) return;
    const src = this.hub.source;
    const compacted = src.compactedRevision();
    if (this.cursor < compacted) {
      this.end(new CompactedError(this.cursor + 1, compacted));
      return;
    }
    const committed = src.committedRevision();
    if (this.cursor >= committed) {
      this.live = true;
      this.sendProgressIfLive();
      return;
    }
    const { events, scannedTo } = src.events(this.cursor, committed, this.prefix, CATCH_UP_SCAN);
    this.cursor = scannedTo;
    if (events.length > 0) this.emit(events);
    this.startCatchUp();
  }
}

export class WatchHub {
  private readonly watchers = new Set<Watcher>();

  constructor(readonly source: WatchSource) {}

  get size(): number {
    return this.watchers.size;
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    const w = new Watcher(this, prefix, Math.max(0, afterRevision), listener);
    this.watchers.add(w);
    // Even a watcher that is already current goes through one asynchronous
    // step, so a compacted start revision is reported asynchronously.
    w.startCatchUp();
    return w;
  }

  remove(w: Watcher): void {
    this.watchers.delete(w);
  }

  /** Revisions (from, upTo] just became durable: hand their events to live watchers as one batch each. */
  committed(from: number, upTo: number): void {
    let events: readonly StoreEvent[] | null = null;
    for (const w of this.watchers) {
      if (!w.live || w.closed) continue;
      events ??= this.source.events(from, upTo, '', Number.POSITIVE_INFINITY).events;
      w.deliver(events, upTo);
    }
  }

  /** End every watch with `error`. */
  endAll(error: Error): void {
    for (const w of [...this.watchers]) w.end(error);
  }
}
