/**
 * The in-memory MVCC state: for every key, the list of its versions newer
 * than the compacted revision (plus the newest one at or below it), ordered by
 * revision; and a revision-ordered change log.
 *
 * This module knows nothing about durability. The store applies writes here
 * synchronously as soon as they are validated (so compare-and-swap sees
 * earlier writes still waiting for their fsync) and exposes only revisions up
 * to its committed revision to readers; all read methods therefore take the
 * revision to read at.
 *
 * Keys are ordered as JS strings, i.e. by UTF-16 code unit. etcd orders keys
 * by bytes (UTF-8); the two orders agree for ASCII keys, which is what the API
 * server uses, and for all BMP text outside the surrogate range.
 */
import BTreeModule from 'sorted-btree';
import type { KeyValue, StoreEvent } from '../interface.ts';
import { ChangeLog } from './changelog.ts';

const BTree = BTreeModule.default;
type KeyTree = InstanceType<typeof BTree<string, Version[]>>;

/** A deletion marker: the key is absent from this revision on. */
export interface Tombstone {
  readonly key: string;
  readonly value: null;
  /** createRevision of the incarnation this delete ended. */
  readonly createRevision: number;
  readonly modRevision: number;
}

/** Live versions are stored as the KeyValue objects handed to callers. */
export type Version = KeyValue | Tombstone;

export const isLive = (v: Version | undefined): v is KeyValue => v !== undefined && v.value !== null;

