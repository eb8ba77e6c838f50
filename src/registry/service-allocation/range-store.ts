/**
 * Where allocation state lives: one RangeAllocation record per range in the
 * cluster's store (the original's `/ranges/serviceips`,
 * `/ranges/secondaryserviceips` and `/ranges/servicenodeports`), written
 * only with compare-and-swap so that API servers sharing a store never hand
 * out the same value twice.
 */
import type { ResourceSpec } from '../../../shards/protocol.ts';
import type { ShardAccess } from '../../../shards/shard-access.ts';
import { ShardCallError } from '../../../shards/shard-handle.ts';
import { serializeForStorage } from '../../watchcache/json-codec.ts';

/** The storage "resource" the range records live under (never served over HTTP). */
export const RANGES_RESOURCE = '/ranges';
export const RANGES_PREFIX = '/ranges/';
export const SERVICE_IPS_KEY = `${RANGES_PREFIX}serviceips`;
export const SECONDARY_SERVICE_IPS_KEY = `${RANGES_PREFIX}secondaryserviceips`;
export const SERVICE_NODE_PORTS_KEY = `${RANGES_PREFIX}servicenodeports`;

/** The shard spec that makes the router serve the range records. */
export const RANGES_RESOURCE_SPEC: ResourceSpec = {
  groupResource: RANGES_RESOURCE,
  prefix: RANGES_PREFIX,
  namespaced: false,
  kind: 'RangeAllocation',
  apiVersion: 'v1',
  cacheSize: 16,
};

/** RangeAllocation's payload: the range it covers and its bitmap snapshot. */
export interface RangeRecord {
  range: string;
  data: Uint8Array;
}

/** Someone else wrote the record first (or it exists/vanished unexpectedly): read it again. */
export class RangeConflictError extends Error {}

export interface RangeRecordStore {
  /** Consistent read; null when the record does not exist. */
  read(key: string): Promise<{ record: RangeRecord; revision: number } | null>;
  /** Creates the record; RangeConflictError when it exists. Answers the new revision. */
  create(key: string, record: RangeRecord): Promise<number>;
  /** Replaces the record written at `revision`; RangeConflictError when it changed. */
  update(key: string, record: RangeRecord, revision: number): Promise<number>;
}

function encode(key: string, record: RangeRecord): Uint8Array {
  return serializeForStorage({
    kind: 'RangeAllocation',
    apiVersion: 'v1',
    metadata: { name: key.slice(RANGES_PREFIX.length) },
    range: record.range,
    data: Buffer.from(record.data).toString('base64'),
  });
}

function decode(json: Uint8Array): RangeRecord {
  const parsed = JSON.parse(Buffer.from(json.buffer, json.byteOffset, json.byteLength).toString('utf8')) as { range?: unknown; data?: unknown };
  return {
    range: typeof parsed.range === 'string' ? parsed.range : '',
    data: typeof parsed.data === 'string' ? new Uint8Array(Buffer.from(parsed.data, 'base64')) : new Uint8Array(0),
  };
}

function conflictOr(err: unknown): unknown {
  if (err instanceof ShardCallError && (err.error.code === 'Conflict' || err.error.code === 'AlreadyExists' || err.error.code === 'NotFound')) {
    return new RangeConflictError(err.error.message);
  }
  return err;
}

/** The range records in the cluster's store, through the shard router. */
export class RouterRangeStore implements RangeRecordStore {
  readonly #router: ShardAccess;
  constructor(router: ShardAccess) {
    this.#router = router;
  }

  async read(key: string): Promise<{ record: RangeRecord; revision: number } | null> {
    const res = await this.#router.get(RANGES_RESOURCE, key, { kind: 'latest' });
    return res.object === null ? null : { record: decode(res.object.json), revision: res.object.revision };
  }

  async create(key: string, record: RangeRecord): Promise<number> {
    try {
      return (await this.#router.create(RANGES_RESOURCE, key, encode(key, record))).revision;
    } catch (err) {
      throw conflictOr(err);
    }
  }

  async update(key: string, record: RangeRecord, revision: number): Promise<number> {
    try {
      return (await this.#router.update(RANGES_RESOURCE, key, encode(key, record), revision)).revision;
    } catch (err) {
      throw conflictOr(err);
    }
  }
}

/** An in-process store for tests and tools: the same contract, in a Map. */
export class MemoryRangeStore implements RangeRecordStore {
  readonly #records = new Map<string, { record: RangeRecord; revision: number }>();
  readonly #jitterMs: number;
  #revision = 0;
  /** Counts writes, so tests can see that a dry run wrote nothing. */
  writes = 0;
  /** Counts refused compare-and-swaps, so tests can see that races happened. */
  conflicts = 0;

  /** `jitterMs`: each call waits up to this long first, so callers interleave as over a network. */
  constructor(opts: { jitterMs?: number } = {}) {
    this.#jitterMs = opts.jitterMs ?? 0;
  }

  async #jitter(): Promise<void> {
    if (this.#jitterMs > 0) await new Promise((r) => setTimeout(r, Math.random() * this.#jitterMs));
  }

  async read(key: string): Promise<{ record: RangeRecord; revision: number } | null> {
    await this.#jitter();
    const cur = this.#records.get(key);
    return cur === undefined ? null : { record: { range: cur.record.range, data: cur.record.data.slice() }, revision: cur.revision };
  }

  async create(key: string, record: RangeRecord): Promise<number> {
    await this.#jitter();
    if (this.#records.has(key)) {
      this.conflicts++;
      throw new RangeConflictError(`${key} exists`);
    }
    return this.#put(key, record);
  }

  async update(key: string, record: RangeRecord, revision: number): Promise<number> {
    await this.#jitter();
    if (this.#records.get(key)?.revision !== revision) {
      this.conflicts++;
      throw new RangeConflictError(`${key} changed`);
    }
    return this.#put(key, record);
  }

  #put(key: string, record: RangeRecord): number {
    this.writes++;
    const revision = ++this.#revision;
    this.#records.set(key, { record: { range: record.range, data: record.data.slice() }, revision });
    return revision;
  }
}
