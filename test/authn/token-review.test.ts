/**
 * TokenReviewer: the token union with the original's audience rules
 * (audience-aware authenticators are asked, audience-agnostic ones count for
 * the API audiences only). End to end: test/e2e/token-review.test.ts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AudienceValidationError, TokenReviewer } from '../../src/authn/token-review.ts';
import type { TokenAuthenticator } from '../../src/authn/token.ts';
import type { AuthResult } from '../../src/authn/types.ts';
import { StaticTokenAuthenticator } from '../../src/authn/token-file.ts';

const STATIC = new StaticTokenAuthenticator([{ token: 'static-token-123', user: { name: 'alice', uid: 'a1', groups: ['dev'] } }]);

/** A service-account-like authenticator: valid for audience `vault` (and `api`). */
class AudienceAware implements TokenAuthenticator {
  readonly name = 'aware';
  readonly audienceAware = true;
  asked: Array<readonly string[] | undefined> = [];
  constructor(private readonly valid: readonly string[], private readonly lie = false) {}
  authenticateToken(token: string, _signal?: AbortSignal, audiences?: readonly string[]): AuthResult {
    this.asked.push(audiences);
    if (token !== 'sa-token-456789') return { kind: 'none' };
    if (this.lie) return { kind: 'user', user: { name: 'sa', groups: [] }, method: this.name, audiences: ['elsewhere'] };
    const ok = audiences === undefined ? this.valid : audiences.filter((a) => this.valid.includes(a));
    if (ok.length === 0) return { kind: 'invalid', message: 'token audiences ["api","vault"] is invalid for the target audiences' };
    return { kind: 'user', user: { name: 'system:serviceaccount:ns:sa', groups: ['system:serviceaccounts'] }, method: this.name, audiences: ok };
  }
}

describe('TokenReviewer', () => {
  it('a known token: authenticated, user with system:authenticated, no audiences when none were wanted', async () => {
    const r = await new TokenReviewer([STATIC]).review('static-token-123', []);
    assert.deepEqual(r, { authenticated: true, user: { name: 'alice', uid: 'a1', groups: ['dev', 'system:authenticated'] } });
  });

  it('an unknown token: not authenticated, the generic error, never the token', async () => {
    const r = await new TokenReviewer([STATIC]).review('unknown-token-999', []);
    assert.deepEqual(r, { authenticated: false, error: 'invalid bearer token' });
    const malformed = await new TokenReviewer([STATIC]).review('two words', []);
    assert.equal(malformed.authenticated, false);
  });

  it('a rejecting authenticator gives its reason, the token redacted should it appear', async () => {
    const leaky: TokenAuthenticator = { name: 'leaky', authenticateToken: (t) => ({ kind: 'invalid', message: `bad token ${t}` }) };
    const r = await new TokenReviewer([leaky]).review('leaky-token-abcdef', []);
    assert.equal(r.error, 'bad token [redacted]');
  });

  it('audience-agnostic tokens count only for the API audiences', async () => {
    const reviewer = new TokenReviewer([STATIC], ['api', 'other']);
    // Nothing wanted: the API audiences are wanted, and reported.
    assert.deepEqual((await reviewer.review('static-token-123', [])).audiences, ['api', 'other']);
    // A wanted API audience: valid for it alone.
    assert.deepEqual((await reviewer.review('static-token-123', ['api', 'vault'])).audiences, ['api']);
    // No API audience wanted: the static token is not for them.
    assert.deepEqual(await reviewer.review('static-token-123', ['vault']), { authenticated: false, error: 'invalid bearer token' });
    // Without API audiences, wanting any audience rules static tokens out.
    assert.equal((await new TokenReviewer([STATIC]).review('static-token-123', ['vault'])).authenticated, false);
  });

  it('audience-aware authenticators are asked with the wanted audiences and report the valid ones', async () => {
    const aware = new AudienceAware(['api', 'vault']);
    const reviewer = new TokenReviewer([STATIC, aware], ['api']);
    const r = await reviewer.review('sa-token-456789', ['vault', 'x']);
    assert.equal(r.authenticated, true);
    assert.deepEqual(r.audiences, ['vault']);
    assert.deepEqual(aware.asked.at(-1), ['vault', 'x']);
    const apiDefault = await reviewer.review('sa-token-456789', []);
    assert.deepEqual(aware.asked.at(-1), ['api']);
    assert.deepEqual(apiDefault.audiences, ['api']);
    const wrong = await reviewer.review('sa-token-456789', ['x']);
    assert.equal(wrong.authenticated, false);
    assert.match(wrong.error ?? '', /invalid for the target audiences/);
    // With no audiences anywhere, none are passed.
    await new TokenReviewer([aware]).review('sa-token-456789', []);
    assert.equal(aware.asked.at(-1), undefined);
  });

  it('a user whose audiences miss every wanted one is a server fault, not a yes', async () => {
    await assert.rejects(new TokenReviewer([new AudienceAware([], true)]).review('sa-token-456789', ['vault']), AudienceValidationError);
  });

  it('a throwing authenticator is a failure for that token only', async () => {
    const broken: TokenAuthenticator = { name: 'broken', authenticateToken: () => { throw new Error('backend down'); } };
    const r = await new TokenReviewer([broken, STATIC]).review('static-token-123', []);
    assert.equal(r.authenticated, true);
    const r2 = await new TokenReviewer([broken]).review('static-token-123', []);
    assert.deepEqual(r2, { authenticated: false, error: 'broken: backend down' });
  });
});
