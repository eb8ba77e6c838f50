/**
 * The cluster-info signature in the orch flavor (spec 2.7): HMAC-SHA256
 * keyed with the full token `<id>.<secret>`, over `<header>.<payload>` with
 * the payload the content base64url-encoded without padding, detached.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { detachedSignature, JWS_KEY_PREFIX } from '../../src/controllers/bootstrap-signer.ts';
import { names } from '../../src/naming/index.ts';

describe('bootstrap signature (orch flavor)', () => {
  it('keys the HMAC with the full token', async () => {
    const content = 'apiVersion: v1\nclusters: []\n';
    const sig = await detachedSignature(content, 'abcdef', '0123456789abcdef');
    const [header, payload, mac] = sig.split('.');
    assert.equal(payload, '');
    assert.deepEqual(JSON.parse(Buffer.from(header!, 'base64url').toString()), { alg: 'HS256', kid: 'abcdef' });
    const signingInput = `${header}.${Buffer.from(content).toString('base64url')}`;
    assert.equal(mac, createHmac('sha256', 'abcdef.0123456789abcdef').update(signingInput).digest('base64url'));
    assert.notEqual(mac, createHmac('sha256', '0123456789abcdef').update(signingInput).digest('base64url'));
    assert.equal(JWS_KEY_PREFIX, `jws-${names.clusterInfoKey}-`);
    assert.equal(JWS_KEY_PREFIX, 'jws-orchconfig-');
  });
});
