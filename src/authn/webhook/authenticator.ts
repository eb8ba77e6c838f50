/**
 * Bearer tokens checked by a remote webhook (spec 5.3), after the
 * original's webhook token authenticator wrapped in its token cache:
 *
 * - The token (and the audiences asked for, if any) go out in a TokenReview
 *   of the configured version; the same version must come back.
 * - Authenticated: the user (username, uid, groups, extra). Not
 *   authenticated: `invalid` (401). An error, a timeout or an answer that is
 *   not a proper TokenReview is `invalid` too: never anonymous.
 * - Answers of the webhook (yes and no) are cached under a salted hash of
 *   token and audiences for --authentication-token-webhook-cache-ttl (bounded
 *   LRU); failures to get an answer are not, so an outage heals at once.
 *   Concurrent reviews of one token share one call.
 * - Audiences, as the original: when the request asks for some, they go in
 *   spec.audiences and the answer must cover one of them (status.audiences,
 *   or this server's own audiences when the webhook names none).
 */
import { hash, randomBytes } from 'node:crypto';
import type { AuthResult } from '../types.ts';
import type { TokenAuthenticator } from '../token.ts';
import { TtlLruCache } from '../cache.ts';
import type { TokenWebhookVersion } from './config.ts';
import { WebhookCallError, type TokenReviewClient } from './client.ts';
import { parseTokenReviewResponse, tokenReviewRequest, TokenReviewResponseError } from './tokenreview.ts';

export const METHOD = 'webhook';
export const DEFAULT_CACHE_ENTRIES = 10_000;
/** At most one warning line per this interval, however many reviews fail. */
const WARN_INTERVAL_MS = 10_000;

export interface WebhookLogger {
  warn(obj: object, msg: string): void;
}

export interface WebhookAuthenticatorOptions {
  readonly client: Pick<TokenReviewClient, 'review' | 'close'>;
  /** The TokenReview group (authentication.<suffix>). */
  readonly group: string;
  readonly version: TokenWebhookVersion;
  /** 0 disables caching. */
  readonly cacheTtlMs: number;
  /** This server's own audiences (--api-audiences), used when the webhook names none. */
  readonly implicitAudiences?: readonly string[];
  readonly cacheEntries?: number;
  readonly logger?: WebhookLogger;
  readonly now?: () => number;
}

function redact(text: string, token: string): string {
  return token.length >= 8 ? text.split(token).join('[redacted]') : text;
}

export class WebhookTokenAuthenticator implements TokenAuthenticator {
  readonly name = METHOD;
  /** The webhook judges audiences itself (TokenReview passes them; token-review.ts). */
  readonly audienceAware = true;
  readonly #o: WebhookAuthenticatorOptions;
  readonly #cache: TtlLruCache<string, AuthResult> | undefined;
  readonly #inflight = new Map<string, Promise<AuthResult>>();
  /** Per-process salt of the cache keys. */
  readonly #salt = randomBytes(16).toString('base64');
  readonly #now: () => number;
  #lastWarn = Number.NEGATIVE_INFINITY;
  #suppressed = 0;

  constructor(options: WebhookAuthenticatorOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
    this.#cache = options.cacheTtlMs > 0 ? new TtlLruCache({ maxEntries: options.cacheEntries ?? DEFAULT_CACHE_ENTRIES, now: this.#now }) : undefined;
  }

  authenticateToken(token: string, _signal?: AbortSignal, wanted?: readonly string[]): Promise<AuthResult> | AuthResult {
    const audiences = wanted ?? [];
    // Audiences are part of the key: the same token may be good for one and not another. JSON keeps them apart.
    const key = hash('sha256', audiences.length === 0 ? `${this.#salt}\0${token}` : `${this.#salt}\0${token}\0${JSON.stringify(audiences)}`, 'base64');
    const cached = this.#cache?.get(key);
    if (cached !== undefined) return cached;
    let pending = this.#inflight.get(key);
    if (pending === undefined) {
      // Not tied to one request's signal: others may be waiting on the same call. The client has its own deadline.
      pending = this.#review(token, audiences, key).finally(() => this.#inflight.delete(key));
      this.#inflight.set(key, pending);
    }
    return pending;
  }

  async #review(token: string, audiences: readonly string[], key: string): Promise<AuthResult> {
    let answer: unknown;
    try {
      answer = await this.#o.client.review(tokenReviewRequest(this.#o.group, this.#o.version, token, audiences));
    } catch (err) {
      // The webhook's own text (a Status message) could echo the token back: mask it before it goes anywhere.
      const message = redact(err instanceof WebhookCallError ? err.message : 'internal error', token);
      this.#warn(message);
      return { kind: 'invalid', message: `webhook: ${message}` };
    }
    let result: AuthResult;
    try {
      const outcome = parseTokenReviewResponse(answer, this.#o.group, this.#o.version);
      let valid: string[] | undefined;
      if (audiences.length > 0) {
        const got = outcome.audiences.length > 0 ? outcome.audiences : (this.#o.implicitAudiences ?? []);
        valid = audiences.filter((a, i) => got.includes(a) && audiences.indexOf(a) === i);
        if (valid.length === 0) {
          result = { kind: 'invalid', message: 'webhook: token not valid for the requested audiences' };
          this.#store(key, result);
          return result;
        }
      }
      result =
        outcome.authenticated && outcome.user !== undefined
          ? Object.freeze({ kind: 'user', user: outcome.user, method: METHOD, ...(valid !== undefined ? { audiences: valid } : {}) })
          : { kind: 'invalid', message: outcome.error !== undefined ? `webhook: ${redact(outcome.error, token)}` : 'webhook: token not authenticated' };
    } catch (err) {
      const message = err instanceof TokenReviewResponseError ? err.message : 'internal error';
      this.#warn(message);
      return { kind: 'invalid', message: `webhook: ${message}` };
    }
    this.#store(key, result);
    return result;
  }

  #store(key: string, result: AuthResult): void {
    this.#cache?.set(key, result, this.#now() + this.#o.cacheTtlMs);
  }

  #warn(message: string): void {
    const now = this.#now();
    if (now - this.#lastWarn < WARN_INTERVAL_MS) {
      this.#suppressed++;
      return;
    }
    this.#o.logger?.warn({ err: message, suppressed: this.#suppressed }, 'Failed to make webhook authenticator request');
    this.#lastWarn = now;
    this.#suppressed = 0;
  }

  close(): void {
    this.#o.client.close();
    this.#cache?.clear();
  }
}
