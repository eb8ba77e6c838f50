/**
 * Service-account tokens, assembled once per server: the configuration
 * (keys, issuers, audiences), the TokenRequest settings and issuer for the
 * serviceaccounts/token subresource, and the issuer discovery documents.
 * The authenticator itself is built per serving thread in authn/build.ts
 * from the same configuration.
 */
import type { Logger } from '../../server/logging.ts';
import type { ServerOptions } from '../../server/options.ts';
import { OptionsError } from '../../server/options.ts';
import type { TokenRequestEnv, TokenToIssue } from '../../registry/token-request/token-request.ts';
import { boundClaims } from './claims.ts';
import { resolveServiceAccountConfig, type DataDirServiceAccountKeys, type ServiceAccountConfig } from './config.ts';
import { buildIssuerDiscovery, type ServedDocument } from './discovery.ts';
import { TokenSigner } from './issuer.ts';
import { KeyFileError } from './keys.ts';

export { ServiceAccountTokenAuthenticator, SERVICE_ACCOUNT_METHOD } from './authenticator.ts';
export type { ServiceAccountConfig } from './config.ts';

export interface ServiceAccountTokens {
  readonly config: ServiceAccountConfig;
  readonly tokenRequest: Omit<TokenRequestEnv, 'store' | 'registry'>;
  /** Issuer discovery documents by path; empty when the issuer is no https URL. */
  readonly documents: ReadonlyMap<string, ServedDocument>;
}

export async function startServiceAccountTokens(
  opts: ServerOptions,
  files: DataDirServiceAccountKeys,
  externalAddress: string,
  logger: Logger,
): Promise<ServiceAccountTokens> {
  let config: ServiceAccountConfig;
  try {
    config = await resolveServiceAccountConfig(opts, files);
  } catch (err) {
    if (err instanceof KeyFileError) throw new OptionsError(err.message);
    throw err;
  }
  for (const w of config.warnings) logger.warn({}, w);
  logger.info(
    { issuers: config.issuers, apiAudiences: config.apiAudiences, signingKey: config.keySources.signing, verificationKeys: config.keySources.verification },
    'service-account tokens',
  );
  const issuer = config.issuers[0]!;
  const signer = new TokenSigner(config.signingKey);
  const issue = (t: TokenToIssue): Promise<string> => signer.sign(boundClaims({ issuer, ...t }));
  const discovery = await buildIssuerDiscovery({ issuer, jwksUri: config.jwksUri, externalAddress, keys: config.verificationKeys });
  if (!discovery.served) logger.warn({ reason: discovery.reason }, 'service-account issuer discovery is not served');
  return {
    config,
    tokenRequest: {
      apiAudiences: config.apiAudiences,
      maxExpirationSeconds: config.maxExpirationSeconds,
      extendExpiration: config.extendExpiration,
      issue,
    },
    documents: discovery.served ? discovery.documents : new Map(),
  };
}
