/**
 * One store watch on etcd: one etcd watcher on its own gRPC stream.
 *
 * Why not the etcd3 client's Watcher: on reconnect it resumes from the last
 * response's header revision + 1, but a header revision can run ahead of the
 * events delivered so far: the "created" response of a watcher starting in
 * the past carries the server's current revision, so a drop while it catches
 * up skips the events in between. Its stream also cannot send progress requests (an answer, watch id
 * -1, matches no watcher and throws). So this class owns the stream and the
 * resume point: `#next` is the first revision not yet delivered, advanced only
 * by delivered events and by progress notifications that are ordered with
 * them. A reconnect re-creates the watcher at `#next`; anything older that
 * arrives again is dropped, so events are delivered once, in order, without a
 * gap. If etcd compacted past `#next` meanwhile, the watch ends with a
 * CompactedError and the client relists.
 *
 * One stream per watch keeps progress requests unambiguous: a progress answer
 * covers every watcher on its stream.
 */
import type { IWatchResponse } from 'etcd3';
import type { Revision, StoreEvent, StoreWatch, WatchListener } from '../interface.ts';
import { CompactedError, StorageUnavailableError, StoreClosedError } from '../errors.ts';
import type { WatchStream } from './connection.ts';
import { toStoreEvent } from './convert.ts';
import { classify, messageOf } from './failures.ts';
import { isReserved, type KeyCodec } from './keys.ts';
import type { ProgressMode } from './progress.ts';

/** What a watch needs from its store. */
export interface WatchHost {
  readonly codec: KeyCodec;
  /** Give up when etcd stays unreachable this long (StorageUnavailableError). */
  readonly unavailableTimeoutMs: number;
  openStream(): Promise<WatchStream>;
  progressMode(): Promise<ProgressMode>;
  /** Write (then remove) a sentinel key, so that watches covering it see an event. */
  pokeSentinel(key: Buffer): Promise<void>;
  /** Rejects with CompactedError when `afterRevision` is older than retained history. */
  checkStart(afterRevision: Revision): Promise<void>;
  /** The watch ended or was closed; the store forgets it. */
  release(watch: EtcdWatch): void;
}

export interface WatchRange {
  /** First etcd key to watch: the data range start, or the sentinel just below it. */
  readonly start: Buffer;
  readonly end: Buffer;
  readonly sentinel: Buffer;
}

