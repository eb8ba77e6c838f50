/**
 * Builds the authorization chain of one serving thread from the server's
 * flags: the modes this package implements beyond the built-ins (Node,
 * ABAC, Webhook) are made here from the thread's own GenericStore (the
 * Node graph's watches go through its router) and handed to mode.ts as
 * factories. Files are read once, before anything is built, so a bad
 * policy file or webhook kubeconfig refuses the start.
 *
 * Other modes (RBAC) plug in by adding their factory to `extraFactories`
 * and their name to PLANNED_MODES.
 */
import type { GenericStore } from '../registry/generic-store.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { Logger } from '../server/logging.ts';
import type { ServerOptions } from '../server/options.ts';
import { buildAuthorization, parseAuthorizationModes, type AuthorizationMode, type AuthorizerFactories } from './mode.ts';
import type { Authorizer } from './types.ts';
import type { RuleResolver } from './rule-resolver.ts';
import { startNodeMode } from './node/index.ts';
import { loadAbacAuthorizer } from './abac/index.ts';
import { loadWebhookAuthorizer, WEBHOOK_VERSIONS, type WebhookVersion } from './webhook/index.ts';

/** The modes built here (validated before start, built per thread). */
export const PLANNED_MODES: readonly AuthorizationMode[] = ['Node', 'ABAC', 'Webhook'];

/** Factories for validation only: they say which modes exist; building one is a bug. */
export function plannedModeFactories(extra: readonly AuthorizationMode[] = []): AuthorizerFactories {
  const f: AuthorizerFactories = {};
  for (const m of [...PLANNED_MODES, ...extra]) {
    f[m] = () => {
      throw new Error(`authorization mode ${m} is only validated here, not built`);
    };
  }
  return f;
}

/** Flag combinations the original refuses (BuiltInAuthorizationOptions.Validate). */
export function authorizationOptionProblems(o: ServerOptions): string[] {
  const problems: string[] = [];
  let modes: AuthorizationMode[];
  try {
    modes = parseAuthorizationModes(o.authorizationMode);
  } catch {
    return problems; // reported by the mode validation
  }
  const abac = modes.includes('ABAC');
  const webhook = modes.includes('Webhook');
  if (abac && o.authorizationPolicyFile === undefined) problems.push("authorization-mode ABAC's authorization policy file not passed");
  if (!abac && o.authorizationPolicyFile !== undefined) problems.push('cannot specify --authorization-policy-file without mode ABAC');
  if (webhook && o.authorizationWebhookConfigFile === undefined) problems.push("authorization-mode Webhook's authorization config file not passed");
  if (!webhook && o.authorizationWebhookConfigFile !== undefined) problems.push('cannot specify --authorization-webhook-config-file without mode Webhook');
  if (!(WEBHOOK_VERSIONS as readonly string[]).includes(o.authorizationWebhookVersion)) {
    problems.push(`invalid value ${JSON.stringify(o.authorizationWebhookVersion)} for --authorization-webhook-version: must be v1beta1 or v1`);
  }
  return problems;
}

export interface AuthorizationDeps {
  readonly store: GenericStore;
  readonly registry: ResourceRegistry;
  readonly logger: Logger;
  /** Modes built by their owners (RBAC), keyed by mode. */
  readonly extraFactories?: AuthorizerFactories;
}

export interface ServerAuthorization {
  readonly authorizer: Authorizer;
  /** What SelfSubjectRulesReview asks. */
  readonly rules: RuleResolver;
  /** Ends the modes' watches and webhook connections. */
  close(): void;
}

export async function buildServerAuthorization(opts: ServerOptions, deps: AuthorizationDeps): Promise<ServerAuthorization> {
  const modes = parseAuthorizationModes(opts.authorizationMode);
  const closers: Array<() => void> = [];
  const factories: AuthorizerFactories = { ...deps.extraFactories };
  try {
    if (modes.includes('ABAC') && opts.authorizationPolicyFile !== undefined) {
      const abac = await loadAbacAuthorizer(opts.authorizationPolicyFile, (msg) => deps.logger.warn({}, msg));
      factories.ABAC = () => abac;
    }
    if (modes.includes('Webhook') && opts.authorizationWebhookConfigFile !== undefined) {
      const webhook = await loadWebhookAuthorizer(opts.authorizationWebhookConfigFile, {
        version: opts.authorizationWebhookVersion as WebhookVersion,
        authorizedTtlMs: opts.authorizationWebhookCacheAuthorizedTtlMs,
        unauthorizedTtlMs: opts.authorizationWebhookCacheUnauthorizedTtlMs,
        onError: (err) => deps.logger.warn({ err: err.message }, 'authorization webhook failed; it has no opinion on the request'),
      });
      closers.push(() => webhook.close());
      factories.Webhook = () => webhook;
    }
    if (modes.includes('Node')) {
      factories.Node = () => {
        const node = startNodeMode(deps.store, deps.registry);
        closers.push(() => node.close());
        return node.authorizer;
      };
    }
    const built = buildAuthorization(opts.authorizationMode, factories);
    return {
      authorizer: built.authorizer,
      rules: built.rules,
      close: () => {
        for (const c of closers.splice(0).reverse()) c();
      },
    };
  } catch (err) {
    for (const c of closers.splice(0).reverse()) c();
    throw err;
  }
}
