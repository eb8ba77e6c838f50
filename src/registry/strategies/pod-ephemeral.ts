/**
 * pods/ephemeralcontainers: the original's podEphemeralContainersStrategy.
 * An update through it changes spec.ephemeralContainers and nothing else
 * (dropNonEphemeralContainerUpdates); containers may be added, never removed
 * or changed (ValidatePodEphemeralContainersUpdate); each is validated as
 * validateEphemeralContainers does, fields fit only for workload containers
 * (ports, probes, lifecycle, resources, ...) being forbidden.
 */
import { errors } from '../../api/status.ts';
import { cloneJson, isPlainObject, jsonEqual, type KObject } from '../object.ts';
import { fieldErrors, type FieldError } from '../strategy.ts';
import { validateContainerCommon } from './pod-validation.ts';
import { arr, obj, str, type JsonObject } from './util.ts';
import { names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

export const EPHEMERAL_CONTAINERS = 'ephemeralcontainers';

/** allowedEphemeralContainerFields: what an ephemeral container may set. */
const ALLOWED_FIELDS = new Set([
  'name', 'image', 'command', 'args', 'workingDir', 'envFrom', 'env', 'volumeMounts', 'volumeDevices',
  'terminationMessagePath', 'terminationMessagePolicy', 'imagePullPolicy', 'securityContext', 'stdin', 'stdinOnce', 'tty',
  'targetContainerName',
]);
const MIRROR_POD_ANNOTATION = names.annotations.mirrorPod;
const NOT_FOR_EPHEMERAL = 'cannot be set for an Ephemeral Container';

/** Go's zero value, which validateFieldAllowList lets through. */
function isZero(v: unknown): boolean {
  if (v === undefined || v === null || v === '' || v === false || v === 0) return true;
  if (Array.isArray(v)) return v.length === 0;
  return typeof v === 'object' && Object.values(v as JsonObject).every(isZero);
}

/** Replaces `pod` in place by `old` with only the new ephemeral containers. */
export function keepOnlyEphemeralChanges(pod: KObject, old: KObject): void {
  const next = cloneJson(old);
  next.metadata.resourceVersion = pod.metadata.resourceVersion;
  const spec = obj(next['spec']) ?? (next['spec'] = {});
  const wanted = obj(pod['spec'])?.['ephemeralContainers'];
  // What the original's decoder refuses before any strategy runs: the list, and each entry, must have their types.
  if (wanted !== undefined && wanted !== null && (!Array.isArray(wanted) || !wanted.every(isPlainObject))) {
    throw errors.badRequest('spec.ephemeralContainers: must be a list of EphemeralContainer objects');
  }
  if (wanted === undefined || wanted === null) delete spec['ephemeralContainers'];
  else spec['ephemeralContainers'] = wanted;
  for (const key of Object.keys(pod)) delete pod[key];
  Object.assign(pod, next);
}

/** validateEphemeralContainers for a pod spec at `spec`. */
export function validateEphemeralContainers(spec: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  const others = new Set<string>();
  for (const key of ['containers', 'initContainers']) for (const c of arr(spec[key])) others.add(str(obj(c)?.['name']) ?? '');
  const seen = new Set<string>();
  arr(spec['ephemeralContainers']).forEach((raw, i) => {
    const c = obj(raw) ?? {};
    const p = `spec.ephemeralContainers[${i}]`;
    pushAll(errs, validateContainerCommon(c, p));
    const name = str(c['name']) ?? '';
    if (others.has(name) || seen.has(name)) errs.push(fieldErrors.duplicate(`${p}.name`, name));
    else seen.add(name);
    const target = str(c['targetContainerName']);
    if (target && !others.has(target)) errs.push(fieldErrors.notFound(`${p}.targetContainerName`, target));
    for (const [field, value] of Object.entries(c)) {
      if (!ALLOWED_FIELDS.has(field) && !isZero(value)) errs.push(fieldErrors.forbidden(`${p}.${field}`, NOT_FOR_EPHEMERAL));
    }
    arr(c['volumeMounts']).forEach((m, j) => {
      for (const field of ['subPath', 'subPathExpr']) {
        if (str(obj(m)?.[field])) errs.push(fieldErrors.forbidden(`${p}.volumeMounts[${j}].${field}`, NOT_FOR_EPHEMERAL));
      }
    });
  });
  return errs;
}

/** ValidatePodEphemeralContainersUpdate's own rules, after the spec's. */
export function validateEphemeralContainersUpdate(pod: KObject, old: KObject): FieldError[] {
  if (old.metadata.annotations?.[MIRROR_POD_ANNOTATION] !== undefined) {
    return [fieldErrors.forbidden('', 'static pods do not support ephemeral containers')];
  }
  const errs = validateEphemeralContainers(obj(pod['spec']) ?? {});
  const byName = new Map<string, unknown>();
  for (const c of arr(obj(pod['spec'])?.['ephemeralContainers'])) byName.set(str(obj(c)?.['name']) ?? '', c);
  for (const raw of arr(obj(old['spec'])?.['ephemeralContainers'])) {
    const name = str(obj(raw)?.['name']) ?? '';
    const now = byName.get(name);
    if (now === undefined) {
      errs.push(fieldErrors.forbidden('spec.ephemeralContainers', `existing ephemeral containers ${JSON.stringify(name)} may not be removed\n`));
    } else if (!jsonEqual(now, raw)) {
      errs.push(fieldErrors.forbidden(`spec.ephemeralContainers[${name}]`, `existing ephemeral containers ${JSON.stringify(name)} may not be changed\n`));
    }
  }
  return errs;
}
