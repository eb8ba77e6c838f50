/**
 * OpenID Connect ID tokens as bearer tokens (spec 5.2), after the
 * original's oidc authenticator:
 *
 * - A token whose (unverified) `iss` is not our issuer is not ours: no
 *   opinion, so service-account tokens and other JWTs pass on untouched.
 * - Until the provider has been discovered, tokens for it are rejected
 *   (`invalid`, 401): never anonymous, and other methods keep working.
 * - Otherwise signature (provider keys, --oidc-signing-algs), iss, aud
 *   (--oidc-client-id), exp, nbf, then the user mapping (claims.ts).
 *
 * A verified token's user is cached under a salted hash of the token until the
 * token expires (bounded LRU), so the steady-state cost of a request is one
 * SHA-256 and one map lookup; failures are not cached (each costs a signature
 * check, which needs no network). The cache is emptied when the provider
 * withdraws a signing key, so tokens signed with it stop working then.
 */
import { hash, randomBytes } from 'node:crypto';
import { errors } from 'jose';
import type { AuthResult } from '../types.ts';
import type { TokenAuthenticator } from '../token.ts';
import { TtlLruCache } from '../cache.ts';
import { checkStandardClaims, parseClaims, untrustedIssuer, userFromClaims, type UserClaimRules } from './claims.ts';
import { effectiveUsernamePrefix, type OidcOptions } from './config.ts';
import { ProviderNotReadyError, type OidcProvider } from './provider.ts';

export const METHOD = 'oidc';
export const DEFAULT_CACHE_ENTRIES = 10_000;

export interface OidcAuthenticatorDeps {
  readonly provider: OidcProvider;
  readonly cacheEntries?: number;
  readonly now?: () => number;
}

const NONE: AuthResult = Object.freeze({ kind: 'none' });

/** Fixed texts for jose's failures: their messages are safe, but ours stay stable and short. */
function verifyFailure(err: unknown): string {
  if (err instanceof ProviderNotReadyError) return err.message;
  if (err instanceof errors.JWSSignatureVerificationFailed) return 'oidc: verify token: failed to verify signature';
  if (err instanceof errors.JOSEAlgNotAllowed) return 'oidc: verify token: id token signed with an algorithm not allowed by --oidc-signing-algs';
  if (err instanceof errors.JWKSNoMatchingKey) return 'oidc: verify token: no signing key of the provider matches the token';
  if (err instanceof errors.JOSENotSupported) return 'oidc: verify token: unsupported token algorithm or key';
  if (err instanceof errors.JWSInvalid || err instanceof errors.JWKSInvalid) return 'oidc: verify token: malformed jwt';
  if (err instanceof errors.JOSEError) return `oidc: verify token: ${err.code}`;
  return 'oidc: verify token: internal error';
}

export class OidcTokenAuthenticator implements TokenAuthenticator {
  readonly name = METHOD;
  readonly #issuer: string;
  readonly #clientId: string;
  readonly #algorithms: readonly string[];
  readonly #rules: UserClaimRules;
  readonly #provider: OidcProvider;
  readonly #now: () => number;
  readonly #cache: TtlLruCache<string, AuthResult>;
  /** Per-process salt: cache keys are no token's plain hash, even in a heap dump. */
  readonly #salt = randomBytes(16).toString('base64');

  constructor(options: OidcOptions & { issuerUrl: string; clientId: string }, deps: OidcAuthenticatorDeps) {
    this.#issuer = options.issuerUrl;
    this.#clientId = options.clientId;
    this.#algorithms = [...options.signingAlgs];
    this.#rules = {
      usernameClaim: options.usernameClaim,
      usernamePrefix: effectiveUsernamePrefix(options),
      groupsClaim: options.groupsClaim,
      groupsPrefix: options.groupsPrefix,
      requiredClaims: new Map(options.requiredClaims),
    };
    this.#provider = deps.provider;
    this.#now = deps.now ?? Date.now;
    this.#cache = new TtlLruCache({ maxEntries: deps.cacheEntries ?? DEFAULT_CACHE_ENTRIES, now: this.#now });
    this.#provider.onKeysWithdrawn(() => this.#cache.clear());
  }

  // Audience-agnostic, as the original wraps it (WrapAudienceAgnosticToken): TokenReview treats an
  // OIDC user as valid for the API audiences (token-review.ts), so no audiences parameter here.
  authenticateToken(token: string): Promise<AuthResult> | AuthResult {
    // One-shot hash of salt and token: a keyed digest at half an HMAC's cost (only ever compared for equality).
    const key = hash('sha256', `${this.#salt}\0${token}`, 'base64');
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    if (untrustedIssuer(token) !== this.#issuer) return NONE;
    return this.#verify(token, key);
  }

  async #verify(token: string, key: string): Promise<AuthResult> {
    let payload: Uint8Array;
    try {
      payload = await this.#provider.verifySignature(token, this.#algorithms);
    } catch (err) {
      return { kind: 'invalid', message: verifyFailure(err) };
    }
    const claims = parseClaims(payload);
    if (claims === undefined) return { kind: 'invalid', message: 'oidc: parse claims: payload is not a JSON object' };
    const standard = checkStandardClaims(claims, { issuer: this.#issuer, clientId: this.#clientId }, this.#now());
    if ('error' in standard) return { kind: 'invalid', message: `oidc: verify token: ${standard.error}` };
    const mapped = userFromClaims(claims, this.#rules);
    if ('error' in mapped) return { kind: 'invalid', message: `oidc: ${mapped.error}` };
    const result: AuthResult = Object.freeze({ kind: 'user', user: mapped.user, method: METHOD });
    this.#cache.set(key, result, standard.expiresAt);
    return result;
  }

  close(): void {
    this.#provider.close();
    this.#cache.clear();
  }
}
