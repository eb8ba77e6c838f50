/**
 * Quota evaluators, as the original's quota/v1 evaluators: for one resource,
 * which quota resource names it accounts (`pods`, `requests.cpu`,
 * `count/deployments.apps`, `gold.storageclass.storage.<suffix>/requests.storage`...),
 * which operations can change usage, an object's usage, the scopes it falls
 * in, and the per-object constraints a quota imposes (a pod must state cpu
 * and memory when they are quota'd). Shared by the ResourceQuota admission
 * plugin (charging one object) and the quota controller (summing them all).
 */
import type { KObject } from '../../../registry/object.ts';
import { arr, obj, str, type JsonObject } from '../../../registry/strategies/util.ts';
import { podQOSClass } from '../../../registry/strategies/pod-qos.ts';
import { quantityOf } from '../../../registry/validation/quantity-format.ts';
import { add, max, resourceListFrom, type ResourceList } from './resource-list.ts';
import { apiGroup, names } from '../../../naming/index.ts';
import type { Operation } from '../../types.ts';

export interface ScopeSelector {
  readonly scopeName: string;
  readonly operator: string;
  readonly values: readonly string[];
}

export interface Evaluator {
  readonly group: string;
  readonly resource: string;
  /** Whether this operation can change the resource's usage. */
  handles(op: Operation): boolean;
  /** The names among `input` this evaluator accounts. */
  matchingResources(input: readonly string[]): string[];
  /** Whether the object falls in the scope (only pods have scopes). */
  matchesScope(selector: ScopeSelector, o: KObject): boolean;
  /** Per-object requirements of a quota over `required`; an error message or undefined. */
  constraints(required: readonly string[], o: KObject): string | undefined;
  usage(o: KObject, now: Date): ResourceList;
}

const one = (): ReturnType<typeof quantityOf> => quantityOf(1);
const zero = (): ReturnType<typeof quantityOf> => quantityOf(0);

/** `count/<resource>` (core) or `count/<resource>.<group>`. */
export function objectCountName(group: string, resource: string): string {
  return group === '' ? `count/${resource}` : `count/${resource}.${group}`;
}

/** The quota's scope selectors: `spec.scopes` as Exists, then `spec.scopeSelector.matchExpressions`. */
export function scopeSelectorsOf(quota: KObject): ScopeSelector[] {
  const spec = obj(quota['spec']) ?? {};
  const out: ScopeSelector[] = arr(spec['scopes'])
    .filter((s): s is string => typeof s === 'string')
    .map((s) => ({ scopeName: s, operator: 'Exists', values: [] }));
  for (const e of arr(obj(spec['scopeSelector'])?.['matchExpressions'])) {
    const m = obj(e) ?? {};
    out.push({
      scopeName: str(m['scopeName']) ?? '',
      operator: str(m['operator']) ?? '',
      values: arr(m['values']).filter((v): v is string => typeof v === 'string'),
    });
  }
  return out;
}

/** quota.Matches: the quota tracks something of this evaluator and every scope matches the object. */
export function quotaMatches(e: Evaluator, quota: KObject, o: KObject): boolean {
  const hard = Object.keys(obj(obj(quota['status'])?.['hard']) ?? {});
  if (e.matchingResources(hard).length === 0) return false;
  return scopeSelectorsOf(quota).every((s) => e.matchesScope(s, o));
}

// ---- object counts ----

export function objectCountEvaluator(group: string, resource: string, alias?: string): Evaluator {
  const tracked = [objectCountName(group, resource), ...(alias === undefined ? [] : [alias])];
  return {
    group,
    resource,
    handles: (op) => op === 'CREATE',
    matchingResources: (input) => input.filter((n) => tracked.includes(n)),
    matchesScope: () => false,
    constraints: () => undefined,
    usage: () => new Map(tracked.map((n) => [n, one()])),
  };
}

// ---- services ----

const SERVICE_RESOURCES = ['services', 'count/services', 'services.nodeports', 'services.loadbalancers'];

export const serviceEvaluator: Evaluator = {
  group: '',
  resource: 'services',
  // A service's type can change on update.
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) => input.filter((n) => SERVICE_RESOURCES.includes(n)),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(o) {
    const spec = obj(o['spec']) ?? {};
    const ports = arr(spec['ports']);
    const out: ResourceList = new Map([
      ['count/services', one()],
      ['services', one()],
      ['services.loadbalancers', zero()],
      ['services.nodeports', zero()],
    ]);
    const type = spec['type'];
    if (type === 'NodePort') out.set('services.nodeports', quantityOf(ports.length));
    else if (type === 'LoadBalancer') {
      // Node ports not allocated yet count by intent; with allocation off, only explicit ones.
      const explicitOnly = spec['allocateLoadBalancerNodePorts'] === false;
      const n = explicitOnly ? ports.filter((p) => typeof obj(p)?.['nodePort'] === 'number' && (obj(p)!['nodePort'] as number) !== 0).length : ports.length;
      out.set('services.nodeports', quantityOf(n));
      out.set('services.loadbalancers', one());
    }
    return out;
  },
};

