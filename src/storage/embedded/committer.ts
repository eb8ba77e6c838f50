/**
 * Group commit: many writes, one fdatasync.
 *
 * Writes are validated and applied in memory synchronously and their WAL
 * records appended to a buffer; each write then waits here. One flush loop
 * repeatedly takes everything appended so far (a "group"), writes it, syncs
 * it, and only then settles that group's waiters, so an acknowledged write is
 * always durable and the cost of a sync is shared by every write that arrived
 * while the previous one was running.
 *
 * Results that were decided by looking at not-yet-durable writes (a conflict
 * against a pending update, say) are held back the same way until those
 * writes are durable: otherwise a caller could observe a write that a crash
 * then loses.
 *
 * A failed write or sync is fatal: every waiter is rejected and no further
 * write is accepted. After a failed fsync the kernel may have dropped the
 * dirty pages, so retrying could silently lose data.
 */
import { StorageUnavailableError } from '../errors.ts';
import type { WalWriter } from './wal.ts';

interface Waiter {
  readonly group: number;
  readonly value: unknown;
  readonly error: Error | null;
  readonly onDurable: (() => void) | undefined;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
}

export interface CommitterHooks {
  /** Revisions up to `lastRevision` are durable. Called before that group's waiters are settled. */
  onDurable(lastRevision: number): void;
  /** Runs after each group with no flush in progress: the place to rotate the WAL. */
  betweenGroups(): Promise<void>;
  /** The store is now failed; every pending write has been rejected with `error`. */
  onFailed(error: StorageUnavailableError): void;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export class GroupCommitter {
  /** Sequence number of the group being accumulated. */
  private accSeq = 1;
  /** Whether the accumulating group has any record, and its last revision (0: none). */
  private accHasRecords = false;
  private accLastRevision = 0;
  /** The group being flushed (0: none) and its last revision. */
  private flushingSeq = 0;
  private flushingLastRevision = 0;
  private queue: Waiter[] = [];
  private queueHead = 0;
  private running = false;
  private idleWaiters: Array<() => void> = [];
  failure: StorageUnavailableError | null = null;
  /** Number of groups flushed. */
  groups = 0;

  constructor(
    private readonly wal: WalWriter,
    private readonly hooks: CommitterHooks,
  ) {}

  /**
   * The caller just appended a record (`revision` null for one that takes no
   * revision). Resolves with `value` once the record is durable, calling
   * `onDurable` first.
   */
  commit<T>(revision: number | null, value: T, onDurable?: () => void): Promise<T> {
    this.accHasRecords = true;
    if (revision !== null) this.accLastRevision = revision;
    const p = this.enqueue<T>(this.accSeq, value, null, onDurable);
    this.start();
    return p;
  }

  /**
   * Settle with `outcome` (a value, or an Error to reject with) once every
   * write applied so far is durable; at once if there is none pending.
   */
  afterPendingWrites<T>(outcome: T | Error): Promise<T> {
    const group = this.accLastRevision > 0 ? this.accSeq : this.flushingLastRevision > 0 ? this.flushingSeq : 0;
    if (group === 0) return outcome instanceof Error ? Promise.reject(outcome) : Promise.resolve(outcome);
    return outcome instanceof Error ? this.enqueue<T>(group, undefined, outcome) : this.enqueue<T>(group, outcome, null);
  }

  private enqueue<T>(group: number, value: unknown, error: Error | null, onDurable?: () => void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ group, value, error, onDurable, resolve: resolve as (v: unknown) => void, reject });
    });
  }

  /** Resolves when nothing is pending (or the committer failed). */
  drain(): Promise<void> {
    if (!this.running && !this.accHasRecords) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private start(): void {
    if (this.running || this.failure !== null) return;
    this.running = true;
    // Start on the next turn of the event loop, so writes issued in the same
    // turn (e.g. by writers whose previous write just completed) share a group.
    setImmediate(() => void this.run());
  }

  private async run(): Promise<void> {
    try {
      while (this.accHasRecords) {
        const seq = this.accSeq;
        const lastRevision = this.accLastRevision;
        this.accSeq++;
        this.accHasRecords = false;
        this.accLastRevision = 0;
        this.flushingSeq = seq;
        this.flushingLastRevision = lastRevision;
        await this.wal.flush();
        this.groups++;
        this.flushingSeq = 0;
        this.flushingLastRevision = 0;
        if (lastRevision > 0) this.hooks.onDurable(lastRevision);
        this.settleThrough(seq);
        await this.hooks.betweenGroups();
        await yieldToEventLoop();
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.running = false;
      const idle = this.idleWaiters;
      this.idleWaiters = [];
      for (const w of idle) w();
    }
  }

  private settleThrough(seq: number): void {
    const q = this.queue;
    while (this.queueHead < q.length && q[this.queueHead]!.group <= seq) {
      const w = q[this.queueHead++]!;
      if (w.error !== null) {
        w.reject(w.error);
        continue;
      }
      w.onDurable?.();
      w.resolve(w.value);
    }
    if (this.queueHead === q.length) {
      this.queue = [];
      this.queueHead = 0;
    } else if (this.queueHead > 4096 && this.queueHead * 2 > q.length) {
      this.queue = q.slice(this.queueHead);
      this.queueHead = 0;
    }
  }

  private fail(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    this.failure = new StorageUnavailableError(`embedded store failed writing its log, refusing writes until reopened: ${message}`);
    const q = this.queue;
    for (let i = this.queueHead; i < q.length; i++) q[i]!.reject(this.failure);
    this.queue = [];
    this.queueHead = 0;
    this.accHasRecords = false;
    this.hooks.onFailed(this.failure);
  }
}
