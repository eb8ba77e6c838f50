/**
 * The identity provider as the server sees it: its discovery document and
 * signing keys, fetched over TLS in the background and never per request.
 *
 * - Start: discovery (`{issuer}/.well-known/openid-configuration`), whose
 *   `issuer` must equal ours exactly, then the key set at its `jwks_uri`.
 *   A provider that is down does not stop the server: the attempt is
 *   retried in the background (1 s doubling to 10 s, the original's poll
 *   interval) and until it succeeds tokens for this issuer are rejected.
 * - Rotation: a token whose key (`kid`) is unknown triggers one refetch of
 *   the key set, shared by all requests waiting for it and at most once per
 *   minKeyRefreshIntervalMs, so a stream of tokens with made-up key ids
 *   cannot turn the server into a load generator against the provider.
 * - The key set is also refetched every keyRefreshIntervalMs, so keys the
 *   provider has withdrawn stop being trusted without a restart; listeners
 *   (the authenticator's cache of verified tokens) hear of a withdrawal.
 */
import { compactVerify, createLocalJWKSet, errors, type JSONWebKeySet, type LocalJWKSet } from 'jose';
import type { JsonGetter } from './https-get.ts';

export interface ProviderLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ProviderOptions {
  readonly issuerUrl: string;
  readonly getter: JsonGetter;
  readonly logger: ProviderLogger;
  /** Delays between start attempts; the last repeats. */
  readonly retryDelaysMs?: readonly number[];
  /** Least time between key refetches caused by unknown key ids. */
  readonly minKeyRefreshIntervalMs?: number;
  /** Time between background refetches of the key set (0: none). */
  readonly keyRefreshIntervalMs?: number;
  readonly now?: () => number;
}

export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000, 10_000];
export const DEFAULT_MIN_KEY_REFRESH_INTERVAL_MS = 10_000;
export const DEFAULT_KEY_REFRESH_INTERVAL_MS = 10 * 60_000;

/** Thrown by verify while discovery has not succeeded yet. */
export class ProviderNotReadyError extends Error {
  constructor() {
    super('oidc: authenticator not initialized');
  }
}

