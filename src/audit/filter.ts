/**
 * The audit filter, where the original's WithAudit sits: just inside
 * authentication (the policy matches the authenticated user), around
 * impersonation, authorization and the handler, so the event sees who acted
 * as whom, the authorizer's decision and admission's annotations.
 *
 * Stages: RequestReceived when the request comes in; ResponseStarted when a
 * long-running request (watch, ...) sends its head; ResponseComplete once the
 * response ended; Panic instead when the handler failed with an error of the
 * server's making.
 *
 * Cost: a request whose rule is None pays one policy evaluation (Set
 * lookups). Otherwise, with batch-mode backends, the request pays for a small
 * record and a queue push per stage; the events are built and handed to the
 * backends a moment later (BATCH_GATHER_MS), many requests' at once, off the
 * response path. Blocking backends make the request wait for its events.
 */
import type { Filter, Next, RequestContext } from '../server/context.ts';
import type { Logger } from '../server/logging.ts';
import { trackedResponse, type TrackedResponse } from '../server/filters/tracked-response.ts';
import { errors } from '../api/status.ts';
import { writeStatus } from '../server/filters/write-status.ts';
import { buildEvent, type AuditRecord } from './event.ts';
import { entryOf, jsonEntry } from './entry.ts';
import { LineWriter, buffersOf, recycle } from './lines.ts';
import { writeMetadataLine } from './metadata-lines.ts';
import { eventJson } from './serialize.ts';
import type { PolicyChecker } from './policy.ts';
import { EVENT_QUEUED, type AuditSink } from './sink.ts';
import { tapRequestBody } from './tapped-request.ts';
import { levelAtLeast, type AuditMetrics, type Stage } from './types.ts';

/** How long a stopping thread waits for its audited requests to end before it hands over their events. */
const FLUSH_WAIT_MS = 1500;

/** Batch mode: how long events gather before they are built and handed over. */
const BATCH_GATHER_MS = 2;

/** The first buffer of the lines gathering (BATCH_GATHER_MS of a busy thread's Metadata lines, ~800 bytes each). */
const LINES_BUFFER_BYTES = 64 * 1024;

/** Responses kept for RequestResponse events up to this size (the original's truncate limit per batch). */
const MAX_CAPTURED_RESPONSE_BYTES = 10 * 1024 * 1024;

export interface AuditFilterDeps {
  readonly checker: PolicyChecker;
  readonly sink: AuditSink;
  readonly logger: Logger;
  /** The audit counts (apiserver_audit_*); none in unit tests. */
  readonly metrics?: AuditMetrics | undefined;
}

/** The audit filter and the means to hand over at once the events it has not yet built. */
export interface AuditFilter {
  readonly filter: Filter;
  /**
   * At shutdown: waits (at most `timeoutMs`) until every audited request
   * has ended (a watch cut by its listener's close ends a few turns later),
   * then builds and hands to the sink every event waiting for the next turn.
   */
  flush(timeoutMs?: number): Promise<void>;
}

