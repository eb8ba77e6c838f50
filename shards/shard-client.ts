/**
 * ShardClient is one thread's side of one shard's batched channel: requests
 * waiting for replies, watchers and the last revision each has seen, and
 * what was sent while the channel was down. Every serving thread holds one
 * per shard (the main thread inside its ShardHandle, a front-end worker in
 * its ClientShardRouter); when the channel is replaced (the shard thread was
 * restarted) each watcher resumes exactly after the last event it got, or
 * ends with a clear 410 if that history is gone.
 */
import type { MessagePort } from 'node:worker_threads';
import type { Revision } from '../src/storage/interface.ts';
import { BatchedPort } from './batched-port.ts';
import { shardClientLane } from './wire.ts';
import { ListPieceQueue, ListPiecesLost } from './list-pieces.ts';
import type { GetReply, ListReply, ObjectBytes, ReadMode, ReplyValue, ResourceSpec, ShardError, ShardMessage, ShardRequest } from './protocol.ts';
import { ObjectReadCache } from './object-read-cache.ts';
import { ReadCells } from './read-cells.ts';
import type { DirectWrite, DirectWrites } from './direct-writes.ts';
import type { WrittenKey } from '../src/storage/remote/protocol.ts';
import { hasRevisionPlaceholder, jsonAtRevision } from '../src/watchcache/json-codec.ts';
import { SharedRevision } from '../src/storage/shared-revision.ts';
import { copyWith } from '../src/api/object-copy.ts';

/** Receives one watcher's output in the serving thread. */
export interface WatchSink {
  /** Frames in the watcher's encoding, in order. */
  onFrames(frames: Uint8Array, revision: Revision): void;
  /** The watch ended (410 Compacted, store gone, bad selector, ...). Nothing follows. */
  onEnd(error: ShardError): void;
}

export type WatchRequestBody = Omit<Extract<ShardRequest, { op: 'watch' }>, 'op' | 'watchId'>;

export class ShardCallError extends Error {
  constructor(readonly error: ShardError) {
    super(error.message);
  }
}

interface Watcher {
  req: WatchRequestBody;
  sink: WatchSink;
  /** Revision the watcher is current up to; null until its first frames. */
  lastRevision: Revision | null;
}

type RequestBody = Exclude<ShardRequest, { op: 'watch' | 'unwatch' | 'bookmark' | 'stopPieces' | 'piecesWritten' }>;
export type WithoutId<T> = T extends { id: number } ? Omit<T, 'id'> : never;
export type ShardCall = WithoutId<RequestBody>;

/** A GET on its way to the shard (ShardClient#getsInFlight). */
interface GetInFlight {
  readonly resource: string;
  readonly kind: 'latest' | 'any';
  /** The store's committed revision when it was asked. */
  readonly committed: number;
  readonly reply: Promise<GetReply>;
}

export interface ShardClientOptions {
  index: number;
  /** The channel closed under us (the shard thread ended); not called after detach() or close(). */
  onLost: () => void;
  /** Told of failures contained here: a watch sink that threw (that watcher is ended). */
  onError?: ((err: unknown, what: string) => void) | undefined;
}

export class ShardClient {
  readonly index: number;
  readonly #opts: ShardClientOptions;
  #port: BatchedPort<ShardRequest, ShardMessage> | null = null;
  #pending = new Map<number, { resolve: (v: ReplyValue) => void; reject: (e: Error) => void }>();
  /** Streamed list answers whose pieces are still coming, by request id. */
  #pieces = new Map<number, ListPieceQueue>();
  #watchers = new Map<number, Watcher>();
  #nextId = 1;
  #closed = false;
  /** Requests queued while the channel is down. */
  #backlog: ShardRequest[] = [];
  /** GET answers the current channel's shard vouches for (its `readCells` message); none before it, or on another store. */
  #reads: ObjectReadCache | null = null;
  /** Where direct writes answer through the current channel's shard (its `routeWrites` message); null: none. */
  #route: { conn: string; client: number } | null = null;
  /** Direct writes waiting for their answers, by id (direct-writes.ts), with the bytes each answer is spliced into. */
  readonly #written = new Map<number, { value: Uint8Array | undefined; resolve: (v: ObjectBytes) => void; reject: (e: Error) => void }>();
  /** Names this client's direct writes: a shard slot may pass to another thread's client while answers are under way. */
  readonly #tag = (Math.random() * 0x7fffffff) | 0;

