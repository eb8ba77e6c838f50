/**
 * Signs service-account tokens with the signing key (jose), with the key's
 * ID in the header as the original's JWTTokenGenerator does, so verifiers
 * holding the JWKS can pick the key.
 */
import { SignJWT } from 'jose';
import type { SigningKey } from './keys.ts';

export class TokenSigner {
  constructor(private readonly signingKey: SigningKey) {}

  get keyId(): string {
    return this.signingKey.kid;
  }

  sign(claims: Record<string, unknown>): Promise<string> {
    return new SignJWT(claims).setProtectedHeader({ alg: this.signingKey.alg, kid: this.signingKey.kid }).sign(this.signingKey.key);
  }
}
