/**
 * Pods: defaults on every write, status reset to Pending with a QoS class on
 * create, spec mostly immutable on update, and graceful deletion (a port of
 * the original's registry/core/pod/strategy.go, core/v1 defaults and the
 * Priority admission plugin's defaults for pods without a class).
 */
import { cloneJson, jsonEqual, type KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { inclusiveRangeError } from '../validation/names.ts';
import { defaultPodOnly, defaultPodSpec } from './pod-defaults.ts';
import { podQOSClass } from './pod-qos.ts';
import { validatePodSpec } from './pod-validation.ts';
import { EPHEMERAL_CONTAINERS, keepOnlyEphemeralChanges, validateEphemeralContainersUpdate } from './pod-ephemeral.ts';
import { arr, isMainResource, MAX_INT32, num, obj, specOf, str, type JsonObject } from './util.ts';

const POD_UPDATE_FORBIDDEN =
  'pod updates may not change fields other than `spec.containers[*].image`,`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was previously negative)';

/** SetDefaults_Pod and SetDefaults_PodSpec: every decoded pod body, creates and updates alike, before mutating admission. */
export function defaultPod(pod: KObject): void {
  const spec = specOf(pod);
  defaultPodSpec(spec);
  defaultPodOnly(spec);
}

/**
 * What the Priority admission plugin sets when no class is named and no
 * global default class exists. Not a scheme default: it runs after
 * admission, so that the Priority plugin (when enabled) sees the body's own
 * priority and can refuse one that differs from the class's.
 */
function defaultPriority(pod: KObject): void {
  const spec = specOf(pod);
  if (!str(spec['priorityClassName'])) {
    if (spec['priority'] === undefined || spec['priority'] === null) spec['priority'] = 0;
    if (!str(spec['preemptionPolicy'])) spec['preemptionPolicy'] = 'PreemptLowerPriority';
  }
}

function initialStatus(spec: JsonObject): JsonObject {
  const status: JsonObject = { phase: 'Pending', qosClass: podQOSClass(spec) };
  // A gated pod tells why it is not scheduled yet.
  if (arr(spec['schedulingGates']).length > 0) {
    status['conditions'] = [
      { type: 'PodScheduled', status: 'False', reason: 'SchedulingGated', message: 'Scheduling is blocked due to non-empty scheduling gates' },
    ];
  }
  return status;
}

/** The update rules of ValidatePodUpdate for the fields that may change. */
function validatePodSpecUpdate(spec: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const newDeadline = spec['activeDeadlineSeconds'];
  const oldDeadline = num(old['activeDeadlineSeconds']);
  if (newDeadline !== undefined && newDeadline !== null) {
    const n = num(newDeadline) ?? -1;
    if (n < 0 || n > MAX_INT32) return [fieldErrors.invalid('spec.activeDeadlineSeconds', newDeadline, inclusiveRangeError(0, MAX_INT32))];
    if (oldDeadline !== undefined && oldDeadline < n) {
      return [fieldErrors.invalid('spec.activeDeadlineSeconds', n, 'must be less than or equal to previous value')];
    }
  } else if (oldDeadline !== undefined) {
    errs.push(fieldErrors.invalid('spec.activeDeadlineSeconds', null, 'must not update from a positive integer to nil value'));
  }

  // Compare with the mutable fields taken from the old spec: anything else that differs is forbidden.
  const probe = cloneJson(spec);
  for (const key of ['containers', 'initContainers']) {
    const now = arr(probe[key]);
    const before = arr(old[key]);
    if (now.length === before.length) {
      now.forEach((c, i) => {
        const container = obj(c);
        const prev = obj(before[i]);
        if (container && prev) container['image'] = prev['image'];
      });
    }
  }
  probe['activeDeadlineSeconds'] = old['activeDeadlineSeconds'];
  if (probe['activeDeadlineSeconds'] === undefined) delete probe['activeDeadlineSeconds'];
  // Tolerations may only be added to.
  const oldTolerations = arr(old['tolerations']);
  if (oldTolerations.every((t) => arr(spec['tolerations']).some((n) => jsonEqual(n, t)))) {
    if (old['tolerations'] === undefined) delete probe['tolerations'];
    else probe['tolerations'] = old['tolerations'];
  }
  const oldGrace = num(old['terminationGracePeriodSeconds']);
  if (oldGrace !== undefined && oldGrace < 0 && spec['terminationGracePeriodSeconds'] === 1) probe['terminationGracePeriodSeconds'] = oldGrace;
  // Scheduling gates may only be removed.
  const gates = arr(spec['schedulingGates']);
  if (gates.every((g) => arr(old['schedulingGates']).some((o) => jsonEqual(o, g)))) {
    if (old['schedulingGates'] === undefined) delete probe['schedulingGates'];
    else probe['schedulingGates'] = old['schedulingGates'];
  }
  if (!jsonEqual(probe, old)) errs.push(fieldErrors.forbidden('spec', POD_UPDATE_FORBIDDEN));
  return errs;
}

export const podStrategy: Strategy = {
  returnDeletedObject: true,

  // The original decodes the whole pod on every subresource too, so new ephemeral containers get the container defaults.
  defaults: defaultPod,

  prepareForCreate(pod) {
    defaultPriority(pod);
    pod['status'] = initialStatus(specOf(pod));
  },

  prepareForUpdate(pod, old, ctx) {
    if (isMainResource(ctx)) {
      defaultPriority(pod);
      return;
    }
    if (ctx.subresource === EPHEMERAL_CONTAINERS) {
      keepOnlyEphemeralChanges(pod, old);
      defaultPriority(pod);
      return;
    }
    if (ctx.subresource === 'status') {
      // Old kubelets corrupt owner references; the status endpoint may not touch them.
      if (old.metadata.ownerReferences === undefined) delete pod.metadata.ownerReferences;
      else pod.metadata.ownerReferences = old.metadata.ownerReferences;
    }
  },

  validate(pod) {
    const errs = validatePodSpec(specOf(pod), 'spec');
    // ValidatePodCreate: ephemeral containers come only through their subresource.
    if (arr(specOf(pod)['ephemeralContainers']).length > 0) errs.push(fieldErrors.forbidden('spec.ephemeralContainers', 'cannot be set on create'));
    return errs;
  },

  validateUpdate(pod, old, ctx) {
    if (ctx.subresource === EPHEMERAL_CONTAINERS) return validateEphemeralContainersUpdate(pod, old);
    if (!isMainResource(ctx)) return [];
    return [...validatePodSpec(specOf(pod), 'spec'), ...validatePodSpecUpdate(specOf(pod), obj(old['spec']) ?? {})];
  },

  /**
   * The requested grace period, else the pod's own; 0 (delete now) when the
   * pod never reached a node or has already finished; a negative one is 1.
   */
  gracePeriod(pod, requested) {
    const spec = obj(pod['spec']) ?? {};
    let period = requested ?? num(spec['terminationGracePeriodSeconds']) ?? 0;
    if (!str(spec['nodeName'])) period = 0;
    const phase = str(obj(pod['status'])?.['phase']);
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    if (period < 0) period = 1;
    return period;
  },
};
