/**
 * LimitRanger, as the original's plugin: from the LimitRanges of the
 * object's namespace it
 * - (mutating) sets the default requests and limits of containers and init
 *   containers that give none, and records what it set in the pod
 *   annotation `<domain>/limit-ranger` ("LimitRanger plugin set: cpu request
 *   for container app; ...");
 * - (validating) enforces min, max and maxLimitRequestRatio per Container
 *   and per Pod, and min/max storage per PersistentVolumeClaim, with the
 *   original's messages.
 * Pods are handled on create only (containers are immutable), claims on
 * create and update. LimitRanges come from a per-thread index fed by a
 * watch (watched-objects.ts): a pod create reads no store and makes no
 * thread hop.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { cloneJson } from '../../registry/object.ts';
import { arr, ensureObj, obj, type JsonObject } from '../../registry/strategies/util.ts';
import { defaultLimitRangeItem } from '../../registry/strategies/limitranges.ts';
import { formatQuantity, quantityMilliValue, quantityValue, toQuantity, type Quantity } from '../../registry/validation/quantity-format.ts';
import { add, max, resourceListFrom, type ResourceList } from './resource-quota/resource-list.ts';
import { WatchedObjects } from '../watched-objects.ts';
import { admissionForbidden, aggregateMessage, readyWithin } from '../admission-errors.ts';
import { names } from '../../naming/index.ts';

export const LIMIT_RANGER_ANNOTATION = `${names.domain}/limit-ranger`;
const MAX_MILLI_VALUE = 9223372036854775807n / 1000n;

/** The LimitRanges that apply to a namespace, already defaulted. */
export interface LimitRangeSource {
  /** Undefined while the source is not ready yet (the plugin waits for `ready`). */
  forNamespace(namespace: string): readonly KObject[] | undefined;
  readonly ready: Promise<void>;
}

interface Item {
  type: string;
  min: ResourceList;
  max: ResourceList;
  default: JsonObject;
  defaultRequest: JsonObject;
  maxLimitRequestRatio: ResourceList;
}

/** Parsed items per LimitRange object (the index keeps an object until it changes): parsed once, not per pod. */
const ITEMS = new WeakMap<KObject, Item[]>();

function itemsOf(lr: KObject): Item[] {
  let items = ITEMS.get(lr);
  if (items === undefined) ITEMS.set(lr, (items = parseItems(lr)));
  return items;
}

function parseItems(lr: KObject): Item[] {
  return arr(obj(lr['spec'])?.['limits']).map((raw) => {
    const item = { ...(obj(raw) ?? {}) };
    defaultLimitRangeItem(item);
    return {
      type: typeof item['type'] === 'string' ? item['type'] : '',
      min: resourceListFrom(item['min']),
      max: resourceListFrom(item['max']),
      default: obj(item['default']) ?? {},
      defaultRequest: obj(item['defaultRequest']) ?? {},
      maxLimitRequestRatio: resourceListFrom(item['maxLimitRequestRatio']),
    };
  });
}

export function limitRanger(source: LimitRangeSource): AdmissionPlugin {
  const rangesOf = async (attrs: AdmissionAttributes): Promise<readonly KObject[]> => {
    let got = source.forNamespace(attrs.namespace);
    if (got === undefined) {
      if (!(await readyWithin(source.ready))) throw admissionForbidden(attrs, 'not yet ready to handle request');
      got = source.forNamespace(attrs.namespace) ?? [];
    }
    return got;
  };
  return {
    name: 'LimitRanger',
    handles: (rt, sub, op) =>
      sub === '' && rt.group === '' && ((rt.resource === 'pods' && op === 'CREATE') || (rt.resource === 'persistentvolumeclaims' && (op === 'CREATE' || op === 'UPDATE'))),
    admit(attrs) {
      if (attrs.resourceType.resource !== 'pods' || attrs.object === null) return;
      const ranges = source.forNamespace(attrs.namespace);
      if (ranges !== undefined) {
        if (ranges.length > 0) mutatePod(attrs.object, ranges);
        return;
      }
      return rangesOf(attrs).then((r) => {
        if (r.length > 0 && attrs.object !== null) mutatePod(attrs.object, r);
      });
    },
    validate(attrs) {
      if (attrs.object === null || attrs.oldObject?.metadata.deletionTimestamp) return;
      const ranges = source.forNamespace(attrs.namespace);
      if (ranges !== undefined) {
        if (ranges.length > 0) check(attrs, ranges);
        return;
      }
      return rangesOf(attrs).then((r) => check(attrs, r));
    },
  };
}

function check(attrs: AdmissionAttributes, ranges: readonly KObject[]): void {
  const o = attrs.object;
  if (o === null) return;
  for (const lr of ranges) {
    const errs = attrs.resourceType.resource === 'pods' ? validatePod(o, lr) : validateClaim(o, lr);
    if (errs.length > 0) throw admissionForbidden(attrs, aggregateMessage(errs));
  }
}