const MIN_RETRY_MS = 100;
const MAX_RETRY_MS = 2000;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export class EtcdWatch implements StoreWatch {
  /** First revision not yet delivered: where a (re)created etcd watcher starts. */
  #next: Revision;
  #closed = false;
  #ended = false;
  #stream: WatchStream | null = null;
  #created = false;
  #endSession: (() => void) | null = null;
  /** When etcd became unreachable for this watch; null while connected. */
  #downSince: number | null = null;
  #mode: ProgressMode | null = null;
  /** Progress was asked for and no write or request answering it has been issued yet. */
  #progressWanted = false;
  #progressBusy = false;
  /** Native progress requests sent and not yet answered. */
  #nativeOutstanding = 0;

  constructor(
    private readonly host: WatchHost,
    private readonly range: WatchRange,
    afterRevision: Revision,
    private readonly listener: WatchListener,
  ) {
    this.#next = afterRevision + 1;
    void this.#run(afterRevision);
  }

  requestProgress(): void {
    if (this.#closed || this.#ended) return;
    this.#progressWanted = true;
    void this.#serveProgress();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#teardown();
  }

  /** Ends the watch with `error` (store closed, or lost history). */
  fail(error: Error): void {
    if (this.#closed || this.#ended) return;
    this.#ended = true;
    this.#teardown();
    this.#call(() => this.listener.onError(error));
  }

  #teardown(): void {
    const stream = this.#stream;
    this.#stream = null;
    if (stream) {
      // Half-close, then cancel: etcd drops its watchers for the stream at once.
      stream.end();
      stream.cancel();
    }
    this.#endSession?.();
    this.host.release(this);
  }

  get #live(): boolean {
    return !this.#closed && !this.#ended;
  }

  async #run(afterRevision: Revision): Promise<void> {
    let checked = false;
    let delay = MIN_RETRY_MS;
    while (this.#live) {
      let failure: unknown;
      if (!checked) {
        try {
          await this.host.checkStart(afterRevision);
          checked = true;
        } catch (err) {
          if (classify(err) !== 'unavailable' && !(err instanceof StorageUnavailableError)) {
            this.fail(err instanceof Error ? err : new Error(String(err)));
            return;
          }
          failure = err;
        }
      }
      if (checked) {
        failure = await this.#session();
        if (this.#created) delay = MIN_RETRY_MS; // it worked for a while: retry promptly
      }
      if (!this.#live) return;
      const now = Date.now();
      this.#downSince ??= now;
      if (now - this.#downSince >= this.host.unavailableTimeoutMs) {
        this.fail(
          new StorageUnavailableError(
            `etcd watch unavailable for ${now - this.#downSince} ms: ${messageOf(failure)}`,
          ),
        );
        return;
      }
      await sleep(delay);
      delay = Math.min(delay * 2, MAX_RETRY_MS);
    }
  }

  /** One stream's lifetime. Resolves with the error that ended it. */
  #session(): Promise<unknown> {
    this.#created = false;
    return new Promise<unknown>((resolve) => {
      let done = false;
      const finish = (err: unknown): void => {
        if (done) return;
        done = true;
        this.#stream = null;
        this.#endSession = null;
        resolve(err);
      };
      this.#endSession = () => finish(new StoreClosedError());
      this.host.openStream().then(
        (stream) => {
          if (done) {
            stream.end();
            stream.cancel();
            return;
          }
          this.#stream = stream;
          stream.on('data', (res: IWatchResponse) => {
            if (!done) this.#onResponse(res);
          });
          stream.on('error', (err: Error) => finish(err));
          stream.on('end', () => finish(new Error('etcd closed the watch stream')));
          stream.write({
            create_request: {
              key: this.range.start,
              range_end: this.range.end,
              start_revision: this.#next,
              prev_kv: true,
              // Periodic server notifications are ordered with events in every
              // etcd version, so they may advance the resume point.
              progress_notify: true,
            },
          });
        },
        (err: unknown) => finish(err),
      );
    });
  }

  #onResponse(res: IWatchResponse): void {
    if (!this.#live) return;
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      this.fail(
        compacted > 0
          ? new CompactedError(this.#next - 1, compacted)
          : new StorageUnavailableError(`etcd canceled the watch: ${res.cancel_reason || 'no reason given'}`),
      );
      return;
    }
    if (res.created) {
      this.#created = true;
      this.#downSince = null;
      if (this.#nativeOutstanding > 0) {
        // Requests sent on a dead stream are lost; one request now covers them all.
        this.#nativeOutstanding = 1;
        this.#stream?.write({ progress_request: {} });
      }
      return;
    }
    if (res.events.length > 0) {
      this.#deliver(res);
      return;
    }
    // An event-less response is a progress notification: watch id -1 answers
    // a WatchProgressRequest (sent only in native mode, where it is ordered),
    // our own id is etcd's periodic notification.
    if (res.watch_id === '-1') {
      if (this.#mode !== 'native') return;
      // Servers may fold several deferred requests into one answer; the count
      // only decides whether to re-ask after a reconnect.
      this.#nativeOutstanding = Math.max(0, this.#nativeOutstanding - 1);
    }
    this.#progress(Number(res.header.revision));
  }

  #deliver(res: IWatchResponse): void {
    const events: StoreEvent[] = [];
    let last = 0;
    let sentinel = false;
    for (const ev of res.events) {
      const revision = Number(ev.kv.mod_revision);
      if (revision < this.#next) continue; // delivered before a reconnect
      last = Math.max(last, revision);
      if (isReserved(ev.kv.key)) {
        sentinel = true;
        continue;
      }
      const event = toStoreEvent(this.host.codec, ev);
      if (!event) {
        // etcd could not read the previous value: history at revision-1 was
        // compacted while we were (re)starting. Deliver what is whole, then end.
        if (events.length > 0) this.#emit(events, events.at(-1)!.revision);
        this.fail(new CompactedError(this.#next - 1, revision));
        return;
      }
      events.push(event);
    }
    if (last === 0) return;
    if (events.length > 0) this.#emit(events, last);
    else this.#next = last + 1;
    // The sentinel's event is ordered after every earlier event of this watcher.
    if (sentinel && this.#live) this.#progress(last);
  }

  #emit(events: StoreEvent[], last: Revision): void {
    this.#next = last + 1;
    this.#call(() => this.listener.onEvents(events));
  }

  #progress(revision: Revision): void {
    if (revision < this.#next - 1) return; // stale
    this.#next = revision + 1;
    this.#call(() => this.listener.onProgress(revision));
  }

  async #serveProgress(): Promise<void> {
    if (this.#progressBusy) return;
    this.#progressBusy = true;
    try {
      this.#mode ??= await this.host.progressMode();
      while (this.#progressWanted && this.#live) {
        // Whatever is issued from here on answers every request made so far.
        this.#progressWanted = false;
        if (this.#mode === 'native') {
          this.#nativeOutstanding++;
          if (this.#stream && this.#created) this.#stream.write({ progress_request: {} });
          // else: sent when the watcher is (re)created
          continue;
        }
        try {
          await this.host.pokeSentinel(this.range.sentinel);
        } catch {
          // etcd unreachable: try again; the watch itself gives up if this lasts.
          this.#progressWanted = true;
          await sleep(MAX_RETRY_MS);
        }
      }
    } finally {
      this.#progressBusy = false;
    }
  }

  /** Calls the listener unless the watch was closed; a throwing listener must not corrupt the watch. */
  #call(fn: () => void): void {
    if (this.#closed) return;
    try {
      fn();
    } catch (err) {
      setImmediate(() => {
        throw err;
      });
    }
  }
}
