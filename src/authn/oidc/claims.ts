/**
 * What an ID token's claims mean for the server, after its signature has
 * been checked: the standard checks (iss, aud, exp, nbf) with go-oidc's
 * semantics, then the user (name claim and prefix, groups claim as string or
 * list with prefix, required claims, email_verified). Pure functions on the
 * decoded payload; every failure is a message that names claims, never
 * their token.
 */
import type { UserInfo } from '../../server/context.ts';

/** go-oidc's leeway for `nbf`: a token "not before" up to a minute ahead is accepted. `exp` gets none. */
export const NOT_BEFORE_LEEWAY_MS = 60_000;

export type Claims = Readonly<Record<string, unknown>>;

export interface StandardClaimRules {
  readonly issuer: string;
  readonly clientId: string;
}

export interface UserClaimRules {
  readonly usernameClaim: string;
  readonly usernamePrefix: string;
  readonly groupsClaim: string | undefined;
  readonly groupsPrefix: string | undefined;
  readonly requiredClaims: ReadonlyMap<string, string>;
}

/** The payload as a claims object, or undefined when it is not a JSON object. */
export function parseClaims(payload: Uint8Array | string): Claims | undefined {
  let value: unknown;
  try {
    value = JSON.parse(typeof payload === 'string' ? payload : Buffer.from(payload).toString('utf8'));
  } catch {
    return undefined;
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Claims) : undefined;
}

/**
 * The `iss` of a token without checking anything: lets the authenticator
 * pass over tokens that are not for its issuer (service-account tokens,
 * other JWTs) without an opinion, as the original does.
 */
export function untrustedIssuer(token: string): string | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || parts[1] === '') return undefined;
  const claims = parseClaims(Buffer.from(parts[1]!, 'base64url').toString('utf8'));
  const iss = claims?.['iss'];
  return typeof iss === 'string' ? iss : undefined;
}

function isNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v);
}

/** Why the token fails iss/aud/exp/nbf at `now` (epoch ms), or undefined when it passes. Returns the expiry too. */
export function checkStandardClaims(c: Claims, rules: StandardClaimRules, now: number): { error: string } | { expiresAt: number } {
  if (c['iss'] !== rules.issuer) return { error: `id token issued by a different provider, expected ${JSON.stringify(rules.issuer)}` };
  const aud = c['aud'];
  const audiences = typeof aud === 'string' ? [aud] : Array.isArray(aud) ? aud : [];
  // Several clients may share one provider: the token is ours when our client
  // id is among its audiences, whoever its authorized party (`azp`) is.
  if (!audiences.includes(rules.clientId)) return { error: `expected audience ${JSON.stringify(rules.clientId)} not in the token's audiences` };
  const exp = c['exp'];
  if (!isNumber(exp)) return { error: 'token has no valid exp claim' };
  const expiresAt = exp * 1000;
  if (now >= expiresAt) return { error: 'token is expired' };
  const nbf = c['nbf'];
  if (nbf !== undefined) {
    if (!isNumber(nbf)) return { error: 'token has an invalid nbf claim' };
    if (now + NOT_BEFORE_LEEWAY_MS < nbf * 1000) return { error: 'current time is before the nbf (not before) time' };
  }
  return { expiresAt };
}

/** The user the claims name, or why they name none. */
export function userFromClaims(c: Claims, rules: UserClaimRules): { user: UserInfo } | { error: string } {
  const name = c[rules.usernameClaim];
  if (name === undefined) return { error: `parse username claims ${JSON.stringify(rules.usernameClaim)}: claim not present` };
  if (typeof name !== 'string') return { error: `parse username claims ${JSON.stringify(rules.usernameClaim)}: not a string` };
  // The original accepts an empty name (and so a user named only by the prefix); no provider means that.
  if (name === '') return { error: `username claim ${JSON.stringify(rules.usernameClaim)} is empty` };
  if (rules.usernameClaim === 'email' && Object.hasOwn(c, 'email_verified')) {
    const verified = c['email_verified'];
    if (typeof verified !== 'boolean') return { error: "parse 'email_verified' claim: not a boolean" };
    if (!verified) return { error: 'email not verified' };
  }
  let groups: string[] = [];
  if (rules.groupsClaim !== undefined && rules.groupsClaim !== '' && Object.hasOwn(c, rules.groupsClaim)) {
    const g = c[rules.groupsClaim];
    if (typeof g === 'string') groups = [g];
    else if (Array.isArray(g) && g.every((x): x is string => typeof x === 'string')) groups = [...g];
    else if (g !== null) return { error: `parse groups claim ${JSON.stringify(rules.groupsClaim)}: not a string or a list of strings` };
    const prefix = rules.groupsPrefix ?? '';
    if (prefix !== '') groups = groups.map((x) => prefix + x);
  }
  for (const [claim, want] of rules.requiredClaims) {
    if (!Object.hasOwn(c, claim)) return { error: `required claim ${claim} not present in ID token` };
    const got = c[claim];
    if (typeof got !== 'string') return { error: `parse claim ${claim}: not a string` };
    if (got !== want) return { error: `required claim ${claim} value does not match` };
  }
  return { user: { name: rules.usernamePrefix + name, groups } };
}