const compareKeys = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/** Index of the newest version with modRevision <= revision, or -1. Newest-first, as reads are mostly recent. */
function indexAt(versions: readonly Version[], revision: number): number {
  let i = versions.length - 1;
  if (i < 0 || versions[i]!.modRevision <= revision) return i;
  let lo = 0;
  let hi = i; // versions[hi].modRevision > revision
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (versions[mid]!.modRevision <= revision) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/**
 * The versions to keep once history up to `compactAt` is discarded: the newest
 * one at or below it (unless that is a tombstone) and everything after it.
 * Returns the input itself when nothing is dropped.
 */
export function retainAfterCompaction(versions: Version[], compactAt: number): Version[] {
  const i = indexAt(versions, compactAt);
  if (i < 0) return versions;
  const from = isLive(versions[i]) ? i : i + 1;
  return from === 0 ? versions : versions.slice(from);
}

export interface RangeRead {
  readonly kvs: KeyValue[];
  readonly count: number;
}

export class MvccState {
  /** Every key's versions in key order, for range reads and snapshots. */
  private readonly tree: KeyTree = new BTree<string, Version[]>(undefined, compareKeys);
  /**
   * The same arrays by key, for point reads: a write reads its key three times
   * (its check, its append, its event), and a tree descent over 150,000 keys
   * cost ~2 µs each (string compares missing the cache at every level).
   */
  private readonly byKey = new Map<string, Version[]>();
  private log = new ChangeLog();
  /** The last revision handed out (including writes not yet durable). */
  headRevision = 0;
  /** Reads and watches below this revision fail (logical compaction). */
  compactedRevision = 0;
  /** Versions older than this have been physically removed (lags compactedRevision). */
  prunedRevision = 0;

  get keyCount(): number {
    return this.tree.size;
  }

  /** The newest version of `key`, including not-yet-durable ones. */
  latest(key: string): Version | undefined {
    const versions = this.byKey.get(key);
    return versions === undefined ? undefined : versions[versions.length - 1];
  }

  /** The live value of `key` as of `revision`, or null. */
  at(key: string, revision: number): KeyValue | null {
    const versions = this.byKey.get(key);
    if (versions === undefined) return null;
    const v = versions[indexAt(versions, revision)];
    return isLive(v) ? v : null;
  }

  /** Append a put at the next revision. The caller has validated it and logged it. */
  applyPut(revision: number, key: string, value: Uint8Array, createRevision: number): KeyValue {
    const kv: KeyValue = { key, value, createRevision, modRevision: revision };
    this.append(revision, key, kv);
    return kv;
  }

  applyDelete(revision: number, key: string, createRevision: number): Tombstone {
    const t: Tombstone = { key, value: null, createRevision, modRevision: revision };
    this.append(revision, key, t);
    return t;
  }

  private append(revision: number, key: string, v: Version): void {
    if (revision !== this.headRevision + 1) {
      throw new Error(`revision ${revision} does not follow head revision ${this.headRevision}`);
    }
    const versions = this.byKey.get(key);
    if (versions === undefined) {
      const fresh = [v];
      this.tree.set(key, fresh);
      this.byKey.set(key, fresh);
    } else versions.push(v);
    this.log.push(revision, key);
    this.headRevision = revision;
  }

  /**
   * Keys under `prefix` from `startKey` on, live at `revision`: at most `limit`
   * of them (0: all), and how many there are in total.
   */
  range(prefix: string, startKey: string | undefined, limit: number, revision: number): RangeRead {
    const kvs: KeyValue[] = [];
    let count = 0;
    const from = startKey !== undefined && startKey > prefix ? startKey : prefix;
    if (!from.startsWith(prefix)) return { kvs, count };
    const pair: [string, Version[]] = ['', []];
    for (const [key, versions] of this.tree.entries(from, pair)) {
      if (!key.startsWith(prefix)) break;
      const v = versions[indexAt(versions, revision)];
      if (!isLive(v)) continue;
      count++;
      if (limit <= 0 || kvs.length < limit) kvs.push(v);
    }
    return { kvs, count };
  }

  /** The watch event of the write at `revision` to `key`. */
  private eventOf(key: string, revision: number): StoreEvent {
    const versions = this.byKey.get(key)!;
    const i = indexAt(versions, revision);
    const v = versions[i]!;
    const prev = versions[i - 1];
    const prevLive = isLive(prev);
    return {
      type: v.value === null ? 'delete' : 'put',
      key,
      revision,
      value: v.value,
      createRevision: v.createRevision,
      prevValue: prevLive ? prev.value : null,
      prevModRevision: prevLive ? prev.modRevision : 0,
    };
  }

  /**
   * Events for keys under `prefix` with revisions in (after, upTo], scanning at
   * most `maxScan` log entries. `scannedTo` is the revision up to which the
   * result is complete. Requires after >= compactedRevision.
   */
  events(after: number, upTo: number, prefix: string, maxScan: number): { events: StoreEvent[]; scannedTo: number } {
    const events: StoreEvent[] = [];
    const log = this.log;
    let i = log.firstAfter(after);
    const end = Math.min(log.endIndex, i + maxScan);
    let scannedTo = after;
    for (; i < end; i++) {
      const rev = log.revAt(i);
      if (rev > upTo) break;
      scannedTo = rev;
      const key = log.keyAt(i);
      if (key.startsWith(prefix)) events.push(this.eventOf(key, rev));
    }
    // Nothing left in the log up to upTo: the result is complete through it.
    if (i >= log.endIndex || log.revAt(i) > upTo) scannedTo = upTo;
    return { events, scannedTo };
  }

  /**
   * Physically drop versions no read at or after `target` can see, visiting at
   * most about `maxEntries` log entries. Returns true when pruned through `target`.
   */
  prune(target: number, maxEntries: number): boolean {
    if (target <= this.prunedRevision) return true;
    const log = this.log;
    const begin = log.firstAfter(this.prunedRevision);
    let stop = log.firstAfter(target);
    let through = target;
    if (stop - begin > maxEntries) {
      stop = begin + maxEntries;
      through = log.revAt(stop - 1);
    }
    // Only keys written in (prunedRevision, through] can have more than one
    // version at or below `through`; every other key was reduced before.
    const seen = new Set<string>();
    for (let i = begin; i < stop; i++) {
      const key = log.keyAt(i);
      if (seen.has(key)) continue;
      seen.add(key);
      const versions = this.byKey.get(key);
      if (versions === undefined) continue;
      const kept = retainAfterCompaction(versions, through);
      if (kept.length === 0) {
        this.tree.delete(key);
        this.byKey.delete(key);
      } else if (kept !== versions) {
        this.tree.set(key, kept);
        this.byKey.set(key, kept);
      }
    }
    log.trimThrough(through);
    this.prunedRevision = through;
    return through >= target;
  }

  /**
   * Up to `maxKeys` keys after `afterKey` (exclusive; undefined: from the
   * start) with their versions as of `revision`, reduced for `compactAt`.
   * Keys with nothing to keep are skipped. Used to write snapshots in chunks.
   */
  snapshotChunk(
    afterKey: string | undefined,
    maxKeys: number,
    revision: number,
    compactAt: number,
  ): { items: Array<[string, Version[]]>; lastKey: string | undefined } {
    const items: Array<[string, Version[]]> = [];
    let lastKey: string | undefined;
    let visited = 0;
    for (const [key, versions] of this.tree.entries(afterKey)) {
      if (afterKey !== undefined && key === afterKey) continue;
      if (visited++ >= maxKeys) break;
      lastKey = key;
      const upTo = indexAt(versions, revision);
      if (upTo < 0) continue;
      const kept = retainAfterCompaction(versions.slice(0, upTo + 1), compactAt);
      if (kept.length > 0) items.push([key, kept]);
    }
    return { items, lastKey };
  }

  /**
   * Build a state from snapshot contents: `add` each key's versions (already
   * reduced for `compactedRevision`, in any key order), then `finish`.
   */
  static loader(revision: number, compactedRevision: number): { add(key: string, versions: Version[]): void; finish(): MvccState } {
    const state = new MvccState();
    const entries: Array<{ rev: number; key: string }> = [];
    return {
      add(key, versions) {
        state.tree.set(key, versions);
        state.byKey.set(key, versions);
        for (const v of versions) if (v.modRevision > compactedRevision) entries.push({ rev: v.modRevision, key });
      },
      finish() {
        state.log = ChangeLog.fromEntries(entries);
        state.headRevision = revision;
        state.compactedRevision = compactedRevision;
        state.prunedRevision = compactedRevision;
        return state;
      },
    };
  }
}