// ---- defaults ----

/** Requests copied from limits where only limits are given: the pod defaulting the original applies at decode, before admission. */
function defaultRequestsFromLimits(c: JsonObject): void {
  const resources = obj(c['resources']);
  const limits = obj(resources?.['limits']);
  if (!resources || !limits) return;
  const requests = ensureObj(resources, 'requests');
  for (const [k, v] of Object.entries(limits)) if (!(k in requests)) requests[k] = v;
}

export function mutatePod(pod: KObject, ranges: readonly KObject[]): void {
  for (const lr of ranges) {
    const limits: JsonObject = {};
    const requests: JsonObject = {};
    for (const item of itemsOf(lr)) {
      if (item.type !== 'Container') continue;
      Object.assign(requests, item.defaultRequest);
      Object.assign(limits, item.default);
    }
    mergePodDefaults(pod, requests, limits);
  }
}

function mergePodDefaults(pod: KObject, requests: JsonObject, limits: JsonObject): void {
  const spec = obj(pod['spec']);
  if (!spec) return;
  const notes: string[] = [];
  const merge = (raw: unknown, prefix: string): void => {
    const c = obj(raw);
    if (!c) return;
    defaultRequestsFromLimits(c);
    const resources = ensureObj(c, 'resources');
    const setLimits: string[] = [];
    const setRequests: string[] = [];
    const lim = obj(resources['limits']) ?? {};
    const req = obj(resources['requests']) ?? {};
    for (const [k, v] of Object.entries(limits)) {
      if (!(k in lim)) {
        lim[k] = cloneJson(v);
        setLimits.push(k);
      }
    }
    for (const [k, v] of Object.entries(requests)) {
      if (!(k in req)) {
        req[k] = cloneJson(v);
        setRequests.push(k);
      }
    }
    if (Object.keys(lim).length > 0) resources['limits'] = lim;
    if (Object.keys(req).length > 0) resources['requests'] = req;
    const name = typeof c['name'] === 'string' ? c['name'] : '';
    if (setRequests.length > 0) notes.push(`${setRequests.sort().join(', ')} request for ${prefix} ${name}`);
    if (setLimits.length > 0) notes.push(`${setLimits.sort().join(', ')} limit for ${prefix} ${name}`);
  };
  for (const c of arr(spec['containers'])) merge(c, 'container');
  for (const c of arr(spec['initContainers'])) merge(c, 'init container');
  if (notes.length > 0) {
    const meta = pod.metadata;
    meta.annotations = { ...(meta.annotations ?? {}), [LIMIT_RANGER_ANNOTATION]: `LimitRanger plugin set: ${notes.join('; ')}` };
  }
}

// ---- constraints ----

/** Values at a common precision (milli-units unless that would overflow), as the original compares them. */
function enforcedValues(req: Quantity | undefined, lim: Quantity | undefined, enforced: Quantity): [bigint, bigint, bigint] {
  const v = (q: Quantity | undefined): bigint => (q === undefined ? 0n : quantityValue(q));
  const m = (q: Quantity | undefined): bigint => (q === undefined ? 0n : quantityMilliValue(q));
  if (v(req) <= MAX_MILLI_VALUE && v(lim) <= MAX_MILLI_VALUE && v(enforced) <= MAX_MILLI_VALUE) return [m(req), m(lim), m(enforced)];
  return [v(req), v(lim), v(enforced)];
}

function minConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  const s = formatQuantity(enforced);
  if (req === undefined) return `minimum ${name} usage per ${type} is ${s}.  No request is specified`;
  if (r < e) return `minimum ${name} usage per ${type} is ${s}, but request is ${formatQuantity(req)}`;
  if (lim !== undefined && l < e) return `minimum ${name} usage per ${type} is ${s}, but limit is ${formatQuantity(lim)}`;
  return undefined;
}

function maxConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  const [r, l, e] = enforcedValues(req, lim, enforced);
  const s = formatQuantity(enforced);
  if (lim === undefined) return `maximum ${name} usage per ${type} is ${s}.  No limit is specified`;
  if (l > e) return `maximum ${name} usage per ${type} is ${s}, but limit is ${formatQuantity(lim)}`;
  if (req !== undefined && r > e) return `maximum ${name} usage per ${type} is ${s}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function maxRequestConstraint(type: string, name: string, enforced: Quantity, request: ResourceList): string | undefined {
  const req = request.get(name);
  const [r, , e] = enforcedValues(req, undefined, enforced);
  const s = formatQuantity(enforced);
  if (req === undefined) return `maximum ${name} usage per ${type} is ${s}.  No request is specified`;
  if (r > e) return `maximum ${name} usage per ${type} is ${s}, but request is ${formatQuantity(req)}`;
  return undefined;
}

function ratioConstraint(type: string, name: string, enforced: Quantity, request: ResourceList, limit: ResourceList): string | undefined {
  const req = request.get(name);
  const lim = limit.get(name);
  const [r, l] = enforcedValues(req, lim, enforced);
  const s = formatQuantity(enforced);
  if (req === undefined || r === 0n) return `${name} max limit to request ratio per ${type} is ${s}, but no request is specified or request is 0`;
  if (lim === undefined || l === 0n) return `${name} max limit to request ratio per ${type} is ${s}, but no limit is specified or limit is 0`;
  let observed = Number(l) / Number(r);
  const display = observed;
  let allowed = Number(quantityValue(enforced));
  if (quantityValue(enforced) <= MAX_MILLI_VALUE) {
    observed *= 1000;
    allowed = Number(quantityMilliValue(enforced));
  }
  if (observed > allowed) return `${name} max limit to request ratio per ${type} is ${s}, but provided ratio is ${display.toFixed(6)}`;
  return undefined;
}

function containerLists(raw: unknown): { requests: ResourceList; limits: ResourceList; sidecar: boolean } {
  const c = obj(raw) ?? {};
  const resources = obj(c['resources']);
  return { requests: resourceListFrom(resources?.['requests']), limits: resourceListFrom(resources?.['limits']), sidecar: c['restartPolicy'] === 'Always' };
}

/** A pod's effective requests or limits: containers summed, then the largest init container (sidecars summed in). */
function podTotal(spec: JsonObject, which: 'requests' | 'limits'): ResourceList {
  let total: ResourceList = new Map();
  for (const c of arr(spec['containers'])) total = add(total, containerLists(c)[which]);
  let sidecars: ResourceList = new Map();
  let init: ResourceList = new Map();
  for (const c of arr(spec['initContainers'])) {
    const lists = containerLists(c);
    let effective: ResourceList;
    if (lists.sidecar) {
      total = add(total, lists[which]);
      sidecars = add(sidecars, lists[which]);
      effective = sidecars;
    } else {
      effective = add(lists[which], sidecars);
    }
    init = max(init, effective);
  }
  return max(total, init);
}

export function validatePod(pod: KObject, lr: KObject): string[] {
  const errs: string[] = [];
  const spec = obj(pod['spec']) ?? {};
  const push = (e: string | undefined): void => {
    if (e !== undefined) errs.push(e);
  };
  for (const item of itemsOf(lr)) {
    if (item.type === 'Container') {
      for (const c of [...arr(spec['containers']), ...arr(spec['initContainers'])]) {
        const { requests, limits } = containerLists(c);
        for (const [k, v] of item.min) push(minConstraint(item.type, k, v, requests, limits));
        for (const [k, v] of item.max) push(maxConstraint(item.type, k, v, requests, limits));
        for (const [k, v] of item.maxLimitRequestRatio) push(ratioConstraint(item.type, k, v, requests, limits));
      }
    } else if (item.type === 'Pod') {
      const requests = podTotal(spec, 'requests');
      const limits = podTotal(spec, 'limits');
      for (const [k, v] of item.min) push(minConstraint(item.type, k, v, requests, limits));
      for (const [k, v] of item.max) push(maxConstraint(item.type, k, v, requests, limits));
      for (const [k, v] of item.maxLimitRequestRatio) push(ratioConstraint(item.type, k, v, requests, limits));
    }
  }
  return errs;
}

export function validateClaim(pvc: KObject, lr: KObject): string[] {
  const errs: string[] = [];
  const requests = resourceListFrom(obj(obj(obj(pvc['spec'])?.['resources']))?.['requests']);
  for (const item of itemsOf(lr)) {
    if (item.type !== 'PersistentVolumeClaim') continue;
    for (const [k, v] of item.min) {
      const e = minConstraint(item.type, k, v, requests, new Map());
      if (e !== undefined) errs.push(e);
    }
    for (const [k, v] of item.max) {
      const e = maxRequestConstraint(item.type, k, v, requests);
      if (e !== undefined) errs.push(e);
    }
  }
  return errs;
}

/** The plugin over this thread's watch-fed index of LimitRanges. */
export const limitRangerFactory: AdmissionPluginFactory = {
  name: 'LimitRanger',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'limitranges');
    if (rt === undefined) return { name: 'LimitRanger', handles: () => false };
    const index = new WatchedObjects(rt, deps.store);
    // The store exists once the chain does: start the watch right after.
    setImmediate(() => index.start());
    deps.onClose(() => index.close());
    return limitRanger({
      ready: index.ready,
      forNamespace(namespace) {
        if (!index.synced) return undefined;
        const m = index.in(namespace);
        return m.size === 0 ? [] : [...m.values()];
      },
    });
  },
};

