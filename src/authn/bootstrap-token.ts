/**
 * Bootstrap tokens (--enable-bootstrap-token-auth, spec 2.7 and 3.3):
 * `Bearer <id>.<secret>` is checked against the secret
 * `bootstrap-token-<id>` of the system namespace, as the original's
 * bootstrap token authenticator does:
 *
 * - the secret has the bootstrap token type, is not being deleted, and its
 *   `token-id` is `<id>`;
 * - its `token-secret` equals `<secret>` (constant-time compare);
 * - `expiration`, when set, is an RFC 3339 time still in the future (an
 *   unparsable one counts as expired);
 * - `usage-bootstrap-authentication` is `true`;
 * - every `auth-extra-groups` entry matches the bootstrap group rule, else
 *   the token is rejected.
 *
 * The user is `system:bootstrap:<id>` in `system:bootstrappers` plus the
 * extra groups (sorted, without repeats, as the original returns them).
 *
 * Secrets are read through ObjectSource (the watch cache, never the store),
 * and decisions are cached by a hash of the token in a bounded TTL LRU:
 * positive ones until the token expires, negative ones briefly. Every change
 * of a `bootstrap-token-*` secret in the system namespace (edit, delete)
 * drops the decisions for that token id at once, so a deleted token stops
 * working on the next request even while cached.
 *
 * Messages name the secret (whose id part is public) and never the token's
 * secret part.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { UserInfo } from '../server/context.ts';
import type { KObject } from '../registry/object.ts';
import { names } from '../naming/index.ts';
import type { AuthResult } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import type { ObjectChange, ObjectSource } from './object-source.ts';
import { TtlLruCache } from './cache.ts';

export const BOOTSTRAP_TOKEN_METHOD = 'bootstrap-token';

/** `<token-id>.<token-secret>`, the original's BootstrapTokenRegexp. */
export const BOOTSTRAP_TOKEN_RE = /^([a-z0-9]{6})\.([a-z0-9]{16})$/;
export const BOOTSTRAP_TOKEN_SECRET_PREFIX = 'bootstrap-token-';
export const BOOTSTRAP_USER_PREFIX = 'system:bootstrap:';
export const BOOTSTRAP_DEFAULT_GROUP = 'system:bootstrappers';
/** The original's bootstrapGroupRegexp: extra groups live under system:bootstrappers:. */
const BOOTSTRAP_GROUP_RE = /^system:bootstrappers:[a-z0-9:-]{0,255}[a-z0-9]$/;

export const KEY_TOKEN_ID = 'token-id';
export const KEY_TOKEN_SECRET = 'token-secret';
export const KEY_EXPIRATION = 'expiration';
export const KEY_USAGE_AUTHENTICATION = 'usage-bootstrap-authentication';
export const KEY_EXTRA_GROUPS = 'auth-extra-groups';

export interface BootstrapTokenAuthenticatorOptions {
  readonly objects: ObjectSource;
  /** Most cached decisions (LRU). Default 4096. */
  readonly cacheSize?: number;
  /** Longest a positive decision is kept without an expiration; default 10 min (changes drop it sooner). */
  readonly maxTtlMs?: number;
  /** How long a rejection is kept; default 10 s (a new or fixed secret drops it sooner). */
  readonly negativeTtlMs?: number;
  readonly now?: () => number;
  /** Rejection reasons for the log (never the token). */
  readonly onReject?: (tokenId: string, reason: string) => void;
}

interface Decision {
  readonly result: AuthResult;
  readonly expiresAt: number;
}

/** The token's id and secret, or undefined when the token is not a bootstrap token. */
export function parseBootstrapToken(token: string): { id: string; secret: string } | undefined {
  const m = BOOTSTRAP_TOKEN_RE.exec(token);
  return m === null ? undefined : { id: m[1]!, secret: m[2]! };
}

