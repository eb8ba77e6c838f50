/**
 * RequestContext carries one request through the filter chain. Filters share
 * data only through its typed fields (request info, user, deadline), in the
 * manner of the original's request context.
 */
import { randomUUID } from 'node:crypto';
import { AUDIT_ID_HEADER, type ApiRequest, type ApiResponse } from './http.ts';
import { thenMaybe } from '../api/maybe-promise.ts';

/** A client-sent Audit-ID is kept only if short and plain (it goes into logs). */
const SANE_AUDIT_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** What the request is about, parsed from its path, method and query (filters/with-request-info.ts). */
export interface RequestInfo {
  /** True for paths under /api/<v>/... and /apis/<g>/<v>/... naming a resource. */
  readonly isResourceRequest: boolean;
  readonly path: string;
  /**
   * API verb (get, list, watch, create, update, patch, delete,
   * deletecollection, ...) for resource requests; the lower-case HTTP method
   * for non-resource requests.
   */
  readonly verb: string;
  /** 'api', 'apis' or '' (non-resource). */
  readonly apiPrefix: string;
  /** '' for the core group. */
  readonly apiGroup: string;
  readonly apiVersion: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
  /** Path segments after the group/version, for handlers that need more. */
  readonly parts: readonly string[];
}

export interface UserInfo {
  readonly name: string;
  readonly uid?: string | undefined;
  readonly groups: readonly string[];
  readonly extra?: Readonly<Record<string, readonly string[]>> | undefined;
}

const EMPTY_ANNOTATIONS: ReadonlyMap<string, string> = new Map();

export class RequestContext {
  /** Set by with-request-info. */
  info: RequestInfo | undefined;
  /** Set by with-authentication; replaced by with-impersonation with the identity the request acts as. */
  user: UserInfo | undefined;
  /** The authenticated caller when the request impersonates someone else (`user`); for logs and audit. */
  impersonator: UserInfo | undefined;
  /** Monotonic start time (performance.now()), for latency metrics and logs. */
  readonly startedAt = performance.now();
  /** Long-running requests (watch, exec, proxy) are exempt from the request timeout and in-flight limits. */
  longRunning = false;
  /** Epoch ms after which the request must be answered (with-timeout); undefined for long-running ones. */
  deadline: number | undefined;
  /** The HTTP status finally sent, for logs and metrics. */
  status = 0;
  /** Warnings to send as `Warning` headers (deprecations, ...). */
  readonly warnings: string[] = [];
  /** The authorizer's answer (with-authorization), for the audit event's decision and reason annotations. */
  authorization: { readonly decision: string; readonly reason: string } | undefined;
  /** Set when the handler failed with an error of the server's making (a Go panic): audit's Panic stage. */
  panicked = false;
  /**
   * Set by priority and fairness on a watch: the seat it holds until its
   * initial events are out. The watch handler calls watchInitialized().
   */
  onWatchInitialized: (() => void) | undefined;
  #auditAnnotations: Map<string, string> | undefined;
  #auditID: string | undefined;

  #abort: AbortController | undefined;
  /**
   * The request. Filters that must hide headers from what follows them
   * (authentication proxy headers, Impersonate-*) replace it with a masked
   * view (masked-request.ts); nothing else may.
   */
  req: ApiRequest;

  constructor(
    req: ApiRequest,
    readonly res: ApiResponse,
  ) {
    this.req = req;
  }

  /** The watch's initial events are sent (or it starts from a revision, or it ended): release what waits for that. */
  watchInitialized(): void {
    const f = this.onWatchInitialized;
    if (f === undefined) return;
    this.onWatchInitialized = undefined;
    f();
  }

  /** Admission's recorder (AdmissionRecorder): a warning for the response. */
  warn(message: string): void {
    this.warnings.push(message);
  }

  /** Admission's recorder: an audit annotation for this request's audit event (the first value of a key stays). */
  annotate(key: string, value: string): void {
    this.#auditAnnotations ??= new Map();
    if (!this.#auditAnnotations.has(key)) this.#auditAnnotations.set(key, value);
  }

  /** The audit annotations recorded so far (empty for most requests). */
  get auditAnnotations(): ReadonlyMap<string, string> {
    return this.#auditAnnotations ?? EMPTY_ANNOTATIONS;
  }

  /**
   * Aborted at the deadline or when the client goes away. Made on first use
   * and only then tied to the request's signal: most requests never look, and
   * an AbortSignal (an EventTarget) plus its listener cost microseconds each.
   */
  get abort(): AbortController {
    if (this.#abort === undefined) {
      const controller = new AbortController();
      this.#abort = controller;
      const gone = this.req.signal;
      if (gone.aborted) controller.abort(gone.reason);
      else gone.addEventListener('abort', () => controller.abort(gone.reason), { once: true });
    }
    return this.#abort;
  }

  get signal(): AbortSignal {
    return this.abort.signal;
  }

  /**
   * The request's ID for logs, as the original's audit ID: the client's
   * `Audit-ID` header when it sent a plain one, else a fresh UUID. Made on
   * first use, so requests that never log one pay nothing.
   */
  get auditID(): string {
    if (this.#auditID === undefined) {
      const sent = this.req.header(AUDIT_ID_HEADER);
      this.#auditID = sent !== undefined && SANE_AUDIT_ID.test(sent) ? sent : randomUUID();
    }
    return this.#auditID;
  }
}

/**
 * What a filter or handler returns: undefined when it finished without
 * waiting, else the promise of its end. Filters are plain functions that
 * return their `next`'s step as it is and wait only where they really do
 * (an authenticator's network call, a queue): an async function per filter
 * cost each request a promise, a suspended frame and a closure per filter,
 * kept alive while the request waits for its shard (the bulk of what a GET
 * allocated, loadtest/results/cpu-breakdown.md).
 */
export type Step = Promise<void> | undefined;

/** The rest of the chain, called with the request's context. */
export type Next = (ctx: RequestContext) => Step;

/** A step of the filter chain; calls `next(ctx)` to pass the request on and returns what it returned. */
export type Filter = (ctx: RequestContext, next: Next) => Step;

/** Composes filters outside-in: the first filter runs first and wraps the rest. Nothing is made per request. */
export function composeFilters(filters: readonly Filter[], handler: Next): Next {
  return filters.reduceRight<Next>((next, filter) => (ctx) => filter(ctx, next), handler);
}

/**
 * `try { await next(ctx) } finally { after() }` for a step that may finish
 * without a promise: `after` runs once the rest of the chain finished, threw
 * or rejected, and the outcome passes on unchanged.
 */
export function stepFinally(ctx: RequestContext, next: Next, after: () => void): Step {
  let step: Step;
  try {
    step = next(ctx);
  } catch (err) {
    after();
    throw err;
  }
  if (step === undefined) {
    after();
    return undefined;
  }
  return step.then(after, (err: unknown) => {
    after();
    throw err;
  });
}

/** Runs `then` with a value that may still be on its way (an authenticator's or authorizer's answer). */
export function stepWith<T>(value: T | PromiseLike<T>, then: (value: T) => Step): Step {
  // thenMaybe's `void` result is the undefined a step that finished in the same turn returns.
  return thenMaybe<T, void>(value, then) as Step;
}