// ---- persistent volume claims ----

/** `.storageclass.storage.<suffix>/`: quota names per storage class. */
export const STORAGE_CLASS_SUFFIX = `.storageclass.${apiGroup('storage')}/`;
const PVC_RESOURCES = ['persistentvolumeclaims', 'requests.storage'];

function claimClass(pvc: KObject): string {
  const cls = str(obj(pvc['spec'])?.['storageClassName']);
  if (cls !== undefined) return cls;
  for (const a of names.annotations.betaStorageClass) {
    const v = pvc.metadata.annotations?.[a];
    if (v !== undefined) return v;
  }
  return '';
}

export const pvcEvaluator: Evaluator = {
  group: '',
  resource: 'persistentvolumeclaims',
  // Claims can be resized.
  handles: (op) => op === 'CREATE' || op === 'UPDATE',
  matchingResources: (input) =>
    input.filter((n) => n === 'count/persistentvolumeclaims' || PVC_RESOURCES.includes(n) || PVC_RESOURCES.some((r) => n.endsWith(STORAGE_CLASS_SUFFIX + r))),
  matchesScope: () => false,
  constraints: () => undefined,
  usage(o) {
    const out: ResourceList = new Map([
      ['persistentvolumeclaims', one()],
      ['count/persistentvolumeclaims', one()],
    ]);
    const cls = claimClass(o);
    if (cls !== '') out.set(`${cls}${STORAGE_CLASS_SUFFIX}persistentvolumeclaims`, one());
    const storage = resourceListFrom(obj(obj(obj(o['spec'])?.['resources']))?.['requests']).get('storage');
    if (storage !== undefined) {
      out.set('requests.storage', storage);
      if (cls !== '') out.set(`${cls}${STORAGE_CLASS_SUFFIX}requests.storage`, storage);
    }
    return out;
  },
};

// ---- pods ----

const POD_RESOURCES = [
  'count/pods',
  'cpu',
  'memory',
  'ephemeral-storage',
  'requests.cpu',
  'requests.memory',
  'requests.ephemeral-storage',
  'limits.cpu',
  'limits.memory',
  'limits.ephemeral-storage',
  'pods',
];
const POD_RESOURCE_PREFIXES = ['hugepages-', 'requests.hugepages-'];
/** What a quota on cpu or memory makes every container state (a backward-compatibility rule of the original). */
const VALIDATION_SET = new Set(['cpu', 'memory', 'requests.cpu', 'requests.memory', 'limits.cpu', 'limits.memory']);

function isNativeResource(name: string): boolean {
  return !name.includes('/') || name.startsWith(names.nativeResourcePrefix);
}

