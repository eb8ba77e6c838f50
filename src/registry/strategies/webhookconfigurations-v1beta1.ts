/**
 * Webhook configurations written through admissionregistration.<suffix>/v1beta1
 * (spec 9.3): the v1beta1 defaults (failurePolicy Ignore, matchPolicy Exact,
 * timeoutSeconds 30, sideEffects Unknown, admissionReviewVersions [v1beta1])
 * before v1's, and v1's validation without what only v1 demands (sideEffects
 * None or NoneOnDryRun, unique webhook names).
 */
import type { KObject } from '../object.ts';
import type { FieldError, Strategy, StrategyContext } from '../strategy.ts';
import { mutatingWebhookConfigurationStrategy, validatingWebhookConfigurationStrategy } from './webhookconfigurations.ts';
import { arr, obj, setDefault } from './util.ts';

const V1BETA1_SIDE_EFFECTS = ['None', 'NoneOnDryRun', 'Some', 'Unknown'];

function defaultV1beta1(config: KObject): void {
  for (const h of arr(config['webhooks'])) {
    const hook = obj(h);
    if (hook === undefined) continue;
    setDefault(hook, 'failurePolicy', 'Ignore');
    setDefault(hook, 'matchPolicy', 'Exact');
    setDefault(hook, 'timeoutSeconds', 30);
    setDefault(hook, 'sideEffects', 'Unknown');
    if (arr(hook['admissionReviewVersions']).length === 0) hook['admissionReviewVersions'] = ['v1beta1'];
  }
}

/** v1-only rules: sideEffects beyond None/NoneOnDryRun, duplicate webhook names. */
function v1beta1Allows(config: KObject, e: FieldError): boolean {
  const m = /^webhooks\[(\d+)\]\.(sideEffects|name)$/.exec(e.field);
  if (m === null) return false;
  if (m[2] === 'name') return e.type === 'FieldValueDuplicate';
  const hook = obj(arr(config['webhooks'])[Number(m[1])]);
  return e.type === 'FieldValueNotSupported' && V1BETA1_SIDE_EFFECTS.includes(String(hook?.['sideEffects']));
}

export function webhookConfigurationV1beta1Strategy(mutating: boolean): Strategy {
  const v1 = mutating ? mutatingWebhookConfigurationStrategy : validatingWebhookConfigurationStrategy;
  return {
    // The v1beta1 defaults first, then v1's for what v1beta1 leaves unset.
    defaults(c: KObject) {
      defaultV1beta1(c);
      v1.defaults?.(c);
    },
    prepareForCreate(c: KObject, ctx: StrategyContext) {
      v1.prepareForCreate?.(c, ctx);
    },
    prepareForUpdate(c: KObject, old: KObject, ctx: StrategyContext) {
      v1.prepareForUpdate?.(c, old, ctx);
    },
    validate: (c, ctx) => (v1.validate?.(c, ctx) ?? []).filter((e) => !v1beta1Allows(c, e)),
    validateUpdate: (c, old, ctx) => (v1.validateUpdate?.(c, old, ctx) ?? []).filter((e) => !v1beta1Allows(c, e)),
  };
}