export function withAudit(deps: AuditFilterDeps): AuditFilter {
  const { checker, sink, logger, metrics } = deps;
  // Batch mode: events made and handed over a moment later, many requests' at once.
  let pending: { rec: AuditRecord; stage: Stage; at: number }[] = [];
  let timer: NodeJS.Timeout | undefined;
  /** Lines written since the last flush (sinks that take lines). */
  let lines: LineWriter | undefined;
  const schedule = (): void => {
    if (timer === undefined) {
      // Not the next turn: a turn holds a few requests, and each flush pays for a buffer and, from a
      // front-end thread, a message. The server's stop flushes what is gathered (flushAll).
      timer = setTimeout(flush, BATCH_GATHER_MS);
      timer.unref();
    }
  };
  /** The writer of the lines gathering now. */
  const writer = (): LineWriter => {
    schedule();
    return (lines ??= new LineWriter(LINES_BUFFER_BYTES));
  };
  const flush = (): void => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    const jobs = pending;
    pending = [];
    if (sink.acceptsLines) {
      // The log alone: the events as one set of encoded lines (lines.ts), Metadata ones from parts
      // encoded once (metadata-lines.ts).
      for (const { rec, stage, at } of jobs) {
        try {
          lines ??= new LineWriter(LINES_BUFFER_BYTES);
          if (rec.level === 'Metadata') writeMetadataLine(lines, rec, stage, at);
          else lines.line(eventJson(rec, stage, at));
        } catch (err) {
          logger.error({ err }, 'audit event could not be built');
        }
      }
      const gathered = lines;
      lines = undefined;
      if (gathered !== undefined) {
        const taken = gathered.take();
        // Written (or dropped): the buffers serve the next lines. A sink that sends them away never calls this.
        sink.processLines(taken, () => recycle(buffersOf(taken)));
      }
      return;
    }
    for (const { rec, stage, at } of jobs) {
      try {
        const written = sink.process(jsonEntry(eventJson(rec, stage, at)));
        if (written !== EVENT_QUEUED) written.catch(failed);
      } catch (err) {
        logger.error({ err }, 'audit event could not be built');
      }
    }
  };
  const later = (rec: AuditRecord, stage: Stage, at: number): void => {
    pending.push({ rec, stage, at });
    schedule();
  };
  /** Audited requests whose last event is not yet emitted, and who waits for there to be none. */
  let open = 0;
  let idle: (() => void)[] = [];
  const ended = (): void => {
    if (--open > 0 || idle.length === 0) return;
    const waiters = idle;
    idle = [];
    for (const w of waiters) w();
  };
  const flushAll = async (timeoutMs = FLUSH_WAIT_MS): Promise<void> => {
    if (open > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([new Promise<void>((r) => idle.push(r)), new Promise<void>((r) => (timer = setTimeout(r, timeoutMs)))]);
      clearTimeout(timer);
    }
    flush();
  };
  const failed = (err: unknown): void => {
    logger.error({ err: err instanceof Error ? err.message : String(err) }, 'audit event not written');
  };

  const filter: Filter = (ctx, next) => {
    const info = ctx.info;
    if (info === undefined) throw new Error('audit without request info: handler chain must be wrong');
    const cfg = checker.evaluate({
      user: ctx.user,
      verb: info.verb,
      isResourceRequest: info.isResourceRequest,
      path: info.path,
      namespace: info.namespace,
      apiGroup: info.apiGroup,
      resource: info.resource,
      subresource: info.subresource,
      name: info.name,
    });
    metrics?.level(cfg.level);
    if (cfg.level === 'None') return next(ctx);
    const rec: AuditRecord = {
      ctx,
      level: cfg.level,
      omitManagedFields: cfg.omitManagedFields,
      receivedAt: Date.now(),
      remoteAddress: ctx.req.remoteAddress,
      requestBody: undefined,
      responseChunks: undefined,
      responseBytes: 0,
    };
    // The response's Audit-Id header (set for every request by the chain) names the events.
    const res = trackedResponse(ctx);
    open++;
    const omit = cfg.omitStages;
    if (sink.acceptsLines && cfg.level === 'Metadata' && !ctx.longRunning) {
      // The common case, a short request audited at Metadata to the log alone: both lines are written
      // once the response ended (RequestReceived as it was at arrival: serialize.ts `shared`), into the
      // lines gathering now; nothing is kept per event meanwhile.
      const received = !omit.has('RequestReceived');
      res.onFinished(() => {
        const stage: Stage = ctx.panicked ? 'Panic' : 'ResponseComplete';
        const complete = !omit.has(stage);
        try {
          const w = writer();
          if (received) writeMetadataLine(w, rec, 'RequestReceived', rec.receivedAt);
          if (complete) writeMetadataLine(w, rec, stage, Date.now());
          if (received) metrics?.event();
          if (complete) metrics?.event();
        } catch (err) {
          logger.error({ err }, 'audit event could not be built');
        }
        ended();
      });
      return next(ctx);
    }
    if (!sink.blocking) {
      // Batch mode: nothing waits for an event, so no async frame either; the events are queued for the
      // turn's end (later) when the request arrives, when a watch's head goes out, and when the response ended.
      if (!omit.has('RequestReceived')) {
        metrics?.event();
        later(rec, 'RequestReceived', rec.receivedAt);
      }
      if (levelAtLeast(cfg.level, 'Request')) ctx.req = tapRequestBody(ctx.req, (body) => (rec.requestBody = body));
      if (cfg.level === 'RequestResponse' && !ctx.longRunning) captureResponse(ctx, rec);
      if (ctx.longRunning && !omit.has('ResponseStarted')) {
        res.onHeadWritten(() => {
          metrics?.event();
          later(rec, 'ResponseStarted', Date.now());
        });
      }
      res.onFinished(() => {
        const stage = ctx.panicked ? 'Panic' : 'ResponseComplete';
        if (!omit.has(stage)) {
          metrics?.event();
          later(rec, stage, Date.now());
        }
        ended();
      });
      return next(ctx);
    }
    return blockingRequest(ctx, next, rec, omit, res);
  };

  /** A request whose events the backends write before it goes on (blocking modes). */
  const blockingRequest = async (ctx: RequestContext, next: Next, rec: AuditRecord, omit: ReadonlySet<Stage>, res: TrackedResponse): Promise<void> => {
    /** Writes a stage's event; the promise of its write. */
    const emit = (stage: Stage): Promise<void> | undefined => {
      if (omit.has(stage)) return undefined;
      metrics?.event();
      return sink.process(jsonEntry(eventJson(rec, stage, Date.now())));
    };
    const received = emit('RequestReceived');
    if (received !== undefined) {
      try {
        await received;
      } catch {
        // blocking-strict: a request whose arrival cannot be recorded is not served (the original answers 500).
        metrics?.rejected();
        writeStatus(ctx.res, errors.internal('failed to store audit event'));
        ended();
        return;
      }
    }
    if (levelAtLeast(rec.level, 'Request')) ctx.req = tapRequestBody(ctx.req, (body) => (rec.requestBody = body));
    if (rec.level === 'RequestResponse' && !ctx.longRunning) captureResponse(ctx, rec);
    let started: Promise<void> | undefined;
    if (ctx.longRunning) res.onHeadWritten(() => (started = emit('ResponseStarted')?.catch(failed)));
    try {
      await next(ctx);
    } finally {
      // The event comes once the response ended: a watch ends long after the handler returned, and an
      // error thrown out of here is answered by panic recovery further out.
      const complete = (): Promise<void> | undefined => emit(ctx.panicked ? 'Panic' : 'ResponseComplete');
      if (res.finished) {
        await started;
        await complete()?.catch(failed);
        ended();
      } else {
        const completeLogged = (): void => {
          void complete()?.catch(failed);
          ended();
        };
        res.onFinished(() => (started === undefined ? completeLogged() : void started.then(completeLogged)));
      }
    }
  };
  return { filter, flush: flushAll };
}

