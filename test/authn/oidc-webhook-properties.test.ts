/**
 * Property tests (fixed seeds) for what OIDC and the webhook read from
 * outside: arbitrary claims, arbitrary strings as bearer tokens, arbitrary
 * JSON as a webhook's answer. Nothing throws past the documented error,
 * and nothing but a well-formed, matching input yields a user.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { checkStandardClaims, untrustedIssuer, userFromClaims } from '../../src/authn/oidc/claims.ts';
import { parseTokenReviewResponse, TokenReviewResponseError } from '../../src/authn/webhook/tokenreview.ts';

const ISSUER = 'https://idp.example';
const RULES = { usernameClaim: 'sub', usernamePrefix: `${ISSUER}#`, groupsClaim: 'groups', groupsPrefix: 'oidc:', requiredClaims: new Map([['hd', 'example.com']]) };

const claimValue = fc.oneof(fc.string(), fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.array(fc.oneof(fc.string(), fc.integer())), fc.dictionary(fc.string(), fc.string()));
const claims = fc.dictionary(fc.constantFrom('iss', 'aud', 'exp', 'nbf', 'sub', 'groups', 'hd', 'email', 'email_verified', '__proto__', 'constructor', 'x'), claimValue);

describe('oidc claims: arbitrary input', () => {
  it('never throws, and a user always has a string name with the prefix and string groups', () => {
    fc.assert(
      fc.property(claims, (c) => {
        const std = checkStandardClaims(c, { issuer: ISSUER, clientId: 'c' }, Date.now());
        if (!('error' in std)) {
          assert.equal(c['iss'], ISSUER);
          assert.ok(std.expiresAt > Date.now());
        }
        const u = userFromClaims(c, RULES);
        if ('user' in u) {
          assert.ok(u.user.name.startsWith(`${ISSUER}#`) && u.user.name.length > RULES.usernamePrefix.length);
          assert.ok(u.user.groups.every((g) => typeof g === 'string' && g.startsWith('oidc:')));
          assert.equal(c['hd'], 'example.com');
        }
      }),
      { seed: 12, numRuns: 3000 },
    );
  });

  it('reads an issuer only from a three-part token, never throwing', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), fc.string(), (a, b, c, free) => {
        untrustedIssuer(free);
        const iss = untrustedIssuer(`${a}.${Buffer.from(b).toString('base64url')}.${c}`);
        assert.ok(iss === undefined || typeof iss === 'string');
      }),
      { seed: 13, numRuns: 3000 },
    );
  });
});

describe('webhook answers: arbitrary JSON', () => {
  it('parses or throws TokenReviewResponseError; a user only from authenticated: true with a username', () => {
    const status = fc.record(
      { authenticated: fc.oneof(fc.boolean(), fc.string(), fc.constant(null)), user: fc.oneof(fc.anything(), fc.record({ username: fc.oneof(fc.string(), fc.integer()), groups: fc.anything(), extra: fc.anything(), uid: fc.anything() }, { requiredKeys: [] })), audiences: fc.anything(), error: fc.anything() },
      { requiredKeys: [] },
    );
    const body = fc.oneof(fc.anything(), fc.record({ apiVersion: fc.constantFrom('authentication.orch.io/v1', 'authentication.orch.io/v1beta1', 'v1'), kind: fc.constantFrom('TokenReview', 'Status'), status }, { requiredKeys: [] }));
    fc.assert(
      fc.property(body, (b) => {
        try {
          const o = parseTokenReviewResponse(b, 'authentication.orch.io', 'v1');
          if (o.authenticated) {
            const s = (b as { status: { authenticated: unknown; user: { username: unknown } } }).status;
            assert.equal(s.authenticated, true);
            assert.equal(typeof o.user?.name, 'string');
            assert.ok(o.user!.name.length > 0);
            assert.equal((b as { apiVersion: string }).apiVersion, 'authentication.orch.io/v1');
          }
        } catch (err) {
          assert.ok(err instanceof TokenReviewResponseError, String(err));
        }
      }),
      { seed: 14, numRuns: 3000 },
    );
  });
});
