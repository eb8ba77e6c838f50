/**
 * Which key each retained revision wrote, in revision order. Watches replay
 * history from it, and compaction uses it to visit only the keys written in
 * the range being compacted instead of scanning every key.
 */
export class ChangeLog {
  private revs: number[] = [];
  private keys: string[] = [];
  /** Index of the first live entry; trimmed entries before it are dropped lazily. */
  private start = 0;

  get length(): number {
    return this.revs.length - this.start;
  }

  /** Absolute index one past the last entry. */
  get endIndex(): number {
    return this.revs.length;
  }

  get startIndex(): number {
    return this.start;
  }

  push(revision: number, key: string): void {
    this.revs.push(revision);
    this.keys.push(key);
  }

  revAt(i: number): number {
    return this.revs[i]!;
  }

  keyAt(i: number): string {
    return this.keys[i]!;
  }

  /** Absolute index of the first entry with a revision greater than `revision`. */
  firstAfter(revision: number): number {
    let lo = this.start;
    let hi = this.revs.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.revs[mid]! <= revision) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Drop the entries with revisions <= `revision`. */
  trimThrough(revision: number): void {
    this.start = this.firstAfter(revision);
    // Reclaim the dead prefix once it dominates, keeping trims amortised O(1).
    if (this.start > 1024 && this.start * 2 > this.revs.length) {
      this.revs = this.revs.slice(this.start);
      this.keys = this.keys.slice(this.start);
      this.start = 0;
    }
  }

  /** Rebuild from unordered entries (snapshot load). */
  static fromEntries(entries: Array<{ rev: number; key: string }>): ChangeLog {
    entries.sort((a, b) => a.rev - b.rev);
    const log = new ChangeLog();
    for (const e of entries) log.push(e.rev, e.key);
    return log;
  }
}
