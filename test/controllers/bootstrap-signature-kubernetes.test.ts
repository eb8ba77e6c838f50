/**
 * The cluster-info signature in the kubernetes flavor is the original's
 * (k8s.io/cluster-bootstrap jws): HMAC-SHA256 keyed with the token secret
 * alone, header {"alg":"HS256","kid":<id>}, detached; checked against the
 * original's own test vectors, and the signature key named as its join tools
 * look for it.
 */
import '../support/kubernetes-flavor.ts';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { detachedSignature, JWS_KEY_PREFIX } from '../../src/controllers/bootstrap-signer.ts';

describe('bootstrap signature (kubernetes flavor)', () => {
  it("matches the original's vectors", async () => {
    const content = 'Hello from the other side. I must have called a thousand times.';
    assert.equal(await detachedSignature(content, 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..VShe2taLd-YTrmWuRkcL_8QTNDHYxQIEBsAYYiIj1_8');
    assert.equal(await detachedSignature('', 'joshua', 'my voice is my passcode'), 'eyJhbGciOiJIUzI1NiIsImtpZCI6Impvc2h1YSJ9..7Ui1ALizW4jXphVUB7xUqC9vLYLL9RZeOFfVLoB7Tgk');
    assert.equal(JWS_KEY_PREFIX, 'jws-kubeconfig-');
  });
});
