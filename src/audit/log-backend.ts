/**
 * The log backend (`--audit-log-path`): one line per event, as JSON (one
 * Event object) or in the original's legacy format, to stdout (`-`) or to a
 * file (0600) rotated as the original's lumberjack logger does: past
 * `--audit-log-maxsize` MB (0 means lumberjack's 100) the file is renamed
 * `<name>-<UTC time>.<ext>` and a new one opened; backups beyond
 * `--audit-log-maxbackup` or older than `--audit-log-maxage` days are removed
 * (0: no limit). With `--audit-log-compress` the backups are gzipped
 * (`<name>-<time><ext>.gz`, 0600) after each rotation, off the write path
 * as lumberjack's mill does; removal counts them as backups too.
 *
 * One writer per file: only the main thread owns this backend; front-end
 * threads send their events there (remote-sink.ts).
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { chmod, open, readdir, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import type { AuditEntry } from './entry.ts';
import type { EncodedLines } from './lines.ts';
import type { AuditBackend } from './sink.ts';
import type { AuditEvent } from './types.ts';

export type LogFormat = 'json' | 'legacy';
export const LOG_FORMATS: readonly LogFormat[] = ['json', 'legacy'];

export interface LogBackendOptions {
  path: string;
  format: LogFormat;
  /** Megabytes; 0 means 100 (lumberjack's default). */
  maxSizeMB: number;
  /** Backups kept; 0 keeps all. */
  maxBackups: number;
  /** Days a backup is kept; 0 keeps it forever. */
  maxAgeDays: number;
  /** gzip the backups (lumberjack's Compress). */
  compress?: boolean;
  /** Told when the backups' clean-up or compression after a rotation failed (writing goes on). */
  onError?: (err: unknown) => void;
  /**
   * Milliseconds lines gather before a write (batch mode: nobody waits for
   * them, and each write costs the serving thread about 15 µs whatever its
   * size); 0 or absent: the lines of one turn of the event loop go together
   * (blocking modes: requests wait for their lines).
   */
  coalesceMs?: number;
}

/** Go's %q for the strings of a legacy line. */
function q(s: string): string {
  return JSON.stringify(s);
}

/** Go's time.RFC3339Nano: trailing zeros of the fraction dropped. */
function rfc3339Nano(micro: string): string {
  return micro.replace(/\.?0+Z$/, 'Z');
}

/** The original's audit.EventString (legacy format). */
export function legacyLine(ev: AuditEvent): string {
  let username = '<none>';
  let groups = '<none>';
  if (ev.user.username !== '') {
    username = ev.user.username;
    if (ev.user.groups !== undefined && ev.user.groups.length > 0) groups = ev.user.groups.map(q).join(',');
  }
  let asuser = '<self>';
  let asgroups = '<lookup>';
  if (ev.impersonatedUser !== undefined) {
    asuser = ev.impersonatedUser.username;
    if (ev.impersonatedUser.groups !== undefined) asgroups = ev.impersonatedUser.groups.map(q).join(',');
  }
  const namespace = ev.objectRef?.namespace || '<none>';
  const response = ev.responseStatus !== undefined ? String(ev.responseStatus.code) : '<deferred>';
  const ip = ev.sourceIPs[0] ?? '<unknown>';
  return (
    `${rfc3339Nano(ev.requestReceivedTimestamp)} AUDIT: id=${q(ev.auditID)} stage=${q(ev.stage)} ip=${q(ip)} method=${q(ev.verb)} ` +
    `user=${q(username)} groups=${q(groups)} as=${q(asuser)} asgroups=${q(asgroups)} user-agent=${q(ev.userAgent ?? '')} ` +
    `namespace=${q(namespace)} uri=${q(ev.requestURI)} response="${response}"`
  );
}

export function formatEvents(events: readonly AuditEntry[], format: LogFormat): string {
  let out = '';
  // JSON: the entries' own text, made once where the event was (no object is encoded here).
  if (format === 'json') for (const e of events) out += `${e.json}\n`;
  else for (const e of events) out += `${legacyLine(e.event())}\n`;
  return out;
}

