/**
 * Which webhooks a write goes to, as the original's generic webhook
 * (ShouldCallHook): the namespace selector, then the object selector, then
 * the rules; with matchPolicy Equivalent, a rule naming another version or
 * group of the same resource (types that share storage in this server's
 * registry) matches too, and the webhook gets the object in that version.
 *
 * `couldMatch` is the compile-time half (no object, no namespace): the
 * chain asks it once per type, subresource and operation, so a type no
 * webhook could match never enters the plugin.
 */
import { errors, StatusError } from '../../api/status.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { KObject } from '../../registry/object.ts';
import type { Operation } from '../types.ts';
import type { Webhook, WebhookRule } from './hook.ts';
import { apiGroup } from '../../naming/index.ts';

/** What a rule is matched against. */
export interface MatchTarget {
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly operation: Operation;
  /** The request's namespace; for a Namespace object, its name (as the original's request info). */
  readonly namespace: string;
}

const ADMISSION_GROUP = apiGroup('admissionregistration');

/** Webhook and policy configurations are never sent to webhooks (the original's IsExemptAdmissionConfigurationResource). */
export function isExemptResource(rt: ResourceType): boolean {
  return rt.group === ADMISSION_GROUP && (rt.resource === 'mutatingwebhookconfigurations' || rt.resource === 'validatingwebhookconfigurations' || rt.resource === 'validatingadmissionpolicies' || rt.resource === 'validatingadmissionpolicybindings');
}

function splitResource(r: string): [string, string] {
  const i = r.indexOf('/');
  return i < 0 ? [r, ''] : [r.slice(0, i), r.slice(i + 1)];
}

function anyOf(list: readonly string[], value: string): boolean {
  for (const v of list) if (v === '*' || v === value) return true;
  return false;
}

function resourceMatches(rule: WebhookRule, resource: string, subresource: string): boolean {
  for (const r of rule.resources) {
    const [res, sub] = splitResource(r);
    if ((res === '*' || res === resource) && (sub === '*' || sub === subresource)) return true;
  }
  return false;
}

function scopeMatches(rule: WebhookRule, t: MatchTarget): boolean {
  const isNamespace = t.group === '' && t.resource === 'namespaces';
  switch (rule.scope) {
    case 'Namespaced':
      // A Namespace object is cluster-scoped.
      return !isNamespace && t.namespace !== '';
    case 'Cluster':
      return isNamespace || t.namespace === '';
    default:
      return true;
  }
}

export function ruleMatches(rule: WebhookRule, t: MatchTarget): boolean {
  return scopeMatches(rule, t) && anyOf(rule.operations, t.operation) && anyOf(rule.apiGroups, t.group) && anyOf(rule.apiVersions, t.version) && resourceMatches(rule, t.resource, t.subresource);
}

/** Rules only, ignoring scope (the compile-time question: a type may be written in or out of a namespace only by its kind). */
function ruleCouldMatch(rule: WebhookRule, rt: ResourceType, subresource: string, op: Operation): boolean {
  const t: MatchTarget = { group: rt.group, version: rt.version, resource: rt.resource, subresource, operation: op, namespace: rt.namespaced ? 'x' : '' };
  return ruleMatches(rule, t);
}

/** The key under which types are equivalent: types sharing storage (or, for virtual types, group and resource). */
function equivalenceKey(rt: ResourceType): string {
  return rt.virtual ? `${rt.group}/${rt.resource}` : rt.storageResource;
}

/** Equivalent types per type, computed once per registry. */
export class Equivalents {
  readonly #byKey = new Map<string, ResourceType[]>();

  constructor(registry: ResourceRegistry) {
    for (const rt of registry.types) {
      const k = equivalenceKey(rt);
      const list = this.#byKey.get(k) ?? [];
      list.push(rt);
      this.#byKey.set(k, list);
    }
  }

  /** The other served types of the same resource that have `subresource` (empty: the main resource). */
  of(rt: ResourceType, subresource: string): ResourceType[] {
    const all = this.#byKey.get(equivalenceKey(rt)) ?? [];
    return all.filter((o) => o !== rt && (subresource === '' || o.subresources.some((s) => s.name === subresource)));
  }
}

