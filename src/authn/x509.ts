/**
 * Client certificate authentication (--client-ca-file). The TLS front end
 * only collects the presented chain; here it is verified against the client
 * CA bundle and mapped to a user: common name = user name, organizations =
 * groups, as the original's CommonNameUserConversion does.
 *
 * Parsing and verifying a chain costs hundreds of microseconds, and clients
 * present the same certificate on every request, so outcomes are cached by a
 * SHA-256 of the presented chain: successes until the chain's earliest
 * notAfter, failures for a short while (so a client retrying with a bad
 * certificate cannot make every request pay for a full verification).
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { ApiRequest } from '../server/http.ts';
import type { AuthResult, Authenticator } from './types.ts';
import { TtlLruCache } from './cache.ts';
import { CertificateParseError, parseCertificate, type ParsedCertificate } from './certificate.ts';
import { CertPool, verifyClientCertificate } from './chain-verify.ts';
import { certificatesFromPem } from './pem.ts';

export const X509_METHOD = 'x509';

export interface X509AuthenticatorOptions {
  /** DER certificates of the client CA bundle (trust anchors). */
  readonly clientCA: readonly Uint8Array[];
  /** Most cached outcomes (LRU). Default 4096. */
  readonly cacheSize?: number;
  /** How long a failed verification is remembered, ms. Default 10 s. */
  readonly failureTtlMs?: number;
  /** Clock in epoch ms; verification and cache expiry both use it. */
  readonly now?: () => number;
  /** Certificate parser; injectable so tests can count the expensive work. */
  readonly parseCertificate?: (der: Uint8Array) => ParsedCertificate;
}

const NONE: AuthResult = { kind: 'none' };

export class X509Authenticator implements Authenticator {
  readonly name = X509_METHOD;
  private readonly roots: CertPool;
  private readonly cache: TtlLruCache<string, AuthResult>;
  private readonly failureTtlMs: number;
  private readonly now: () => number;
  private readonly parse: (der: Uint8Array) => ParsedCertificate;

  constructor(options: X509AuthenticatorOptions) {
    this.now = options.now ?? Date.now;
    this.parse = options.parseCertificate ?? parseCertificate;
    this.failureTtlMs = options.failureTtlMs ?? 10_000;
    this.cache = new TtlLruCache({ maxEntries: options.cacheSize ?? 4096, now: this.now });
    if (options.clientCA.length === 0) throw new Error('client CA bundle contains no certificates');
    this.roots = new CertPool(
      options.clientCA.map((der, i) => {
        try {
          return this.parse(der);
        } catch (err) {
          throw new Error(`client CA certificate ${i + 1}: ${(err as Error).message}`);
        }
      }),
    );
  }

  /** Builds the authenticator from the PEM bundle at `path`, failing start-up on a bad file. */
  static async fromFile(path: string, options: Omit<X509AuthenticatorOptions, 'clientCA'> = {}): Promise<X509Authenticator> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      throw new Error(`unable to load client CA file "${path}": ${(err as Error).message}`);
    }
    try {
      return new X509Authenticator({ ...options, clientCA: certificatesFromPem(text) });
    } catch (err) {
      throw new Error(`unable to load client CA file "${path}": ${(err as Error).message}`);
    }
  }

  authenticate(req: ApiRequest): AuthResult {
    const chain = req.peerCertificates;
    if (chain === undefined || chain.length === 0) return NONE;

    const key = chainKey(chain);
    const cached = this.cache.get(key);
    if (cached !== undefined) return cached;

    const now = this.now();
    const { result, expiresAt } = this.verify(chain, now);
    this.cache.set(key, result, expiresAt);
    return result;
  }

  private verify(chain: readonly Uint8Array[], now: number): { result: AuthResult; expiresAt: number } {
    const failure = (message: string): { result: AuthResult; expiresAt: number } => ({
      result: { kind: 'invalid', message },
      expiresAt: now + this.failureTtlMs,
    });
    let certs: ParsedCertificate[];
    try {
      certs = chain.map((der) => this.parse(der));
    } catch (err) {
      if (err instanceof CertificateParseError) return failure(err.message);
      throw err;
    }
    const [leaf, ...intermediates] = certs as [ParsedCertificate, ...ParsedCertificate[]];
    const verified = verifyClientCertificate(leaf, intermediates, this.roots, now);
    if (!verified.ok) return failure(verified.message);

    // The identity stays valid only while every certificate of the chain does.
    const used = verified.chains[0]!;
    const expiresAt = Math.min(...used.map((c) => c.notAfter)) + 1;
    // Like the original: a verified certificate without a common name names
    // nobody, so this method has no opinion rather than rejecting it.
    if (leaf.commonName === '') return { result: NONE, expiresAt };
    return {
      result: {
        kind: 'user',
        user: { name: leaf.commonName, groups: [...leaf.organizations] },
        method: X509_METHOD,
      },
      expiresAt,
    };
  }
}

/** SHA-256 over the length-prefixed DER of every presented certificate. */
function chainKey(chain: readonly Uint8Array[]): string {
  const h = createHash('sha256');
  const len = Buffer.alloc(4);
  for (const der of chain) {
    len.writeUInt32BE(der.length);
    h.update(len);
    h.update(der);
  }
  return h.digest('base64');
}
