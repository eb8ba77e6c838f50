/**
 * StatefulSets (apps/v1): SetDefaults_StatefulSet (OrderedReady, rolling
 * updates from partition 0, PVC retention Retain/Retain, replicas 1,
 * revisionHistoryLimit 10) and the validation clients hit, including the
 * original's list of spec fields an update may change.
 */
import { jsonEqual } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { defaultClaimTemplate, defaultPodTemplate } from './pod-defaults.ts';
import { arr, ensureObj, isMainResource, obj, setDefault, specOf, type JsonObject } from './util.ts';
import { nonNegative, validateAlwaysRestartingTemplate, validateIntOrPercent, validateSelectorAndTemplate, validateSelectorImmutable } from './workload.ts';
import { pushAll } from '../../api/push-all.ts';

const RETENTION = ['Retain', 'Delete'];
/** What an update may change; everything else in spec is fixed at creation. */
const MUTABLE_FIELDS = ['replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy', 'minReadySeconds'];
const UPDATE_FORBIDDEN =
  "updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden";

export function defaultStatefulSetSpec(spec: JsonObject): void {
  setDefault(spec, 'podManagementPolicy', 'OrderedReady');
  const strategy = ensureObj(spec, 'updateStrategy');
  if (!strategy['type']) {
    strategy['type'] = 'RollingUpdate';
    ensureObj(strategy, 'rollingUpdate');
  }
  const rolling = obj(strategy['rollingUpdate']);
  if (strategy['type'] === 'RollingUpdate' && rolling) setDefault(rolling, 'partition', 0);
  const retention = ensureObj(spec, 'persistentVolumeClaimRetentionPolicy');
  setDefault(retention, 'whenDeleted', 'Retain');
  setDefault(retention, 'whenScaled', 'Retain');
  setDefault(spec, 'replicas', 1);
  setDefault(spec, 'revisionHistoryLimit', 10);
  defaultPodTemplate(ensureObj(spec, 'template'));
  for (const claim of arr(spec['volumeClaimTemplates'])) {
    const c = obj(claim);
    if (c) defaultClaimTemplate(c);
  }
}

function validateUpdateStrategy(strategy: JsonObject): FieldError[] {
  const type = strategy['type'];
  const rolling = obj(strategy['rollingUpdate']);
  switch (type) {
    case undefined:
    case '':
      return [fieldErrors.required('spec.updateStrategy')];
    case 'OnDelete':
      return rolling ? [fieldErrors.invalid('spec.updateStrategy.rollingUpdate', rolling, "only allowed for updateStrategy 'RollingUpdate'")] : [];
    case 'RollingUpdate':
      if (!rolling) return [];
      return [
        ...nonNegative(rolling['partition'], 'spec.updateStrategy.rollingUpdate.partition'),
        ...(rolling['maxUnavailable'] !== undefined ? validateIntOrPercent(rolling['maxUnavailable'], 'spec.updateStrategy.rollingUpdate.maxUnavailable', true) : []),
      ];
    default:
      return [fieldErrors.invalid('spec.updateStrategy', strategy, "must be 'RollingUpdate' or 'OnDelete'")];
  }
}

export function validateStatefulSetSpec(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const policy = spec['podManagementPolicy'];
  if (policy === undefined || policy === '') errs.push(fieldErrors.required('spec.podManagementPolicy'));
  else if (policy !== 'OrderedReady' && policy !== 'Parallel') {
    errs.push(fieldErrors.invalid('spec.podManagementPolicy', policy, "must be 'OrderedReady' or 'Parallel'"));
  }
  pushAll(errs, validateUpdateStrategy(obj(spec['updateStrategy']) ?? {}));
  const retention = obj(spec['persistentVolumeClaimRetentionPolicy']);
  if (retention) {
    for (const key of ['whenDeleted', 'whenScaled']) {
      const v = retention[key];
      if (v !== undefined && !RETENTION.includes(String(v))) {
        errs.push(fieldErrors.notSupported(`spec.persistentVolumeClaimRetentionPolicy.${key}`, v, RETENTION));
      }
    }
  }
  pushAll(errs, nonNegative(obj(spec['ordinals'])?.['start'], 'spec.ordinals.start'));
  pushAll(errs, nonNegative(spec['replicas'], 'spec.replicas'));
  pushAll(errs, nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds'));
  pushAll(errs, validateSelectorAndTemplate(spec, 'statefulset'));
  pushAll(errs, validateAlwaysRestartingTemplate(spec, 'activeDeadlineSeconds in StatefulSet is not Supported', true));
  pushAll(errs, nonNegative(spec['revisionHistoryLimit'], 'spec.revisionHistoryLimit'));
  return errs;
}

function validateSpecUpdate(spec: JsonObject, old: JsonObject): FieldError[] {
  const strip = (s: JsonObject): JsonObject => Object.fromEntries(Object.entries(s).filter(([k]) => !MUTABLE_FIELDS.includes(k)));
  return jsonEqual(strip(spec), strip(old)) ? [] : [fieldErrors.forbidden('spec', UPDATE_FORBIDDEN)];
}

export const statefulSetStrategy: Strategy = {
  prepareForCreate(sts) {
    sts['status'] = { replicas: 0, availableReplicas: 0 };
  },

  defaults(sts) {
    defaultStatefulSetSpec(specOf(sts));
  },

  validate(sts) {
    return validateStatefulSetSpec(specOf(sts));
  },

  validateUpdate(sts, old, ctx) {
    if (!isMainResource(ctx)) return [];
    const oldSpec = obj(old['spec']) ?? {};
    return [...validateStatefulSetSpec(specOf(sts)), ...validateSelectorImmutable(specOf(sts), oldSpec), ...validateSpecUpdate(specOf(sts), oldSpec)];
  },
};
