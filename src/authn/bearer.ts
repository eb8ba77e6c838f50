/**
 * Bearer token authentication: takes the token from
 * `Authorization: Bearer <token>` and asks each token authenticator in turn.
 *
 * A client that sends a bearer token asked to be someone; if no token
 * authenticator recognises the token the answer is `invalid` (401), never
 * `none`, so the request cannot fall through to anonymous access (spec 5.5).
 * Other schemes (Basic, Negotiate, ...) are not ours: `none`.
 *
 * Differences from the original, on purpose: an empty token ("Bearer" with
 * nothing after it) is rejected rather than ignored, and a token containing
 * whitespace is rejected rather than cut at the first space; no issued token
 * can look like either, so both can only be client mistakes.
 */
import type { ApiRequest } from '../server/http.ts';
import type { AuthResult, Authenticator } from './types.ts';
import type { TokenAuthenticator } from './token.ts';
import { aggregateMessages } from './aggregate.ts';
import { firstDecision, type Decider, type MaybePromise } from '../api/maybe-promise.ts';

export const INVALID_BEARER_TOKEN = 'invalid bearer token';

export type BearerToken =
  | { readonly kind: 'absent' }
  | { readonly kind: 'malformed' }
  | { readonly kind: 'token'; readonly token: string };

const SCHEME = /^bearer(?:\s+|$)/i;

/** Reads the bearer token of an Authorization header value. */
export function extractBearerToken(header: string | undefined): BearerToken {
  // What nearly every client sends, "Bearer <printable ASCII>", read with one cheap test instead of the trim and
  // the two regular expressions below; anything else takes the general path.
  if (header !== undefined && header.length > 7 && header.startsWith('Bearer ')) {
    const token = header.slice(7);
    if (!NOT_PRINTABLE_ASCII.test(token)) return { kind: 'token', token };
  }
  const value = header?.trim() ?? '';
  const scheme = SCHEME.exec(value);
  if (scheme === null) return { kind: 'absent' };
  const token = value.slice(scheme[0].length);
  if (token === '' || /\s/.test(token)) return { kind: 'malformed' };
  return { kind: 'token', token };
}

/** Any character outside printable ASCII without space (33-126): a token with none is taken as it is. */
const NOT_PRINTABLE_ASCII = /[^\x21-\x7e]/;

/**
 * Short tokens are too likely to occur by chance in unrelated text to be
 * worth masking; anything at least this long that shows up in a message from
 * a token authenticator is replaced, as a last guard against leaking it.
 */
const MIN_REDACTED_LENGTH = 8;

function redact(message: string, token: string): string {
  return token.length >= MIN_REDACTED_LENGTH ? message.split(token).join('[redacted]') : message;
}

export class BearerTokenAuthenticator implements Authenticator {
  readonly name = 'bearer';

  constructor(private readonly tokenAuthenticators: readonly TokenAuthenticator[]) {}

  /**
   * In the same turn while each token authenticator answers at once (a token
   * file, a cached or local verification); from the first that must wait
   * (a webhook, an identity provider's keys) on, asynchronously.
   */
  authenticate(req: ApiRequest): MaybePromise<AuthResult> {
    const extracted = extractBearerToken(req.header('authorization'));
    if (extracted.kind === 'absent') return { kind: 'none' };
    if (extracted.kind === 'malformed') return { kind: 'invalid', message: INVALID_BEARER_TOKEN };
    return firstDecision(TOKEN_UNION, { all: this.tokenAuthenticators, token: extracted.token, req, failures: [] });
  }
}

interface TokenAsk {
  readonly all: readonly TokenAuthenticator[];
  readonly token: string;
  /** Its signal is read only for an authenticator that may wait: a front end makes it on first use. */
  readonly req: ApiRequest;
  readonly failures: string[];
}

/**
 * As the original's token union: the first authenticator that recognises the
 * token wins; rejections are remembered and reported only if nobody does.
 */
const TOKEN_UNION: Decider<TokenAsk, AuthResult, AuthResult> = {
  count: (c) => c.all.length,
  ask: (c, i) => (c.all[i]!.inMemory === true ? c.all[i]!.authenticateToken(c.token) : c.all[i]!.authenticateToken(c.token, c.req.signal)),
  take: (c, _i, result) => {
    if (result.kind === 'user') return result;
    if (result.kind === 'invalid') c.failures.push(redact(result.message, c.token));
    return undefined;
  },
  failed: (c, i, err) => c.failures.push(redact(`${c.all[i]!.name}: ${err instanceof Error ? err.message : String(err)}`, c.token)),
  otherwise: (c) => ({ kind: 'invalid', message: c.failures.length > 0 ? aggregateMessages(c.failures) : INVALID_BEARER_TOKEN }),
};
