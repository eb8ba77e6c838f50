/**
 * What the pod admission plugins share: the original's admission.NewForbidden
 * message, safe walks of a pod body that has not been defaulted or
 * validated yet (mutating admission runs before both, so any field may be
 * missing or of the wrong type: a plugin skips what it cannot read and lets
 * validation answer), and the toleration helpers of the original's
 * pkg/util/tolerations and core/helper.
 */
import { StatusError, qualifiedResource } from '../../api/status.ts';
import { isPlainObject, jsonEqual, type KObject } from '../../registry/object.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { AdmissionAttributes } from '../types.ts';

export type JsonObject = Record<string, unknown>;

/** True for the core pods resource itself (no subresource). */
export function isPods(rt: ResourceType): boolean {
  return rt.group === '' && rt.resource === 'pods';
}

/**
 * The original's admission.NewForbidden: `<resource> "<name>" is forbidden:
 * <reason>`, the name being the request's, else the object's name or
 * generateName, else `Unknown`.
 */
export function admissionForbidden(attrs: AdmissionAttributes, reason: string): StatusError {
  const rt = attrs.resourceType;
  let name = attrs.name;
  if (name === '') {
    const meta = attrs.object?.metadata;
    name = (typeof meta?.name === 'string' && meta.name) || (typeof meta?.generateName === 'string' && meta.generateName) || 'Unknown';
  }
  return new StatusError(403, 'Forbidden', `${qualifiedResource(rt.group, rt.resource)} "${name}" is forbidden: ${reason}`, {
    name,
    group: rt.group,
    kind: rt.resource,
  });
}

/** An error the original returns without a Status type: the handler answers 500 with its text as the message. */
export function plainError(message: string): StatusError {
  return new StatusError(500, '', message);
}

/** The pod's spec when it is an object (created when absent, as the original's typed Pod always has one); undefined when it is not an object. */
export function podSpec(obj: KObject | null): JsonObject | undefined {
  if (obj === null) return undefined;
  const spec = obj['spec'];
  if (spec === undefined || spec === null) {
    const made: JsonObject = {};
    obj['spec'] = made;
    return made;
  }
  return isPlainObject(spec) ? spec : undefined;
}

/** The objects of a list field (non-objects skipped). */
export function objects(v: unknown): JsonObject[] {
  return Array.isArray(v) ? v.filter(isPlainObject) : [];
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** The containers of a spec by kind, as the original's VisitContainersWithPath orders them. */
export function containersWithPath(spec: JsonObject, withEphemeral = true): Array<{ c: JsonObject; path: string }> {
  const out: Array<{ c: JsonObject; path: string }> = [];
  const visit = (key: string, suffix: string): void => {
    const list = spec[key];
    if (!Array.isArray(list)) return;
    list.forEach((c, i) => {
      if (isPlainObject(c)) out.push({ c, path: `spec.${key}[${i}]${suffix}` });
    });
  };
  visit('initContainers', '');
  visit('containers', '');
  if (withEphemeral) visit('ephemeralContainers', '.ephemeralContainerCommon');
  return out;
}

/** A toleration as the plugins compare them (absent fields are Go's zero values). */
export interface Toleration {
  key?: string;
  operator?: string;
  value?: string;
  effect?: string;
  tolerationSeconds?: number | null;
}

function tol(t: JsonObject | Toleration): { key: string; operator: string; value: string; effect: string; seconds: number | undefined } {
  const r = t as JsonObject;
  const s = r['tolerationSeconds'];
  return { key: str(r['key']), operator: str(r['operator']), value: str(r['value']), effect: str(r['effect']), seconds: typeof s === 'number' ? s : undefined };
}

/** Semantic equality of two tolerations (zero values and absent fields alike). */
export function tolerationsEqual(a: JsonObject | Toleration, b: JsonObject | Toleration): boolean {
  const x = tol(a);
  const y = tol(b);
  return x.key === y.key && x.operator === y.operator && x.value === y.value && x.effect === y.effect && x.seconds === y.seconds;
}

/** Whether `ss` tolerates a superset of what `t` tolerates (pkg/util/tolerations isSuperset). */
export function isSuperset(ssIn: JsonObject | Toleration, tIn: JsonObject | Toleration): boolean {
  if (tolerationsEqual(ssIn, tIn)) return true;
  const ss = tol(ssIn);
  const t = tol(tIn);
  // An empty key with Exists matches every key.
  if (t.key !== ss.key && (ss.key !== '' || ss.operator !== 'Exists')) return false;
  // An empty effect matches every effect.
  if (t.effect !== ss.effect && ss.effect !== '') return false;
  if (ss.effect === 'NoExecute' && ss.seconds !== undefined) {
    if (t.seconds === undefined || t.seconds > ss.seconds) return false;
  }
  switch (ss.operator) {
    case 'Equal':
    case '':
      return t.operator === 'Equal' && t.value === ss.value;
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** MergeTolerations: both lists, a toleration another one covers dropped (the first of equal ones kept). */
export function mergeTolerations(first: readonly JsonObject[], second: readonly JsonObject[]): JsonObject[] {
  const all = [...first, ...second];
  const merged: JsonObject[] = [];
  next: for (let i = 0; i < all.length; i++) {
    const t = all[i]!;
    for (const m of merged) if (isSuperset(m, t)) continue next;
    for (const t2 of all.slice(i + 1)) {
      if (!tolerationsEqual(t, t2) && isSuperset(t2, t)) continue next;
    }
    merged.push(t);
  }
  return merged;
}

/** VerifyAgainstWhitelist: every toleration is covered by one of the whitelist (an empty list on either side passes). */
export function verifyAgainstWhitelist(tolerations: readonly JsonObject[], whitelist: readonly JsonObject[]): boolean {
  if (whitelist.length === 0 || tolerations.length === 0) return true;
  return tolerations.every((t) => whitelist.some((w) => isSuperset(w, t)));
}

/** MatchToleration: same key, operator, value and effect (tolerationSeconds not compared). */
function matchToleration(a: JsonObject, b: JsonObject): boolean {
  const x = tol(a);
  const y = tol(b);
  return x.key === y.key && x.effect === y.effect && x.operator === y.operator && x.value === y.value;
}

/** AddOrUpdateTolerationInPod: replaces a matching toleration or appends; false when an equal one is there. */
export function addOrUpdateToleration(spec: JsonObject, toleration: JsonObject): boolean {
  const current = Array.isArray(spec['tolerations']) ? (spec['tolerations'] as unknown[]) : [];
  const next: unknown[] = [];
  let updated = false;
  for (const t of current) {
    if (isPlainObject(t) && matchToleration(toleration, t)) {
      if (tolerationsEqual(toleration, t) && jsonEqual(stripZero(toleration), stripZero(t))) return false;
      next.push(toleration);
      updated = true;
      continue;
    }
    next.push(t);
  }
  if (!updated) next.push(toleration);
  spec['tolerations'] = next;
  return true;
}

function stripZero(t: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(t)) if (v !== '' && v !== null && v !== undefined) out[k] = v;
  return out;
}

/** Go's strconv.ParseBool. */
export function parseGoBool(v: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}