function isExtendedResourceName(name: string): boolean {
  if (isNativeResource(name) || name.startsWith('requests.')) return false;
  return /^([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/.test(name);
}

function isExtendedResourceNameForQuota(name: string): boolean {
  return name.startsWith('requests.') && isExtendedResourceName(name.slice('requests.'.length));
}

function podComputeUsage(requests: ResourceList, limits: ResourceList): ResourceList {
  const out: ResourceList = new Map([['pods', one()]]);
  for (const r of ['cpu', 'memory', 'ephemeral-storage']) {
    const req = requests.get(r);
    if (req !== undefined) {
      out.set(r, req);
      out.set(`requests.${r}`, req);
    }
    const lim = limits.get(r);
    if (lim !== undefined) out.set(`limits.${r}`, lim);
  }
  for (const [r, q] of requests) {
    if (r.startsWith('hugepages-')) {
      out.set(r, q);
      out.set(`requests.${r}`, q);
    }
    if (isExtendedResourceName(r)) out.set(`requests.${r}`, q);
  }
  return out;
}

function containerResources(raw: unknown): { requests: ResourceList; limits: ResourceList } {
  const resources = obj(obj(raw)?.['resources']);
  return { requests: resourceListFrom(resources?.['requests']), limits: resourceListFrom(resources?.['limits']) };
}

/** Whether the pod still counts for compute quota: not terminal, not stuck past its grace period. */
export function podCountsForQuota(pod: KObject, now: Date): boolean {
  const phase = obj(pod['status'])?.['phase'];
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const meta = pod.metadata;
  if (meta.deletionTimestamp && typeof meta.deletionGracePeriodSeconds === 'number') {
    const deadline = Date.parse(meta.deletionTimestamp) + meta.deletionGracePeriodSeconds * 1000;
    if (now.getTime() > deadline) return false;
  }
  return true;
}

function isTerminating(spec: JsonObject): boolean {
  const d = spec['activeDeadlineSeconds'];
  return typeof d === 'number' && d >= 0;
}

function crossNamespaceAffinity(spec: JsonObject): boolean {
  const affinity = obj(spec['affinity']);
  if (!affinity) return false;
  const crosses = (term: unknown): boolean => {
    const t = obj(term);
    return t !== undefined && (arr(t['namespaces']).length > 0 || (t['namespaceSelector'] !== undefined && t['namespaceSelector'] !== null));
  };
  for (const key of ['podAffinity', 'podAntiAffinity']) {
    const a = obj(affinity[key]);
    if (!a) continue;
    if (arr(a['requiredDuringSchedulingIgnoredDuringExecution']).some(crosses)) return true;
    if (arr(a['preferredDuringSchedulingIgnoredDuringExecution']).some((w) => crosses(obj(w)?.['podAffinityTerm']))) return true;
  }
  return false;
}

/** A PriorityClass scope selector against the pod's class, as a label selector on `{PriorityClass: <class>}`. */
function priorityClassMatches(selector: ScopeSelector, cls: string): boolean {
  const has = cls !== '';
  switch (selector.operator) {
    case 'In':
      return has && selector.values.includes(cls);
    case 'NotIn':
      return !has || !selector.values.includes(cls);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      return false;
  }
}

export const podEvaluator: Evaluator = {
  group: '',
  resource: 'pods',
  handles: (op) => op === 'CREATE',
  matchingResources(input) {
    const out = input.filter((n) => POD_RESOURCES.includes(n));
    for (const n of input) {
      if (POD_RESOURCE_PREFIXES.some((p) => n.startsWith(p)) || isExtendedResourceNameForQuota(n)) out.push(n);
    }
    return out;
  },
  matchesScope(selector, o) {
    const spec = obj(o['spec']) ?? {};
    switch (selector.scopeName) {
      case 'Terminating':
        return isTerminating(spec);
      case 'NotTerminating':
        return !isTerminating(spec);
      case 'BestEffort':
        return podQOSClass(spec) === 'BestEffort';
      case 'NotBestEffort':
        return podQOSClass(spec) !== 'BestEffort';
      case 'PriorityClass':
        return priorityClassMatches(selector, str(spec['priorityClassName']) ?? '');
      case 'CrossNamespacePodAffinity':
        return crossNamespaceAffinity(spec);
      default:
        return false;
    }
  },
  constraints(required, o) {
    const requiredSet = required.filter((r) => VALIDATION_SET.has(r));
    if (requiredSet.length === 0) return undefined;
    const spec = obj(o['spec']) ?? {};
    const missing = new Set<string>();
    for (const c of [...arr(spec['containers']), ...arr(spec['initContainers'])]) {
      const { requests, limits } = containerResources(c);
      const has = podComputeUsage(requests, limits);
      for (const r of requiredSet) if (!has.has(r)) missing.add(r);
    }
    return missing.size === 0 ? undefined : `must specify ${[...missing].sort().join(',')}`;
  },
  usage(o, now) {
    // Object counts track every stored pod; compute resources only live ones.
    let out: ResourceList = new Map([['count/pods', one()]]);
    if (!podCountsForQuota(o, now)) return out;
    const spec = obj(o['spec']) ?? {};
    let requests: ResourceList = new Map();
    let limits: ResourceList = new Map();
    for (const c of arr(spec['containers'])) {
      const r = containerResources(c);
      requests = add(requests, r.requests);
      limits = add(limits, r.limits);
    }
    // Init containers run one at a time before the others: the largest counts against the sum.
    for (const c of arr(spec['initContainers'])) {
      const r = containerResources(c);
      requests = max(requests, r.requests);
      limits = max(limits, r.limits);
    }
    const overhead = resourceListFrom(spec['overhead']);
    if (overhead.size > 0) {
      requests = add(requests, overhead);
      limits = add(limits, overhead);
    }
    out = add(out, podComputeUsage(requests, limits));
    return out;
  },
};

/** Resources quota never counts (virtual or never quota'd), as the original's ignored list. */
export function ignoredByQuota(group: string, resource: string, virtual: boolean): boolean {
  return virtual || (group === '' && (resource === 'events' || resource === 'bindings' || resource === 'componentstatuses'));
}

/** The evaluator of a resource: the special ones, object counts (with the legacy aliases) for the rest. */
export function evaluatorFor(group: string, resource: string): Evaluator {
  if (group === '') {
    switch (resource) {
      case 'pods':
        return podEvaluator;
      case 'services':
        return serviceEvaluator;
      case 'persistentvolumeclaims':
        return pvcEvaluator;
      case 'configmaps':
      case 'secrets':
      case 'resourcequotas':
      case 'replicationcontrollers':
        return objectCountEvaluator(group, resource, resource);
    }
  }
  return objectCountEvaluator(group, resource);
}