/** A secret's `data` value as text ('' when missing or not a string). */
function dataValue(secret: KObject, key: string): string {
  const data = secret['data'];
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return '';
  const v = (data as Record<string, unknown>)[key];
  return typeof v === 'string' ? Buffer.from(v, 'base64').toString('utf8') : '';
}

/** Groups of a token secret: the default group plus valid extra groups, sorted and deduplicated. */
export function bootstrapGroups(extra: string): { groups: string[] } | { error: string } {
  const groups = new Set([BOOTSTRAP_DEFAULT_GROUP]);
  if (extra !== '') {
    for (const g of extra.split(',')) {
      if (!BOOTSTRAP_GROUP_RE.test(g)) return { error: `${JSON.stringify(g)} does not match ${BOOTSTRAP_GROUP_RE.source}` };
      groups.add(g);
    }
  }
  return { groups: [...groups].sort() };
}

/** RFC 3339 (with a `T`, seconds and a zone), as Go's time.RFC3339 parses it. */
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** Epoch ms of `expiration`, Infinity when unset, NaN when unparsable (counts as expired). */
export function expirationTime(text: string): number {
  if (text === '') return Infinity;
  if (!RFC3339.test(text)) return NaN;
  return Date.parse(text);
}

function sha256(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('base64');
}

export class BootstrapTokenAuthenticator implements TokenAuthenticator {
  readonly name = BOOTSTRAP_TOKEN_METHOD;
  readonly #objects: ObjectSource;
  readonly #cache: TtlLruCache<string, Decision>;
  /** Cache keys per token id, so a secret's change drops exactly its decisions. */
  readonly #keysById = new Map<string, Set<string>>();
  /** Bumped per token id on every change: a lookup that raced a change does not cache its stale answer. */
  readonly #generation = new Map<string, number>();
  #globalGeneration = 0;
  readonly #maxTtlMs: number;
  readonly #negativeTtlMs: number;
  readonly #now: () => number;
  readonly #onReject: (tokenId: string, reason: string) => void;
  readonly #unsubscribe: () => void;

  constructor(options: BootstrapTokenAuthenticatorOptions) {
    this.#objects = options.objects;
    this.#now = options.now ?? Date.now;
    this.#cache = new TtlLruCache({ maxEntries: options.cacheSize ?? 4096, now: this.#now });
    this.#maxTtlMs = options.maxTtlMs ?? 10 * 60_000;
    this.#negativeTtlMs = options.negativeTtlMs ?? 10_000;
    this.#onReject = options.onReject ?? (() => undefined);
    this.#unsubscribe = this.#objects.onChange('secrets', (c) => this.#onSecretChange(c));
  }

  close(): void {
    this.#unsubscribe();
    this.#cache.clear();
    this.#keysById.clear();
  }

