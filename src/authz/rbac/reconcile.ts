/**
 * Reconciles the default policy at start, as the original's bootstrap
 * (rbac/bootstrap-roles post-start hook with reconciliation.Reconcile*):
 *
 * - a missing default object is created;
 * - one annotated `rbac.authorization.<domain>/autoupdate: "false"` is left
 *   exactly as it is;
 * - otherwise what is missing is added — rules not covered by the existing
 *   ones (as atomic rules), labels, annotations, aggregation selectors,
 *   binding subjects — and nothing is taken away, so an administrator's
 *   additions stay; a binding whose roleRef differs is deleted and created
 *   again (roleRef cannot be changed in place).
 *
 * Writes are compare-and-swap updates through the generic store, so two
 * servers starting at once converge instead of overwriting each other.
 */
import type { GenericStore, WriteOptions } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import { isPlainObject, jsonEqual, type KObject } from '../../registry/object.ts';
import { StatusError } from '../../api/status.ts';
import { GROUP_MASTERS } from '../../authn/types.ts';
import { apiGroup, names } from '../../naming/index.ts';
import { covers } from './covers.ts';
import { parseBinding, parseRules } from './parse.ts';
import { AUTOUPDATE_ANNOTATION, BOOTSTRAPPING_LABEL, BOOTSTRAPPING_VALUE, defaultBindings, defaultRoles, type DefaultBinding, type DefaultRole } from './bootstrap-policy.ts';
import type { PolicyRule, Subject } from './types.ts';

const RBAC = apiGroup('rbac.authorization');
const RECONCILE_CONCURRENCY = 8;

/** The server's own identity for its writes (the original's loopback client is in system:masters). */
export const APISERVER_USER = { name: 'system:apiserver', groups: [GROUP_MASTERS, 'system:authenticated'] } as const;

export interface ReconcileLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface ReconcileReport {
  created: string[];
  updated: string[];
  recreated: string[];
  skipped: string[];
  /** Objects that could not be written (their namespace is gone, ...): logged, the start goes on. */
  failed: string[];
}

/** A rule as the original serializes it: field order of PolicyRule, empty lists left out. */
export function ruleJson(rule: PolicyRule): Record<string, string[]> {
  const out: Record<string, string[]> = { verbs: [...rule.verbs] };
  if ((rule.apiGroups ?? []).length > 0) out['apiGroups'] = [...rule.apiGroups!];
  if ((rule.resources ?? []).length > 0) out['resources'] = [...rule.resources!];
  if ((rule.resourceNames ?? []).length > 0) out['resourceNames'] = [...rule.resourceNames!];
  if ((rule.nonResourceURLs ?? []).length > 0) out['nonResourceURLs'] = [...rule.nonResourceURLs!];
  return out;
}

function baseMeta(namespace: string, name: string, labels: Readonly<Record<string, string>> = {}): KObject['metadata'] {
  return {
    name,
    ...(namespace !== '' ? { namespace } : {}),
    labels: { [BOOTSTRAPPING_LABEL]: BOOTSTRAPPING_VALUE, ...labels },
    annotations: { [AUTOUPDATE_ANNOTATION]: 'true' },
  };
}

export function roleObject(role: DefaultRole): KObject {
  const obj: KObject = {
    apiVersion: `${RBAC}/v1`,
    kind: role.namespace === '' ? 'ClusterRole' : 'Role',
    metadata: baseMeta(role.namespace, role.name, role.labels),
    rules: role.rules.map(ruleJson),
  };
  if (role.aggregateFrom !== undefined) obj['aggregationRule'] = { clusterRoleSelectors: role.aggregateFrom.map((m) => ({ matchLabels: { ...m } })) };
  return obj;
}

function subjectJson(s: Subject): Record<string, string> {
  return { kind: s.kind, ...(s.apiGroup !== undefined ? { apiGroup: s.apiGroup } : { apiGroup: '' }), name: s.name, ...(s.namespace !== undefined ? { namespace: s.namespace } : {}) };
}

