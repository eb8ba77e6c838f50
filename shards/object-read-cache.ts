/**
 * ObjectReadCache keeps, in a serving thread, the shard's recent answers to
 * GETs of single objects, and answers a GET again without the hop to the
 * shard while the shard's shared cells say nothing of that type changed
 * (read-cells.ts explains why that answer is then the consistent one).
 *
 * The hop is most of what a GET costs beyond HTTP (the message each way, the
 * shard's turn, a promise); a client reading the same objects again, as
 * leader election, kubelets and polling controllers do, pays it only after a
 * change. A type being written misses until it is read again after the
 * write. Bounded by entries and bytes per channel; the oldest go first.
 * Only where the store publishes its committed revision in shared memory
 * (the embedded store): with etcd another server can write, and only a
 * round trip to etcd knows the current revision.
 */
import type { GetReply } from './protocol.ts';
import type { ReadCells } from './read-cells.ts';
import type { SharedRevision } from '../src/storage/shared-revision.ts';

export interface ObjectReadCacheLimits {
  maxEntries: number;
  maxBytes: number;
  /** Larger objects are not kept. */
  maxObjectBytes: number;
}

export const DEFAULT_READ_CACHE_LIMITS: ObjectReadCacheLimits = { maxEntries: 4096, maxBytes: 8 << 20, maxObjectBytes: 256 << 10 };

interface Entry {
  resource: string;
  reply: GetReply;
  slot: number;
  changes: number;
  bytes: number;
}

export class ObjectReadCache {
  readonly #cells: ReadCells;
  readonly #committed: SharedRevision;
  readonly #limits: ObjectReadCacheLimits;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;
  hits = 0;
  misses = 0;

  constructor(cells: ReadCells, committed: SharedRevision, limits: ObjectReadCacheLimits = DEFAULT_READ_CACHE_LIMITS) {
    this.#cells = cells;
    this.#committed = committed;
    this.#limits = limits;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The store's committed revision now (what the kept answers are checked against). */
  committedRevision(): number {
    return this.#committed.read();
  }

  /** The kept answer for `key` when it is still the consistent one, else undefined (and it is dropped). */
  lookup(resource: string, key: string): GetReply | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined || entry.resource !== resource) {
      this.misses++;
      return undefined;
    }
    if (!this.#cells.unchangedAt(entry.slot, entry.changes, this.#committed.read())) {
      this.#drop(key, entry);
      this.misses++;
      return undefined;
    }
    this.hits++;
    return entry.reply;
  }

  /** Keeps a shard's answer that came from its cache's latest state (a found object, not too large). */
  remember(resource: string, key: string, reply: GetReply): void {
    const { slot, changes, object } = reply;
    if (slot === undefined || changes === undefined || object === null) return;
    const bytes = object.json.byteLength + key.length * 2;
    if (bytes > this.#limits.maxObjectBytes) return;
    const old = this.#entries.get(key);
    if (old !== undefined) this.#drop(key, old);
    this.#entries.set(key, { resource, reply, slot, changes, bytes });
    this.#bytes += bytes;
    if (this.#entries.size <= this.#limits.maxEntries && this.#bytes <= this.#limits.maxBytes) return;
    // Map order is insertion order: the oldest answers go first.
    for (const [k, e] of this.#entries) {
      this.#drop(k, e);
      if (this.#entries.size <= this.#limits.maxEntries && this.#bytes <= this.#limits.maxBytes) break;
    }
  }

  #drop(key: string, entry: Entry): void {
    this.#entries.delete(key);
    this.#bytes -= entry.bytes;
  }
}
