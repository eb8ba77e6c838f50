/**
 * TrackedResponse wraps the front end's ApiResponse for one request so the
 * chain knows what was written (status, whether headers went out, whether the
 * response ended), the way the original's timeout writer and httplog response
 * recorder wrap http.ResponseWriter.
 *
 * It also lets one party take the response away from the handler: after
 * `takeOver()` (a timeout, a watch expiring, an error after the handler gave
 * up) the handler's writes are dropped and `closed` reads true, so a handler
 * still running in the background cannot corrupt the answer already sent.
 */
import { AUDIT_ID_HEADER, type ApiResponse } from '../http.ts';
import { copyOf } from '../../api/object-copy.ts';
import type { RequestContext } from '../context.ts';

type Headers = Readonly<Record<string, string | string[]>>;

export class TrackedResponse implements ApiResponse {
  /** The status sent, 0 until headers go out. */
  status = 0;
  headWritten = false;
  ended = false;
  /** Sees every body chunk the handler writes (audit at RequestResponse level); unset for nearly every request. */
  bodyTap: ((chunk: Uint8Array | string) => void) | undefined;
  /**
   * Headers added to whatever head goes out (the audit filter's Audit-Id, the
   * priority level's UIDs); unset for most requests. Add them with
   * addHeader/addHeaders: a shared object is copied before it is added to.
   */
  extraHeaders: Readonly<Record<string, string>> | undefined;
  /**
   * The request's audit ID, sent as `Audit-Id` on whatever head goes out: the
   * original's WithAuditInit answers every request with it, audited or not.
   */
  auditID: string | undefined;
  /** extraHeaders is this response's own object (may be added to in place). */
  #ownsExtra = false;
  /** Set once the response was taken away from the handler. */
  sealed = false;
  /** True once the response ended or the client went away. */
  finished = false;
  /**
   * True once the front end said the exchange is over. Not the same as
   * `finished`: a response that ended may still have bytes queued by
   * reference in its front end (a slow client's), and whoever waits for
   * onClose to reuse those bytes' memory (a streamed list's pooled pieces)
   * must wait for this.
   */
  #innerClosed = false;
  /**
   * Ask the front end to close the connection after this response
   * (`Connection: close`; HTTP/2: GOAWAY): the shutdown and goaway filters
   * set it before the handler writes its head.
   */
  closeConnection = false;

  readonly #inner: ApiResponse;
  // Made on first use: most responses have a listener or two of one kind, and none of the others.
  #headListeners: ((status: number) => void)[] | undefined;
  #closeListeners: (() => void)[] | undefined;
  #finishListeners: (() => void)[] | undefined;
  #pendingDrains: (() => void)[] | undefined;