/** `2006-01-02T15-04-05.000` in UTC, lumberjack's backup time format. */
function backupStamp(d: Date): string {
  return d.toISOString().replace(/:/g, '-').replace(/Z$/, '');
}

const STAMP_RE = /^(\d{4}-\d{2}-\d{2})T(\d{2})-(\d{2})-(\d{2})\.(\d{3})$/;

export class LogBackend implements AuditBackend {
  readonly name = 'log';
  /** Writes are queued in order and joined (group commit): batch boundaries are invisible in the file. */
  readonly pipelined = true;
  readonly #opts: LogBackendOptions;
  #fh: FileHandle | undefined;
  #size = 0;
  /** Bytes waiting for the next write, in order. */
  #pending: Uint8Array[] = [];
  #waiters: { resolve: () => void; reject: (err: unknown) => void }[] = [];
  #writing = false;
  /** A write is scheduled (a timer or the next turn). */
  #scheduled = false;
  #timer: NodeJS.Timeout | undefined;
  #closing = false;
  #idle: (() => void)[] = [];
  #lastRotation = 0;
  /** The backups' clean-up and compression after the last rotation (one at a time, awaited by close). */
  #mill: Promise<void> = Promise.resolve();

  private constructor(opts: LogBackendOptions) {
    this.#opts = opts;
  }

  static async open(opts: LogBackendOptions): Promise<LogBackend> {
    const b = new LogBackend(opts);
    if (opts.path !== '-') await b.#openFile();
    return b;
  }

  get #maxBytes(): number {
    return (this.#opts.maxSizeMB === 0 ? 100 : this.#opts.maxSizeMB) * 1024 * 1024;
  }

