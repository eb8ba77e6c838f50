/**
 * Leases for keys that expire (`--event-ttl`): one lease per TTL is reused
 * for many writes, as the original's etcd3 lease manager does, instead of one
 * grant per write. A lease granted at time t for `ttl + reuse` seconds serves
 * every write in [t, t + reuse): each key then lives between ttl and
 * ttl + reuse seconds, and etcd holds a few leases instead of one per event.
 */

/** The original's defaults: reuse a lease for 5% of the TTL, at most 60 s, and for at most 1000 keys. */
const REUSE_FRACTION = 0.05;
const MAX_REUSE_SECONDS = 60;
const MAX_KEYS_PER_LEASE = 1000;

interface Held {
  readonly id: string;
  /** When etcd will expire it (ms since the epoch, by our clock). */
  readonly expiresAt: number;
  attached: number;
}

export class LeaseManager {
  readonly #grant: (ttlSeconds: number) => Promise<string>;
  readonly #now: () => number;
  readonly #held = new Map<number, Held>();
  /** One grant in flight per TTL: concurrent writes wait on it instead of granting their own. */
  readonly #granting = new Map<number, Promise<Held>>();

  constructor(grant: (ttlSeconds: number) => Promise<string>, now: () => number = Date.now) {
    this.#grant = grant;
    this.#now = now;
  }

  /** A lease id under which a key lives at least `ttlSeconds` from now. */
  async leaseFor(ttlSeconds: number): Promise<string> {
    const ttl = Math.max(1, Math.ceil(ttlSeconds));
    const reuse = reuseSeconds(ttl);
    const now = this.#now();
    const held = this.#held.get(ttl);
    // Long enough for this key, and not so long that the key would outlive ttl + reuse.
    if (held !== undefined && held.expiresAt > now + ttl * 1000 && held.expiresAt <= now + (ttl + reuse) * 1000 && held.attached < MAX_KEYS_PER_LEASE) {
      held.attached++;
      return held.id;
    }
    let pending = this.#granting.get(ttl);
    if (pending === undefined) {
      pending = this.#grant(ttl + reuse).then(
        (id) => {
          const fresh: Held = { id, expiresAt: now + (ttl + reuse) * 1000, attached: 0 };
          this.#held.set(ttl, fresh);
          return fresh;
        },
      );
      const settled = (): void => void this.#granting.delete(ttl);
      pending.then(settled, settled);
      this.#granting.set(ttl, pending);
    }
    const fresh = await pending;
    fresh.attached++;
    return fresh.id;
  }

  /** The lease of `id` is gone (etcd said so): the next write takes a new one. */
  forget(id: string): void {
    for (const [ttl, held] of this.#held) if (held.id === id) this.#held.delete(ttl);
  }
}

function reuseSeconds(ttl: number): number {
  return Math.min(MAX_REUSE_SECONDS, Math.floor(ttl * REUSE_FRACTION));
}
