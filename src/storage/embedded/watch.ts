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

  /** Adds `e` to this watcher's part of a commit group when it is past the cursor and under the prefix. */
  collect(e: StoreEvent, batches: Map<Watcher, StoreEvent[]>): void {
    if (!this.live || this.closed || e.revision <= this.cursor || !e.key.startsWith(this.prefix)) return;
    const batch = batches.get(this);
    if (batch === undefined) batches.set(this, [e]);
    else batch.push(e);
  }

  /** Delivers the live part of a commit group (`batch`, from collect) and moves the cursor to its end. */
  deliver(batch: StoreEvent[] | undefined, upTo: number): void {
    if (upTo > this.cursor) this.cursor = upTo;
    if (batch !== undefined) this.emit(batch);
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

/**
 * The first segment of a key or prefix ("/configmaps/" of "/configmaps/default/a"), or '' when it has none in
 * full (no leading '/', or no second one).
 */
function firstSegment(keyOrPrefix: string): string {
  if (keyOrPrefix.charCodeAt(0) !== 47 /* '/' */) return '';
  const end = keyOrPrefix.indexOf('/', 1);
  return end < 0 ? '' : keyOrPrefix.slice(0, end + 1);
}

export class WatchHub {
  private readonly watchers = new Set<Watcher>();
  /**
   * Watchers by the first segment of their prefix: every shard watches each of its types (~60 prefixes), and
   * testing every event against every prefix was ~5,700 instructions a create on the store's thread (callgrind);
   * an event is now tested only against the watchers of its own first segment and those in `broad`.
   */
  private readonly bySegment = new Map<string, Set<Watcher>>();
  /** Watchers whose prefix names no whole first segment ('' or "/con"): tested against every event. */
  private readonly broad = new Set<Watcher>();

  constructor(readonly source: WatchSource) {}

  get size(): number {
    return this.watchers.size;
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    const w = new Watcher(this, prefix, Math.max(0, afterRevision), listener);
    this.watchers.add(w);
    const segment = firstSegment(prefix);
    if (segment === '') this.broad.add(w);
    else {
      let bucket = this.bySegment.get(segment);
      if (bucket === undefined) this.bySegment.set(segment, (bucket = new Set()));
      bucket.add(w);
    }
    // Even a watcher that is already current goes through one asynchronous
    // step, so a compacted start revision is reported asynchronously.
    w.startCatchUp();
    return w;
  }

  remove(w: Watcher): void {
    this.watchers.delete(w);
    const segment = firstSegment(w.prefix);
    if (segment === '') this.broad.delete(w);
    else {
      const bucket = this.bySegment.get(segment);
      bucket?.delete(w);
      if (bucket?.size === 0) this.bySegment.delete(segment);
    }
  }

  /**
   * Revisions (from, upTo] just became durable: hand their events to live watchers as one batch each (in the
   * order the watchers came), and move every live watcher's cursor to upTo, with events for it or not.
   */
  committed(from: number, upTo: number): void {
    let live = false;
    for (const w of this.watchers) {
      if (w.live && !w.closed) {
        live = true;
        break;
      }
    }
    if (!live) return;
    const events = this.source.events(from, upTo, '', Number.POSITIVE_INFINITY).events;
    const batches = new Map<Watcher, StoreEvent[]>();
    for (const e of events) {
      const bucket = this.bySegment.get(firstSegment(e.key));
      if (bucket !== undefined) for (const w of bucket) w.collect(e, batches);
      for (const w of this.broad) w.collect(e, batches);
    }
    for (const w of this.watchers) {
      if (w.live && !w.closed) w.deliver(batches.get(w), upTo);
    }
  }

  /** End every watch with `error`. */
  endAll(error: Error): void {
    for (const w of [...this.watchers]) w.end(error);
  }
}
