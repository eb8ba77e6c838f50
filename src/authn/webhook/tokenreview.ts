/**
 * The TokenReview exchange with the webhook (spec 2.9, 4.10, 9.4): the body
 * we POST for a version, and the checks on what comes back, which must be
 * a TokenReview of that same version. v1 and v1beta1 carry the same fields.
 */
import type { UserInfo } from '../../server/context.ts';
import type { TokenWebhookVersion } from './config.ts';

export interface ReviewOutcome {
  readonly authenticated: boolean;
  /** Set when authenticated. */
  readonly user?: UserInfo;
  /** status.audiences: the subset of the requested audiences the token is valid for (none: the server's own). */
  readonly audiences: readonly string[];
  /** status.error, the webhook's reason for a rejection. */
  readonly error?: string;
}

export class TokenReviewResponseError extends Error {}

export function tokenReviewRequest(group: string, version: TokenWebhookVersion, token: string, audiences: readonly string[]): string {
  const spec: Record<string, unknown> = { token };
  if (audiences.length > 0) spec['audiences'] = [...audiences];
  return JSON.stringify({ apiVersion: `${group}/${version}`, kind: 'TokenReview', metadata: { creationTimestamp: null }, spec, status: { user: {} } });
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function strings(v: unknown, what: string): string[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || !v.every((x): x is string => typeof x === 'string')) throw new TokenReviewResponseError(`${what} must be a list of strings`);
  return [...v];
}

/** The outcome of a webhook answer, or a TokenReviewResponseError saying what is wrong with it. */
export function parseTokenReviewResponse(body: unknown, group: string, version: TokenWebhookVersion): ReviewOutcome {
  if (!isObj(body)) throw new TokenReviewResponseError('answer is not a JSON object');
  const want = `${group}/${version}`;
  if (body['apiVersion'] !== want || body['kind'] !== 'TokenReview') {
    throw new TokenReviewResponseError(`expected a TokenReview of ${want}, got kind ${JSON.stringify(body['kind'])} of ${JSON.stringify(body['apiVersion'])}`);
  }
  const status = body['status'];
  if (status !== undefined && status !== null && !isObj(status)) throw new TokenReviewResponseError('status must be an object');
  const s = isObj(status) ? status : {};
  const authenticated = s['authenticated'];
  if (authenticated !== undefined && authenticated !== null && typeof authenticated !== 'boolean') throw new TokenReviewResponseError('status.authenticated must be a boolean');
  const audiences = strings(s['audiences'], 'status.audiences');
  const error = typeof s['error'] === 'string' && s['error'] !== '' ? s['error'] : undefined;
  if (authenticated !== true) return { authenticated: false, audiences, ...(error !== undefined ? { error } : {}) };

  const u = s['user'];
  if (!isObj(u)) throw new TokenReviewResponseError('status.user is missing');
  const username = u['username'];
  if (typeof username !== 'string' || username === '') throw new TokenReviewResponseError('status.user.username is missing');
  const uid = u['uid'];
  if (uid !== undefined && uid !== null && typeof uid !== 'string') throw new TokenReviewResponseError('status.user.uid must be a string');
  const groups = strings(u['groups'], 'status.user.groups');
  let extra: Record<string, readonly string[]> | undefined;
  const rawExtra = u['extra'];
  if (rawExtra !== undefined && rawExtra !== null) {
    if (!isObj(rawExtra)) throw new TokenReviewResponseError('status.user.extra must be an object');
    // fromEntries defines own properties: a key named __proto__ stays a key.
    extra = Object.fromEntries(Object.entries(rawExtra).map(([k, v]) => [k, strings(v, `status.user.extra[${JSON.stringify(k)}]`)]));
  }
  const user: UserInfo = {
    name: username,
    groups,
    ...(typeof uid === 'string' && uid !== '' ? { uid } : {}),
    ...(extra !== undefined ? { extra } : {}),
  };
  return { authenticated: true, user, audiences };
}
