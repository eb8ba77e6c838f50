/**
 * The authenticating proxy (`--requestheader-*`, spec 5.4): a front proxy
 * that has authenticated the user passes the identity in headers
 * (X-Remote-User, X-Remote-Group, X-Remote-Extra-<key>), and proves it may do
 * so with its client certificate.
 *
 * As the original's x509 request verifier around its request-header
 * authenticator:
 * - no client certificate: no opinion;
 * - a certificate that does not verify against --requestheader-client-ca-file,
 *   or whose common name is not in --requestheader-allowed-names (empty =
 *   any): rejected, and the headers are not read (another method, e.g. the
 *   client CA, may still recognise the certificate);
 * - a qualifying certificate but no user name header with a value: no opinion;
 * - otherwise the user is the first username header with a value (its first
 *   value), groups are every value of every group header, and extras come
 *   from each header under an extra prefix: the rest of its name lower-cased
 *   and percent-decoded is the key, its values the values.
 *
 * The headers themselves are removed from every request after
 * authentication, qualifying or not (requestHeaderNamesFilter, applied by the
 * authentication filter), so nothing downstream can see a spoofed identity.
 * The uWS listener cannot see client certificates, so there the headers never
 * count: the request has no chain and this method has no opinion.
 */
import type { ApiRequest } from '../server/http.ts';
import type { AuthResult, Authenticator } from './types.ts';
import { X509Authenticator } from './x509.ts';

export const REQUEST_HEADER_METHOD = 'requestheader';

export interface RequestHeaderConfig {
  /** --requestheader-username-headers, in order (required, non-empty). */
  readonly usernameHeaders: readonly string[];
  /** --requestheader-group-headers. */
  readonly groupHeaders: readonly string[];
  /** --requestheader-extra-headers-prefix (repeatable / comma list). */
  readonly extraHeaderPrefixes: readonly string[];
  /** --requestheader-allowed-names; empty means any common name. */
  readonly allowedNames: readonly string[];
}

export interface RequestHeaderAuthenticatorOptions extends RequestHeaderConfig {
  /** DER certificates of --requestheader-client-ca-file. */
  readonly clientCA: readonly Uint8Array[];
  readonly now?: () => number;
}

/** Go's url.PathUnescape: a malformed escape leaves the key as sent (the original records it anyway). */
export function unescapeExtraKey(encoded: string): string {
  if (!encoded.includes('%')) return encoded;
  if (!/^(?:[^%]|%[0-9A-Fa-f]{2})*$/.test(encoded)) return encoded;
  try {
    return decodeURIComponent(encoded);
  } catch {
    // Escapes that are well-formed but not UTF-8: Go keeps the raw bytes; we keep the text as sent.
    return encoded;
  }
}

/** Lower-case header names and prefixes, checked once at start. */
function normalize(config: RequestHeaderConfig): RequestHeaderConfig {
  const lower = (xs: readonly string[]): string[] => xs.map((x) => x.trim().toLowerCase()).filter((x) => x !== '');
  return {
    usernameHeaders: lower(config.usernameHeaders),
    groupHeaders: lower(config.groupHeaders),
    extraHeaderPrefixes: lower(config.extraHeaderPrefixes),
    allowedNames: config.allowedNames.filter((n) => n !== ''),
  };
}

/** True for the header names (lower-case) the proxy's identity travels in: removed from every request. */
export function requestHeaderNamesFilter(config: RequestHeaderConfig): (lowerName: string) => boolean {
  const n = normalize(config);
  const exact = new Set([...n.usernameHeaders, ...n.groupHeaders]);
  const prefixes = n.extraHeaderPrefixes;
  return (name) => exact.has(name) || prefixes.some((p) => name.startsWith(p));
}

export class RequestHeaderAuthenticator implements Authenticator {
  readonly name = REQUEST_HEADER_METHOD;
  readonly #config: RequestHeaderConfig;
  readonly #allowed: ReadonlySet<string>;
  /** Verifies the proxy's chain against the request-header CA; cached by chain hash like client certificates. */
  readonly #verifier: X509Authenticator;

  constructor(options: RequestHeaderAuthenticatorOptions) {
    this.#config = normalize(options);
    if (this.#config.usernameHeaders.length === 0) throw new Error('--requestheader-username-headers must name at least one header');
    this.#allowed = new Set(this.#config.allowedNames);
    this.#verifier = new X509Authenticator({ clientCA: options.clientCA, ...(options.now ? { now: options.now } : {}) });
  }

  authenticate(req: ApiRequest): AuthResult {
    const chain = req.peerCertificates;
    if (chain === undefined || chain.length === 0) return { kind: 'none' };
    const verified = this.#verifier.authenticate(req);
    if (verified.kind === 'invalid') return { kind: 'invalid', message: `request header proxy: ${verified.message}` };
    // `none` with a chain: verified, but without a common name.
    const cn = verified.kind === 'user' ? verified.user.name : '';
    if (this.#allowed.size > 0 && !this.#allowed.has(cn)) {
      return { kind: 'invalid', message: `x509: subject with cn=${cn} is not in the allowed list` };
    }
    return this.#fromHeaders(req);
  }

  #fromHeaders(req: ApiRequest): AuthResult {
    let name = '';
    for (const h of this.#config.usernameHeaders) {
      const first = req.headerValues(h)[0] ?? '';
      if (first !== '') {
        name = first;
        break;
      }
    }
    if (name === '') return { kind: 'none' };
    const groups: string[] = [];
    for (const h of this.#config.groupHeaders) {
      for (const v of req.headerValues(h)) if (v !== '') groups.push(v);
    }
    // A Map, then fromEntries: a key such as `__proto__` becomes a plain own property.
    const extra = new Map<string, string[]>();
    if (this.#config.extraHeaderPrefixes.length > 0) {
      const headerNames = req.headerNames();
      // Prefixes first, so values keep the order of the configured prefixes, as the original.
      for (const prefix of this.#config.extraHeaderPrefixes) {
        for (const h of headerNames) {
          if (!h.startsWith(prefix)) continue;
          const key = unescapeExtraKey(h.slice(prefix.length));
          const values = extra.get(key);
          if (values === undefined) extra.set(key, req.headerValues(h));
          else values.push(...req.headerValues(h));
        }
      }
    }
    return {
      kind: 'user',
      user: { name, groups, ...(extra.size > 0 ? { extra: Object.fromEntries(extra) } : {}) },
      method: REQUEST_HEADER_METHOD,
    };
  }
}
