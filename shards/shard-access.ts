/**
 * ShardAccess: the storage calls the rest of the server makes, whichever
 * thread it runs in. The main thread's ShardRouter (which also owns the shard
 * threads) and a front-end worker's ClientShardRouter (its own channels to
 * the same shard threads) both implement it by forwarding each call to the
 * shard that owns the resource; RoutedCalls is that forwarding, written once.
 */
import type { Revision } from '../src/storage/interface.ts';
import type { ShardCall, WatchRequestBody, WatchSink } from './shard-client.ts';
import type { Filter, GetReply, ListEncoding, ListReply, ObjectBytes, ProfileReply, ReadMode, ReplyValue, ResourceSpec, ShardError, ShardStats } from './protocol.ts';
import { DirectWrites, type DirectWrite } from './direct-writes.ts';
import type { PortLike } from './batched-port.ts';
import type { WrittenKey } from '../src/storage/remote/protocol.ts';
import type { ProfileSpec } from '../src/server/thread-profile.ts';

export interface ListPage {
  startKey?: string | undefined;
  limit?: number | undefined;
  encoding?: ListEncoding | undefined;
  remainingFromStart?: number | undefined;
  /** A large JSON answer may come in pieces (ListReply.pieces): only for an asker that writes them out as they come. */
  stream?: boolean | undefined;
}

export interface ShardAccess {
  get(resource: string, key: string, read: ReadMode): Promise<GetReply>;
  list(resource: string, read: ReadMode, filter: Filter, page?: ListPage): Promise<ListReply>;
  create(resource: string, key: string, value: Uint8Array): Promise<ObjectBytes>;
  update(resource: string, key: string, value: Uint8Array, expectedRevision: Revision): Promise<ObjectBytes>;
  delete(resource: string, key: string, expectedRevision?: Revision): Promise<ObjectBytes>;
  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void };
  stats(): Promise<ShardStats[]>;
  /** A CPU profile, heap snapshot or allocation profile of shard thread `index`; null when it is already taking one. */
  profile(index: number, spec: ProfileSpec): Promise<Uint8Array | null>;
  /** Told the duration of every storage call (for apiserver_storage_request_duration_seconds). */
  observe: ((operation: string, resource: string, seconds: number) => void) | undefined;
  /** How many shards there are. */
  readonly shardCount: number;
  /** Requests waiting on shard `index` from this thread (the queue depth metric). */
  pendingCount(index: number): number;
  /** Watchers this thread holds on `resource` (`<group>/<resource>` of the storage). */
  watcherCount(resource: string): number;
  /**
   * Serves a resource type not in the start-up list (a custom resource) from
   * now on, on the shard its name hashes to; resolves once its cache is ready.
   */
  ensureResource?(spec: ResourceSpec): Promise<void>;
}

/** One shard as seen from the calling thread: its channel. */
export interface ShardEndpoint {
  call<T extends ReplyValue>(req: ShardCall): Promise<T>;
  /** A create, update or delete sent straight to the store host, answered through this shard; null when it routes none (direct-writes.ts). */
  writeDirect(direct: DirectWrites, resource: string, write: DirectWrite): Promise<ObjectBytes> | null;
  /** A direct write's answer that came to DirectWrites rather than through this shard. */
  receiveWritten(tag: number, id: number, value: WrittenKey | undefined, prev: Uint8Array | undefined, error: ShardError | undefined): void;
  /** One object, from the answers this thread keeps where they still hold (object-read-cache.ts). */
  get(resource: string, key: string, read: ReadMode): Promise<GetReply>;
  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void };
  readonly pendingCount: number;
  watchersByResource(): Map<string, number>;
  ensure(spec: ResourceSpec): Promise<void>;
}

export abstract class RoutedCalls implements ShardAccess {
  /** The endpoint of the shard that owns `groupResource` (throws if none does). */
  protected abstract endpointOf(groupResource: string): ShardEndpoint;
  /** Every shard's endpoint, by index. */
  protected abstract endpoints(): readonly ShardEndpoint[];

