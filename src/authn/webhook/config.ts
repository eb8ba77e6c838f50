/**
 * The `--authentication-token-webhook-*` flags (spec 5.3) as one value,
 * with the original's defaults: cache TTL 2m0s, version v1beta1.
 */

export const TOKEN_WEBHOOK_VERSIONS = ['v1', 'v1beta1'] as const;
export type TokenWebhookVersion = (typeof TOKEN_WEBHOOK_VERSIONS)[number];

export interface TokenWebhookOptions {
  /** --authentication-token-webhook-config-file: kubeconfig naming the webhook and our client certificate. */
  configFile: string | undefined;
  /** --authentication-token-webhook-cache-ttl: how long answers are reused (0: not cached). */
  cacheTtlMs: number;
  /** --authentication-token-webhook-version: the TokenReview version sent and expected back. */
  version: TokenWebhookVersion;
}

export function defaultTokenWebhookOptions(): TokenWebhookOptions {
  return { configFile: undefined, cacheTtlMs: 2 * 60_000, version: 'v1beta1' };
}

export function isTokenWebhookVersion(v: string): v is TokenWebhookVersion {
  return (TOKEN_WEBHOOK_VERSIONS as readonly string[]).includes(v);
}
