/**
 * ShardRuntime is a shard's whole behaviour, independent of the thread it
 * runs in: it owns the watch caches of its resource types (each kept fed
 * from the store by a CachedResource), answers the batched requests of its
 * clients (the main thread's channel, and one more per front-end thread,
 * each answered on its own channel), and streams each watcher's frames to
 * the client that opened it. A failing request, object or watcher fails
 * alone: never the batch, the other watchers or the thread.
 *
 * Reads come from the cache. A consistent read first asks the store for its
 * current revision and waits until the cache has caught up to it (asking the
 * store's watch for a progress notification), as the original's
 * consistent-reads-from-cache does. Reads the cache cannot serve (an exact
 * revision older than its window) go to the store.
 */
import type { Revision, Store, WriteOptions } from '../src/storage/interface.ts';
import { FutureRevisionError, isStorageError, storageErrorToWire } from '../src/storage/errors.ts';
import { copyWith } from '../src/api/object-copy.ts';
import { WatchCache } from '../src/watchcache/watch-cache.ts';
import { JsonObjectCodec } from '../src/watchcache/json-codec.ts';
import { jsonFrames } from '../src/watchcache/json-frames.ts';
import { gvkOf, protobufFrames, protobufListItems } from '../src/watchcache/protobuf-frames.ts';
import type { CachedObject } from '../src/watchcache/cached-object.ts';
import type { FrameEncoder, WatchOutput } from '../src/watchcache/watchers.ts';
import type { Predicate } from '../src/watchcache/predicate.ts';
import { compileFilter } from '../src/watchcache/filter.ts';
import { SelectorError } from '../src/selectors/index.ts';
import { CachedResource } from './cached-resource.ts';
import { ExpirySweeper } from './expiry-sweeper.ts';
import { BatchedPort, concatOwned, type PortLike } from './batched-port.ts';
import { shardRuntimeLane } from './wire.ts';
import { LIST_PIECE_BYTES, LIST_STREAM_MIN_BYTES, joinedJsonLength, jsonPieces, keepingPieces, writeItem } from './list-pieces.ts';
import { DEFAULT_LIST_RESULT_CACHE, itemBuffer, ListResultCache, type ListResultCacheOptions } from './list-result-cache.ts';
import { ListPiecePool, PieceLease } from './list-piece-pool.ts';
import { takeProfile } from '../src/server/thread-profile.ts';
import { ReadCells } from './read-cells.ts';
import type { WrittenVia } from '../src/storage/remote/protocol.ts';
import type {
  ListEncoding,
  ListReply,
  ObjectBytes,
  ReadMode,
  ReplyValue,
  ResourceSpec,
  ShardError,
  ShardMessage,
  ShardRequest,
  ShardStats,
} from './protocol.ts';

export interface ShardRuntimeOptions {
  /** Events younger than this stay in the window (the spec's 5 minutes). */
  retentionMs?: number;
  /** Hard bound on a window's events, whatever their age. */
  maxWindowEvents?: number;
  /** How long a read may wait for a revision the cache has not reached (then 504). */
  tooLargeWaitMs?: number;
  /** Interval of watch bookmarks. */
  bookmarkIntervalMs?: number;
  /** Page size when loading a resource from the store. */
  loadPageSize?: number;
  /**
   * Per resource, load the cache as of this revision instead of the latest,
   * so that watchers resuming after a shard restart find their next events in
   * the window. Falls back to the latest state if the store compacted it.
   */
  loadAt?: Record<string, Revision> | undefined;
  /** Sharing of large list answers between clients asking for the same thing (see list-result-cache.ts). */
  listResultCache?: ListResultCacheOptions;
  /** A JSON answer with at least this many item bytes goes in pieces to an asker that takes them; 0: never (list-pieces.ts). */
  listStreamBytes?: number;
  /** The size of those pieces. */
  listPieceBytes?: number;
  /**
   * The store's committed revision in shared memory (storage/shared-revision.ts; the embedded store): with it
   * the shard publishes its caches' progress to its clients' read caches (read-cells.ts).
   */
  storeRevisionCell?: SharedArrayBuffer | undefined;
  /**
   * The name of this shard's connection at the embedded store's host: serving threads then write directly to
   * the store, their answers routed through this shard (direct-writes.ts). Unset: every write comes through here.
   */
  storeConn?: string | undefined;
}

const COMMA_BYTE = 0x2c;

/**
 * Watch ids are chosen by each client; inside the shard a watcher's id is
 * `clientWatchId * CLIENT_SLOTS + slot`, so ids of different clients never
 * collide and the client is found again from the id alone.
 */
const CLIENT_SLOTS = 1024;

type ClientPort = BatchedPort<ShardMessage, ShardRequest>;

/** How a streamed list answer's pieces are made (list-pieces.ts), and whether over several event-loop turns. */
interface PieceSource {
  pieces(): Iterable<Uint8Array>;
  /** One piece per turn (an answer for one asker); false: all in one turn (one being kept, or kept already). */
  spread: boolean;
  /** Who may still read the pieces, so that they are reused only once nobody can (list-piece-pool.ts). */
  lease: PieceLease | undefined;
}

/**
 * Free list pieces kept for the next answers: an answer's worth (a LIST of 50,000 1 KiB objects is 72 MB), given
 * back after a few seconds without a streamed answer, as the list cache gives back its answers.
 */
