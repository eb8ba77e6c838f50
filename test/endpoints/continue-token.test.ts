import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContinueTokens } from '../../src/endpoints/continue-token.ts';
import { StatusError } from '../../src/api/status.ts';

const key = new Uint8Array(32).fill(7);

function statusOf(fn: () => unknown): StatusError {
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof StatusError, String(err));
    return err;
  }
  assert.fail('expected a StatusError');
}

describe('ContinueTokens', () => {
  it('round-trips the position and the remaining count with the filter it was counted under', () => {
    const tokens = new ContinueTokens(key);
    const t = tokens.encode({ revision: 42, start: 'default/c2\u0000', remaining: { count: 17, filter: '["default","",""]' } });
    assert.deepEqual(tokens.decode(t), { revision: 42, start: 'default/c2\u0000', remaining: { count: 17, filter: '["default","",""]' } });
    const bare = tokens.encode({ revision: 42, start: 'x' });
    assert.equal(tokens.decode(bare).remaining, undefined);
  });

  it('rejects a token whose count was altered (400), and an old one (410)', () => {
    let now = 1_000;
    const tokens = new ContinueTokens(key, 5_000, () => now);
    const t = tokens.encode({ revision: 42, start: 'a', remaining: { count: 3, filter: 'f' } });
    const [payload, mac] = t.split('.');
    const body = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as Record<string, unknown>;
    body['left'] = 3000;
    const forged = `${Buffer.from(JSON.stringify(body)).toString('base64url')}.${mac}`;
    assert.equal(statusOf(() => tokens.decode(forged)).code, 400);
    now += 5_001;
    assert.equal(statusOf(() => tokens.decode(t)).code, 410);
  });
});
