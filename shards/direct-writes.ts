/**
 * DirectWrites: a serving thread's creates, updates and deletes sent straight
 * to the embedded store's host thread, their answers routed back through the
 * owner shard.
 *
 * Why: through the shard a write crossed four thread boundaries (serving
 * thread → shard → store host → shard → serving thread), the shard receiving
 * the value, passing it on, decoding the stored object and sending its bytes
 * back. Routed, it crosses three: the value goes to the store host once, and
 * the store host answers on the shard's own connection, queued after the
 * write's watch events; the shard applies those, then passes the few bytes of
 * the answer (key and revisions) to the writer, which splices the revision
 * into the bytes it sent (json-codec.ts, jsonAtRevision), as the shard did;
 * a delete's answer also brings the deleted value, which the writer answers
 * with as of the deletion.
 * So the shard's cache has every write before its writer hears of it, as
 * before: a read of the cache's latest state (resourceVersion=0, the
 * registry's read before an update) after the answer sees the write.
 *
 * Only where the shard adds nothing beyond that (decided once at start by
 * the main thread, from the start-up resource list): the embedded store
 * (etcd is reached by each shard's own client), no encryption at rest (the
 * shard seals values; the keys never leave it), no TTL (the shard's expiry
 * sweeper times a type's keys from their writes), and a type every shard
 * serves from start (a custom resource may stop being served, and the shard
 * is what says so).
 *
 * A shard that restarts loses the answers under way, as before: their
 * writers fail with Unavailable (ShardClient.failPending) though the write
 * may have landed. An answer whose shard connection is gone when it is ready
 * comes to the writer's own connection instead (StoreServer).
 */
import type { StoreCall, StoreReply, WrittenVia } from '../src/storage/remote/protocol.ts';
import { BatchedPort, type PortLike } from './batched-port.ts';
import { storeClientLane } from '../src/storage/remote/wire.ts';

/** Which types may be written directly: built into the start-up list, no TTL; none at all with encryption at rest or etcd. */
export function directWriteResources(
  store: { backend: string; encryption?: unknown },
  resources: readonly { groupResource: string; ttlSeconds?: number | undefined }[],
): string[] {
  if (store.backend !== 'embedded' || store.encryption !== undefined) return [];
  return resources.filter((r) => r.ttlSeconds === undefined).map((r) => r.groupResource);
}

/** A direct write as a ShardClient sends it (it adds the id and the route). */
export type DirectWrite =
  | { op: 'create'; key: string; value: Uint8Array }
  | { op: 'update'; key: string; value: Uint8Array; expected: number }
  | { op: 'delete'; key: string; expected?: number | undefined };

export class DirectWrites {
  readonly #port: BatchedPort<StoreCall, StoreReply>;
  readonly #resources: ReadonlySet<string>;

  /**
   * `port`: a channel to the store host's StoreServer; `resources`: from
   * directWriteResources; `route`: answers that came here rather than
   * through their shard, for the ShardClient of `via.shard`.
   */
  constructor(port: PortLike, resources: readonly string[], route: (m: WrittenVia) => void) {
    this.#resources = new Set(resources);
    this.#port = new BatchedPort<StoreCall, StoreReply>(port, (replies) => {
      for (const r of replies) if (r.t === 'written') route(r);
    }, storeClientLane);
  }

  /** Whether writes of `resource` (`<group>/<resource>`) go directly to the store. */
  serves(resource: string): boolean {
    return this.#resources.has(resource);
  }

  /** Queues a write for the store host (the value is copied, not moved: the writer splices its answer from it). */
  send(call: StoreCall): void {
    this.#port.send(call);
  }

  close(): void {
    this.#port.close();
  }
}
