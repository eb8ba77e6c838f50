/**
 * The embedded backend: a durable, in-process implementation of {@link Store}.
 *
 * All state lives in memory (mvcc.ts) and is made durable by a write-ahead log
 * with group commit (wal.ts, committer.ts), compacted into snapshots
 * (snapshot.ts) and rebuilt at open (recovery.ts).
 *
 * Visibility: a write is validated and applied to memory at once, so a later
 * compare-and-swap sees it, but readers and watchers only see revisions up to
 * `committedRevision`, which advances when a group's fsync completes. So no
 * reader ever sees a write a crash could lose, and a read that starts after a
 * write was acknowledged always sees it.
 *
 * Snapshots: a new WAL segment and a snapshot start once the segment is as
 * large as the last snapshot (and at least the configured threshold). A
 * snapshot costs work in proportion to the whole state, so a fixed threshold
 * would make every write pay more as the store grows (at 250,000 1 KiB
 * objects, ~30 µs of CPU per create); growing the threshold with the state
 * keeps the cost per write constant, as Redis does with its AOF rewrites
 * (auto-aof-rewrite-percentage 100). Recovery then replays at most one
 * snapshot's worth of WAL.
 *
 * Compaction is logical first (the compacted revision moves when its WAL
 * record is durable, and reads below it fail) and physical later, in chunks,
 * never below a snapshot still being written.
 */
import type {
  DeleteResult,
  KeyValue,
  RangeOptions,
  RangeResult,
  Revision,
  Store,
  StoreWatch,
  WatchListener,
} from '../interface.ts';
import {
  AlreadyExistsError,
  CompactedError,
  ConflictError,
  FutureRevisionError,
  NotFoundError,
  StoreClosedError,
} from '../errors.ts';
import { stat, unlink } from 'node:fs/promises';
import { GroupCommitter } from './committer.ts';
import { ensurePrivateDir, listStoreDir, pathIn, segmentName, snapshotName } from './files.ts';
import { DirLock } from './lock.ts';
import { isLive, MvccState } from './mvcc.ts';
import { recover, type RecoveryResult } from './recovery.ts';
import { writeSnapshot } from './snapshot.ts';
import { WatchHub } from './watch.ts';
import { WalWriter, type WalFaults } from './wal.ts';
import { ownedCopy } from '../handed-over.ts';

export { DirLockedError } from './lock.ts';
export { CorruptStoreError, REPAIR_FLAG, type RecoveryNote } from './recovery.ts';

export interface EmbeddedStoreOptions {
  /** Directory of the store; created if missing (0700, files 0600). One process at a time may open it. */
  readonly dir: string;
  /**
   * Cut the log at the first damage instead of refusing to open, dropping
   * what follows it (the operator's --embedded-wal-repair; see recovery.ts).
   */
  readonly repair?: boolean;
  /**
   * Start a new WAL segment and write a snapshot once the current segment is
   * this large, or as large as the last snapshot if that is larger. Default 64 MiB.
   */
  readonly snapshotThresholdBytes?: number;
  /** Failure injection, for tests. */
  readonly faults?: WalFaults;
}

export interface EmbeddedStoreStats {
  readonly committedRevision: Revision;
  readonly compactedRevision: Revision;
  readonly keys: number;
  /** fdatasync calls on the WAL since open. */
  readonly walFsyncs: number;
  /** Group commits (WAL flushes) since open. */
  readonly groupCommits: number;
  readonly walBytesWritten: number;
  readonly currentSegment: number;
  /** Bytes of records in the current segment (its file may be longer: the zeros preallocated after them). */
  readonly currentSegmentBytes: number;
  readonly snapshotsWritten: number;
  readonly snapshotFailures: number;
  readonly lastSnapshotError: string | null;
  readonly recovery: Pick<RecoveryResult, 'snapshotRevision' | 'recordsReplayed' | 'truncatedBytes' | 'notes'>;
}

const DEFAULT_SNAPSHOT_THRESHOLD = 64 << 20;
/** Change-log entries pruned per event-loop turn. */
const PRUNE_CHUNK = 50_000;

