/**
 * ReplicaSets (apps/v1) and the shared shape of ReplicationControllers:
 * replicas defaulted to 1, status reset on create, selector/template rules
 * and an immutable selector (pkg/apis/apps/validation ValidateReplicaSet).
 */
import type { FieldError, Strategy } from '../strategy.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { ensureObj, isMainResource, obj, setDefault, specOf, type JsonObject } from './util.ts';
import { nonNegative, validateAlwaysRestartingTemplate, validateSelectorAndTemplate, validateSelectorImmutable } from './workload.ts';

export function defaultReplicaSetSpec(spec: JsonObject): void {
  setDefault(spec, 'replicas', 1);
  defaultPodTemplate(ensureObj(spec, 'template'));
}

export function validateReplicaSetSpec(spec: JsonObject): FieldError[] {
  return [
    ...nonNegative(spec['replicas'], 'spec.replicas'),
    ...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'),
    // The original reuses the Deployment wording here.
    ...validateSelectorAndTemplate(spec, 'deployment'),
    ...validateAlwaysRestartingTemplate(spec, 'activeDeadlineSeconds in ReplicaSet is not Supported'),
  ];
}

export const replicaSetStrategy: Strategy = {
  prepareForCreate(rs) {
    // replicas has no omitempty in v1: the zero status still shows it.
    rs['status'] = { replicas: 0 };
  },

  defaults(rs) {
    defaultReplicaSetSpec(specOf(rs));
  },

  validate(rs) {
    return validateReplicaSetSpec(specOf(rs));
  },

  validateUpdate(rs, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateReplicaSetSpec(specOf(rs)), ...validateSelectorImmutable(specOf(rs), obj(old['spec']) ?? {})];
  },
};
