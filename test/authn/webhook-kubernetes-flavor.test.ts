/**
 * In the kubernetes flavor the webhook speaks authentication.k8s.io, as
 * webhooks written for the original expect (the group comes from the
 * naming table, built from the flags as the server builds it).
 */
import '../support/kubernetes-flavor.ts';
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { createTokenWebhookAuthenticator } from '../../src/authn/webhook/index.ts';
import { defaultTokenWebhookOptions } from '../../src/authn/webhook/config.ts';
import { createTestWebhook, reviewAnswer, type TestWebhook } from './support/webhook-server.ts';

let hook: TestWebhook;
before(async () => {
  hook = await createTestWebhook();
});
after(async () => {
  await hook.close();
});

for (const version of ['v1beta1', 'v1'] as const) {
  it(`sends and expects authentication.k8s.io/${version}`, async () => {
    hook.calls.length = 0;
    hook.answer = () => reviewAnswer(`authentication.k8s.io/${version}`, { authenticated: true, user: { username: 'k' } });
    const authn = await createTokenWebhookAuthenticator({ ...defaultTokenWebhookOptions(), configFile: await hook.kubeconfig(), version }, { logger: { warn: () => {} } });
    assert.ok(authn);
    assert.deepEqual(await authn.authenticateToken('kube-flavor-token-0123'), { kind: 'user', user: { name: 'k', groups: [] }, method: 'webhook' });
    assert.equal(hook.calls[0]!.body['apiVersion'], `authentication.k8s.io/${version}`);
    authn.close();
  });
}