// A lone surrogate cannot round-trip through UTF-8, so such a key would come back different after a restart.
const LONE_SURROGATE = /\p{Surrogate}/u;

function checkKey(key: string): void {
  if (typeof key !== 'string' || LONE_SURROGATE.test(key)) throw new TypeError(`invalid key ${JSON.stringify(key)}`);
}

/** A private copy, so a caller reusing its buffer cannot change what was stored (unless it was handed over). */
const copyValue = ownedCopy;

export class EmbeddedStore implements Store {
  readonly name = 'embedded';

  private committedRev: number;
  /** Told each durable revision before the writers of its group are answered (onCommitted). */
  private readonly committedListeners: Array<(revision: Revision) => void> = [];
  private closing: Promise<void> | null = null;
  /** Revision of the snapshot being written (pruning must not go past it), or null. */
  private snapshotBase: number | null = null;
  private abortSnapshot = false;
  /** Snapshot writing and physical pruning run one at a time, in this chain. */
  private maintenance: Promise<void> = Promise.resolve();
  private pruneQueued = false;
  private snapshotsWritten = 0;
  /** Size of the newest snapshot written or recovered from: the segment must grow this large before the next one. */
  private lastSnapshotBytes: number;
  private snapshotFailures = 0;
  private lastSnapshotError: string | null = null;
  private readonly committer: GroupCommitter;
  private readonly hub: WatchHub;

  private constructor(
    private readonly dir: string,
    private readonly state: MvccState,
    private readonly wal: WalWriter,
    private readonly lock: DirLock,
    private readonly snapshotThreshold: number,
    private readonly recovery: EmbeddedStoreStats['recovery'],
    recoveredSnapshotBytes: number,
  ) {
    this.committedRev = state.headRevision;
    this.lastSnapshotBytes = recoveredSnapshotBytes;
    this.hub = new WatchHub({
      committedRevision: () => this.committedRev,
      compactedRevision: () => this.state.compactedRevision,
      events: (after, upTo, prefix, maxScan) => this.state.events(after, upTo, prefix, maxScan),
    });
    this.committer = new GroupCommitter(wal, {
      onDurable: (lastRevision) => {
        const from = this.committedRev;
        this.committedRev = lastRevision;
        for (const listener of this.committedListeners) listener(lastRevision);
        this.hub.committed(from, lastRevision);
      },
      betweenGroups: () => this.maybeRotate(),
      onFailed: (error) => this.hub.endAll(error),
    });
  }

  static async open(options: EmbeddedStoreOptions): Promise<EmbeddedStore> {
    const { dir } = options;
    await ensurePrivateDir(dir);
    const lock = await DirLock.acquire(dir);
    try {
      const rec = await recover(dir, { repair: options.repair === true });
      const wal = rec.lastSegment
        ? await WalWriter.resume(dir, rec.lastSegment.seq, rec.lastSegment.size, options.faults)
        : await WalWriter.create(dir, 1, options.faults);
      const { snapshotRevision, recordsReplayed, truncatedBytes, notes } = rec;
      const snapshotBytes = snapshotRevision > 0 ? (await stat(pathIn(dir, snapshotName(snapshotRevision)))).size : 0;
      const threshold = options.snapshotThresholdBytes ?? DEFAULT_SNAPSHOT_THRESHOLD;
      const recovery = { snapshotRevision, recordsReplayed, truncatedBytes, notes };
      return new EmbeddedStore(dir, rec.state, wal, lock, threshold, recovery, snapshotBytes);
    } catch (err) {
      await lock.release();
      throw err;
    }
  }

  // ---- writes ----------------------------------------------------------------

  /** Throws if writes are not accepted. */
  private checkWritable(): void {
    if (this.closing !== null) throw new StoreClosedError();
    if (this.committer.failure !== null) throw this.committer.failure;
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    checkKey(key);
    this.checkWritable();
    const cur = this.state.latest(key);
    if (isLive(cur)) return this.committer.afterPendingWrites<KeyValue>(new AlreadyExistsError(key));
    const rev = this.state.headRevision + 1;
    const stored = copyValue(value);
    this.wal.appendPut(rev, rev, key, stored);
    return this.committer.commit(rev, this.state.applyPut(rev, key, stored, rev));
  }

