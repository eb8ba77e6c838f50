/**
 * Service-account token authentication, after the original's
 * pkg/serviceaccount (jwt.go, claims.go, legacy.go) of v1.25:
 *
 * 1. The token must be a compact JWT whose unverified `iss` is one of ours
 *    (`--service-account-issuer`, all of them) or the legacy issuer;
 *    otherwise it is not ours (`none`: other token authenticators may know it).
 * 2. The signature must verify with one of the verification keys (the one
 *    whose key ID matches `kid` is tried first).
 * 3. `aud` must intersect the audiences asked for (the API's, or a
 *    TokenReview's); a token without `aud` (legacy) counts as the API's.
 * 4. Bound tokens: `exp`, `nbf` and `iat` with go-jose's one-minute leeway;
 *    the service account and the bound pod or secret must exist with the
 *    uids of the claims, and not have been marked for deletion more than the
 *    leeway ago (always, as the original). Legacy tokens: the claims must be
 *    complete and agree with `sub`; with `--service-account-lookup` the
 *    secret must exist and still hold this very token, and the service
 *    account must exist with the claimed uid.
 * 5. User `system:serviceaccount:<ns>:<name>`, uid of the service account,
 *    groups `system:serviceaccounts` and `system:serviceaccounts:<ns>`, and
 *    for pod-bound tokens the extras pod-name and pod-uid (v1.25 sets no
 *    other extra: credential-id came in 1.29, node extras in 1.30).
 *
 * Objects are read from the watch caches (ObjectSource.get), and decisions
 * are cached by token hash until the token expires, revoked by the change
 * feeds (decision-cache.ts): a cached token costs a hash and a map lookup.
 * No message ever contains the token.
 */
import crypto, { timingSafeEqual } from 'node:crypto';
import { compactVerify, decodeProtectedHeader } from 'jose';
import type { UserInfo } from '../../server/context.ts';
import type { KObject } from '../../registry/object.ts';
import type { AuthResult } from '../types.ts';
import type { TokenAuthenticator } from '../token.ts';
import type { AuthnResource, ObjectSource } from '../object-source.ts';
import { aggregateMessages } from '../aggregate.ts';
import { names } from '../../naming/index.ts';
import type { VerificationKey } from './keys.ts';
import { DecisionCache, type Dependency } from './decision-cache.ts';
import {
  ALL_SERVICE_ACCOUNTS_GROUP,
  LEEWAY_SECONDS,
  LEGACY_CLAIMS,
  SERVICE_ACCOUNT_GROUP_PREFIX,
  audiencesOf,
  readBoundPrivateClaim,
  serviceAccountUsername,
  splitServiceAccountUsername,
} from './claims.ts';

export const SERVICE_ACCOUNT_METHOD = 'service-account';

/** A decision is re-verified at least this often, even for year-long tokens (a safety net under the feeds). */
const MAX_CACHE_MS = 10 * 60_000;
const DEFAULT_CACHE_ENTRIES = 10_000;

export interface ServiceAccountAuthenticatorOptions {
  /** Accepted issuers of bound tokens. */
  readonly issuers: readonly string[];
  /** The API's audiences: what a token must be for when no TokenReview names others. */
  readonly apiAudiences: readonly string[];
  readonly keys: readonly VerificationKey[];
  /** Legacy tokens: look up their secret and service account. */
  readonly lookup: boolean;
  readonly objects: ObjectSource;
  /** Epoch ms; injectable for tests. */
  readonly now?: () => number;
  readonly cacheEntries?: number;
}

type Verdict =
  | { readonly kind: 'none' }
  | { readonly kind: 'invalid'; readonly message: string }
  | { readonly kind: 'user'; readonly user: UserInfo; readonly deps: readonly Dependency[]; readonly expiresAt: number; readonly audiences: readonly string[] };

const NONE: Verdict = { kind: 'none' };
const NONE_RESULT: AuthResult = Object.freeze({ kind: 'none' });
const invalid = (message: string): Verdict => ({ kind: 'invalid', message });
const COULD_NOT_VALIDATE = 'token could not be validated';