  async authenticateToken(token: string): Promise<AuthResult> {
    const parsed = parseBootstrapToken(token);
    if (parsed === undefined) return { kind: 'none' };
    const key = sha256(token);
    const cached = this.#cache.get(key);
    if (cached !== undefined) {
      // A positive decision also ends exactly at the token's expiration (the cache entry does too).
      return cached.result;
    }
    const generation = this.#generationOf(parsed.id);
    const secret = await this.#objects.get('secrets', names.systemNamespace, BOOTSTRAP_TOKEN_SECRET_PREFIX + parsed.id);
    const decision = this.#decide(parsed.id, parsed.secret, secret);
    if (this.#generationOf(parsed.id) === generation) this.#remember(parsed.id, key, decision);
    return decision.result;
  }

  #decide(id: string, presented: string, secret: KObject | null): Decision {
    const now = this.#now();
    const reject = (reason: string): Decision => {
      this.#onReject(id, reason);
      return {
        result: { kind: 'invalid', message: `bootstrap token ${id}: ${reason}` },
        expiresAt: now + this.#negativeTtlMs,
      };
    };
    const secretName = `${names.systemNamespace}/${BOOTSTRAP_TOKEN_SECRET_PREFIX}${id}`;
    if (secret === null) return reject(`no secret ${secretName}`);
    if (secret.metadata.deletionTimestamp) return reject(`secret ${secretName} is deleted and awaiting removal`);
    if (secret['type'] !== names.secretTypes.bootstrapToken) {
      return reject(`secret ${secretName} has invalid type, expected ${names.secretTypes.bootstrapToken}`);
    }
    const stored = Buffer.from(dataValue(secret, KEY_TOKEN_SECRET), 'utf8');
    const given = Buffer.from(presented, 'utf8');
    // As the original's ConstantTimeCompare: a length mismatch returns at once (it tells only the stored length).
    const same = stored.length === given.length && timingSafeEqual(stored, given);
    if (!same) return reject(`secret ${secretName} has invalid value for key ${KEY_TOKEN_SECRET}`);
    if (dataValue(secret, KEY_TOKEN_ID) !== id) return reject(`secret ${secretName} has invalid value for key ${KEY_TOKEN_ID}`);
    const expires = expirationTime(dataValue(secret, KEY_EXPIRATION));
    if (Number.isNaN(expires)) return reject(`secret ${secretName} has an unparsable ${KEY_EXPIRATION}`);
    if (expires <= now) return reject(`secret ${secretName} has expired`);
    if (dataValue(secret, KEY_USAGE_AUTHENTICATION) !== 'true') {
      return reject(`secret ${secretName} not marked ${KEY_USAGE_AUTHENTICATION}=true`);
    }
    const groups = bootstrapGroups(dataValue(secret, KEY_EXTRA_GROUPS));
    if ('error' in groups) return reject(`secret ${secretName} has invalid value for key ${KEY_EXTRA_GROUPS}: ${groups.error}`);
    const user: UserInfo = { name: BOOTSTRAP_USER_PREFIX + id, groups: groups.groups };
    return {
      result: { kind: 'user', user, method: BOOTSTRAP_TOKEN_METHOD },
      expiresAt: Math.min(expires, now + this.#maxTtlMs),
    };
  }

  #generationOf(id: string): string {
    return `${this.#globalGeneration}:${this.#generation.get(id) ?? 0}`;
  }

  #remember(id: string, key: string, decision: Decision): void {
    this.#cache.set(key, decision, decision.expiresAt);
    let keys = this.#keysById.get(id);
    if (keys === undefined) {
      keys = new Set();
      this.#keysById.set(id, keys);
    }
    keys.add(key);
    // The index may hold keys the LRU has since dropped: prune when it grows past the cache.
    if (this.#keysById.size > 2 * this.#cache.size + 64) this.#pruneIndex();
  }

  #pruneIndex(): void {
    for (const [id, keys] of this.#keysById) {
      for (const k of keys) if (this.#cache.get(k) === undefined) keys.delete(k);
      if (keys.size === 0) this.#keysById.delete(id);
    }
  }

  #onSecretChange(change: ObjectChange): void {
    if (change.type === 'reset') {
      // Events may have been missed: forget everything.
      this.#globalGeneration++;
      this.#cache.clear();
      this.#keysById.clear();
      return;
    }
    if (change.namespace !== names.systemNamespace || !change.name.startsWith(BOOTSTRAP_TOKEN_SECRET_PREFIX)) return;
    const id = change.name.slice(BOOTSTRAP_TOKEN_SECRET_PREFIX.length);
    this.#generation.set(id, (this.#generation.get(id) ?? 0) + 1);
    if (this.#generation.size > 100_000) {
      // Bounded: starting the counters over must still invalidate lookups in flight.
      this.#generation.clear();
      this.#globalGeneration++;
    }
    const keys = this.#keysById.get(id);
    if (keys === undefined) return;
    for (const k of keys) this.#cache.delete(k);
    this.#keysById.delete(id);
  }
}
