/**
 * The client certificate chain a TLS connection presented, as DER, leaf
 * first. Verification is the authenticator's job (the server asks for a
 * certificate but accepts the handshake either way), so this only copies.
 *
 * Built once per connection: getPeerCertificate(true) decodes every
 * certificate into a JS object, far too slow to repeat per request on a
 * keep-alive or HTTP/2 connection carrying thousands.
 */
import type { DetailedPeerCertificate, TLSSocket } from 'node:tls';

const chains = new WeakMap<object, readonly Uint8Array[] | null>();

/** `socket` may be an HTTP/2 session's socket proxy; it is also the cache key, so pass a stable one. */
export function peerCertificateChain(socket: TLSSocket): readonly Uint8Array[] | undefined {
  let chain = chains.get(socket);
  if (chain === undefined) {
    chain = walkChain(socket.getPeerCertificate(true));
    chains.set(socket, chain);
  }
  return chain ?? undefined;
}

function walkChain(leaf: DetailedPeerCertificate | null | undefined): readonly Uint8Array[] | null {
  // No certificate: node returns an empty object (null once the socket is gone).
  if (leaf == null || leaf.raw === undefined) return null;
  const chain: Uint8Array[] = [];
  const seen = new Set<string>();
  let cert: DetailedPeerCertificate | undefined = leaf;
  // A self-signed root is its own issuer: stop at the first repeat.
  while (cert !== undefined && cert.raw !== undefined && !seen.has(cert.fingerprint256)) {
    seen.add(cert.fingerprint256);
    chain.push(new Uint8Array(cert.raw));
    cert = cert.issuerCertificate;
  }
  return Object.freeze(chain);
}