export function bindingObject(b: DefaultBinding): KObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: b.namespace === '' ? 'ClusterRoleBinding' : 'RoleBinding',
    metadata: baseMeta(b.namespace, b.name),
    roleRef: { apiGroup: RBAC, kind: b.roleRef.kind, name: b.roleRef.name },
    subjects: b.subjects.map(subjectJson),
  };
}

/** Adds missing keys of `want` to `have`; true when something was added. */
function mergeMap(have: Record<string, unknown>, want: Readonly<Record<string, string>>): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(want)) {
    if (!Object.hasOwn(have, k)) {
      have[k] = v;
      changed = true;
    }
  }
  return changed;
}

function mergeMeta(obj: KObject, expected: KObject): boolean {
  const meta = obj.metadata;
  const labels: Record<string, unknown> = isPlainObject(meta.labels) ? meta.labels : {};
  const annotations: Record<string, unknown> = isPlainObject(meta.annotations) ? meta.annotations : {};
  const a = mergeMap(labels, expected.metadata.labels ?? {});
  const b = mergeMap(annotations, expected.metadata.annotations ?? {});
  meta.labels = labels as Record<string, string>;
  meta.annotations = annotations as Record<string, string>;
  return a || b;
}

/** The existing role with what the default adds; null when nothing is missing. */
export function reconcileRole(existing: KObject, expected: KObject): KObject | null {
  const obj = structuredClone(existing);
  let changed = mergeMeta(obj, expected);
  const wantAgg = expected['aggregationRule'];
  if (isPlainObject(wantAgg)) {
    const have = isPlainObject(obj['aggregationRule']) ? obj['aggregationRule'] : {};
    const selectors: unknown[] = Array.isArray(have['clusterRoleSelectors']) ? [...(have['clusterRoleSelectors'] as unknown[])] : [];
    for (const sel of wantAgg['clusterRoleSelectors'] as unknown[]) {
      if (!selectors.some((s) => jsonEqual(s, sel))) {
        selectors.push(sel);
        changed = true;
      }
    }
    obj['aggregationRule'] = { ...have, clusterRoleSelectors: selectors };
  }
  const missing = covers(parseRules(obj['rules']), parseRules(expected['rules'])).uncovered;
  if (missing.length > 0) {
    obj['rules'] = [...(Array.isArray(obj['rules']) ? obj['rules'] : []), ...missing.map(ruleJson)];
    changed = true;
  }
  return changed ? obj : null;
}

function subjectMatches(a: Subject, b: Subject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.namespace ?? '') === (b.namespace ?? '');
}

/** The existing binding with the missing subjects and metadata; null when nothing is missing. */
export function reconcileBinding(existing: KObject, expected: KObject): KObject | null {
  const obj = structuredClone(existing);
  let changed = mergeMeta(obj, expected);
  const have = parseBinding(obj).subjects;
  const subjects: unknown[] = Array.isArray(obj['subjects']) ? [...(obj['subjects'] as unknown[])] : [];
  for (const [i, want] of parseBinding(expected).subjects.entries()) {
    if (have.some((s) => subjectMatches(s, want))) continue;
    subjects.push((expected['subjects'] as unknown[])[i]);
    changed = true;
  }
  obj['subjects'] = subjects;
  return changed ? obj : null;
}

function autoupdateOff(obj: KObject): boolean {
  return obj.metadata.annotations?.[AUTOUPDATE_ANNOTATION] === 'false';
}

function sameRoleRef(a: KObject, b: KObject): boolean {
  const x = parseBinding(a).roleRef;
  const y = parseBinding(b).roleRef;
  return x.kind === y.kind && x.name === y.name && x.apiGroup === y.apiGroup;
}