  async update(key: string, value: Uint8Array, expectedModRevision: Revision): Promise<KeyValue> {
    checkKey(key);
    this.checkWritable();
    const cur = this.state.latest(key);
    if (!isLive(cur)) return this.committer.afterPendingWrites<KeyValue>(new NotFoundError(key));
    if (cur.modRevision !== expectedModRevision) {
      return this.committer.afterPendingWrites<KeyValue>(new ConflictError(key, expectedModRevision, cur));
    }
    const rev = this.state.headRevision + 1;
    const stored = copyValue(value);
    this.wal.appendPut(rev, cur.createRevision, key, stored);
    return this.committer.commit(rev, this.state.applyPut(rev, key, stored, cur.createRevision));
  }

  async delete(key: string, expectedModRevision?: Revision): Promise<DeleteResult> {
    checkKey(key);
    this.checkWritable();
    const cur = this.state.latest(key);
    if (!isLive(cur)) return this.committer.afterPendingWrites<DeleteResult>(new NotFoundError(key));
    if (expectedModRevision !== undefined && cur.modRevision !== expectedModRevision) {
      return this.committer.afterPendingWrites<DeleteResult>(new ConflictError(key, expectedModRevision, cur));
    }
    const rev = this.state.headRevision + 1;
    this.wal.appendDelete(rev, cur.createRevision, key);
    this.state.applyDelete(rev, key, cur.createRevision);
    return this.committer.commit<DeleteResult>(rev, { revision: rev, prev: cur });
  }

  async compact(revision: Revision): Promise<void> {
    this.checkWritable();
    if (revision > this.committedRev) throw new FutureRevisionError(revision, this.committedRev);
    // Compacting to or below the compacted revision has nothing left to do.
    if (revision <= this.state.compactedRevision) return;
    this.wal.appendCompact(revision);
    await this.committer.commit(null, undefined, () => {
      // Runs synchronously when the record is durable, before anything else
      // (a WAL rotation in particular) can observe the old compacted revision.
      if (revision > this.state.compactedRevision) this.state.compactedRevision = revision;
      this.schedulePrune();
    });
  }

  // ---- reads -----------------------------------------------------------------

  private checkReadable(): void {
    if (this.closing !== null) throw new StoreClosedError();
  }

  /** The revision a read asked for `revision` happens at, or the reason it cannot. */
  private readRevision(revision: Revision | undefined): Revision {
    if (revision === undefined || revision === 0) return this.committedRev;
    if (revision > this.committedRev) throw new FutureRevisionError(revision, this.committedRev);
    // Reading at exactly the compacted revision is fine (as in etcd): its state was kept.
    if (revision < this.state.compactedRevision) throw new CompactedError(revision, this.state.compactedRevision);
    return revision;
  }

  async get(key: string, revision?: Revision): Promise<{ kv: KeyValue | null; revision: Revision }> {
    this.checkReadable();
    const rev = this.readRevision(revision);
    return { kv: this.state.at(key, rev), revision: rev };
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    this.checkReadable();
    const rev = this.readRevision(options.revision);
    const { kvs, count } = this.state.range(prefix, options.startKey, options.limit ?? 0, rev);
    return { kvs, count, revision: rev, more: count > kvs.length };
  }

  watch(prefix: string, afterRevision: Revision, listener: WatchListener): StoreWatch {
    const refusal = this.closing !== null ? new StoreClosedError() : this.committer.failure;
    if (refusal === null) return this.hub.watch(prefix, afterRevision, listener);
    // A watch that only reports why it cannot run, asynchronously, unless closed first.
    let closed = false;
    setImmediate(() => closed || listener.onError(refusal));
    return {
      requestProgress() {},
      close() {
        closed = true;
      },
    };
  }

  /**
   * Calls `listener` with the committed revision now and whenever a group
   * commit becomes durable, before that group's writers are answered (the
   * store host publishes it to the shards: storage/shared-revision.ts).
   */
  onCommitted(listener: (revision: Revision) => void): void {
    this.committedListeners.push(listener);
    listener(this.committedRev);
  }

