/**
 * Which cipher suites the secure port prefers. The original is a Go server:
 * crypto/tls picks by its own order, not the client's, and on hardware with
 * AES instructions that order puts AES-128-GCM first (TLS 1.3 and 1.2 alike).
 * OpenSSL's default, as node uses it, follows the client, and OpenSSL clients
 * (curl, node, Python) list AES-256-GCM first: every byte a client read from
 * us cost a fifth more to seal than from the original (this machine, `openssl
 * speed`: AES-128-GCM 2.6 GB/s, AES-256-GCM 2.1 GB/s), which shows in a LIST of
 * 70 MB. Every suite stays on offer; only the order is the server's. TLS 1.3
 * requires every client to support TLS_AES_128_GCM_SHA256.
 */
import tls from 'node:tls';

const TLS13_PREFERRED = ['TLS_AES_128_GCM_SHA256', 'TLS_AES_256_GCM_SHA384', 'TLS_CHACHA20_POLY1305_SHA256'];

/** node's default list with its TLS 1.3 suites in Go's order (node's TLS 1.2 part already puts AES-128-GCM first). */
export const SERVER_CIPHERS = [...TLS13_PREFERRED, ...tls.DEFAULT_CIPHERS.split(':').filter((c) => !TLS13_PREFERRED.includes(c))].join(':');

/** Options for a TLS server that chooses suites by SERVER_CIPHERS. */
export const SERVER_CIPHER_OPTIONS = { ciphers: SERVER_CIPHERS, honorCipherOrder: true } as const;

/**
 * The secure port's TLS server options, whichever HTTP/2 engine serves it: its certificate, and a client
 * certificate asked for but not required (bearer-token and anonymous clients use this port too, and the
 * authenticator decides whether to trust one), suites in the original's order.
 */
export function securePortTlsOptions(tls: { cert: string | Buffer; key: string | Buffer; clientCa?: string | Buffer }): {
  cert: string | Buffer;
  key: string | Buffer;
  ca?: string | Buffer;
  requestCert: true;
  rejectUnauthorized: false;
} & typeof SERVER_CIPHER_OPTIONS {
  return {
    cert: tls.cert,
    key: tls.key,
    ...(tls.clientCa !== undefined ? { ca: tls.clientCa } : {}),
    requestCert: true,
    rejectUnauthorized: false,
    ...SERVER_CIPHER_OPTIONS,
  };
}