async function reconcileOne(
  store: GenericStore,
  rt: ResourceType,
  expected: KObject,
  merge: (existing: KObject, expected: KObject) => KObject | null,
  report: ReconcileReport,
  isBinding: boolean,
): Promise<void> {
  const opts: WriteOptions = { user: APISERVER_USER, dryRun: false, fieldManager: names.apiServerFieldManager };
  const namespace = expected.metadata.namespace ?? '';
  const name = expected.metadata.name!;
  const label = `${rt.resource}/${namespace === '' ? '' : `${namespace}/`}${name}`;
  for (let attempt = 0; attempt < 5; attempt++) {
    const cur = await store.getObject(rt, namespace, name, { kind: 'latest' });
    try {
      if (cur === null) {
        await store.create(rt, namespace, structuredClone(expected), opts);
        report.created.push(label);
        return;
      }
      if (autoupdateOff(cur.obj)) {
        report.skipped.push(label);
        return;
      }
      if (isBinding && !sameRoleRef(cur.obj, expected)) {
        await store.delete(rt, namespace, name, { ...opts, preconditions: { uid: cur.obj.metadata.uid } });
        await store.create(rt, namespace, structuredClone(expected), opts);
        report.recreated.push(label);
        return;
      }
      const next = merge(cur.obj, expected);
      if (next === null) return;
      // The read's resourceVersion is the precondition: a concurrent writer makes us read again.
      next.metadata.resourceVersion = cur.obj.metadata.resourceVersion;
      await store.update(rt, namespace, name, next, opts);
      report.updated.push(label);
      return;
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 404)) continue;
      throw err;
    }
  }
  throw new Error(`could not reconcile ${label}: it kept changing`);
}

/** Brings the stored policy up to the defaults; returns what it did. */
export async function reconcileDefaultPolicy(store: GenericStore, registry: ResourceRegistry, log?: ReconcileLogger): Promise<ReconcileReport> {
  const report: ReconcileReport = { created: [], updated: [], recreated: [], skipped: [], failed: [] };
  const types = {
    roles: registry.lookup(RBAC, 'v1', 'roles'),
    clusterroles: registry.lookup(RBAC, 'v1', 'clusterroles'),
    rolebindings: registry.lookup(RBAC, 'v1', 'rolebindings'),
    clusterrolebindings: registry.lookup(RBAC, 'v1', 'clusterrolebindings'),
  };
  if (Object.values(types).some((t) => t === undefined)) {
    log?.warn({}, 'RBAC API disabled; default policy not reconciled');
    return report;
  }
  const label = (kind: string, namespace: string, name: string): string => `${kind} ${namespace === '' ? '' : `${namespace}/`}${name}`;
  const jobs: Array<{ label: string; run: () => Promise<void> }> = [
    ...defaultRoles().map((role) => ({
      label: label(role.namespace === '' ? 'ClusterRole' : 'Role', role.namespace, role.name),
      run: () => reconcileOne(store, role.namespace === '' ? types.clusterroles! : types.roles!, roleObject(role), reconcileRole, report, false),
    })),
    ...defaultBindings().map((b) => ({
      label: label(b.namespace === '' ? 'ClusterRoleBinding' : 'RoleBinding', b.namespace, b.name),
      run: () => reconcileOne(store, b.namespace === '' ? types.clusterrolebindings! : types.rolebindings!, bindingObject(b), reconcileBinding, report, true),
    })),
  ];
  // Independent objects: a few at a time keeps a first start short without flooding the shards.
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      try {
        await job.run();
      } catch (err) {
        // One object that cannot be written (its namespace deleted or terminating, a store
        // hiccup) must not stop the server: the next start tries again, as the original's hook retries.
        report.failed.push(job.label);
        log?.warn({ object: job.label, err: err instanceof Error ? err.message : String(err) }, 'default RBAC object not reconciled');
      }
    }
  };
  await Promise.all(Array.from({ length: RECONCILE_CONCURRENCY }, worker));
  for (const list of [report.created, report.updated, report.recreated, report.skipped, report.failed]) list.sort();
  if (report.created.length + report.updated.length + report.recreated.length > 0) {
    log?.info({ created: report.created.length, updated: report.updated, recreated: report.recreated, leftAlone: report.skipped }, 'default RBAC policy reconciled');
  }
  return report;
}