  async currentRevision(): Promise<Revision> {
    this.checkReadable();
    return this.committedRev;
  }

  async compactedRevision(): Promise<Revision> {
    this.checkReadable();
    return this.state.compactedRevision;
  }

  // ---- snapshots and pruning -------------------------------------------------

  private enqueueMaintenance(task: () => Promise<void>): void {
    // A failed task must not break the chain for the ones after it.
    this.maintenance = this.maintenance.then(task).catch((err: unknown) => {
      this.lastSnapshotError = err instanceof Error ? err.message : String(err);
    });
  }

  /** Between group commits: if the segment is full, start a new one and snapshot the state it ends at. */
  private async maybeRotate(): Promise<void> {
    if (this.snapshotBase !== null || this.closing !== null) return;
    if (this.wal.segmentBytes < Math.max(this.snapshotThreshold, this.lastSnapshotBytes)) return;
    // Everything in the current segment is durable and committed, so the
    // snapshot is as of the committed revision and covers the old segments.
    const base = this.committedRev;
    const oldSeq = await this.wal.rotate();
    this.snapshotBase = base;
    this.enqueueMaintenance(() => this.snapshot(base, oldSeq));
  }

  private async snapshot(base: number, lastCoveredSegment: number): Promise<void> {
    try {
      const compactAt = Math.min(this.state.compactedRevision, base);
      const written = await writeSnapshot(this.dir, this.state, base, compactAt, () => this.abortSnapshot);
      if (written === null) return;
      this.snapshotsWritten++;
      this.lastSnapshotBytes = written;
      // The snapshot is durable: older snapshots and the segments it covers can go.
      const listing = await listStoreDir(this.dir);
      for (const seq of listing.segments) if (seq <= lastCoveredSegment) await unlink(pathIn(this.dir, segmentName(seq)));
      for (const rev of listing.snapshots) if (rev < base) await unlink(pathIn(this.dir, snapshotName(rev)));
    } catch (err) {
      // Not fatal: the WAL still holds everything; the next rotation tries again.
      this.snapshotFailures++;
      this.lastSnapshotError = err instanceof Error ? err.message : String(err);
    } finally {
      this.snapshotBase = null;
      if (this.state.prunedRevision < this.state.compactedRevision) this.schedulePrune();
    }
  }

  private schedulePrune(): void {
    if (this.pruneQueued) return;
    this.pruneQueued = true;
    this.enqueueMaintenance(async () => {
      this.pruneQueued = false;
      for (;;) {
        if (this.closing !== null) return;
        // Never prune what a pending snapshot still has to write.
        const target = Math.min(this.state.compactedRevision, this.snapshotBase ?? Number.POSITIVE_INFINITY);
        if (this.state.prune(target, PRUNE_CHUNK)) return;
        await new Promise((resolve) => setImmediate(resolve));
      }
    });
  }

  // ---- lifecycle -------------------------------------------------------------

  stats(): EmbeddedStoreStats {
    return {
      committedRevision: this.committedRev,
      compactedRevision: this.state.compactedRevision,
      keys: this.state.keyCount,
      walFsyncs: this.wal.stats.fsyncs,
      groupCommits: this.committer.groups,
      walBytesWritten: this.wal.stats.bytesWritten,
      currentSegment: this.wal.seq,
      currentSegmentBytes: this.wal.segmentBytes,
      snapshotsWritten: this.snapshotsWritten,
      snapshotFailures: this.snapshotFailures,
      lastSnapshotError: this.lastSnapshotError,
      recovery: this.recovery,
    };
  }

  /** Stop accepting work, let pending writes finish, end watches, release the directory. */
  close(): Promise<void> {
    this.closing ??= this.shutdown();
    return this.closing;
  }

  private async shutdown(): Promise<void> {
    // Writes already accepted complete normally (their callers get answers);
    // new ones are refused from here on.
    await this.committer.drain();
    this.abortSnapshot = true;
    await this.maintenance;
    this.hub.endAll(new StoreClosedError());
    try {
      await this.wal.close(this.committer.failure === null);
    } finally {
      await this.lock.release();
    }
  }
}