  constructor(inner: ApiResponse) {
    this.#inner = inner;
    // One registration on the front end, fanned out here: the contract does
    // not promise more than one onClose callback per response.
    inner.onClose(() => this.#closed());
  }

  get closed(): boolean {
    return this.sealed || this.#inner.closed;
  }

  get bufferedBytes(): number {
    return this.#inner.bufferedBytes;
  }

  writeHead(status: number, headers: Headers): void {
    if (this.sealed) return;
    this.#head(status, headers);
  }

  destroy(): void {
    this.#inner.destroy();
  }

  flushHead(): boolean {
    if (this.sealed) return true;
    if (!this.headWritten) this.#head(200, {});
    return this.#inner.flushHead();
  }

  write(chunk: Uint8Array): boolean {
    // A sealed response swallows writes; report "keep going" so no one waits
    // for a drain that will never come (they see `closed` and stop).
    if (this.sealed) return true;
    if (!this.headWritten) this.#head(200, {}); // an implicit 200, as in Go, so the tracker never misses a status
    this.bodyTap?.(chunk);
    return this.#inner.write(chunk);
  }

  onDrain(cb: () => void): void {
    if (this.sealed) {
      queueMicrotask(cb);
      return;
    }
    let called = false;
    const once = (): void => {
      if (called) return;
      called = true;
      this.#pendingDrains = this.#pendingDrains?.filter((d) => d !== once);
      cb();
    };
    (this.#pendingDrains ??= []).push(once);
    this.#inner.onDrain(once);
  }

  /** Runs `cb` once the front end closed the exchange (everything sent, or the client gone), never merely at end(). */
  onClose(cb: () => void): void {
    if (this.#innerClosed) {
      queueMicrotask(cb);
      return;
    }
    (this.#closeListeners ??= []).push(cb);
  }

  end(chunk?: Uint8Array | string): void {
    if (this.sealed) return;
    this.#end(chunk);
  }

  endParts(parts: readonly Uint8Array[]): void {
    if (this.sealed) return;
    this.#endParts(parts);
  }

  /**
   * Takes the response away from the handler and returns a writer for the
   * caller. Pending drain waiters are released so a blocked handler wakes up,
   * sees `closed`, and stops.
   */
  takeOver(): ApiResponse {
    this.sealed = true;
    const drains = this.#pendingDrains;
    this.#pendingDrains = undefined;
    if (drains !== undefined) for (const d of drains) queueMicrotask(d);
    const inner = this.#inner;
    return {
      get closed() {
        return inner.closed;
      },
      get bufferedBytes() {
        return inner.bufferedBytes;
      },
      writeHead: (status, headers) => this.#head(status, headers),
      write: (chunk) => {
        if (!this.headWritten) this.#head(200, {});
        return inner.write(chunk);
      },
      flushHead: () => {
        if (!this.headWritten) this.#head(200, {});
        return inner.flushHead();
      },
      destroy: () => inner.destroy(),
      onDrain: (cb) => inner.onDrain(cb),
      onClose: (cb) => this.onClose(cb),
      end: (chunk) => this.#end(chunk),
      endParts: (parts) => this.#endParts(parts),
    };
  }

  /** Adds one header to whatever head goes out. */
  addHeader(name: string, value: string): void {
    this.#ownExtra()[name] = value;
  }

  /**
   * Adds headers to whatever head goes out. `headers` may be shared by many
   * responses (a route's constant set): it is kept as it is while it is the
   * only set, and copied once another set joins it.
   */
  addHeaders(headers: Readonly<Record<string, string>>): void {
    if (this.extraHeaders === undefined) {
      this.extraHeaders = headers;
      return;
    }
    Object.assign(this.#ownExtra(), headers);
  }

  #ownExtra(): Record<string, string> {
    if (!this.#ownsExtra) {
      this.extraHeaders = copyOf(this.extraHeaders ?? {});
      this.#ownsExtra = true;
    }
    return this.extraHeaders as Record<string, string>;
  }

  /** Runs `cb` with the status when headers go out (at once if they already did). */
  onHeadWritten(cb: (status: number) => void): void {
    if (this.headWritten) cb(this.status);
    else (this.#headListeners ??= []).push(cb);
  }

  /** Runs `cb` once the response ended or the client went away (at once if already so). */
  onFinished(cb: () => void): void {
    if (this.finished) cb();
    else (this.#finishListeners ??= []).push(cb);
  }

  #head(status: number, headers: Headers): void {
    if (this.headWritten) return; // a second writeHead is a bug upstream; the first one already went out
    this.headWritten = true;
    this.status = status;
    const listeners = this.#headListeners;
    this.#headListeners = undefined;
    if (listeners !== undefined) for (const l of listeners) l(status);
    const extra = this.extraHeaders;
    const id = this.auditID;
    // Merged by copy and assignment: spreads followed by a member new to them are slow on Node 20 (api/object-copy.ts).
    let head = headers;
    if (extra !== undefined || id !== undefined || this.closeConnection) {
      const merged = copyOf(headers) as Record<string, string | string[]>;
      if (extra !== undefined) Object.assign(merged, extra);
      if (id !== undefined) merged[AUDIT_ID_HEADER] = id;
      if (this.closeConnection) merged['connection'] = 'close';
      head = merged;
    }
    this.#inner.writeHead(status, head);
  }

  #end(chunk?: Uint8Array | string): void {
    if (this.ended) return;
    if (!this.headWritten) this.#head(200, {});
    this.ended = true;
    if (chunk !== undefined) this.bodyTap?.(chunk);
    if (chunk === undefined) this.#inner.end();
    else this.#inner.end(chunk);
    this.#finish();
  }

  #endParts(parts: readonly Uint8Array[]): void {
    if (this.ended) return;
    if (!this.headWritten) this.#head(200, {});
    this.ended = true;
    if (this.bodyTap !== undefined) for (const p of parts) this.bodyTap(p);
    this.#inner.endParts(parts);
    this.#finish();
  }

  #closed(): void {
    this.#innerClosed = true;
    this.#finish();
    const listeners = this.#closeListeners;
    this.#closeListeners = undefined;
    if (listeners !== undefined) for (const l of listeners) l();
  }

  #finish(): void {
    if (this.finished) return;
    this.finished = true;
    const listeners = this.#finishListeners;
    this.#finishListeners = undefined;
    if (listeners !== undefined) for (const l of listeners) l();
  }
}

/**
 * The TrackedResponse of a request. The chain always builds contexts with
 * one; anything else means the chain was wired wrong (the original answers
 * "handler chain must be wrong" in the same situation).
 */
export function trackedResponse(ctx: RequestContext): TrackedResponse {
  const res = ctx.res;
  if (!(res instanceof TrackedResponse)) throw new Error('request context without a TrackedResponse: handler chain must be wrong');
  return res;
}
