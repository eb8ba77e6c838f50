/**
 * Builds the request authenticator from the server's flags: the one place
 * that knows which methods are on and in which order (the original's
 * union: x509, request header, token file, service accounts, bootstrap
 * tokens, OIDC, webhook; then anonymous). Each method lives in its own
 * module; this file only assembles them.
 *
 * Runs once per thread that serves requests, so everything a method keeps
 * (decision caches, key sets, watches that revoke cached decisions) is
 * per-thread and built here, never shared across threads by reference.
 */
import { readFile } from 'node:fs/promises';
import type { ServerOptions } from '../server/options.ts';
import type { Logger } from '../server/logging.ts';
import type { Authenticator } from './types.ts';
import { createRequestAuthenticator } from './union.ts';
import { effectiveAnonymousAuth } from './anonymous.ts';
import { X509Authenticator } from './x509.ts';
import { certificatesFromPem } from './pem.ts';
import { StaticTokenAuthenticator, parseTokenFile } from './token-file.ts';
import type { TokenAuthenticator } from './token.ts';
import type { ObjectSource } from './object-source.ts';
import { ServiceAccountTokenAuthenticator } from './service-account/authenticator.ts';
import type { ServiceAccountConfig } from './service-account/config.ts';
import { LengthPrefilteredTokenAuthenticator } from './service-account/static-token-prefilter.ts';
import { BootstrapTokenAuthenticator } from './bootstrap-token.ts';
import { RequestHeaderAuthenticator, requestHeaderNamesFilter } from './request-header.ts';
import { TokenReviewer } from './token-review.ts';
import { createOidcAuthenticator } from './oidc/index.ts';
import { createTokenWebhookAuthenticator } from './webhook/index.ts';

/** What the authenticators may use of the running server. */
export interface AuthenticatorDeps {
  readonly logger: Logger;
  /** PEM of the CA that verifies client certificates (--client-ca-file or the data dir's CA). */
  readonly clientCaPem: string;
  /** The static token file in effect (--token-auth-file or the data dir's). */
  readonly tokenFilePath: string;
  /** Service accounts, secrets and pods from the watch caches, with change feeds (object-source.ts). */
  readonly objects: ObjectSource;
  /** Service-account tokens (service-account/config.ts); absent: not accepted. */
  readonly serviceAccounts?: ServiceAccountConfig | undefined;
}

export interface BuiltAuthenticator {
  readonly authenticator: Authenticator;
  /** Identity headers (lower-case) to remove from every request after authentication: the proxy's. */
  readonly stripHeaders: ((lowerName: string) => boolean) | undefined;
  /** The token authenticators for TokenReview (spec 2.9). */
  readonly tokenReviewer: TokenReviewer;
  /** Stops what the methods run in the background (key refreshes, watches). */
  close(): Promise<void>;
}

export async function buildAuthenticator(opts: ServerOptions, deps: AuthenticatorDeps): Promise<BuiltAuthenticator> {
  const { logger } = deps;
  const closers: Array<() => Promise<void> | void> = [];
  const anonymous = effectiveAnonymousAuth(opts.anonymousAuth, opts.authorizationMode);
  if (anonymous.warning) logger.warn({}, anonymous.warning);
  const tokens: TokenAuthenticator[] = [];
  const tokenFile = parseTokenFile(await readFile(deps.tokenFilePath, 'utf8'), deps.tokenFilePath);
  for (const w of tokenFile.warnings) logger.warn({ file: deps.tokenFilePath }, w);
  // Exact: a token of a length the file lacks cannot be in it (spares other tokens the file's hash).
  tokens.push(new LengthPrefilteredTokenAuthenticator(new StaticTokenAuthenticator(tokenFile.tokens), tokenFile.tokens.map((t) => t.token)));
  if (deps.serviceAccounts !== undefined) {
    const sa = deps.serviceAccounts;
    const saTokens = new ServiceAccountTokenAuthenticator({
      issuers: sa.issuers,
      apiAudiences: sa.apiAudiences,
      keys: sa.verificationKeys,
      lookup: sa.lookup,
      objects: deps.objects,
    });
    closers.push(() => saTokens.close());
    tokens.push(saTokens);
  }
  if (opts.enableBootstrapTokenAuth) {
    const bootstrap = new BootstrapTokenAuthenticator({
      objects: deps.objects,
      // The id half of a bootstrap token is public; the reason names the secret, never the token.
      onReject: (tokenId, reason) => logger.debug({ tokenId, reason }, 'bootstrap token rejected'),
    });
    closers.push(() => bootstrap.close());
    tokens.push(bootstrap);
  }
  // OIDC after service accounts: both verify JWTs, and OIDC may refetch keys on a miss (the original's order).
  const oidc = await createOidcAuthenticator(opts.oidc, { logger });
  if (oidc !== undefined) {
    tokens.push(oidc);
    closers.push(() => oidc.close());
  }
  const webhook = await createTokenWebhookAuthenticator(opts.tokenWebhook, { logger });
  if (webhook !== undefined) {
    tokens.push(webhook);
    closers.push(() => webhook.close());
  }
  let requestHeader: RequestHeaderAuthenticator | undefined;
  let stripHeaders: ((lowerName: string) => boolean) | undefined;
  if (opts.requestheaderClientCaFile !== undefined) {
    const config = {
      usernameHeaders: opts.requestheaderUsernameHeaders,
      groupHeaders: opts.requestheaderGroupHeaders,
      extraHeaderPrefixes: opts.requestheaderExtraHeadersPrefix,
      allowedNames: opts.requestheaderAllowedNames,
    };
    const path = opts.requestheaderClientCaFile;
    let clientCA: Uint8Array[];
    try {
      clientCA = certificatesFromPem(await readFile(path, 'utf8'));
    } catch (err) {
      throw new Error(`unable to load requestheader client CA file "${path}": ${(err as Error).message}`);
    }
    requestHeader = new RequestHeaderAuthenticator({ ...config, clientCA });
    stripHeaders = requestHeaderNamesFilter(config);
  }
  const requestAuthenticator = createRequestAuthenticator({
    requestHeader,
    x509: new X509Authenticator({ clientCA: certificatesFromPem(deps.clientCaPem) }),
    tokens,
    anonymous: anonymous.enabled,
  });
  // Issuer discovery has no bypass: as in the original, its documents go to whom authorization allows
  // (system:service-account-issuer-discovery, bound to service accounts; an operator may bind it to
  // system:unauthenticated), and a request without a credential is 401 when anonymous access is off.
  return {
    authenticator: requestAuthenticator,
    stripHeaders,
    tokenReviewer: new TokenReviewer(tokens, deps.serviceAccounts?.apiAudiences ?? []),
    close: async () => {
      for (const c of closers.reverse()) await c();
    },
  };
}
