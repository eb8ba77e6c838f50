/** The Webhook mode from its kubeconfig file and flags. */
import { WebhookClient } from './client.ts';
import { loadWebhookConfig } from './kubeconfig.ts';
import { WebhookAuthorizer, type WebhookAuthorizerOptions } from './authorizer.ts';

export { WebhookAuthorizer, DEFAULT_RETRY, WEBHOOK_VERSIONS, reviewSpec, type WebhookVersion, type WebhookAuthorizerOptions } from './authorizer.ts';
export { WebhookClient, WebhookCallError } from './client.ts';
export { loadWebhookConfig, WebhookConfigError, type WebhookClientConfig } from './kubeconfig.ts';

/** The original's request timeout for authorization webhooks. */
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 30_000;

export async function loadWebhookAuthorizer(configFile: string, opts: WebhookAuthorizerOptions & { timeoutMs?: number }): Promise<WebhookAuthorizer> {
  const config = await loadWebhookConfig(configFile);
  return new WebhookAuthorizer(new WebhookClient(config, opts.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS), opts);
}
