/**
 * Resolves the service-account flags into one configuration, read once at
 * start and shared by the token authenticator, the TokenRequest subresource
 * and issuer discovery.
 *
 * Keys, where the original and we differ:
 * - the original requires `--service-account-signing-key-file` and
 *   `--service-account-issuer`; for a quick start we fall back to the data
 *   dir's key pair (sa.key signs, every key in sa.pub verifies) and to the
 *   flavor's issuer `https://<cluster host>.default.svc.cluster.local`;
 * - with no `--service-account-key-file`, the original verifies with the TLS
 *   serving key. We do so only when a signing key file is given with
 *   `--tls-private-key-file` (the original's own set-up); with the data dir's
 *   signing key, its sa.pub verifies, since the generated serving key cannot
 *   check tokens sa.key signed.
 */
import { readFile } from 'node:fs/promises';
import type { KeyObject } from 'node:crypto';
import { names } from '../../naming/index.ts';
import type { ServerOptions } from '../../server/options.ts';
import { keyId, KeyFileError, parsePublicKeysPem, parseSigningKeyPem, signingKeyOf, uniqueKeys, algorithmOf, type SigningKey, type VerificationKey } from './keys.ts';

export interface ServiceAccountConfig {
  /** Accepted issuers; the first signs. */
  readonly issuers: readonly string[];
  /** The API's audiences (`--api-audiences`, default the issuers). */
  readonly apiAudiences: readonly string[];
  readonly signingKey: SigningKey;
  readonly verificationKeys: readonly VerificationKey[];
  /** 0: no cap. */
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  /** Legacy tokens: check the secret and service account still exist. */
  readonly lookup: boolean;
  /** `--service-account-jwks-uri`, if given. */
  readonly jwksUri: string | undefined;
  /** For the start-up log. */
  readonly warnings: readonly string[];
  /** Where the keys came from, for the start-up log (paths, never key material). */
  readonly keySources: { readonly signing: string; readonly verification: readonly string[] };
}

export interface DataDirServiceAccountKeys {
  readonly saPrivateKey: KeyObject;
  readonly saPublicKeys: readonly KeyObject[];
  readonly saPrivateKeyPath: string;
  readonly saPublicKeyPath: string;
}

async function readKeyFile(path: string, flag: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (err) {
    throw new KeyFileError(`--${flag}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export async function resolveServiceAccountConfig(opts: ServerOptions, dataDir: DataDirServiceAccountKeys): Promise<ServiceAccountConfig> {
  const warnings: string[] = [];
  let signingKey: SigningKey;
  let signingSource: string;
  if (opts.serviceAccountSigningKeyFile !== undefined) {
    signingSource = opts.serviceAccountSigningKeyFile;
    signingKey = parseSigningKeyPem(await readKeyFile(signingSource, 'service-account-signing-key-file'), signingSource);
  } else {
    signingSource = dataDir.saPrivateKeyPath;
    signingKey = signingKeyOf(dataDir.saPrivateKey, signingSource);
  }

  let verificationKeys: VerificationKey[] = [];
  let verificationSources: string[];
  if (opts.serviceAccountKeyFiles.length > 0) {
    verificationSources = [...opts.serviceAccountKeyFiles];
    for (const file of opts.serviceAccountKeyFiles) {
      verificationKeys.push(...parsePublicKeysPem(await readKeyFile(file, 'service-account-key-file'), file));
    }
  } else if (opts.serviceAccountSigningKeyFile !== undefined) {
    if (opts.tlsPrivateKeyFile === undefined) {
      throw new KeyFileError('--service-account-key-file is required when --service-account-signing-key-file is given (or --tls-private-key-file, whose key is then used)');
    }
    verificationSources = [opts.tlsPrivateKeyFile];
    verificationKeys = parsePublicKeysPem(await readKeyFile(opts.tlsPrivateKeyFile, 'tls-private-key-file'), opts.tlsPrivateKeyFile);
  } else {
    verificationSources = [dataDir.saPublicKeyPath];
    for (const key of dataDir.saPublicKeys) {
      const alg = algorithmOf(key);
      if (alg !== undefined) verificationKeys.push({ key, kid: keyId(key), alg });
    }
  }
  verificationKeys = uniqueKeys(verificationKeys);
  if (!verificationKeys.some((k) => k.kid === signingKey.kid)) {
    warnings.push('the service-account signing key is not among the verification keys: tokens this server issues will not authenticate here');
  }

  const issuers = opts.serviceAccountIssuers.length > 0 ? [...opts.serviceAccountIssuers] : [names.serviceAccountTokens.defaultIssuer];
  return {
    issuers,
    apiAudiences: opts.apiAudiences.length > 0 ? [...opts.apiAudiences] : issuers,
    signingKey,
    verificationKeys,
    maxExpirationSeconds: opts.serviceAccountMaxTokenExpirationSeconds,
    extendExpiration: opts.serviceAccountExtendTokenExpiration,
    lookup: opts.serviceAccountLookup,
    jwksUri: opts.serviceAccountJwksUri,
    warnings,
    keySources: { signing: signingSource, verification: verificationSources },
  };
}