/** `{issuer}/.well-known/openid-configuration`, as go-oidc builds it (one trailing slash dropped). */
export function discoveryUrl(issuerUrl: string): string {
  return `${issuerUrl.replace(/\/$/, '')}/.well-known/openid-configuration`;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export class OidcProvider {
  readonly #o: ProviderOptions;
  readonly #now: () => number;
  #jwksUri: string | undefined;
  #keys: LocalJWKSet | undefined;
  #refreshing: Promise<boolean> | undefined;
  #lastOnDemandRefresh = Number.NEGATIVE_INFINITY;
  #timer: NodeJS.Timeout | undefined;
  #interval: NodeJS.Timeout | undefined;
  #closed = false;
  #attempt = 0;
  #starting: Promise<void> | undefined;
  readonly #onWithdrawn: Array<() => void> = [];

  constructor(options: ProviderOptions) {
    this.#o = options;
    this.#now = options.now ?? Date.now;
  }

  /** True once discovery and the first key set have been fetched. */
  get ready(): boolean {
    return this.#keys !== undefined;
  }

  /** Begins fetching in the background; resolves after the first attempt, whatever its outcome. */
  start(): Promise<void> {
    this.#starting ??= this.#tryStart();
    return this.#starting;
  }

  async #tryStart(): Promise<void> {
    if (this.#closed) return;
    try {
      const doc = await this.#o.getter.get(discoveryUrl(this.#o.issuerUrl));
      if (!isObject(doc)) throw new Error('discovery document is not a JSON object');
      if (doc['issuer'] !== this.#o.issuerUrl) {
        throw new Error(`issuer did not match the issuer returned by provider, expected ${JSON.stringify(this.#o.issuerUrl)} got ${JSON.stringify(doc['issuer'])}`);
      }
      const jwksUri = doc['jwks_uri'];
      if (typeof jwksUri !== 'string' || !jwksUri.startsWith('https://')) throw new Error('discovery document has no https jwks_uri');
      this.#jwksUri = jwksUri;
      this.#keys = await this.#fetchKeys(jwksUri);
      if (this.#closed) return;
      this.#o.logger.info({ issuer: this.#o.issuerUrl }, 'oidc: provider discovered, signing keys loaded');
      const every = this.#o.keyRefreshIntervalMs ?? DEFAULT_KEY_REFRESH_INTERVAL_MS;
      if (every > 0) {
        this.#interval = setInterval(() => void this.#refreshKeys(), every);
        this.#interval.unref();
      }
    } catch (err) {
      if (this.#closed) return;
      const delays = this.#o.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
      const delay = delays[Math.min(this.#attempt, delays.length - 1)] ?? 10_000;
      this.#attempt++;
      this.#o.logger.warn(
        { issuer: this.#o.issuerUrl, err: err instanceof Error ? err.message : String(err), retryInMs: delay },
        'oidc: provider not reachable yet; tokens for it are rejected until it is',
      );
      this.#timer = setTimeout(() => void this.#tryStart(), delay);
      this.#timer.unref();
    }
  }

  async #fetchKeys(uri: string): Promise<LocalJWKSet> {
    const doc = await this.#o.getter.get(uri);
    if (!isObject(doc) || !Array.isArray(doc['keys'])) throw new Error(`${uri}: not a JSON Web Key Set`);
    return createLocalJWKSet(doc as unknown as JSONWebKeySet);
  }

  /** Refetches the key set (one fetch however many callers); false when it failed. */
  #refreshKeys(): Promise<boolean> {
    const uri = this.#jwksUri;
    if (uri === undefined || this.#closed) return Promise.resolve(false);
    this.#refreshing ??= this.#fetchKeys(uri)
      .then((keys) => {
        const old = this.#keys;
        this.#keys = keys;
        if (old !== undefined && withdrawn(old, keys)) for (const fn of this.#onWithdrawn) fn();
        return true;
      })
      .catch((err: unknown) => {
        this.#o.logger.warn({ issuer: this.#o.issuerUrl, err: err instanceof Error ? err.message : String(err) }, 'oidc: refreshing the signing keys failed; keeping the old ones');
        return false;
      })
      .finally(() => {
        this.#refreshing = undefined;
      });
    return this.#refreshing;
  }

  /** A refetch for an unknown key id, joined if one is under way, else rate-limited. */
  async #refreshForUnknownKey(): Promise<boolean> {
    if (this.#refreshing !== undefined) return this.#refreshing;
    const now = this.#now();
    if (now - this.#lastOnDemandRefresh < (this.#o.minKeyRefreshIntervalMs ?? DEFAULT_MIN_KEY_REFRESH_INTERVAL_MS)) return false;
    this.#lastOnDemandRefresh = now;
    return this.#refreshKeys();
  }

  /**
   * Checks the token's signature with the provider's keys and an allowed
   * algorithm; returns the (not yet validated) payload bytes. Throws
   * ProviderNotReadyError before discovery, jose errors on failure.
   */
  async verifySignature(token: string, algorithms: readonly string[]): Promise<Uint8Array> {
    const keys = this.#keys;
    if (keys === undefined) throw new ProviderNotReadyError();
    try {
      return await verifyWithKeySet(token, keys, algorithms);
    } catch (err) {
      if (!(err instanceof errors.JWKSNoMatchingKey)) throw err;
      if (!(await this.#refreshForUnknownKey())) throw err;
      return verifyWithKeySet(token, this.#keys ?? keys, algorithms);
    }
  }

  /** Calls `fn` whenever a refetched key set lacks a key the previous one had. */
  onKeysWithdrawn(fn: () => void): void {
    this.#onWithdrawn.push(fn);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    if (this.#interval !== undefined) clearInterval(this.#interval);
    this.#o.getter.close();
  }
}

/** Whether `next` lacks any key of `prev` (compared as JWK JSON). */
function withdrawn(prev: LocalJWKSet, next: LocalJWKSet): boolean {
  const now = new Set(next.jwks().keys.map((k) => JSON.stringify(k)));
  return prev.jwks().keys.some((k) => !now.has(JSON.stringify(k)));
}

/** compactVerify with a key set, trying each candidate when a token without `kid` matches several keys. */
async function verifyWithKeySet(token: string, keys: LocalJWKSet, algorithms: readonly string[]): Promise<Uint8Array> {
  const options = { algorithms: [...algorithms] };
  try {
    return (await compactVerify(token, keys, options)).payload;
  } catch (err) {
    if (!(err instanceof errors.JWKSMultipleMatchingKeys)) throw err;
    for await (const key of err) {
      try {
        return (await compactVerify(token, key, options)).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}
