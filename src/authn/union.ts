/**
 * Composition of authentication methods, as the original assembles them:
 *
 *   failOnError( groupAdder( union(x509, bearer/token...) ), anonymous )
 *
 * - Methods run in order; the first that recognises a user wins, even if an
 *   earlier one rejected its own credential (a stale client certificate does
 *   not spoil a good token).
 * - If none recognises a user but any rejected a credential, the request is
 *   `invalid` (401) — in particular an unrecognised bearer token never
 *   becomes anonymous (spec 5.5).
 * - Only when every method had no opinion is anonymous consulted, if on.
 * - Authenticated non-anonymous users gain system:authenticated.
 */
import type { ApiRequest } from '../server/http.ts';
import type { AuthResult, Authenticator } from './types.ts';
import { aggregateMessages } from './aggregate.ts';
import { firstDecision, thenMaybe, type Decider, type MaybePromise } from '../api/maybe-promise.ts';
import { AnonymousAuthenticator } from './anonymous.ts';
import { BearerTokenAuthenticator } from './bearer.ts';
import { AuthenticatedGroupAdder } from './group-adder.ts';
import type { TokenAuthenticator } from './token.ts';

/** Tries each method in order; the first user wins, rejections are reported only if nobody recognises one. */
export class UnionAuthenticator implements Authenticator {
  readonly name = 'union';

  constructor(private readonly authenticators: readonly Authenticator[]) {}

  /** In the same turn while every authenticator answers at once; from the first that must wait on, asynchronously. */
  authenticate(req: ApiRequest): MaybePromise<AuthResult> {
    return firstDecision(METHOD_UNION, { all: this.authenticators, req, failures: [] });
  }
}

interface MethodAsk {
  readonly all: readonly Authenticator[];
  readonly req: ApiRequest;
  readonly failures: string[];
}

const METHOD_UNION: Decider<MethodAsk, AuthResult, AuthResult> = {
  count: (c) => c.all.length,
  ask: (c, i) => c.all[i]!.authenticate(c.req),
  take: (c, _i, result) => {
    if (result.kind === 'user') return result;
    if (result.kind === 'invalid') c.failures.push(result.message);
    return undefined;
  },
  // An authenticator that fails (rather than rejecting a credential) fails the request.
  failed: (_c, _i, err) => {
    throw err;
  },
  otherwise: (c) => (c.failures.length > 0 ? { kind: 'invalid', message: aggregateMessages(c.failures) } : { kind: 'none' }),
};

/** Consults `fallback` (anonymous) only when `primary` had no opinion; a rejection stands. */
export class FallbackAuthenticator implements Authenticator {
  readonly name: string;

  constructor(
    private readonly primary: Authenticator,
    private readonly fallback: Authenticator,
  ) {
    this.name = primary.name;
  }

  authenticate(req: ApiRequest): MaybePromise<AuthResult> {
    return thenMaybe(this.primary.authenticate(req), (result) => (result.kind === 'none' ? this.fallback.authenticate(req) : result));
  }
}

export interface RequestAuthenticatorConfig {
  /** The authenticating proxy (--requestheader-*), first as in the original. */
  readonly requestHeader?: Authenticator | undefined;
  /** Client certificate authentication, when --client-ca-file is set. */
  readonly x509?: Authenticator | undefined;
  /** Token authenticators in order (token file, service accounts, ...); none disables bearer tokens. */
  readonly tokens?: readonly TokenAuthenticator[];
  /** Whether anonymous requests are allowed (see effectiveAnonymousAuth). */
  readonly anonymous: boolean;
}

/** The request authenticator the authentication filter runs. */
export function createRequestAuthenticator(config: RequestAuthenticatorConfig): Authenticator {
  const methods: Authenticator[] = [];
  if (config.requestHeader !== undefined) methods.push(config.requestHeader);
  if (config.x509 !== undefined) methods.push(config.x509);
  // With no token authenticator a bearer token is still taken and rejected:
  // it cannot be valid, and must not pass for anonymous.
  methods.push(new BearerTokenAuthenticator(config.tokens ?? []));
  const identified = new AuthenticatedGroupAdder(new UnionAuthenticator(methods));
  return config.anonymous ? new FallbackAuthenticator(identified, new AnonymousAuthenticator()) : identified;
}
