/**
 * The one place that loads @peculiar/x509. The library decorates its ASN.1
 * schema classes, so `reflect-metadata` must be loaded before it, and it finds
 * WebCrypto through a global provider registry rather than `globalThis.crypto`.
 * Importing this module (not the library directly) guarantees both.
 */
import 'reflect-metadata';
import { webcrypto } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/**
 * Node's WebCrypto, typed as the DOM `Crypto` that @peculiar/x509 declares
 * (the project compiles without the DOM lib, so that type is only reachable
 * through the library's own signatures).
 */
export type PeculiarCrypto = Parameters<typeof x509.cryptoProvider.set>[0];
export const crypto = webcrypto as unknown as PeculiarCrypto;

// Idempotent: every module that sets it sets the same object.
x509.cryptoProvider.set(crypto);

export { x509 };
