/**
 * The token webhook from the flags: undefined without
 * --authentication-token-webhook-config-file. The connection file is read
 * at start (a bad one stops the start, as the original's); the webhook
 * itself is first called by the first token that needs it.
 */
import { apiGroup } from '../../naming/index.ts';
import { TokenReviewClient } from './client.ts';
import { loadWebhookKubeconfig } from './kubeconfig.ts';
import { WebhookTokenAuthenticator, type WebhookLogger } from './authenticator.ts';
import type { TokenWebhookOptions } from './config.ts';

export { WebhookTokenAuthenticator } from './authenticator.ts';
export { defaultTokenWebhookOptions, type TokenWebhookOptions } from './config.ts';

export interface WebhookBuildDeps {
  readonly logger: WebhookLogger;
  readonly apiAudiences?: readonly string[];
}

export async function createTokenWebhookAuthenticator(options: TokenWebhookOptions, deps: WebhookBuildDeps): Promise<WebhookTokenAuthenticator | undefined> {
  if (options.configFile === undefined || options.configFile === '') return undefined;
  const connection = await loadWebhookKubeconfig(options.configFile);
  return new WebhookTokenAuthenticator({
    client: new TokenReviewClient({ connection }),
    group: apiGroup('authentication'),
    version: options.version,
    cacheTtlMs: options.cacheTtlMs,
    ...(deps.apiAudiences !== undefined ? { implicitAudiences: deps.apiAudiences } : {}),
    logger: deps.logger,
  });
}
