/**
 * The truncate plugin (`--audit-{log,webhook}-truncate-enabled`), as the
 * original's plugin/pkg/audit/truncate: an event whose JSON is larger than
 * `-truncate-max-event-size` (102400 bytes) first loses its request and
 * response objects and gets the annotation `audit.<suffix>/truncated: "true"`;
 * one still too large is dropped (apiserver_audit_error_total{plugin=
 * "truncate"}). The events of one write are split into batches whose JSON
 * together stays within `-truncate-max-batch-size` (10 MiB).
 *
 * Unlike the original, which wraps the buffering (so it only splits what one
 * call hands it), this wraps the backend itself, inside the buffering: the
 * batches the buffer forms are what gets split, so an EventList POSTed to a
 * webhook stays under the limit. Runs where the backends are (the main
 * thread, off every request's path).
 */
import { names } from '../naming/index.ts';
import { entryOf, type AuditEntry } from './entry.ts';
import type { AuditBackend } from './sink.ts';
import { levelAtLeast, type AuditEvent } from './types.ts';

export const TRUNCATED_ANNOTATION = `audit.${names.apiGroupSuffix}/truncated`;

export interface TruncateOptions {
  enabled: boolean;
  /** Bytes of one event's JSON (102400). */
  maxEventSize: number;
  /** Bytes of one batch's events' JSON together (10485760). */
  maxBatchSize: number;
}

export function defaultTruncateOptions(): TruncateOptions {
  return { enabled: false, maxEventSize: 102_400, maxBatchSize: 10_485_760 };
}

/** A write that lost some of its events; the rest were written. */
export class AuditWriteError extends Error {
  constructor(
    message: string,
    readonly lostEvents: number,
  ) {
    super(message);
  }
}

/** Events lost by a plugin (counted as apiserver_audit_error_total{plugin}). */
export type LostEvents = (plugin: string, events: number, err: Error) => void;

function eventSize(e: AuditEntry): number {
  return Buffer.byteLength(e.json, 'utf8');
}

/** The event without its objects, marked as truncated (a shallow copy: other backends keep the original). */
function truncated(ev: AuditEvent): AuditEvent {
  const { requestObject: _req, responseObject: _res, ...rest } = ev;
  return { ...rest, annotations: { ...ev.annotations, [TRUNCATED_ANNOTATION]: 'true' } };
}

export class TruncatingBackend implements AuditBackend {
  readonly name: string;
  readonly pipelined: boolean | undefined;

  constructor(
    readonly inner: AuditBackend,
    readonly opts: TruncateOptions,
    readonly lost: LostEvents,
  ) {
    this.name = inner.name;
    this.pipelined = inner.pipelined;
  }

  /** The events as the inner backend gets them: truncated or dropped, and split into batches. */
  split(events: readonly AuditEntry[]): { batches: AuditEntry[][]; dropped: number } {
    const { maxEventSize, maxBatchSize } = this.opts;
    const batches: AuditEntry[][] = [];
    let batch: AuditEntry[] = [];
    let batchSize = 0;
    let dropped = 0;
    for (let ev of events) {
      let size = eventSize(ev);
      // Only events that carry objects have something to strip.
      if (size > maxEventSize && levelAtLeast(ev.event().level, 'Request')) {
        ev = entryOf(truncated(ev.event()));
        size = eventSize(ev);
      }
      if (size > maxEventSize) {
        dropped++;
        continue;
      }
      if (batch.length > 0 && batchSize + size > maxBatchSize) {
        batches.push(batch);
        batch = [];
        batchSize = 0;
      }
      batchSize += size;
      batch.push(ev);
    }
    if (batch.length > 0) batches.push(batch);
    return { batches, dropped };
  }

  async write(events: readonly AuditEntry[]): Promise<void> {
    const { batches, dropped } = this.split(events);
    if (dropped > 0) this.lost('truncate', dropped, new Error(`${dropped} audit events too large even after truncating (over ${this.opts.maxEventSize} bytes)`));
    let failed = 0;
    let first: unknown;
    // In order, one batch after another: a webhook receives the events as they came.
    for (const batch of batches) {
      try {
        await this.inner.write(batch);
      } catch (err) {
        failed += batch.length;
        first ??= err;
      }
    }
    if (failed > 0) throw new AuditWriteError(first instanceof Error ? first.message : String(first), failed);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
