/**
 * OIDC from the flags: undefined when --oidc-issuer-url/--oidc-client-id are
 * not set; otherwise an authenticator whose provider is discovered in the
 * background (the start never waits for, or fails on, the provider).
 */
import { readFile } from 'node:fs/promises';
import { certificatesFromPem } from '../pem.ts';
import { JsonGetter } from './https-get.ts';
import { OidcProvider, type ProviderLogger } from './provider.ts';
import { OidcTokenAuthenticator } from './authenticator.ts';
import { oidcEnabled, type OidcOptions } from './config.ts';

export { OidcTokenAuthenticator } from './authenticator.ts';
export { defaultOidcOptions, oidcOptionProblems, parseRequiredClaim, type OidcOptions } from './config.ts';

export interface OidcBuildDeps {
  readonly logger: ProviderLogger;
}

export async function createOidcAuthenticator(options: OidcOptions, deps: OidcBuildDeps): Promise<OidcTokenAuthenticator | undefined> {
  if (!oidcEnabled(options)) return undefined;
  // The CA file is read now (a bad path is a start error, like the original's); the provider later.
  const ca = options.caFile !== undefined ? await readFile(options.caFile, 'utf8') : undefined;
  if (ca !== undefined) {
    try {
      certificatesFromPem(ca);
    } catch (err) {
      throw new Error(`--oidc-ca-file ${options.caFile}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
  if (ca === undefined) deps.logger.info({}, "oidc: no --oidc-ca-file given, the host's root CAs verify the provider");
  const provider = new OidcProvider({ issuerUrl: options.issuerUrl, getter: new JsonGetter({ ca }), logger: deps.logger });
  void provider.start();
  return new OidcTokenAuthenticator(options, { provider });
}