const LIST_PIECE_POOL_BYTES = 96 * 1024 * 1024;
const LIST_PIECE_POOL_IDLE_MS = 10_000;
/** A reader that has not said it is through after this long spoils its pieces' lease (they are dropped, never reused). */
const LIST_PIECE_READER_MS = 120_000;

export class ShardRuntime {
  readonly #store: Store;
  /** Clients by slot; slot 0 is the main thread's channel. */
  readonly #clients: Array<ClientPort | undefined> = [];
  /** Per slot, the watchers its client opened (ended when that client goes away). */
  readonly #watchesOf = new Map<number, Map<number, string>>();
  /** Member lists split by client, per member list (lists are never mutated once handed out). */
  #splits = new WeakMap<readonly number[], ReadonlyArray<{ slot: number; ids: readonly number[] }>>();
  readonly #resources = new Map<string, CachedResource>();
  readonly #opts: Required<Omit<ShardRuntimeOptions, 'loadAt' | 'listResultCache' | 'storeRevisionCell' | 'storeConn'>> & { storeConn: string | undefined };
  /**
   * Where each cache publishes how far it is, for the clients' read caches (read-cells.ts); only
   * where the store publishes its committed revision (the embedded store), which clients also need.
   */
  readonly #readCells: { cells: ReadCells; storeRevision: SharedArrayBuffer } | undefined;
  readonly #listResults: ListResultCache;
  readonly #piecePool: ListPiecePool;
  /** The lease of each kept answer's pieces, by its pieces array (the cache entry's `kept`). */
  readonly #keptLeases = new WeakMap<readonly Uint8Array[], PieceLease>();
  /** Askers sent a leased answer's pieces, by request id and client slot, until they say they are through. */
  readonly #pieceReaders = new Map<number, { lease: PieceLease; since: number }>();
  readonly #timers: NodeJS.Timeout[] = [];
  /** Per resource with a TTL, on a store that cannot expire keys: the sweeper deleting expired objects. */
  readonly #sweepers = new Map<string, ExpirySweeper>();
  #pendingRequests = 0;

