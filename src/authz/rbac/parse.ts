/**
 * Stored RBAC objects to the evaluator's records. Stored objects passed
 * validation, but the index must never throw on odd data (an object written
 * by an older server, a hand-edited store): anything malformed is read as
 * granting nothing.
 */
import { isPlainObject, type KObject } from '../../registry/object.ts';
import type { BindingRecord, PolicyRule, RoleRecord, Subject } from './types.ts';

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

function optionalStrings(v: unknown): string[] | undefined {
  return Array.isArray(v) ? strings(v) : undefined;
}

export function parseRules(v: unknown): PolicyRule[] {
  if (!Array.isArray(v)) return [];
  const out: PolicyRule[] = [];
  for (const r of v) {
    if (!isPlainObject(r)) continue;
    out.push({
      verbs: strings(r['verbs']),
      apiGroups: optionalStrings(r['apiGroups']),
      resources: optionalStrings(r['resources']),
      resourceNames: optionalStrings(r['resourceNames']),
      nonResourceURLs: optionalStrings(r['nonResourceURLs']),
    });
  }
  return out;
}

function labelsOf(obj: KObject): Record<string, string> {
  const labels = obj.metadata.labels;
  if (!isPlainObject(labels)) return {};
  const out: Record<string, string> = {};
  for (const [k, val] of Object.entries(labels)) if (typeof val === 'string') out[k] = val;
  return out;
}

export function parseRole(obj: KObject): RoleRecord {
  const agg = obj['aggregationRule'];
  const selectors = isPlainObject(agg) && Array.isArray(agg['clusterRoleSelectors']) ? (agg['clusterRoleSelectors'] as unknown[]) : null;
  return {
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    labels: labelsOf(obj),
    rules: parseRules(obj['rules']),
    aggregationSelectors: selectors,
  };
}

export function parseBinding(obj: KObject): BindingRecord {
  const ref = isPlainObject(obj['roleRef']) ? obj['roleRef'] : {};
  const subjects: Subject[] = [];
  if (Array.isArray(obj['subjects'])) {
    for (const s of obj['subjects']) {
      if (!isPlainObject(s) || typeof s['kind'] !== 'string' || typeof s['name'] !== 'string') continue;
      subjects.push({
        kind: s['kind'],
        name: s['name'],
        namespace: typeof s['namespace'] === 'string' ? s['namespace'] : undefined,
        apiGroup: typeof s['apiGroup'] === 'string' ? s['apiGroup'] : undefined,
      });
    }
  }
  return {
    namespace: obj.metadata.namespace ?? '',
    name: obj.metadata.name ?? '',
    roleRef: {
      apiGroup: typeof ref['apiGroup'] === 'string' ? ref['apiGroup'] : '',
      kind: typeof ref['kind'] === 'string' ? ref['kind'] : '',
      name: typeof ref['name'] === 'string' ? ref['name'] : '',
    },
    subjects,
  };
}