  async #openFile(): Promise<void> {
    // 0600: audit events name users, and at Request level carry object contents.
    this.#fh = await open(this.#opts.path, 'a', 0o600);
    this.#size = (await this.#fh.stat()).size;
  }

  /**
   * Appends the events' lines. Lines arriving before the write (within
   * `coalesceMs`, or the same turn) or while one is under way are joined into
   * one write (a group commit): blocking mode makes every request wait for
   * its line, and one file write per request would be the bottleneck.
   */
  write(events: readonly AuditEntry[]): Promise<void> {
    return this.#enqueue([Buffer.from(formatEvents(events, this.#opts.format), 'utf8')]);
  }

  /** JSON lines as they go to the file: what the batch-mode filters encode (lines.ts). */
  get acceptsLines(): boolean {
    return this.#opts.format === 'json';
  }

  /** Appends lines already encoded (JSON format only: see acceptsLines). */
  writeLines(lines: EncodedLines): Promise<void> {
    if (!this.acceptsLines) return Promise.reject(new Error('the legacy audit log format takes events, not JSON lines'));
    return this.#enqueue(lines.chunks);
  }

  #enqueue(chunks: readonly Uint8Array[]): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      for (const c of chunks) this.#pending.push(c);
      this.#waiters.push({ resolve, reject });
      this.#kick();
    });
  }

  #kick(): void {
    if (this.#writing || this.#scheduled) return;
    this.#scheduled = true;
    const ms = this.#closing ? 0 : (this.#opts.coalesceMs ?? 0);
    const go = (): void => {
      this.#scheduled = false;
      this.#timer = undefined;
      void this.#drain();
    };
    if (ms > 0) {
      this.#timer = setTimeout(go, ms);
      this.#timer.unref();
    } else {
      setImmediate(go);
    }
  }

  async #drain(): Promise<void> {
    if (this.#writing) return;
    this.#writing = true;
    // One write of everything gathered; what arrives meanwhile is scheduled anew.
    if (this.#pending.length > 0) {
      const chunks = this.#pending;
      const waiters = this.#waiters;
      this.#pending = [];
      this.#waiters = [];
      try {
        await this.#append(chunks);
        for (const w of waiters) w.resolve();
      } catch (err) {
        for (const w of waiters) w.reject(err);
      }
    }
    this.#writing = false;
    if (this.#pending.length > 0) this.#kick();
    const idle = this.#idle;
    this.#idle = [];
    for (const r of idle) r();
  }

  async #append(chunks: Uint8Array[]): Promise<void> {
    if (this.#opts.path === '-') {
      const bytes = Buffer.concat(chunks);
      await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
      return;
    }
    let length = 0;
    for (const c of chunks) length += c.byteLength;
    if (this.#fh === undefined) await this.#openFile();
    if (this.#size > 0 && this.#size + length > this.#maxBytes) await this.#rotate();
    // One system call for every chunk gathered (libuv writes on until all of it is in).
    const { bytesWritten } = await this.#fh!.writev(chunks);
    this.#size += bytesWritten;
  }

  async #rotate(): Promise<void> {
    await this.#fh?.close();
    this.#fh = undefined;
    const { dir, name, ext } = this.#parts();
    // Two rotations within a millisecond would overwrite a backup: step the time on.
    const t = Math.max(Date.now(), this.#lastRotation + 1);
    this.#lastRotation = t;
    await rename(this.#opts.path, path.join(dir, `${name}-${backupStamp(new Date(t))}${ext}`));
    await this.#openFile();
    if (this.#opts.compress === true) {
      // Compressing a 100 MB file takes seconds: events keep being written meanwhile.
      this.#mill = this.#mill
        .then(() => this.#cleanup())
        .then(() => this.#compressBackups())
        .catch((err: unknown) => this.#opts.onError?.(err));
    } else {
      await this.#cleanup();
    }
  }

  /** gzips every backup not yet compressed (lumberjack's compressLogFile: the plain file goes once the .gz is whole). */
  async #compressBackups(): Promise<void> {
    for (const b of await this.backups()) {
      if (b.file.endsWith('.gz')) continue;
      const dst = `${b.file}.gz`;
      try {
        await pipeline(createReadStream(b.file), createGzip(), createWriteStream(dst, { mode: 0o600 }));
        await chmod(dst, 0o600);
        await rm(b.file, { force: true });
      } catch (err) {
        await rm(dst, { force: true }).catch(() => undefined);
        throw new Error(`compressing audit log backup ${b.file}: ${(err as Error).message}`);
      }
    }
  }

  /** Resolves once the clean-up and compression started by past rotations are done (tests). */
  settled(): Promise<void> {
    return this.#mill;
  }

  #parts(): { dir: string; name: string; ext: string } {
    const dir = path.dirname(this.#opts.path);
    const ext = path.extname(this.#opts.path);
    return { dir, name: path.basename(this.#opts.path, ext), ext };
  }

  /** The backups of this log, newest first. */
  async backups(): Promise<{ file: string; time: number }[]> {
    const { dir, name, ext } = this.#parts();
    const out: { file: string; time: number }[] = [];
    for (const f of await readdir(dir)) {
      const plain = f.endsWith('.gz') ? f.slice(0, -3) : f;
      if (!plain.startsWith(`${name}-`) || !plain.endsWith(ext)) continue;
      const m = STAMP_RE.exec(plain.slice(name.length + 1, plain.length - ext.length));
      if (m === null) continue;
      out.push({ file: path.join(dir, f), time: Date.parse(`${m[1]}T${m[2]}:${m[3]}:${m[4]}.${m[5]}Z`) });
    }
    return out.sort((a, b) => b.time - a.time);
  }

  async #cleanup(): Promise<void> {
    const { maxBackups, maxAgeDays } = this.#opts;
    if (maxBackups === 0 && maxAgeDays === 0) return;
    const backups = await this.backups();
    const cutoff = Date.now() - maxAgeDays * 86_400_000;
    for (const [i, b] of backups.entries()) {
      if ((maxBackups > 0 && i >= maxBackups) || (maxAgeDays > 0 && b.time < cutoff)) await rm(b.file, { force: true });
    }
  }

  async close(): Promise<void> {
    // What is still gathering goes now.
    this.#closing = true;
    if (this.#timer !== undefined) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
      this.#scheduled = false;
    }
    while (this.#writing || this.#pending.length > 0) {
      if (this.#writing) await new Promise<void>((r) => this.#idle.push(r));
      else await this.#drain();
    }
    await this.#mill;
    await this.#fh?.close();
    this.#fh = undefined;
  }
}

/** The size of the current log file (tests). */
export async function logSize(file: string): Promise<number> {
  return (await stat(file)).size;
}
