/**
 * DaemonSets (apps/v1): SetDefaults_DaemonSet (RollingUpdate with
 * maxUnavailable 1 and maxSurge 0, revisionHistoryLimit 10), the template
 * generation the original keeps in an annotation in v1, and validation.
 */
import { jsonEqual } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goIntOrString, invalidShown } from '../validation/go-values.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { ensureObj, isMainResource, obj, setDefault, specOf, type JsonObject } from './util.ts';
import {
  intOrPercentValue,
  nonNegative,
  validateAlwaysRestartingTemplate,
  validateIntOrPercent,
  validateSelectorAndTemplate,
  validateSelectorImmutable,
} from './workload.ts';

/** apps/v1 has no spec.templateGeneration; the original carries it in this annotation. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

export function defaultDaemonSetSpec(spec: JsonObject): void {
  const strategy = ensureObj(spec, 'updateStrategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = ensureObj(strategy, 'rollingUpdate');
    setDefault(rolling, 'maxUnavailable', 1);
    setDefault(rolling, 'maxSurge', 0);
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObj(spec, 'template'));
}

function validateUpdateStrategy(strategy: JsonObject): FieldError[] {
  const type = strategy['type'];
  if (type === 'OnDelete') return [];
  if (type !== 'RollingUpdate') return [fieldErrors.notSupported('spec.updateStrategy', strategy, ['RollingUpdate', 'OnDelete'])];
  const rolling = obj(strategy['rollingUpdate']);
  const p = 'spec.updateStrategy.rollingUpdate';
  if (!rolling) return [fieldErrors.required(p)];
  const errs = [
    ...validateIntOrPercent(rolling['maxUnavailable'], `${p}.maxUnavailable`, true),
    ...validateIntOrPercent(rolling['maxSurge'], `${p}.maxSurge`, true),
  ];
  // Exactly one of the two may be non-zero.
  const hasUnavailable = intOrPercentValue(rolling['maxUnavailable']) !== 0;
  const hasSurge = intOrPercentValue(rolling['maxSurge']) !== 0;
  if (hasUnavailable && hasSurge) {
    errs.push(invalidShown(`${p}.maxSurge`, goIntOrString(rolling['maxSurge']), 'may not be set when maxUnavailable is non-zero'));
  } else if (!hasUnavailable && !hasSurge) {
    errs.push(fieldErrors.required(`${p}.maxUnavailable`, 'cannot be 0 when maxSurge is 0'));
  }
  return errs;
}

export function validateDaemonSetSpec(spec: JsonObject): FieldError[] {
  return [
    ...validateSelectorAndTemplate(spec, 'daemonset', false),
    ...validateAlwaysRestartingTemplate(spec, 'activeDeadlineSeconds must be nil for daemons'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
    ...validateUpdateStrategy(obj(spec['updateStrategy']) ?? {}),
    ...nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'),
  ];
}

function templateGeneration(annotations: Record<string, string> | undefined): number {
  const n = Number(annotations?.[TEMPLATE_GENERATION_ANNOTATION]);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export const daemonSetStrategy: Strategy = {
  defaults(ds) {
    defaultDaemonSetSpec(specOf(ds));
  },

  prepareForCreate(ds) {
    ds['status'] = { currentNumberScheduled: 0, numberMisscheduled: 0, desiredNumberScheduled: 0, numberReady: 0 };
    ds.metadata.annotations = { ...(ds.metadata.annotations ?? {}), [TEMPLATE_GENERATION_ANNOTATION]: '1' };
  },

  prepareForUpdate(ds, old, ctx) {
    if (!isMainResource(ctx)) return;
    // The template generation follows template changes and cannot be set by clients.
    let generation = templateGeneration(old.metadata.annotations);
    if (!jsonEqual(specOf(ds)['template'], obj(old['spec'])?.['template'])) generation++;
    const annotations = { ...(ds.metadata.annotations ?? {}) };
    if (generation > 0) annotations[TEMPLATE_GENERATION_ANNOTATION] = String(generation);
    else delete annotations[TEMPLATE_GENERATION_ANNOTATION];
    ds.metadata.annotations = annotations;
  },

  validate(ds) {
    return validateDaemonSetSpec(specOf(ds));
  },

  validateUpdate(ds, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateDaemonSetSpec(specOf(ds)), ...validateSelectorImmutable(specOf(ds), obj(old['spec']) ?? {})];
  },
};