  constructor(store: Store, resources: readonly ResourceSpec[], port: PortLike, opts: ShardRuntimeOptions = {}) {
    this.#store = store;
    this.#opts = {
      retentionMs: opts.retentionMs ?? 5 * 60_000,
      maxWindowEvents: opts.maxWindowEvents ?? 100 * 1024,
      tooLargeWaitMs: opts.tooLargeWaitMs ?? 3_000,
      bookmarkIntervalMs: opts.bookmarkIntervalMs ?? 60_000,
      loadPageSize: opts.loadPageSize ?? 10_000,
      listStreamBytes: opts.listStreamBytes ?? LIST_STREAM_MIN_BYTES,
      listPieceBytes: opts.listPieceBytes ?? LIST_PIECE_BYTES,
      storeConn: opts.storeConn,
    };
    // An answer the cache lets go of may have its pieces reused once its last reader is through.
    this.#listResults = new ListResultCache(opts.listResultCache ?? DEFAULT_LIST_RESULT_CACHE, Date.now, (reply) => {
      if (reply.kept !== undefined) this.#keptLeases.get(reply.kept)?.unkept();
    });
    this.#piecePool = new ListPiecePool(this.#opts.listPieceBytes, LIST_PIECE_POOL_BYTES, LIST_PIECE_POOL_IDLE_MS);
    this.#readCells = opts.storeRevisionCell === undefined ? undefined : { cells: ReadCells.allocate(), storeRevision: opts.storeRevisionCell };
    this.#addClient(port);
    this.#loadAt = opts.loadAt;
    for (const spec of resources) this.#resources.set(spec.groupResource, this.#cachedResource(spec));
    for (const spec of resources) {
      if (spec.ttlSeconds === undefined || !(spec.ttlSeconds > 0) || store.expiresKeys === true) continue;
      this.#sweepers.set(spec.groupResource, new ExpirySweeper({ store, prefix: spec.prefix, ttlSeconds: spec.ttlSeconds }));
    }
  }

  /** The write options of `spec`'s objects: their TTL where the store expires keys itself. */
  #writeOptions(spec: ResourceSpec): WriteOptions | undefined {
    return spec.ttlSeconds !== undefined && this.#store.expiresKeys === true ? { ttlSeconds: spec.ttlSeconds } : undefined;
  }

  /** Per resource, the revision its first load resumes at (a restart); dynamic resources read it when ensured. */
  readonly #loadAt: Record<string, Revision> | undefined;

  #cachedResource(spec: ResourceSpec): CachedResource {
    const codec = new JsonObjectCodec(spec);
    const gvk = gvkOf(spec.apiVersion, spec.kind);
    const encoders = new Map<string, FrameEncoder>([
      ['json', jsonFrames],
      ['protobuf', protobufFrames(gvk)],
    ]);
    const cells = this.#readCells?.cells;
    const readSlot = cells?.claim();
    const cache = new WatchCache({
      prefix: spec.prefix,
      codec,
      window: { minEvents: spec.cacheSize, maxEvents: this.#opts.maxWindowEvents, retentionMs: this.#opts.retentionMs },
      encoders,
      output: this.#output(),
      publish: readSlot === undefined ? undefined : (revision, changes) => cells!.publish(readSlot, revision, changes),
    });
    return new CachedResource(spec, codec, gvk, cache, {
      store: this.#store,
      loadPageSize: this.#opts.loadPageSize,
      resumeAt: this.#loadAt?.[spec.groupResource],
      readSlot,
    });
  }

  /**
   * Serves `spec` from now on (see the `ensure` request): the resource is
   * registered at once, so requests behind it in the same batch wait on its
   * load instead of failing; the same spec again is a no-op.
   */
  #ensure(spec: ResourceSpec): Promise<void> {
    const existing = this.#resources.get(spec.groupResource);
    if (existing !== undefined && sameSpec(existing.spec, spec)) return existing.loading ?? Promise.resolve();
    if (existing !== undefined) {
      // A definition re-created with another scope: the old cache's watchers end (they relist).
      existing.cache.closeAllWatchers(new Error(`resource ${spec.groupResource} changed`));
      existing.close();
    }
    const resource = this.#cachedResource(spec);
    this.#resources.set(spec.groupResource, resource);
    return resource.load();
  }

  /**
   * Watch output is coalesced per member list per event-loop turn: a store
   * that delivers events one by one (etcd) would otherwise cost one message
   * and one fan-out per event. Entries keep insertion order and member lists
   * are never mutated once handed out, so each watcher still sees its frames
   * in order; an `end` first flushes what is pending.
   */
  #pendingFrames = new Map<readonly number[], { chunks: Uint8Array[]; revision: Revision }>();
  #framesScheduled = false;

  #flushFrames = (): void => {
    this.#framesScheduled = false;
    if (this.#pendingFrames.size === 0) return;
    const pending = this.#pendingFrames;
    this.#pendingFrames = new Map();
    for (const [ids, { chunks, revision }] of pending) {
      const bytes = concatOwned(chunks);
      const parts = this.#split(ids);
      for (let i = 0; i < parts.length; i++) {
        const { slot, ids: clientIds } = parts[i]!;
        // The buffer moves to one client; every other client gets a copy of its own.
        const frames = i === 0 ? bytes : bytes.slice();
        this.#clients[slot]?.send({ t: 'frames', ids: clientIds, frames, revision }, [frames.buffer as ArrayBuffer]);
      }
    }
  };

  /** Adds a client answered on `port`; returns its slot. */
  #addClient(port: PortLike): number {
    let slot = this.#clients.indexOf(undefined);
    if (slot < 0) slot = this.#clients.length;
    if (slot >= CLIENT_SLOTS) throw new Error(`a shard serves at most ${CLIENT_SLOTS} clients`);
    const client: ClientPort = new BatchedPort<ShardMessage, ShardRequest>(port, (reqs) => {
      for (const req of reqs) this.#handleOne(req, slot);
    }, shardRuntimeLane);
    this.#clients[slot] = client;
    // First on every channel: what its read cache checks answers against (object-read-cache.ts).
    if (this.#readCells !== undefined) client.send({ t: 'readCells', cells: this.#readCells.cells.buffer, storeRevision: this.#readCells.storeRevision });
    // Where this client's direct writes answer (direct-writes.ts): this shard's store connection, and its slot here.
    if (this.#opts.storeConn !== undefined) client.send({ t: 'routeWrites', conn: this.#opts.storeConn, client: slot });
    port.on('close', () => {
      if (this.#clients[slot] === client) this.#dropClient(slot);
    });
    return slot;
  }

  /** A client went away (its thread ended or replaced its channel): its watchers end here. */
  #dropClient(slot: number): void {
    this.#clients[slot] = undefined;
    // Its thread may have gone with pieces in hand: never reused.
    for (const key of [...this.#pieceReaders.keys()]) if (key % CLIENT_SLOTS === slot) this.#endPieceReader(key, false);
    const watches = this.#watchesOf.get(slot);
    this.#watchesOf.delete(slot);
    if (watches === undefined) return;
    for (const [id, resource] of watches) this.#resources.get(resource)?.cache.unwatch(id);
  }

  /**
   * Takes one more client (a front-end thread's channel, handed over by the
   * main thread): it is answered on `port`, and its watchers' frames go there.
   */
  attach(port: PortLike): void {
    this.#addClient(port);
  }

  /** A member list's ids, grouped by client and turned back into each client's own watch ids. */
  #split(ids: readonly number[]): ReadonlyArray<{ slot: number; ids: readonly number[] }> {
    let parts = this.#splits.get(ids);
    if (parts === undefined) {
      const bySlot = new Map<number, number[]>();
      for (const id of ids) {
        const slot = id % CLIENT_SLOTS;
        let list = bySlot.get(slot);
        if (list === undefined) bySlot.set(slot, (list = []));
        list.push((id - slot) / CLIENT_SLOTS);
      }
      parts = [...bySlot].map(([slot, list]) => ({ slot, ids: list }));
      this.#splits.set(ids, parts);
    }
    return parts;
  }

  /** Sends the end of watchers `ids` (shard ids) to their clients. */
  #sendEnd(ids: readonly number[], error: ShardError): void {
    for (const { slot, ids: clientIds } of this.#split(ids)) {
      const watches = this.#watchesOf.get(slot);
      if (watches !== undefined) for (const id of clientIds) watches.delete(id * CLIENT_SLOTS + slot);
      this.#clients[slot]?.send({ t: 'end', ids: clientIds, error });
    }
  }

  #output(): WatchOutput {
    return {
      send: (ids, frames, revision) => {
        const entry = this.#pendingFrames.get(ids);
        if (entry === undefined) this.#pendingFrames.set(ids, { chunks: [...frames], revision });
        else {
          entry.chunks.push(...frames);
          entry.revision = revision;
        }
        if (!this.#framesScheduled) {
          this.#framesScheduled = true;
          setImmediate(this.#flushFrames);
        }
      },
      close: (ids, error) => {
        this.#flushFrames();
        this.#sendEnd(ids, toShardError(error));
      },
    };
  }

  /** Loads every resource from the store and starts the watches; resolves when all caches are ready. */
  async start(): Promise<void> {
    await Promise.all([...this.#resources.values()].map((r) => r.load()));
    await Promise.all([...this.#sweepers.values()].map((s) => s.start()));
    this.#timers.push(
      setInterval(() => {
        for (const r of this.#resources.values()) r.cache.bookmark();
      }, this.#opts.bookmarkIntervalMs).unref(),
      setInterval(() => {
        for (const r of this.#resources.values()) r.cache.expire();
      }, 10_000).unref(),
      setInterval(() => {
        this.#listResults.sweep((resource) => this.#resources.get(resource)?.cache.changedAt);
        this.#sweepPieceReaders();
        this.#piecePool.sweep();
      }, 500).unref(),
    );
  }

  #resource(groupResource: string): CachedResource {
    const r = this.#resources.get(groupResource);
    if (r === undefined) throw new NotServedError(groupResource);
    return r;
  }

  /**
   * Handles one request of a batch. Whatever it throws fails that request
   * alone (its caller gets an error, a watch ends with it): the rest of the
   * batch and the shard carry on.
   */
  #handleOne(req: ShardRequest, slot: number): void {
    try {
      this.#handle(req, slot);
    } catch (err) {
      if (req.op === 'watch') this.#endWatch(req.watchId * CLIENT_SLOTS + slot, err);
      else if ('id' in req) this.#clients[slot]?.send({ t: 'err', id: req.id, error: toShardError(err) });
    }
  }

  /** Ends one watcher (its shard id) with `err`. */
  #endWatch(id: number, err: unknown): void {
    this.#flushFrames();
    this.#sendEnd([id], toShardError(err));
  }

  #handle(req: ShardRequest, slot: number): void {
    switch (req.op) {
      case 'watch':
        void this.#startWatch(req, slot);
        return;
      case 'unwatch': {
        const id = req.watchId * CLIENT_SLOTS + slot;
        this.#watchesOf.get(slot)?.delete(id);
        this.#resources.get(req.resource)?.cache.unwatch(id);
        return;
      }
      case 'bookmark':
        for (const r of this.#resources.values()) {
          if (req.resource === undefined || req.resource === r.spec.groupResource) r.cache.bookmark();
        }
        return;
      case 'stopPieces': {
        // Only an answer still being sent; one already through is gone from the map.
        const key = req.id * CLIENT_SLOTS + slot;
        const stream = this.#streams.get(key);
        if (stream !== undefined) stream.stopped = true;
        // The reader left with pieces maybe still in its response: they are never reused.
        this.#endPieceReader(key, false);
        return;
      }
      case 'piecesWritten':
        this.#endPieceReader(req.id * CLIENT_SLOTS + slot, true);
        return;
    }
    const id = req.id;
    const client = this.#clients[slot]!;
    if (req.op === 'profile') {
      // Not a storage request: outside the pending count, and its (large) bytes move to the caller.
      takeProfile(req.spec).then(
        (profile) => client.send({ t: 'ok', id, value: { profile } }, profile === null ? [] : [profile.buffer as ArrayBuffer]),
        (err: unknown) => client.send({ t: 'err', id, error: toShardError(err) }),
      );
      return;
    }
    if (req.op === 'ensure') {
      const groupResource = req.spec.groupResource;
      this.#ensure(req.spec).then(
        () => client.send({ t: 'ok', id, value: { ensured: groupResource } }),
        (err: unknown) => client.send({ t: 'err', id, error: toShardError(err) }),
      );
      return;
    }
    this.#pendingRequests++;
    this.#serve(req).then(
      (value) => {
        this.#pendingRequests--;
        const pieces = this.#pieceSources.get(value);
        if (pieces !== undefined) {
          this.#pieceSources.delete(value);
          this.#sendPieces(client, id, id * CLIENT_SLOTS + slot, value, pieces);
          return;
        }
        // A shared answer crosses as it is (and stays in the list cache); any other moves.
        if (isList(value) && value.items.buffer instanceof ArrayBuffer) client.send({ t: 'ok', id, value }, [value.items.buffer]);
        else client.send({ t: 'ok', id, value });
      },
      (err: unknown) => {
        this.#pendingRequests--;
        client.send({ t: 'err', id, error: toShardError(err) });
      },
    );
  }

  /** Streamed list answers (list-pieces.ts) and how to make their pieces, until their reply goes out. */
  readonly #pieceSources = new WeakMap<ReplyValue, PieceSource>();
  /** Answers being sent in pieces, by request id and client slot; `stopped` once their asker left. */
  readonly #streams = new Map<number, { stopped: boolean }>();
  #streamsStopped = 0;

  /**
   * The reply first, then each piece as soon as it is copied, each posted at
   * once rather than at the turn's end: the asker writes the first pieces
   * to its client while the later ones are made. An answer for one asker is
   * spread over event-loop turns, a piece per turn: the other requests and
   * the store's events for this shard's types go between the pieces, so a
   * LIST of 74 MB holds them up ~1 ms at a time, not for the whole copy
   * (~70 ms). Its pieces show the snapshot taken when the answer began,
   * whatever is written meanwhile. An answer being kept is made in one turn,
   * so that the askers after it find it kept.
   */
  #sendPieces(client: ClientPort, id: number, key: number, reply: ReplyValue, { pieces, spread, lease }: PieceSource): void {
    client.send({ t: 'ok', id, value: reply });
    client.flush();
    const stream = { stopped: false };
    this.#streams.set(key, stream);
    if (lease !== undefined) {
      lease.addReader();
      this.#pieceReaders.set(key, { lease, since: Date.now() });
    }
    const done = (): void => {
      if (this.#streams.get(key) === stream) this.#streams.delete(key);
    };
    let source: Iterator<Uint8Array>;
    const next = (): void => {
      try {
        source ??= pieces()[Symbol.iterator]();
        for (;;) {
          // The asker's thread is gone (its port closed), or its reader left: nobody reads the rest.
          if (client.closed || stream.stopped) {
            if (stream.stopped) this.#streamsStopped++;
            done();
            // A reader that left spoils the lease (its pieces may still be in its response).
            this.#endPieceReader(key, false);
            return;
          }
          const step = source.next();
          if (step.done === true) {
            done();
            lease?.made();
            return;
          }
          const bytes = step.value;
          // A piece of its own moves to the asker; a SharedArrayBuffer (all of a streamed answer's) is shared as it is.
          client.send({ t: 'piece', id, bytes }, bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : []);
          client.flush();
          if (spread) {
            setImmediate(next);
            return;
          }
        }
      } catch (err) {
        done();
        lease?.spoil();
        this.#endPieceReader(key, false);
        // After its reply an answer can still fail: the asker's queue of pieces fails, and its response is reset.
        client.send({ t: 'err', id, error: toShardError(err) });
      }
    };
    next();
  }

  /** The asker `key` is through with a leased answer's pieces: `clean` when it said it wrote them all. */
  #endPieceReader(key: number, clean: boolean): void {
    const reader = this.#pieceReaders.get(key);
    if (reader === undefined) return;
    this.#pieceReaders.delete(key);
    reader.lease.readerDone(clean);
  }

  /** Readers that never said they are through (a response that hangs, a lost message) spoil their leases. */
  #sweepPieceReaders(): void {
    const now = Date.now();
    for (const [key, r] of this.#pieceReaders) if (now - r.since > LIST_PIECE_READER_MS) this.#endPieceReader(key, false);
  }

  /**
   * A routed write's answer from the store host (direct-writes.ts), passed to
   * its writer once this shard's cache has the write: it came after the
   * write's events, so the cache has almost always applied them already.
   */
  forwardWritten(m: WrittenVia): void {
    const client = this.#clients[m.via.client];
    if (client === undefined) return;
    // A delete's previous value is copied on, not moved: in the store host's batch it was the same object as
    // the delete event's prevValue, so here it may be that too.
    const send = (): void => client.send({ t: 'written', tag: m.via.tag, id: m.id, value: m.value, prev: m.prev, error: m.error });
    const r = this.#resources.get(m.via.resource);
    const revision = m.value?.modRevision;
    if (r === undefined || revision === undefined || r.cache.revision >= revision) {
      send();
      return;
    }
    // A cache that does not reach it in time (the store in trouble): the write is durable, its answer goes anyway.
    r.cache.waitFor(revision, this.#opts.tooLargeWaitMs).then(send, send);
  }

  async #serve(req: Exclude<ShardRequest, { op: 'watch' | 'unwatch' | 'bookmark' | 'stopPieces' | 'piecesWritten' | 'ensure' | 'profile' }>): Promise<ReplyValue> {
    switch (req.op) {
      case 'stats':
        return this.#stats();
      case 'get': {
        const r = this.#resource(req.resource);
        const at = await this.#settle(r, req.read);
        let obj: CachedObject | null;
        if (at.fromStore) {
          const { kv } = await this.#store.get(req.key, at.revision);
          obj = kv === null ? null : r.codec.decode(kv.key, kv.value, kv.modRevision, kv.stale);
        } else {
          obj = r.cache.get(req.key, at.revision);
          // The latest state, as the cells count it: the asker may answer this read again while the count holds.
          if (at.revision === undefined && r.readSlot !== undefined && obj !== null) {
            return { object: bytesOf(obj), revision: r.cache.revision, slot: r.readSlot, changes: r.cache.changes };
          }
        }
        return { object: obj === null ? null : bytesOf(obj), revision: at.revision ?? r.cache.revision };
      }
      case 'list': {
        const r = this.#resource(req.resource);
        const predicate = compileFilter(req.filter);
        const at = await this.#settle(r, req.read);
        const encoding = req.encoding ?? 'json';
        return at.fromStore
          ? this.#listFromStore(r, predicate, at.revision!, req.startKey, req.limit, encoding)
          : this.#listFromCache(r, predicate, at.revision, req.startKey, req.limit, encoding, req.remainingFromStart, req.stream === true);
      }
      case 'create': {
        const r = this.#resource(req.resource);
        const kv = await this.#store.create(req.key, req.value, this.#writeOptions(r.spec));
        this.#sweepers.get(req.resource)?.written(kv.key, kv.modRevision);
        return bytesOf(r.cache.decodeWritten(kv));
      }
      case 'update': {
        const r = this.#resource(req.resource);
        const kv = await this.#store.update(req.key, req.value, req.expectedRevision, this.#writeOptions(r.spec));
        this.#sweepers.get(req.resource)?.written(kv.key, kv.modRevision);
        return bytesOf(r.cache.decodeWritten(kv));
      }
      case 'delete': {
        const r = this.#resource(req.resource);
        const res = await this.#store.delete(req.key, req.expectedRevision);
        return bytesOf(r.codec.decode(res.prev.key, res.prev.value, res.revision));
      }
    }
  }

  /**
   * Waits until the cache can answer a read in `mode`. Returns the exact
   * revision to read at (undefined: the cache's latest), and whether the
   * store must answer because the revision is older than the cache's window.
   */
  async #settle(r: CachedResource, mode: ReadMode): Promise<{ revision: Revision | undefined; fromStore: boolean }> {
    if (r.loading !== null) await r.loading;
    if (!r.cache.ready) await r.cache.waitFor(0, this.#opts.tooLargeWaitMs);
    switch (mode.kind) {
      case 'any':
        return { revision: undefined, fromStore: false };
      case 'latest': {
        const current = await this.#store.currentRevision();
        if (r.cache.revision < current) {
          r.requestProgress(current);
          try {
            await r.cache.waitFor(current, this.#opts.tooLargeWaitMs);
          } catch (err) {
            if (!(err instanceof FutureRevisionError)) throw err;
            // The cache lags (store trouble): answer from the store itself.
            return { revision: current, fromStore: true };
          }
        }
        return { revision: undefined, fromStore: false };
      }
      case 'notOlderThan':
        await this.#reach(r, mode.revision);
        return { revision: undefined, fromStore: false };
      case 'exact':
        if (mode.revision < r.cache.oldestRevision) return { revision: mode.revision, fromStore: true };
        await this.#reach(r, mode.revision);
        return { revision: mode.revision, fromStore: false };
    }
  }

  /** Waits briefly for the cache to reach `revision`; FutureRevisionError (504) if it does not. */
  async #reach(r: CachedResource, revision: Revision): Promise<void> {
    if (r.cache.revision >= revision) return;
    r.requestProgress(revision);
    await r.cache.waitFor(revision, this.#opts.tooLargeWaitMs);
  }

  #listFromCache(
    r: CachedResource,
    predicate: Predicate,
    revision: Revision | undefined,
    startKey: string | undefined,
    limit: number | undefined,
    encoding: ListEncoding,
    remainingFromStart: number | undefined,
    stream: boolean,
  ): ListReply {
    const keyPrefix = keyPrefixFor(r.spec, predicate);
    const at = revision ?? r.cache.revision;
    const groupResource = r.spec.groupResource;
    const changedAt = r.cache.changedAt;
    this.#listResults.dropSuperseded(groupResource, changedAt);
    // Every revision from the type's last change on shows the same items: one key for them all (see list-result-cache.ts).
    const latest = at >= changedAt;
    const state = latest ? changedAt : at;
    const cacheKey = `${groupResource}\u0000${keyPrefix}\u0000${predicate.id}\u0000${state}\u0000${startKey ?? ''}\u0000${limit ?? ''}\u0000${encoding}`;
    const cached = this.#listResults.get(cacheKey);
    if (cached !== undefined) return this.#sharedAnswer(cacheKey, cached, at, stream);
    const res = r.cache.list({
      keyPrefix,
      revision: at,
      ...(startKey !== undefined ? { startKey } : {}),
      ...(limit !== undefined ? { limit } : {}),
      ...(remainingFromStart !== undefined ? { remainingFromStart } : {}),
      // A predicate the key prefix already answers is not tested per object (a string compare and a cache miss each).
      ...(keyPrefixSelects(r.spec, predicate) ? {} : { predicate }),
    });
    // Whether the answer is kept to share (list-result-cache.ts): JSON's size is known from the walk, so it is
    // decided before anything is built; Protobuf's once its messages are.
    let shared = false;
    let alloc: (bytes: number) => Uint8Array;
    const bare = encoding === 'json-bare';
    // The items' JSON bytes as joined, commas left out: a bare list leaves out each item's kind and apiVersion.
    const itemBytes = res.jsonBytes - (bare ? res.typeMetaBytes : 0);
    if (encoding !== 'protobuf') {
      const total = itemBytes + Math.max(0, res.items.length - 1);
      shared = this.#listResults.wants(cacheKey, total);
      const streamFrom = this.#opts.listStreamBytes;
      if (stream && streamFrom > 0 && total >= streamFrom) {
        // A large answer goes in pieces (list-pieces.ts), each sent as soon as it is copied. One to be shared is
        // built in pieces too, over SharedArrayBuffers, and kept once its last piece is made: its first asker
        // reads it as it is built, and the askers after get the same pieces (before, it was built whole first:
        // ~210 ms before the first byte of 74 MB, against ~130 ms to the last byte in pieces).
        const reply: ListReply = { items: new Uint8Array(0), encoding, count: res.items.length, revision: res.revision, lastKey: res.lastKey, remaining: res.remaining, streamed: total };
        const items = res.items;
        const pieceBytes = this.#opts.listPieceBytes;
        if (!shared) {
          // Its pieces too are SharedArrayBuffers, though nobody else reads them: moved (transferred) ArrayBuffers
          // of 74 MB made the receiving thread's V8 count that much new external memory and run two full
          // collections during the answer (--trace-gc: ~40 ms of its time). Measured, a LIST of 50,000 built
          // afresh, curl to the last byte, medians of 6: uWS 165 → 148 ms, secure port HTTP/1.1 196 → 156,
          // HTTP/2 200 → 168.
          // Made in pooled pieces, which come back once the asker is through (list-piece-pool.ts).
          const lease = new PieceLease(this.#piecePool);
          this.#pieceSources.set(reply, { pieces: () => jsonPieces(items, total, pieceBytes, (bytes) => lease.piece(bytes), bare), spread: true, lease });
          return reply;
        }
        const source = latest ? { resource: groupResource, stateRevision: changedAt } : undefined;
        // Built in one turn: an asker that comes meanwhile must find it kept, not build its own (a relist storm).
        // Its pooled pieces come back once the cache lets go of it and its last asker is through.
        const lease = new PieceLease(this.#piecePool);
        const keep = (kept: Uint8Array[]): void => {
          if (!this.#listResults.put(cacheKey, copyWith(reply, 'kept', kept), source)) return;
          lease.kept();
          this.#keptLeases.set(kept, lease);
        };
        this.#pieceSources.set(reply, { pieces: () => keepingPieces(jsonPieces(items, total, pieceBytes, (bytes) => lease.piece(bytes), bare), keep), spread: false, lease });
        return reply;
      }
      alloc = (bytes) => itemBuffer(bytes, shared);
    } else {
      alloc = (bytes) => {
        shared = this.#listResults.wants(cacheKey, bytes);
        return itemBuffer(bytes, shared);
      };
    }
    const reply: ListReply = {
      items: joinItems(r, res.items, encoding, alloc, itemBytes),
      encoding,
      count: res.items.length,
      revision: res.revision,
      lastKey: res.lastKey,
      remaining: res.remaining,
    };
    if (shared) this.#listResults.put(cacheKey, reply, latest ? { resource: groupResource, stateRevision: changedAt } : undefined);
    return reply;
  }

  /**
   * A kept answer for this asker, at the revision it asked for: one kept in
   * pieces goes as those pieces to an asker that takes them (nothing copied:
   * they are SharedArrayBuffers). An asker that takes no pieces (a Table is
   * made from the whole list) gets them joined into one shared buffer, which
   * then replaces the pieces in the cache: one copy per kept state, however
   * many such askers come.
   */
  #sharedAnswer(cacheKey: string, cached: ListReply, revision: Revision, stream: boolean): ListReply {
    const { kept, ...answer } = cached;
    answer.revision = revision;
    if (kept === undefined) return answer;
    if (stream) {
      this.#pieceSources.set(answer, { pieces: () => kept, spread: false, lease: this.#keptLeases.get(kept) });
      return answer;
    }
    const items = concatOwned(kept, undefined, (bytes) => itemBuffer(bytes, true));
    const whole: ListReply = copyWith(answer, 'items', items);
    whole.streamed = undefined;
    this.#listResults.replace(cacheKey, whole);
    return whole;
  }

  /** Lists from the store at an exact revision the cache no longer holds (410 if compacted there too). */
  async #listFromStore(
    r: CachedResource,
    predicate: Predicate,
    revision: Revision,
    startKey: string | undefined,
    limit: number | undefined,
    encoding: ListEncoding,
  ): Promise<ListReply> {
    const keyPrefix = keyPrefixFor(r.spec, predicate);
    const want = limit !== undefined && limit > 0 ? limit : Infinity;
    const items: CachedObject[] = [];
    let from = startKey;
    let lastKey: string | undefined;
    let remaining: number | undefined;
    for (;;) {
      const page = await this.#store.range(keyPrefix, {
        revision,
        limit: Math.min(want === Infinity ? this.#opts.loadPageSize : want + 1, this.#opts.loadPageSize),
        ...(from !== undefined ? { startKey: from } : {}),
      });
      let stopped = false;
      for (let i = 0; i < page.kvs.length; i++) {
        const kv = page.kvs[i]!;
        const obj = r.codec.decode(kv.key, kv.value, kv.modRevision, kv.stale);
        if (!predicate.matches(obj)) continue;
        if (items.length >= want) {
          lastKey = items.at(-1)!.key;
          if (predicate.scopeOnly) remaining = page.count - i;
          stopped = true;
          break;
        }
        items.push(obj);
      }
      if (stopped || !page.more || page.kvs.length === 0) break;
      from = page.kvs.at(-1)!.key + '\x00';
    }
    return { items: joinItems(r, items, encoding), encoding, count: items.length, revision, lastKey, remaining };
  }

  async #startWatch(req: Extract<ShardRequest, { op: 'watch' }>, slot: number): Promise<void> {
    const id = req.watchId * CLIENT_SLOTS + slot;
    const client = this.#clients[slot];
    try {
      const r = this.#resource(req.resource);
      const predicate = compileFilter(req.filter);
      let startRevision: Revision | null;
      if (req.start.kind === 'initial') {
        await this.#settle(r, req.start.read);
        startRevision = null;
      } else {
        if (r.loading !== null) await r.loading;
        startRevision = req.start.revision;
      }
      // The client may have gone while the cache settled: then there is no one to watch for.
      if (this.#clients[slot] !== client) return;
      let watches = this.#watchesOf.get(slot);
      if (watches === undefined) this.#watchesOf.set(slot, (watches = new Map()));
      watches.set(id, req.resource);
      r.cache.watch({
        id,
        startRevision,
        predicate,
        encoding: req.encoding,
        bookmarks: req.bookmarks,
        initialEventsEnd: req.initialEventsEnd,
      });
    } catch (err) {
      this.#endWatch(id, err);
    }
  }

  #stats(): ShardStats {
    return {
      resources: [...this.#resources.values()].map((r) => ({
        groupResource: r.spec.groupResource,
        objects: r.cache.size,
        watchers: r.cache.watcherCount,
        revision: r.cache.revision,
        ready: r.cache.ready,
      })),
      pendingRequests: this.#pendingRequests,
      listCache: { hits: this.#listResults.hits, misses: this.#listResults.misses, entries: this.#listResults.size, bytes: this.#listResults.bytes },
      listStreams: { active: this.#streams.size, stopped: this.#streamsStopped },
      listPieces: { free: this.#piecePool.freePieces, reused: this.#piecePool.reused, made: this.#piecePool.made, readers: this.#pieceReaders.size },
    };
  }

  /** Stops watches and timers; the store is closed by whoever opened it. */
  close(): void {
    for (const t of this.#timers) clearInterval(t);
    for (const s of this.#sweepers.values()) s.close();
    for (const r of this.#resources.values()) r.close();
    for (const client of this.#clients) client?.close();
  }
}

class NotServedError extends Error {
  constructor(readonly groupResource: string) {
    super(`resource ${groupResource} is not served by this shard`);
  }
}

/** Specs that describe the same cache (its size and the bookmarks' apiVersion may differ between askers; kept as first asked). */
function sameSpec(a: ResourceSpec, b: ResourceSpec): boolean {
  return a.prefix === b.prefix && a.namespaced === b.namespaced && a.kind === b.kind;
}

function keyPrefixFor(spec: ResourceSpec, predicate: Predicate): string {
  if (!spec.namespaced || predicate.namespace === undefined) return spec.prefix;
  return `${spec.prefix}${predicate.namespace}/`;
}

/** Whether every object under keyPrefixFor(spec, predicate) matches the predicate: scoping alone, by a namespace the key holds. */
function keyPrefixSelects(spec: ResourceSpec, predicate: Predicate): boolean {
  return predicate.scopeOnly && predicate.name === undefined && (predicate.namespace === undefined || spec.namespaced);
}

/**
 * The items of a list reply in one buffer of its own (it is transferred, not copied, to the main thread).
 * `itemBytes`, when the walk summed it: the items' bytes as joined, commas left out.
 */
function joinItems(r: CachedResource, items: readonly CachedObject[], encoding: ListEncoding, alloc?: (bytes: number) => Uint8Array, itemBytes?: number): Uint8Array {
  return encoding === 'protobuf' ? protobufListItems(items, r.gvk, alloc) : joinJson(items, encoding === 'json-bare', alloc, itemBytes);
}

/** The objects' JSON joined with commas, straight from the objects (no array of their bytes in between); `bare`: without their kind and apiVersion. */
function joinJson(items: readonly CachedObject[], bare: boolean, alloc?: (bytes: number) => Uint8Array, itemBytes?: number): Uint8Array {
  const n = items.length;
  const total = itemBytes !== undefined ? itemBytes + Math.max(0, n - 1) : joinedJsonLength(items, bare);
  const out = alloc !== undefined ? alloc(total) : new Uint8Array(new ArrayBuffer(total));
  let at = 0;
  for (let i = 0; i < n; i++) {
    if (i > 0) out[at++] = COMMA_BYTE;
    at += writeItem(out, at, items[i]!, bare);
  }
  return out;
}

function bytesOf(obj: CachedObject): ObjectBytes {
  return obj.stale === true ? { json: obj.json, revision: obj.revision, stale: true } : { json: obj.json, revision: obj.revision };
}

function isList(v: ReplyValue): v is ListReply {
  return 'items' in v;
}

export function toShardError(err: unknown): ShardError {
  if (isStorageError(err)) return storageErrorToWire(err);
  if (err instanceof SelectorError) return { code: 'BadRequest', message: err.message };
  if (err instanceof NotServedError) return { code: 'NotServed', message: err.message };
  return { code: 'Internal', message: err instanceof Error ? err.message : String(err) };
}
