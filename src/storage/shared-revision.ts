/**
 * SharedRevision is the embedded store's committed revision in shared memory:
 * the store host publishes it when a group commit becomes durable (before any
 * waiter of that group is answered), and shards read it without a message.
 *
 * A consistent read (a GET or LIST without resourceVersion) needs the store's
 * current revision; asking the store host for it cost a thread round trip on
 * every such read. Reading this cell gives the same guarantee: a write that
 * any client has seen acknowledged was published here before its reply left
 * the store host, and Atomics make that store visible to the reading shard.
 */
import type { Revision } from './interface.ts';

export class SharedRevision {
  readonly #cell: BigInt64Array;

  constructor(readonly buffer: SharedArrayBuffer) {
    this.#cell = new BigInt64Array(buffer, 0, 1);
  }

  static allocate(): SharedRevision {
    return new SharedRevision(new SharedArrayBuffer(BigInt64Array.BYTES_PER_ELEMENT));
  }

  /** Revisions only grow: a late or repeated publish of an older one is ignored. */
  publish(revision: Revision): void {
    const next = BigInt(revision);
    let seen = Atomics.load(this.#cell, 0);
    while (seen < next) {
      const was = Atomics.compareExchange(this.#cell, 0, seen, next);
      if (was === seen) return;
      seen = was;
    }
  }

  read(): Revision {
    return Number(Atomics.load(this.#cell, 0));
  }
}
