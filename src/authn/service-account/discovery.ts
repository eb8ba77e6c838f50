/**
 * Service-account issuer discovery, as the original's
 * pkg/serviceaccount/openidmetadata.go: an OpenID provider configuration at
 * `/.well-known/openid-configuration` and the verification keys as a JWKS at
 * `/openid/v1/jwks`, so that an external OIDC verifier can check the tokens
 * this server issues. Both are built once at start.
 *
 * `jwks_uri` is `--service-account-jwks-uri`, else
 * `https://<this server's address>/openid/v1/jwks` — the original's default
 * (its external address), not `{issuer}/openid/v1/jwks`, since the issuer
 * (`https://<cluster host>.default.svc.cluster.local` by default) is an
 * in-cluster name. As the original, the documents are not served when the
 * issuer is not an https URL without query or fragment (the reason is logged).
 */
import { exportJWK } from 'jose';
import type { VerificationKey } from './keys.ts';

export const OPENID_CONFIG_PATH = '/.well-known/openid-configuration';
export const JWKS_PATH = '/openid/v1/jwks';
/** The original's cacheControl for both documents. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=3600';

export interface ServedDocument {
  readonly contentType: string;
  readonly cacheControl: string;
  readonly body: Uint8Array;
}

export type IssuerDiscovery =
  | { readonly served: true; readonly documents: ReadonlyMap<string, ServedDocument> }
  | { readonly served: false; readonly reason: string };

function httpsUrlProblem(what: string, value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `${what} is not a URL: ${JSON.stringify(value)}`;
  }
  if (url.protocol !== 'https:') return `${what} must use https scheme, got: ${value}`;
  if (url.search !== '') return `${what} may not have the query portion`;
  if (url.hash !== '') return `${what} may not have the fragment portion`;
  return undefined;
}

export async function buildIssuerDiscovery(input: {
  readonly issuer: string;
  readonly jwksUri: string | undefined;
  /** host:port clients reach this server at. */
  readonly externalAddress: string;
  readonly keys: readonly VerificationKey[];
}): Promise<IssuerDiscovery> {
  const issuerProblem = httpsUrlProblem('issuer URL', input.issuer);
  if (issuerProblem !== undefined) return { served: false, reason: issuerProblem };
  const jwksUri = input.jwksUri ?? new URL(JWKS_PATH, `https://${input.externalAddress}`).toString();
  const jwksProblem = httpsUrlProblem('jwks_uri', jwksUri);
  if (jwksProblem !== undefined) return { served: false, reason: jwksProblem };

  const jwks = [];
  for (const k of input.keys) {
    const jwk = await exportJWK(k.key);
    jwks.push({ use: 'sig', kty: jwk.kty, kid: k.kid, alg: k.alg, ...(jwk.kty === 'RSA' ? { n: jwk.n, e: jwk.e } : { crv: jwk.crv, x: jwk.x, y: jwk.y }) });
  }
  const config = {
    issuer: input.issuer,
    jwks_uri: jwksUri,
    response_types_supported: ['id_token'],
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: [...new Set(input.keys.map((k) => k.alg))].sort(),
  };
  const encoder = new TextEncoder();
  return {
    served: true,
    documents: new Map<string, ServedDocument>([
      [OPENID_CONFIG_PATH, { contentType: 'application/json', cacheControl: DISCOVERY_CACHE_CONTROL, body: encoder.encode(JSON.stringify(config)) }],
      [JWKS_PATH, { contentType: 'application/jwk-set+json', cacheControl: DISCOVERY_CACHE_CONTROL, body: encoder.encode(JSON.stringify({ keys: jwks })) }],
    ]),
  };
}