  observe: ((operation: string, resource: string, seconds: number) => void) | undefined;

  /** Writes of the types it serves go straight to the store host (direct-writes.ts); set once at start. */
  protected direct: DirectWrites | undefined;

  get shardCount(): number {
    return this.endpoints().length;
  }

  pendingCount(index: number): number {
    return this.endpoints()[index]?.pendingCount ?? 0;
  }

  watcherCount(resource: string): number {
    return this.endpointOf(resource).watchersByResource().get(resource) ?? 0;
  }

  #timed<T>(operation: string, resource: string, p: Promise<T>): Promise<T> {
    const observe = this.observe;
    if (observe === undefined) return p;
    const started = performance.now();
    const done = (): void => observe(operation, resource, (performance.now() - started) / 1000);
    p.then(done, done);
    return p;
  }

  get(resource: string, key: string, read: ReadMode): Promise<GetReply> {
    return this.#timed('get', resource, this.endpointOf(resource).get(resource, key, read));
  }

  list(resource: string, read: ReadMode, filter: Filter, page: ListPage = {}): Promise<ListReply> {
    return this.#timed(
      'list',
      resource,
      this.endpointOf(resource).call({
        op: 'list',
        resource,
        read,
        filter,
        startKey: page.startKey,
        limit: page.limit,
        encoding: page.encoding,
        remainingFromStart: page.remainingFromStart,
        ...(page.stream === true ? { stream: true } : {}),
      }),
    );
  }

  create(resource: string, key: string, value: Uint8Array): Promise<ObjectBytes> {
    return this.#write(resource, { op: 'create', key, value }, { op: 'create', resource, key, value });
  }

  update(resource: string, key: string, value: Uint8Array, expectedRevision: Revision): Promise<ObjectBytes> {
    return this.#write(resource, { op: 'update', key, value, expected: expectedRevision }, { op: 'update', resource, key, value, expectedRevision });
  }

  delete(resource: string, key: string, expectedRevision?: Revision): Promise<ObjectBytes> {
    return this.#write(resource, { op: 'delete', key, expected: expectedRevision }, { op: 'delete', resource, key, expectedRevision });
  }

  /** A write straight to the store host where this thread writes the type so (direct-writes.ts), else through its shard. */
  #write(resource: string, write: DirectWrite, call: ShardCall): Promise<ObjectBytes> {
    const endpoint = this.endpointOf(resource);
    const direct = this.direct;
    const routed = direct !== undefined && direct.serves(resource) ? endpoint.writeDirect(direct, resource, write) : null;
    return this.#timed(write.op, resource, routed ?? endpoint.call<ObjectBytes>(call));
  }

  /** Sets the direct writer (direct-writes.ts) over `port` to the store host, for `resources`. */
  protected useDirectWrites(port: PortLike, resources: readonly string[]): void {
    this.direct = new DirectWrites(port, resources, (m) => this.endpoints()[m.via.shard]?.receiveWritten(m.via.tag, m.id, m.value, m.prev, m.error));
  }

  watch(req: WatchRequestBody, sink: WatchSink): { id: number; close(): void } {
    return this.endpointOf(req.resource).watch(req, sink);
  }

  ensureResource(spec: ResourceSpec): Promise<void> {
    return this.endpointOf(spec.groupResource).ensure(spec);
  }

  async profile(index: number, spec: ProfileSpec): Promise<Uint8Array | null> {
    const endpoint = this.endpoints()[index];
    if (endpoint === undefined) throw new RangeError(`no shard ${index}`);
    return (await endpoint.call<ProfileReply>({ op: 'profile', spec })).profile;
  }

  async stats(): Promise<ShardStats[]> {
    return Promise.all(this.endpoints().map((s) => s.call<ShardStats>({ op: 'stats' })));
  }
}
