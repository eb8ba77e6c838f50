/**
 * The claims of service-account tokens, as the original's pkg/serviceaccount
 * writes and reads them:
 *
 * - bound tokens (TokenRequest): `iss`, `sub` = system:serviceaccount:<ns>:<name>,
 *   `aud`, `iat`, `nbf`, `exp`, and one private claim named after the flavor's
 *   domain holding `{namespace, serviceaccount:{name,uid}, pod|secret:{name,uid},
 *   warnafter}`;
 * - legacy tokens (secret-based, issuer `<product>/serviceaccount`): `sub` and
 *   flat private claims `<domain>/serviceaccount/{namespace, secret.name,
 *   service-account.name, service-account.uid}`, no expiry.
 */
import { names } from '../../naming/index.ts';

export const SERVICE_ACCOUNT_USER_PREFIX = 'system:serviceaccount:';
export const ALL_SERVICE_ACCOUNTS_GROUP = 'system:serviceaccounts';
export const SERVICE_ACCOUNT_GROUP_PREFIX = 'system:serviceaccounts:';

/** go-jose's DefaultLeeway, which the original's validator uses for exp and nbf. */
export const LEEWAY_SECONDS = 60;

export function serviceAccountUsername(namespace: string, name: string): string {
  return `${SERVICE_ACCOUNT_USER_PREFIX}${namespace}:${name}`;
}

/** The original's SplitUsername: `system:serviceaccount:<ns>:<name>` with both parts non-empty. */
export function splitServiceAccountUsername(user: string): { namespace: string; name: string } | undefined {
  if (!user.startsWith(SERVICE_ACCOUNT_USER_PREFIX)) return undefined;
  const parts = user.slice(SERVICE_ACCOUNT_USER_PREFIX.length).split(':');
  if (parts.length !== 2 || parts[0] === '' || parts[1] === '') return undefined;
  return { namespace: parts[0]!, name: parts[1]! };
}

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** The private claim of a bound token. */
export interface BoundPrivateClaim {
  readonly namespace: string;
  readonly serviceaccount: ObjectRef;
  readonly pod?: ObjectRef;
  readonly secret?: ObjectRef;
  /** Epoch seconds after which use is only warned about (extended tokens). */
  readonly warnafter?: number;
}

export interface BoundClaimsInput {
  readonly issuer: string;
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly pod?: ObjectRef | undefined;
  readonly secret?: ObjectRef | undefined;
  readonly audiences: readonly string[];
  /** Epoch seconds. */
  readonly now: number;
  readonly expirationSeconds: number;
  /** Seconds after now of the warn-after claim; 0 = none. */
  readonly warnAfterSeconds: number;
}

export function boundClaims(input: BoundClaimsInput): Record<string, unknown> {
  const priv: Record<string, unknown> = {
    namespace: input.namespace,
    serviceaccount: { name: input.serviceAccount.name, uid: input.serviceAccount.uid },
  };
  if (input.pod !== undefined) priv['pod'] = { name: input.pod.name, uid: input.pod.uid };
  else if (input.secret !== undefined) priv['secret'] = { name: input.secret.name, uid: input.secret.uid };
  if (input.warnAfterSeconds !== 0) priv['warnafter'] = input.now + input.warnAfterSeconds;
  return {
    aud: [...input.audiences],
    exp: input.now + input.expirationSeconds,
    iat: input.now,
    iss: input.issuer,
    [names.serviceAccountTokens.privateClaim]: priv,
    nbf: input.now,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

/** The flat private claims of a legacy token, by field. */
export const LEGACY_CLAIMS = {
  namespace: `${names.serviceAccountTokens.legacyClaimPrefix}namespace`,
  secretName: `${names.serviceAccountTokens.legacyClaimPrefix}secret.name`,
  serviceAccountName: `${names.serviceAccountTokens.legacyClaimPrefix}service-account.name`,
  serviceAccountUid: `${names.serviceAccountTokens.legacyClaimPrefix}service-account.uid`,
} as const;

/** Claims of a legacy secret-based token (what the old token controller wrote); for tests and tools. */
export function legacyClaims(input: { namespace: string; serviceAccount: ObjectRef; secretName: string }): Record<string, unknown> {
  return {
    iss: names.serviceAccountTokens.legacyIssuer,
    [LEGACY_CLAIMS.namespace]: input.namespace,
    [LEGACY_CLAIMS.secretName]: input.secretName,
    [LEGACY_CLAIMS.serviceAccountName]: input.serviceAccount.name,
    [LEGACY_CLAIMS.serviceAccountUid]: input.serviceAccount.uid,
    sub: serviceAccountUsername(input.namespace, input.serviceAccount.name),
  };
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function ref(v: unknown): ObjectRef | undefined {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  return { name: str(o['name']), uid: str(o['uid']) };
}

/** Reads the private claim of a verified bound token; fields of the wrong type read as absent, as Go's decoder would fail them. */
export function readBoundPrivateClaim(payload: Record<string, unknown>): BoundPrivateClaim | undefined {
  const raw = payload[names.serviceAccountTokens.privateClaim];
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return undefined;
  const o = raw as Record<string, unknown>;
  const sa = ref(o['serviceaccount']);
  if (sa === undefined) return undefined;
  const pod = ref(o['pod']);
  const secret = ref(o['secret']);
  const warn = o['warnafter'];
  return {
    namespace: str(o['namespace']),
    serviceaccount: sa,
    ...(pod !== undefined ? { pod } : {}),
    ...(secret !== undefined ? { secret } : {}),
    ...(typeof warn === 'number' ? { warnafter: warn } : {}),
  };
}

/** `aud` as a list (JWT allows a single string). */
export function audiencesOf(payload: Record<string, unknown>): string[] {
  const aud = payload['aud'];
  if (typeof aud === 'string') return [aud];
  if (Array.isArray(aud)) return aud.filter((a): a is string => typeof a === 'string');
  return [];
}