/** Go's %q of a []string: ["a" "b"]. */
function goQuoteList(list: readonly string[]): string {
  return `[${list.map((s) => JSON.stringify(s)).join(' ')}]`;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The payload of a compact JWT, unverified: only to route by issuer. */
function unverifiedPayload(token: string): Record<string, unknown> | undefined {
  const first = token.indexOf('.');
  const second = first < 0 ? -1 : token.indexOf('.', first + 1);
  if (second < 0 || token.indexOf('.', second + 1) >= 0) return undefined;
  const part = token.slice(first + 1, second);
  if (!/^[A-Za-z0-9_-]*$/.test(part)) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(part, 'base64url').toString('utf8'));
    return isRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function timestampMs(v: unknown): number | undefined {
  if (typeof v !== 'string' || v === '') return undefined;
  const ms = Date.parse(v);
  return Number.isNaN(ms) ? undefined : ms;
}

export class ServiceAccountTokenAuthenticator implements TokenAuthenticator {
  readonly name = SERVICE_ACCOUNT_METHOD;
  /** Checks the audiences a TokenReview asks for and reports those the token is valid for. */
  readonly audienceAware = true;
  readonly #issuers: ReadonlySet<string>;
  readonly #apiAudiences: readonly string[];
  readonly #keys: readonly VerificationKey[];
  readonly #lookup: boolean;
  readonly #objects: ObjectSource;
  readonly #now: () => number;
  readonly #cache: DecisionCache;
  /** Verifications under way, so a burst of requests with a new token verifies it once. */
  readonly #inflight = new Map<string, Promise<AuthResult>>();
  readonly #unsubscribe: Array<() => void> = [];

  constructor(options: ServiceAccountAuthenticatorOptions) {
    this.#issuers = new Set(options.issuers);
    this.#apiAudiences = options.apiAudiences;
    this.#keys = options.keys;
    this.#lookup = options.lookup;
    this.#objects = options.objects;
    this.#now = options.now ?? Date.now;
    this.#cache = new DecisionCache({ maxEntries: options.cacheEntries ?? DEFAULT_CACHE_ENTRIES, now: this.#now });
    for (const resource of ['serviceaccounts', 'secrets', 'pods'] as const) {
      this.#unsubscribe.push(options.objects.onChange(resource, (change) => this.#cache.onChange(resource, change)));
    }
  }

  /** Decisions cached now (for tests and metrics). */
  get cachedDecisions(): number {
    return this.#cache.size;
  }

  close(): void {
    for (const u of this.#unsubscribe.splice(0)) u();
  }

  /** `audiences`: a TokenReview's `spec.audiences`; absent, the API's. */
  authenticateToken(token: string, _signal?: AbortSignal, audiences?: readonly string[]): AuthResult | Promise<AuthResult> {
    // Not a compact JWT (two dots): not ours, decided without hashing or awaiting.
    const firstDot = token.indexOf('.');
    const secondDot = firstDot < 0 ? -1 : token.indexOf('.', firstDot + 1);
    if (secondDot < 0 || token.indexOf('.', secondDot + 1) >= 0) return NONE_RESULT;
    let key = sha256Base64(token);
    if (audiences !== undefined) key += `\u0000${JSON.stringify(audiences)}`;
    const cached = this.#cache.get(key);
    if (cached !== undefined) return { kind: 'user', user: cached.user, method: SERVICE_ACCOUNT_METHOD, audiences: cached.audiences };
    const running = this.#inflight.get(key);
    if (running !== undefined) return running;
    const started = this.#cache.begin();
    const p = this.#verify(token, audiences ?? this.#apiAudiences)
      .then((v): AuthResult => {
        if (v.kind !== 'user') return v;
        this.#cache.set(key, { user: v.user, audiences: v.audiences }, v.deps, v.expiresAt, started);
        return { kind: 'user', user: v.user, method: SERVICE_ACCOUNT_METHOD, audiences: v.audiences };
      })
      .catch((): AuthResult => ({ kind: 'invalid', message: COULD_NOT_VALIDATE }))
      .finally(() => this.#inflight.delete(key));
    this.#inflight.set(key, p);
    return p;
  }

  async #verify(token: string, requested: readonly string[]): Promise<Verdict> {
    const unverified = unverifiedPayload(token);
    if (unverified === undefined) return NONE;
    const iss = unverified['iss'];
    const legacy = iss === names.serviceAccountTokens.legacyIssuer;
    if (typeof iss !== 'string' || (!legacy && !this.#issuers.has(iss))) return NONE;

    const payload = await this.#verifySignature(token);
    if (typeof payload === 'string') return invalid(payload);

    let tokenAudiences = audiencesOf(payload);
    if (tokenAudiences.length === 0) tokenAudiences = [...this.#apiAudiences];
    const allowed = tokenAudiences.filter((a) => requested.includes(a));
    if (allowed.length === 0 && this.#apiAudiences.length !== 0) {
      return invalid(`token audiences ${goQuoteList(tokenAudiences)} is invalid for the target audiences ${goQuoteList(requested)}`);
    }
    const verdict = legacy ? await this.#validateLegacy(token, payload) : await this.#validateBound(payload);
    return verdict.kind === 'user' ? { ...verdict, audiences: allowed } : verdict;
  }

  /** The verified payload, or the reasons no key verified it. */
  async #verifySignature(token: string): Promise<Record<string, unknown> | string> {
    let kid: unknown;
    try {
      kid = decodeProtectedHeader(token).kid;
    } catch {
      return COULD_NOT_VALIDATE;
    }
    // The key the header names first; then the others, as the original tries them all.
    const ordered = [...this.#keys].sort((a, b) => Number(b.kid === kid) - Number(a.kid === kid));
    const failures: string[] = [];
    for (const k of ordered) {
      try {
        const { payload } = await compactVerify(token, k.key, { algorithms: [k.alg] });
        const parsed: unknown = JSON.parse(Buffer.from(payload).toString('utf8'));
        if (!isRecord(parsed)) return COULD_NOT_VALIDATE;
        return parsed;
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        failures.push(typeof code === 'string' && code.startsWith('ERR_JWS') ? 'invalid signature' : COULD_NOT_VALIDATE);
      }
    }
    return failures.length > 0 ? aggregateMessages(failures) : 'no service account verification keys';
  }

  async #validateBound(payload: Record<string, unknown>): Promise<Verdict> {
    const nowMs = this.#now();
    const now = nowMs / 1000;
    const exp = payload['exp'];
    const nbf = payload['nbf'];
    const iat = payload['iat'];
    for (const v of [exp, nbf, iat]) if (v !== undefined && typeof v !== 'number') return invalid(COULD_NOT_VALIDATE);
    if (typeof exp === 'number' && now > exp + LEEWAY_SECONDS) return invalid('token has expired');
    if (typeof nbf === 'number' && now + LEEWAY_SECONDS < nbf) return invalid(COULD_NOT_VALIDATE);
    if (typeof iat === 'number' && now + LEEWAY_SECONDS < iat) return invalid(COULD_NOT_VALIDATE);
    const priv = readBoundPrivateClaim(payload);
    if (priv === undefined) return invalid(COULD_NOT_VALIDATE);
    const { namespace, serviceaccount: saRef } = priv;
    // Things marked for deletion before now - leeway count as gone.
    const goneBefore = nowMs - LEEWAY_SECONDS * 1000;
    let expiresAt = Math.min(typeof exp === 'number' ? (exp + LEEWAY_SECONDS) * 1000 : Infinity, nowMs + MAX_CACHE_MS);
    const deps: Dependency[] = [];
    const depend = (resource: AuthnResource, obj: KObject, name: string): boolean => {
      const deletion = timestampMs(obj.metadata.deletionTimestamp);
      if (deletion !== undefined) {
        if (deletion < goneBefore) return false;
        expiresAt = Math.min(expiresAt, deletion + LEEWAY_SECONDS * 1000);
      }
      deps.push({ resource, namespace, name, uid: obj.metadata.uid ?? '' });
      return true;
    };

    const sa = await this.#objects.get('serviceaccounts', namespace, saRef.name);
    if (sa === null) return invalid(`serviceaccounts "${saRef.name}" not found`);
    if (!depend('serviceaccounts', sa, saRef.name)) return invalid(`service account ${namespace}/${saRef.name} has been deleted`);
    if ((sa.metadata.uid ?? '') !== saRef.uid) return invalid(`service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saRef.uid})`);

    if (priv.secret !== undefined) {
      const secret = await this.#objects.get('secrets', namespace, priv.secret.name);
      if (secret === null || !depend('secrets', secret, priv.secret.name)) return invalid('service account token has been invalidated');
      if ((secret.metadata.uid ?? '') !== priv.secret.uid) return invalid(`secret UID (${secret.metadata.uid ?? ''}) does not match claim (${priv.secret.uid})`);
    }
    let extra: Record<string, readonly string[]> | undefined;
    if (priv.pod !== undefined) {
      const pod = await this.#objects.get('pods', namespace, priv.pod.name);
      if (pod === null || !depend('pods', pod, priv.pod.name)) return invalid('service account token has been invalidated');
      if ((pod.metadata.uid ?? '') !== priv.pod.uid) return invalid(`pod UID (${pod.metadata.uid ?? ''}) does not match claim (${priv.pod.uid})`);
      extra = { [names.serviceAccountTokens.podNameExtra]: [priv.pod.name], [names.serviceAccountTokens.podUidExtra]: [priv.pod.uid] };
    }
    return { kind: 'user', user: this.#user(namespace, saRef.name, saRef.uid, extra), deps, expiresAt, audiences: [] };
  }

  async #validateLegacy(token: string, payload: Record<string, unknown>): Promise<Verdict> {
    const str = (k: string): string => (typeof payload[k] === 'string' ? (payload[k] as string) : '');
    const sub = str('sub');
    if (sub === '') return invalid('sub claim is missing');
    const namespace = str(LEGACY_CLAIMS.namespace);
    if (namespace === '') return invalid('namespace claim is missing');
    const secretName = str(LEGACY_CLAIMS.secretName);
    if (secretName === '') return invalid('secretName claim is missing');
    const saName = str(LEGACY_CLAIMS.serviceAccountName);
    if (saName === '') return invalid('serviceAccountName claim is missing');
    const saUid = str(LEGACY_CLAIMS.serviceAccountUid);
    if (saUid === '') return invalid('serviceAccountUID claim is missing');
    const subject = splitServiceAccountUsername(sub);
    if (subject === undefined || subject.namespace !== namespace || subject.name !== saName) return invalid('sub claim is invalid');

    const nowMs = this.#now();
    const deps: Dependency[] = [];
    if (this.#lookup) {
      const secret = await this.#objects.get('secrets', namespace, secretName);
      if (secret === null || secret.metadata.deletionTimestamp) return invalid('token has been invalidated');
      if (!secretHoldsToken(secret, token)) return invalid("token does not match server's copy");
      deps.push({ resource: 'secrets', namespace, name: secretName, uid: secret.metadata.uid ?? '', anyChange: true });
      const sa = await this.#objects.get('serviceaccounts', namespace, saName);
      if (sa === null) return invalid(`serviceaccounts "${saName}" not found`);
      if (sa.metadata.deletionTimestamp) return invalid(`service account ${namespace}/${saName} has been deleted`);
      if ((sa.metadata.uid ?? '') !== saUid) return invalid(`service account UID (${sa.metadata.uid ?? ''}) does not match claim (${saUid})`);
      deps.push({ resource: 'serviceaccounts', namespace, name: saName, uid: saUid });
    }
    return { kind: 'user', user: this.#user(namespace, saName, saUid, undefined), deps, expiresAt: nowMs + MAX_CACHE_MS, audiences: [] };
  }

  #user(namespace: string, name: string, uid: string, extra: Record<string, readonly string[]> | undefined): UserInfo {
    return {
      name: serviceAccountUsername(namespace, name),
      uid,
      groups: [ALL_SERVICE_ACCOUNTS_GROUP, `${SERVICE_ACCOUNT_GROUP_PREFIX}${namespace}`],
      ...(extra !== undefined ? { extra } : {}),
    };
  }
}

/** One-shot crypto.hash (Node >= 20.12) is about twice as fast as createHash for a token: this runs on every request. */
const oneShotHash = (crypto as { hash?: (alg: string, data: string, enc: 'base64') => string }).hash;
function sha256Base64(data: string): string {
  return oneShotHash !== undefined ? oneShotHash('sha256', data, 'base64') : crypto.createHash('sha256').update(data).digest('base64');
}

/** The secret's `data.token` (base64 in the stored JSON) equals the presented token, compared in constant time. */
function secretHoldsToken(secret: KObject, token: string): boolean {
  const data = secret['data'];
  if (!isRecord(data) || typeof data['token'] !== 'string') return false;
  const stored = Buffer.from(data['token'], 'base64');
  const presented = Buffer.from(token, 'utf8');
  return stored.length === presented.length && timingSafeEqual(stored, presented);
}
