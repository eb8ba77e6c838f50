/**
 * RbacIndex keeps one serving thread's RbacPolicy current from watches of
 * the four RBAC resources on that thread's shard router (one watch each):
 * the initial state, then every change — never a store read per request.
 *
 * A watch that ends (compaction past it, a store restart the shard could not
 * hide) is started again from a fresh initial state; until that state is
 * complete the old one keeps answering, then it is replaced at once, so a
 * lost watch never opens a window of wrong denials or stale allows beyond
 * the old state's own.
 */
import { StringDecoder } from 'node:string_decoder';
import type { ShardAccess } from '../../../shards/shard-access.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { KObject } from '../../registry/object.ts';
import { apiGroup, names } from '../../naming/index.ts';
import { RbacPolicy } from './policy.ts';
import { parseBinding, parseRole } from './parse.ts';
import { RBAC_RESOURCES, type BindingRecord, type RbacResource, type RoleRecord } from './types.ts';

const RESTART_DELAY_MS = 1000;

export type RbacChange = { readonly resource: RbacResource; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'RESYNC'; readonly namespace: string; readonly name: string };

interface Feed {
  readonly resource: RbacResource;
  readonly rt: ResourceType;
  watch: { close(): void } | null;
  decoder: StringDecoder;
  buffer: string;
  /** Objects of the initial state being received; null once it is complete. */
  staging: Map<string, KObject> | null;
  restartTimer: NodeJS.Timeout | null;
}

export class RbacIndex {
  readonly policy: RbacPolicy;
  readonly #router: ShardAccess;
  readonly #feeds: Feed[] = [];
  readonly #listeners = new Set<(change: RbacChange) => void>();
  readonly #synced = new Set<RbacResource>();
  #resolveReady!: () => void;
  /** Settles once every resource's initial state is in. */
  readonly ready: Promise<void>;
  #closed = false;

  constructor(router: ShardAccess, registry: ResourceRegistry) {
    this.#router = router;
    const group = apiGroup('rbac.authorization');
    this.policy = new RbacPolicy(group);
    this.ready = new Promise((resolve) => (this.#resolveReady = resolve));
    for (const resource of RBAC_RESOURCES) {
      const rt = registry.lookup(group, 'v1', resource);
      if (rt === undefined) {
        // RBAC turned off by --runtime-config: nothing is granted, nothing to wait for.
        this.#synced.add(resource);
        continue;
      }
      this.#feeds.push({ resource, rt, watch: null, decoder: new StringDecoder('utf8'), buffer: '', staging: null, restartTimer: null });
    }
    if (this.#synced.size === RBAC_RESOURCES.length) this.#resolveReady();
  }

  /** Starts the watches; `ready` settles when their initial states are in. */
  start(): this {
    for (const feed of this.#feeds) this.#start(feed);
    return this;
  }

  /** Calls `listener` after every change applied to the policy. Returns the unsubscribe. */
  onChange(listener: (change: RbacChange) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  close(): void {
    this.#closed = true;
    for (const feed of this.#feeds) {
      feed.watch?.close();
      feed.watch = null;
      if (feed.restartTimer !== null) clearTimeout(feed.restartTimer);
      feed.restartTimer = null;
    }
  }

  #start(feed: Feed): void {
    if (this.#closed) return;
    feed.buffer = '';
    feed.decoder = new StringDecoder('utf8');
    feed.staging = new Map();
    try {
      feed.watch = this.#router.watch(
        { resource: feed.rt.storageResource, start: { kind: 'initial', read: { kind: 'latest' } }, filter: {}, encoding: 'json', bookmarks: false, initialEventsEnd: true },
        {
          onFrames: (frames) => this.#onFrames(feed, frames),
          onEnd: () => this.#restart(feed),
        },
      );
    } catch {
      this.#restart(feed);
    }
  }

  #restart(feed: Feed): void {
    feed.watch?.close();
    feed.watch = null;
    if (this.#closed || feed.restartTimer !== null) return;
    feed.restartTimer = setTimeout(() => {
      feed.restartTimer = null;
      this.#start(feed);
    }, RESTART_DELAY_MS);
    feed.restartTimer.unref();
  }

  #onFrames(feed: Feed, frames: Uint8Array): void {
    const text = feed.buffer + feed.decoder.write(Buffer.from(frames.buffer, frames.byteOffset, frames.byteLength));
    const lines = text.split('\n');
    feed.buffer = lines.pop()!;
    for (const line of lines) {
      if (line === '') continue;
      let ev: { type?: unknown; object?: KObject };
      try {
        ev = JSON.parse(line) as { type?: unknown; object?: KObject };
      } catch {
        // A frame we cannot read: the state may be wrong from here on; rebuild it.
        this.#restart(feed);
        return;
      }
      this.#apply(feed, ev.type, ev.object);
    }
  }

  #apply(feed: Feed, type: unknown, object: KObject | undefined): void {
    if (object === undefined || typeof object !== 'object' || object === null || typeof object.metadata !== 'object' || object.metadata === null) return;
    const meta = object.metadata;
    const k = `${meta.namespace ?? ''}/${meta.name ?? ''}`;
    if (feed.staging !== null) {
      if (type === 'BOOKMARK') {
        if (meta.annotations?.[names.initialEventsEndAnnotation] !== 'true') return;
        this.#swapIn(feed, feed.staging);
        feed.staging = null;
        return;
      }
      if (type === 'ADDED' || type === 'MODIFIED') feed.staging.set(k, object);
      else if (type === 'DELETED') feed.staging.delete(k);
      return;
    }
    if (type !== 'ADDED' && type !== 'MODIFIED' && type !== 'DELETED') return;
    const namespace = meta.namespace ?? '';
    const name = meta.name ?? '';
    if (type === 'DELETED') this.policy.remove(feed.resource, namespace, name);
    else this.#set(feed.resource, object);
    this.#emit({ resource: feed.resource, type, namespace, name });
  }

  #set(resource: RbacResource, object: KObject): void {
    if (resource === 'roles' || resource === 'clusterroles') {
      const role: RoleRecord = parseRole(object);
      this.policy.setRole(resource, role);
    } else {
      const binding: BindingRecord = parseBinding(object);
      this.policy.setBinding(resource, binding);
    }
  }

  #swapIn(feed: Feed, objects: Map<string, KObject>): void {
    this.policy.clear(feed.resource);
    for (const obj of objects.values()) this.#set(feed.resource, obj);
    this.#emit({ resource: feed.resource, type: 'RESYNC', namespace: '', name: '' });
    if (!this.#synced.has(feed.resource)) {
      this.#synced.add(feed.resource);
      if (this.#synced.size === RBAC_RESOURCES.length) this.#resolveReady();
    }
  }

  #emit(change: RbacChange): void {
    for (const l of this.#listeners) {
      try {
        l(change);
      } catch {
        // One listener's bug must not stop the index for the others.
      }
    }
  }
}