/** Whether `hook` could be called for some write of this combination. */
export function couldMatch(hook: Webhook, rt: ResourceType, subresource: string, op: Operation, eq: Equivalents): boolean {
  if (isExemptResource(rt)) return false;
  for (const rule of hook.rules) if (ruleCouldMatch(rule, rt, subresource, op)) return true;
  if (hook.matchPolicy === 'Equivalent') {
    for (const other of eq.of(rt, subresource)) for (const rule of hook.rules) if (ruleCouldMatch(rule, other, subresource, op)) return true;
  }
  return false;
}

/** Labels of a namespace, from the thread's watch-fed index; undefined when it does not exist. */
export interface NamespaceLabels {
  labels(name: string): Promise<Record<string, string> | undefined>;
}

export interface Invocation {
  readonly hook: Webhook;
  /** The type the webhook is sent (the request's own, or an equivalent one). */
  readonly rt: ResourceType;
  readonly subresource: string;
}

export interface MatchRequest {
  readonly rt: ResourceType;
  readonly subresource: string;
  readonly operation: Operation;
  readonly namespace: string;
  readonly name: string;
  readonly object: KObject | null;
  readonly oldObject: KObject | null;
}

function labelsOf(o: KObject | null): Record<string, string> | undefined {
  const l = o?.metadata?.labels;
  return l ?? {};
}

/** The namespace as the original's request info has it: a Namespace's own name for namespace requests. */
export function requestNamespace(req: { rt: ResourceType; namespace: string; name: string }): string {
  if (req.rt.group === '' && req.rt.resource === 'namespaces') return req.name;
  return req.namespace;
}

async function matchNamespaceSelector(hook: Webhook, req: MatchRequest, ns: NamespaceLabels): Promise<boolean | StatusError> {
  const isNamespace = req.rt.group === '' && req.rt.resource === 'namespaces';
  const namespace = requestNamespace(req);
  // A cluster-scoped request other than a namespace is never exempted.
  if (namespace === '' && !isNamespace) return true;
  const sel = hook.namespaceSelector;
  if (sel instanceof Error) return errors.internal(sel.message);
  if (sel.empty) return true;
  let labels: Record<string, string> | undefined;
  if (isNamespace && req.subresource === '' && (req.operation === 'CREATE' || req.operation === 'UPDATE')) {
    // The namespace being written: its new labels.
    labels = labelsOf(req.object);
  } else {
    labels = await ns.labels(namespace);
    if (labels === undefined) return errors.notFound('', 'namespaces', namespace);
  }
  return sel.matches(labels);
}

function matchObjectSelector(hook: Webhook, req: MatchRequest): boolean | StatusError {
  const sel = hook.objectSelector;
  if (sel instanceof Error) return errors.internal(sel.message);
  if (sel.empty) return true;
  const m = (o: KObject | null): boolean => o !== null && typeof o.metadata === 'object' && o.metadata !== null && sel.matches(labelsOf(o));
  return m(req.object) || m(req.oldObject);
}

/**
 * The invocation of `hook` for this write, null when it does not apply;
 * throws the selector's error only when a rule matched (as the original:
 * a policy that does not apply never fails the request).
 */
export async function shouldCall(hook: Webhook, req: MatchRequest, ns: NamespaceLabels, eq: Equivalents): Promise<Invocation | null> {
  const nsMatch = await matchNamespaceSelector(hook, req, ns);
  if (nsMatch === false) return null;
  const objMatch = matchObjectSelector(hook, req);
  if (objMatch === false) return null;
  const namespace = requestNamespace(req);
  const target = (rt: ResourceType): MatchTarget => ({ group: rt.group, version: rt.version, resource: rt.resource, subresource: req.subresource, operation: req.operation, namespace });
  let invocation: Invocation | null = null;
  const own = target(req.rt);
  for (const rule of hook.rules) {
    if (ruleMatches(rule, own)) {
      invocation = { hook, rt: req.rt, subresource: req.subresource };
      break;
    }
  }
  if (invocation === null && hook.matchPolicy === 'Equivalent') {
    // Earlier rules first, then the equivalent types in registry order.
    outer: for (const rule of hook.rules) {
      for (const other of eq.of(req.rt, req.subresource)) {
        if (ruleMatches(rule, target(other))) {
          invocation = { hook, rt: other, subresource: req.subresource };
          break outer;
        }
      }
    }
  }
  if (invocation === null) return null;
  if (nsMatch instanceof StatusError) throw nsMatch;
  if (objMatch instanceof StatusError) throw objMatch;
  return invocation;
}
