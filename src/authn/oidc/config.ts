/**
 * The `--oidc-*` flags (spec 5.2) as one value, their defaults and the
 * checks the original makes before it starts. Kept apart from the
 * authenticator so options parsing needs neither jose nor the network.
 */

/** JOSE algorithms the original accepts for --oidc-signing-algs; anything else is refused at start. */
export const OIDC_SIGNING_ALGS = ['RS256', 'RS384', 'RS512', 'ES256', 'ES384', 'ES512', 'PS256', 'PS384', 'PS512'] as const;

/** The --oidc-username-prefix value that turns prefixing off. */
export const NO_USERNAME_PREFIX = '-';

export interface OidcOptions {
  /** --oidc-issuer-url: https only; discovery lives one level below it. */
  issuerUrl: string | undefined;
  /** --oidc-client-id: the audience tokens must name; required with the issuer. */
  clientId: string | undefined;
  /** --oidc-ca-file: roots for the provider's certificate (the host's when unset). */
  caFile: string | undefined;
  /** --oidc-username-claim (default `sub`). */
  usernameClaim: string;
  /** --oidc-username-prefix as given (undefined: the default rule, see effectiveUsernamePrefix). */
  usernamePrefix: string | undefined;
  groupsClaim: string | undefined;
  groupsPrefix: string | undefined;
  /** --oidc-signing-algs (default RS256). */
  signingAlgs: string[];
  /** --oidc-required-claim key=value pairs, later ones overriding earlier ones as the original's map flag does. */
  requiredClaims: Map<string, string>;
}

export function defaultOidcOptions(): OidcOptions {
  return {
    issuerUrl: undefined,
    clientId: undefined,
    caFile: undefined,
    usernameClaim: 'sub',
    usernamePrefix: undefined,
    groupsClaim: undefined,
    groupsPrefix: undefined,
    signingAlgs: ['RS256'],
    requiredClaims: new Map(),
  };
}

/** OIDC is on when both the issuer and the client id are given (as the original). */
export function oidcEnabled(o: OidcOptions): o is OidcOptions & { issuerUrl: string; clientId: string } {
  return (o.issuerUrl ?? '') !== '' && (o.clientId ?? '') !== '';
}

/**
 * The prefix put before every user name, by the original's rule: an explicit
 * prefix wins (`-` meaning none); without one, claims other than `email` get
 * `<issuer URL>#`, so a `sub` from the provider cannot pass for a local name
 * such as `system:...` (kubernetes issue 31380).
 */
export function effectiveUsernamePrefix(o: OidcOptions): string {
  const given = o.usernamePrefix ?? '';
  if (given === '' && o.usernameClaim !== 'email') return `${o.issuerUrl ?? ''}#`;
  if (given === NO_USERNAME_PREFIX) return '';
  return given;
}

/** Parses one --oidc-required-claim value (`key=value`; the value may contain `=`). */
export function parseRequiredClaim(text: string): [string, string] {
  const eq = text.indexOf('=');
  if (eq <= 0) throw new Error(`invalid value ${JSON.stringify(text)} for --oidc-required-claim: expected key=value`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** Problems with the flags as a whole, reported before the server does anything. */
export function oidcOptionProblems(o: OidcOptions): string[] {
  const problems: string[] = [];
  const issuer = o.issuerUrl ?? '';
  const client = o.clientId ?? '';
  if ((issuer !== '') !== (client !== '')) problems.push('oidc-issuer-url and oidc-client-id should be specified together');
  if (issuer !== '') {
    let url: URL | undefined;
    try {
      url = new URL(issuer);
    } catch {
      problems.push(`invalid value ${JSON.stringify(issuer)} for --oidc-issuer-url: not a URL`);
    }
    if (url !== undefined) {
      if (url.protocol !== 'https:') problems.push(`'oidc-issuer-url' (${JSON.stringify(issuer)}) has invalid scheme (${JSON.stringify(url.protocol.replace(/:$/, ''))}), require 'https'`);
      if (url.username !== '' || url.password !== '') problems.push('--oidc-issuer-url must not carry credentials');
      if (url.search !== '' || url.hash !== '') problems.push('--oidc-issuer-url must not have a query or fragment');
    }
  }
  if (o.usernameClaim === '') problems.push('--oidc-username-claim must not be empty');
  if (o.signingAlgs.length === 0) problems.push('--oidc-signing-algs must name at least one algorithm');
  for (const alg of o.signingAlgs) {
    if (!(OIDC_SIGNING_ALGS as readonly string[]).includes(alg)) problems.push(`oidc: unsupported signing alg: ${JSON.stringify(alg)} (one of ${OIDC_SIGNING_ALGS.join(', ')})`);
  }
  return problems;
}
