/**
 * Deployments (apps/v1): defaults (SetDefaults_Deployment and the pod
 * template's), status reset on create, the spec validation clients hit, and
 * the immutable selector. The generic store keeps metadata.generation; the
 * original also bumps it when annotations change, because they are copied
 * to the ReplicaSets, so that is done here.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goIntOrString, invalidShown } from '../validation/go-values.ts';
import { jsonEqual } from '../object.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { ensureObj, isMainResource, num, obj, setDefault, specOf, type JsonObject } from './util.ts';
import {
  intOrPercentValue,
  nonNegative,
  validateAlwaysRestartingTemplate,
  validateIntOrPercent,
  validateSelectorAndTemplate,
  validateSelectorImmutable,
} from './workload.ts';
import { pushAll } from '../../api/push-all.ts';

const STRATEGY_TYPES = ['Recreate', 'RollingUpdate'];

export function defaultDeploymentSpec(spec: JsonObject): void {
  setDefault(spec, 'replicas', 1);
  const strategy = ensureObj(spec, 'strategy');
  setDefault(strategy, 'type', 'RollingUpdate');
  if (strategy['type'] === 'RollingUpdate') {
    const rolling = ensureObj(strategy, 'rollingUpdate');
    setDefault(rolling, 'maxUnavailable', '25%');
    setDefault(rolling, 'maxSurge', '25%');
  }
  setDefault(spec, 'revisionHistoryLimit', 10);
  setDefault(spec, 'progressDeadlineSeconds', 600);
  defaultPodTemplate(ensureObj(spec, 'template'));
}

function validateStrategy(strategy: JsonObject | undefined): FieldError[] {
  const s = strategy ?? {};
  const type = s['type'];
  if (type === 'Recreate') {
    return s['rollingUpdate'] !== undefined && s['rollingUpdate'] !== null
      ? [fieldErrors.forbidden('spec.strategy.rollingUpdate', "may not be specified when strategy `type` is 'Recreate'")]
      : [];
  }
  if (type !== 'RollingUpdate') return [fieldErrors.notSupported('spec.strategy', s, STRATEGY_TYPES)];
  const rolling = obj(s['rollingUpdate']);
  if (!rolling) return [fieldErrors.required('spec.strategy.rollingUpdate', 'this should be defaulted and never be nil')];
  const errs = [
    ...validateIntOrPercent(rolling['maxUnavailable'], 'spec.strategy.rollingUpdate.maxUnavailable'),
    ...validateIntOrPercent(rolling['maxSurge'], 'spec.strategy.rollingUpdate.maxSurge'),
  ];
  if (intOrPercentValue(rolling['maxUnavailable']) === 0 && intOrPercentValue(rolling['maxSurge']) === 0) {
    errs.push(invalidShown('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(rolling['maxUnavailable']), 'may not be 0 when `maxSurge` is 0'));
  }
  if (typeof rolling['maxUnavailable'] === 'string' && intOrPercentValue(rolling['maxUnavailable']) > 100) {
    errs.push(invalidShown('spec.strategy.rollingUpdate.maxUnavailable', goIntOrString(rolling['maxUnavailable']), 'must not be greater than 100%'));
  }
  return errs;
}

export function validateDeploymentSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [...nonNegative(spec['replicas'], 'spec.replicas')];
  pushAll(errs, validateSelectorAndTemplate(spec, 'deployment'));
  pushAll(errs, validateAlwaysRestartingTemplate(spec, 'activeDeadlineSeconds in ReplicaSet is not Supported'));
  pushAll(errs, validateStrategy(obj(spec['strategy'])));
  pushAll(errs, nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  pushAll(errs, nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  const deadline = num(spec['progressDeadlineSeconds']);
  if (deadline !== undefined) {
    pushAll(errs, nonNegative(deadline, 'spec.progressDeadlineSeconds'));
    if (deadline <= (num(spec['minReadySeconds']) ?? 0)) {
      errs.push(fieldErrors.invalid('spec.progressDeadlineSeconds', deadline, 'must be greater than minReadySeconds'));
    }
  }
  return errs;
}

export const deploymentStrategy: Strategy = {
  defaults(d) {
    defaultDeploymentSpec(specOf(d));
  },

  prepareForCreate(d) {
    d['status'] = {};
  },

  prepareForUpdate(d, old, ctx) {
    if (!isMainResource(ctx)) return;
    const generation = d.metadata.generation;
    if (generation !== undefined && generation === old.metadata.generation && !jsonEqual(d.metadata.annotations ?? {}, old.metadata.annotations ?? {})) {
      d.metadata.generation = generation + 1;
    }
  },

  validate(d) {
    return validateDeploymentSpec(specOf(d));
  },

  validateUpdate(d, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateDeploymentSpec(specOf(d)), ...validateSelectorImmutable(specOf(d), obj(old['spec']) ?? {})];
  },
};