/** Keeps the response body's chunks for the RequestResponse event, up to a bound. */
function captureResponse(ctx: RequestContext, rec: AuditRecord): void {
  const res = trackedResponse(ctx);
  rec.responseChunks = [];
  res.bodyTap = (chunk) => {
    if (rec.responseChunks === undefined) return;
    rec.responseBytes += chunk.length;
    if (rec.responseBytes > MAX_CAPTURED_RESPONSE_BYTES) {
      rec.responseChunks = undefined;
      return;
    }
    // Handlers may reuse their buffers after a write: keep a copy.
    rec.responseChunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk));
  };
}

/**
 * The original's WithFailedAuthenticationAudit: a request refused with 401
 * never reaches withAudit (it sits inside authentication), so this filter,
 * just outside authentication, records it as one ResponseStarted event with
 * no user, at the level the policy gives a request without one.
 */
export function withFailedAuthenticationAudit(deps: AuditFilterDeps): Filter {
  const { checker, sink, logger, metrics } = deps;
  return (ctx, next) => {
    const receivedAt = Date.now();
    const res = trackedResponse(ctx);
    // No async frame per request: the one case that needs an event, a 401 to a request without a user, is
    // seen when its head goes out (the peer address, a native call on uWS, is read then, while the exchange
    // still knows it) and its event made once the response ended.
    res.onHeadWritten((status) => {
      if (status !== 401 || ctx.user !== undefined) return;
      const remoteAddress = ctx.req.remoteAddress;
      res.onFinished(() => {
        const info = ctx.info;
        if (ctx.user !== undefined || info === undefined) return;
        const cfg = checker.evaluate({ ...info, user: undefined });
        metrics?.level(cfg.level);
        if (cfg.level === 'None' || cfg.omitStages.has('ResponseStarted')) return;
        metrics?.event();
        const rec: AuditRecord = { ctx, level: 'Metadata', omitManagedFields: false, receivedAt, remoteAddress, requestBody: undefined, responseChunks: undefined, responseBytes: 0 };
        const ev = buildEvent(rec, 'ResponseStarted', Date.now());
        ev.level = cfg.level;
        ev.responseStatus = { metadata: {}, code: 401, status: 'Failure', message: 'Authentication failed' };
        sink.process(entryOf(ev)).catch((err: unknown) => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'audit event not written'));
      });
    });
    return next(ctx);
  };
}