  constructor(opts: ShardClientOptions) {
    this.index = opts.index;
    this.#opts = opts;
  }

  /**
   * Sends `write` of `resource` straight to the store host through `direct`,
   * its answer routed through this shard (direct-writes.ts); null when the
   * current channel's shard routes none, or the bytes are not in the
   * canonical layout (then the write goes through the shard).
   */
  writeDirect(direct: DirectWrites, resource: string, write: DirectWrite): Promise<ObjectBytes> | null {
    const route = this.#route;
    // Bytes outside the canonical layout (a tool's, not the registry's) go through the shard, whose decode names the object in its error.
    if (route === null || this.#port === null || (write.op !== 'delete' && !hasRevisionPlaceholder(write.value))) return null;
    const id = this.#nextId++;
    const via = { conn: route.conn, client: route.client, shard: this.index, tag: this.#tag, resource };
    return new Promise<ObjectBytes>((resolve, reject) => {
      switch (write.op) {
        case 'create':
          this.#written.set(id, { value: write.value, resolve, reject });
          direct.send({ op: 'create', id, key: write.key, value: write.value, via });
          break;
        case 'update':
          this.#written.set(id, { value: write.value, resolve, reject });
          direct.send({ op: 'update', id, key: write.key, value: write.value, expected: write.expected, via });
          break;
        case 'delete':
          // The answer brings the deleted value (WrittenVia.prev).
          this.#written.set(id, { value: undefined, resolve, reject });
          direct.send({ op: 'delete', id, key: write.key, expected: write.expected, via });
          break;
      }
    });
  }

  /** A direct write's answer (through the shard, or, its connection gone, through DirectWrites). */
  receiveWritten(tag: number, id: number, value: WrittenKey | undefined, prev: Uint8Array | undefined, error: ShardError | undefined): void {
    if (tag !== this.#tag) return;
    const p = this.#written.get(id);
    if (p === undefined) return;
    this.#written.delete(id);
    if (value === undefined) {
      p.reject(new ShardCallError(error ?? { code: 'Internal', message: 'a direct write answered neither value nor error' }));
      return;
    }
    // A create's or update's answer is the bytes it wrote; a delete's the bytes it deleted, as of the deletion.
    const stored = p.value ?? prev;
    const json = stored === undefined ? null : jsonAtRevision(stored, value.modRevision);
    if (json === null) p.reject(new ShardCallError({ code: 'Internal', message: `the stored value of ${value.key} is not a JSON object` }));
    else p.resolve({ json, revision: value.modRevision });
  }

  /** True while a channel is attached. */
  get attached(): boolean {
    return this.#port !== null;
  }

  /**
   * Takes a fresh channel to the shard: watchers (re)attach, each resuming
   * after its last revision, then queued requests go out.
   */
  attach(raw: MessagePort): void {
    if (this.#closed) {
      raw.close();
      return;
    }
    const port = new BatchedPort<ShardRequest, ShardMessage>(raw, (msgs) => this.#onMessages(msgs), shardClientLane);
    // Answers read from another shard thread mean nothing to this one: its cells say so first.
    this.#reads = null;
    this.#route = null;
    raw.on('close', () => {
      if (this.#port === port) {
        this.#port = null;
        this.#reads = null;
        this.#route = null;
        this.#failPending(`shard ${this.index} restarted`);
        if (!this.#closed) this.#opts.onLost();
      }
    });
    this.#port = port;
    // Resources served on demand first: a new shard thread knows only its start-up list.
    for (const spec of this.#ensured.values()) port.send({ op: 'ensure', id: this.#nextId++, spec });
    for (const [watchId, w] of this.#watchers) this.#sendWatch(watchId, w);
    const backlog = this.#backlog;
    this.#backlog = [];
    for (const req of backlog) port.send(req);
  }

  /**
   * Drops the channel on purpose (a restart the caller drives): requests in
   * flight fail with Unavailable (the caller retries or reports 503);
   * watchers stay, to resume on the next channel.
   */
  detach(reason: string): void {
    const port = this.#port;
    this.#port = null;
    this.#reads = null;
    this.#route = null;
    this.#failPending(reason);
    port?.close();
  }

  #failPending(reason: string): void {
    const err = new ShardCallError({ code: 'Unavailable', message: reason });
    for (const p of this.#pending.values()) p.reject(err);
    this.#pending.clear();
    for (const p of this.#written.values()) p.reject(err);
    this.#written.clear();
    for (const pieces of this.#pieces.values()) pieces.fail(new ListPiecesLost(`list answer cut short: ${reason}`));
    this.#pieces.clear();
  }

  #send(req: ShardRequest): void {
    if (this.#port !== null) this.#port.send(req);
    else this.#backlog.push(req);
  }

  #onMessages(msgs: ShardMessage[]): void {
    for (const m of msgs) {
      switch (m.t) {
        case 'ok':
        case 'err': {
          const p = this.#pending.get(m.id);
          if (p === undefined) {
            // An answer streamed in pieces failed after its reply.
            const pieces = this.#pieces.get(m.id);
            if (m.t === 'err' && pieces !== undefined) {
              this.#pieces.delete(m.id);
              pieces.fail(new ListPiecesLost(`list answer cut short: ${m.error.message}`));
            }
            break;
          }
          this.#pending.delete(m.id);
          if (m.t === 'err') p.reject(new ShardCallError(m.error));
          else if (isStreamedList(m.value)) {
            // The items follow as pieces: the answer resolves now, with the queue they arrive in.
            const id = m.id;
            const pieces = new ListPieceQueue(
              m.value.streamed,
              () => {
                // Its reader left: the rest is not wanted, and the shard need not make it.
                this.#pieces.delete(id);
                this.#send({ op: 'stopPieces', id });
              },
              // Every piece written and the response over: the shard may reuse their memory.
              () => this.#send({ op: 'piecesWritten', id }),
            );
            this.#pieces.set(m.id, pieces);
            p.resolve(copyWith(m.value, 'pieces', pieces));
          } else p.resolve(m.value);
          break;
        }
        case 'readCells':
          this.#reads = new ObjectReadCache(new ReadCells(m.cells), new SharedRevision(m.storeRevision));
          break;
        case 'routeWrites':
          this.#route = { conn: m.conn, client: m.client };
          break;
        case 'written':
          this.receiveWritten(m.tag, m.id, m.value, m.prev, m.error);
          break;
        case 'piece': {
          const pieces = this.#pieces.get(m.id);
          if (pieces === undefined) break;
          pieces.push(m.bytes);
          if (pieces.complete) this.#pieces.delete(m.id);
          break;
        }
        case 'frames':
          for (const id of m.ids) {
            const w = this.#watchers.get(id);
            if (w === undefined) continue;
            w.lastRevision = m.revision;
            try {
              w.sink.onFrames(m.frames, m.revision);
            } catch (err) {
              this.#sinkFailed(id, w, err);
            }
          }
          break;
        case 'end':
          for (const id of m.ids) {
            const w = this.#watchers.get(id);
            if (w === undefined) continue;
            this.#watchers.delete(id);
            try {
              w.sink.onEnd(m.error);
            } catch (err) {
              this.#opts.onError?.(err, `watch ${id} on shard ${this.index}: ending it failed`);
            }
          }
          break;
      }
    }
  }

  /**
   * A watcher's sink threw on its frames: that watcher alone ends (the shard
   * stops sending to it), and the others of the batch still get theirs.
   */
  #sinkFailed(id: number, w: Watcher, err: unknown): void {
    this.#opts.onError?.(err, `watch ${id} on shard ${this.index}: its frames could not be sent`);
    this.#watchers.delete(id);
    this.#send({ op: 'unwatch', watchId: id, resource: w.req.resource });
    try {
      w.sink.onEnd({ code: 'Internal', message: err instanceof Error ? err.message : String(err) });
    } catch {
      // already reported above; nothing more this watcher can be told
    }
  }

  /** Sends a request to the shard and waits for its reply. */
  call<T extends ReplyValue>(req: ShardCall): Promise<T> {
    if (this.#closed) return Promise.reject(new ShardCallError({ code: 'Unavailable', message: 'shard is closed' }));
    const id = this.#nextId++;
    return new Promise<T>((resolve, reject) => {
      this.#pending.set(id, { resolve: resolve as (v: ReplyValue) => void, reject });
      // Not `{ ...req, id }`: a member added after a spread is slow on Node 20 (api/object-copy.ts).
      this.#send(copyWith(req, 'id', id) as ShardRequest);
    });
  }

  /**
   * Reads one object: again from the answers kept here while the shard's cells say that is still the
   * consistent answer (object-read-cache.ts), else from the shard. Exact revisions always ask the shard.
   */
  get(resource: string, key: string, read: ReadMode): Promise<GetReply> {
    const reads = this.#reads;
    if (reads === null || (read.kind !== 'latest' && read.kind !== 'any')) return this.call<GetReply>({ op: 'get', resource, key, read });
    const kept = reads.lookup(resource, key);
    if (kept !== undefined) return this.#answerAtTurnEnd(kept);
    const committed = reads.committedRevision();
    const flight = this.#getsInFlight.get(key);
    if (flight !== undefined && flight.resource === resource && flight.committed === committed && (flight.kind === 'latest' || read.kind === 'any')) {
      this.getsJoined++;
      return flight.reply;
    }
    const reply = this.call<GetReply>({ op: 'get', resource, key, read }).then((r) => {
      // Kept only if the channel that answered is still the one the cells came with.
      if (this.#reads === reads) reads.remember(resource, key, r);
      return r;
    });
    const entry: GetInFlight = { resource, kind: read.kind, committed, reply };
    this.#getsInFlight.set(key, entry);
    const landed = (): void => {
      if (this.#getsInFlight.get(key) === entry) this.#getsInFlight.delete(key);
    };
    reply.then(landed, landed);
    return reply;
  }

  /**
   * GETs asked of the shard and not answered yet, by key. Another GET of the same object shares the answer while
   * the store's committed revision is the one it was asked at: no write was acknowledged in between (the store
   * publishes a revision before answering its write), so the answer, read at that revision or later, is as
   * consistent for it as for the first; a consistent read shares only a consistent read's answer. Many clients
   * reading the same objects after a change (the kept answers are gone) then cost one hop per object, not one
   * per client.
   */
  readonly #getsInFlight = new Map<string, GetInFlight>();
  /** GETs answered by another's hop (tests, benchmarks). */
  getsJoined = 0;

  /** Kept answers resolved together once this turn's input is read (see #answerAtTurnEnd). */
  #turnAnswers: Array<{ reply: GetReply; resolve: (reply: GetReply) => void }> = [];

  /**
   * A kept answer resolves with the others of its turn, after the turn's I/O, as the shard's replies
   * arrive in one batch: the responses then go out together (measured: answering each at once cost the
   * HTTP/2 front end more CPU per request than the hop it saved).
   */
  #answerAtTurnEnd(reply: GetReply): Promise<GetReply> {
    return new Promise<GetReply>((resolve) => {
      if (this.#turnAnswers.push({ reply, resolve }) === 1) setImmediate(this.#flushTurnAnswers);
    });
  }

  readonly #flushTurnAnswers = (): void => {
    const answers = this.#turnAnswers;
    this.#turnAnswers = [];
    for (const a of answers) a.resolve(a.reply);
  };

  /** Hits and misses of the kept GET answers on the current channel (tests, metrics); null when none are kept. */
  readCacheStats(): { hits: number; misses: number; entries: number } | null {
    const reads = this.#reads;
    return reads === null ? null : { hits: reads.hits, misses: reads.misses, entries: reads.size };
  }

  /**
   * Asks the shard to serve `spec` (a custom resource type) from now on;
   * resolves once its cache is loaded. Remembered, and asked again of every
   * new channel (a restarted shard thread) before anything else is sent.
   */
  ensure(spec: ResourceSpec): Promise<void> {
    this.#ensured.set(spec.groupResource, spec);
    return this.call({ op: 'ensure', spec }).then(() => undefined);
  }

  readonly #ensured = new Map<string, ResourceSpec>();

  /** Starts a watch; frames go to `sink` until it ends or `close()` is called. */
  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void } {
    const watchId = this.#nextId++;
    const w: Watcher = { req, sink, lastRevision: null };
    this.#watchers.set(watchId, w);
    if (this.#port !== null) this.#sendWatch(watchId, w);
    return {
      id: watchId,
      close: () => {
        if (this.#watchers.delete(watchId)) this.#send({ op: 'unwatch', watchId, resource: req.resource });
      },
    };
  }

  #sendWatch(watchId: number, w: Watcher): void {
    // A watcher that has seen events resumes right after them.
    const start = w.lastRevision === null ? w.req.start : { kind: 'from' as const, revision: w.lastRevision };
    const initialEventsEnd = w.lastRevision === null ? w.req.initialEventsEnd : false;
    this.#port!.send({ ...w.req, start, initialEventsEnd, op: 'watch', watchId });
  }

  /** Asks the shard to send bookmarks now (tests, shutdown). */
  bookmark(resource?: string): void {
    this.#send({ op: 'bookmark', resource });
  }

  /**
   * Per resource, the oldest revision a watcher here must resume after: a
   * restarted shard loads its caches as of then, so the resumed watchers
   * find their next events in the window.
   */
  resumeRevisions(): Record<string, Revision> {
    const loadAt: Record<string, Revision> = {};
    for (const w of this.#watchers.values()) {
      if (w.lastRevision === null) continue;
      const cur = loadAt[w.req.resource];
      loadAt[w.req.resource] = cur === undefined ? w.lastRevision : Math.min(cur, w.lastRevision);
    }
    return loadAt;
  }

  get watcherCount(): number {
    return this.#watchers.size;
  }

  /** Requests sent and not yet answered (the shard's queue depth, for metrics). */
  get pendingCount(): number {
    return this.#pending.size + this.#backlog.length;
  }

  /** Watchers per resource (`<group>/<resource>` of the storage) on this shard. */
  watchersByResource(): Map<string, number> {
    const out = new Map<string, number>();
    for (const w of this.#watchers.values()) out.set(w.req.resource, (out.get(w.req.resource) ?? 0) + 1);
    return out;
  }

  /** Ends the channel for good: requests in flight fail, watchers are forgotten. */
  close(): void {
    this.#closed = true;
    const port = this.#port;
    this.#port = null;
    this.#reads = null;
    this.#route = null;
    port?.close();
    for (const p of this.#pending.values()) p.reject(new ShardCallError({ code: 'Unavailable', message: 'shard closed' }));
    this.#pending.clear();
    for (const p of this.#written.values()) p.reject(new ShardCallError({ code: 'Unavailable', message: 'shard closed' }));
    this.#written.clear();
    for (const pieces of this.#pieces.values()) pieces.fail(new ListPiecesLost('list answer cut short: shard closed'));
    this.#pieces.clear();
    this.#watchers.clear();
    this.#backlog = [];
  }
}

function isStreamedList(v: ReplyValue): v is ListReply & { streamed: number } {
  return (v as Partial<ListReply>).streamed !== undefined;
}

/** Merges per-resource resume revisions, keeping the oldest of each. */
export function mergeResumeRevisions(into: Record<string, Revision>, from: Record<string, Revision>): Record<string, Revision> {
  for (const [resource, rev] of Object.entries(from)) {
    const cur = into[resource];
    into[resource] = cur === undefined ? rev : Math.min(cur, rev);
  }
  return into;
}
