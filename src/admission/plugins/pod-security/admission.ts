/**
 * PodSecurity's decisions, as the original's pod-security-admission
 * admission.go (v1.25):
 * - pods (CREATE, UPDATE, and subresources that can change the spec, such
 *   as ephemeralcontainers): the namespace's enforce level rejects (403
 *   `violates PodSecurity "<level>:<version>": ...`), audit leaves
 *   `<prefix>audit-violations`, warn adds a warning (only when allowed);
 *   updates that change nothing the checks read are allowed unevaluated;
 * - workload objects with pod templates: warn and audit only, never enforce;
 * - namespaces: bad labels are invalid (on update only if they changed);
 *   raising the enforce level warns about existing pods that would violate
 *   it (at most 3000 pods checked, within one second);
 * - exemptions by namespace, username and runtime class.
 */
import { errors } from '../../../api/status.ts';
import type { KObject } from '../../../registry/object.ts';
import type { FieldError } from '../../../registry/strategy.ts';
import type { AdmissionAttributes } from '../../types.ts';
import {
  AUDIT_KEYS,
  compactPolicyString,
  compareLevels,
  equivalentPolicy,
  fullyPrivileged,
  levelVersionString,
  policyToEvaluate,
  PRIVILEGED_LATEST,
  sameLevelVersion,
  sameVersion,
  type LevelVersion,
  type Policy,
} from './api.ts';
import type { PodSecurityConfig } from './config.ts';
import { forbiddenDetail, forbiddenReason, type AggregateResult, type Evaluator } from './evaluator.ts';
import { extractPod, isSignificantPodUpdate } from './pod-spec.ts';
import { asObject, asString, podView, type Json, type PodView } from './pod-view.ts';

/** What PodSecurity reads from the cluster (watch-cache reads). */
export interface PodSecuritySources {
  /** The namespace's labels; null when it does not exist. Rejects on a read failure. */
  namespaceLabels(name: string): Promise<Readonly<Record<string, string>> | null>;
  /** The pods of a namespace. */
  listPods(namespace: string): Promise<KObject[]>;
}

export interface PodSecurityLimits {
  /** Pods checked at most when a namespace's enforce level rises (the original's 3000). */
  readonly maxPodsToCheck: number;
  /** Time spent at most checking them (the original's one second). */
  readonly podCheckTimeoutMs: number;
}

export const DEFAULT_LIMITS: PodSecurityLimits = { maxPodsToCheck: 3000, podCheckTimeoutMs: 1000 };

/** Pod subresources that cannot change the spec (the original's ignoredPodSubresources). */
export const IGNORED_POD_SUBRESOURCES: ReadonlySet<string> = new Set(['exec', 'attach', 'binding', 'eviction', 'log', 'portforward', 'proxy', 'status']);

export class PodSecurityAdmission {
  readonly #config: PodSecurityConfig;
  readonly #evaluator: Evaluator;
  readonly #sources: PodSecuritySources;
  readonly #limits: PodSecurityLimits;

  constructor(config: PodSecurityConfig, evaluator: Evaluator, sources: PodSecuritySources, limits: PodSecurityLimits = DEFAULT_LIMITS) {
    this.#config = config;
    this.#evaluator = evaluator;
    this.#sources = sources;
    this.#limits = limits;
  }

  async validate(attrs: AdmissionAttributes): Promise<void> {
    const rt = attrs.resourceType;
    if (rt.group === '' && rt.resource === 'namespaces') return this.validateNamespace(attrs);
    if (rt.group === '' && rt.resource === 'pods') return this.validatePod(attrs);
    return this.validatePodController(attrs);
  }

  #policy(labels: Readonly<Record<string, string>> | undefined): { policy: Policy; errors: FieldError[] } {
    return policyToEvaluate(labels, this.#config.defaults);
  }

  #exemptNamespace(ns: string): boolean {
    return ns !== '' && this.#config.exemptions.namespaces.has(ns);
  }

  #exemptUser(attrs: AdmissionAttributes): boolean {
    const name = attrs.user?.name ?? '';
    return name !== '' && this.#config.exemptions.usernames.has(name);
  }

  #exemptRuntimeClass(spec: Json): boolean {
    const rc = asString(spec['runtimeClassName']);
    return rc !== '' && this.#config.exemptions.runtimeClasses.has(rc);
  }

  async validateNamespace(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== '' || attrs.object === null) return;
    const ns = attrs.object;
    // The original's attributes carry a namespace's own name as its namespace.
    const name = ns.metadata.name ?? attrs.name;
    const { policy: newPolicy, errors: newErrs } = this.#policy(ns.metadata.labels);
    const invalid = (): never => {
      throw errors.invalid('', 'Namespace', name, newErrs.map((e) => ({ reason: e.type, message: e.message, field: e.field })));
    };
    if (attrs.operation === 'CREATE') {
      if (newErrs.length > 0) invalid();
      if (this.#exemptNamespace(name)) this.#warnExemptNamespace(attrs, name, newPolicy);
      return;
    }
    if (attrs.operation !== 'UPDATE' || attrs.oldObject === null) return;
    const { policy: oldPolicy, errors: oldErrs } = this.#policy(attrs.oldObject.metadata.labels);
    if (newErrs.length > 0 && (oldErrs.length === 0 || !sameErrors(newErrs, oldErrs))) invalid();
    // Nothing to dry-run when enforce is unchanged, becomes privileged, or relaxes at the same version.
    if (sameLevelVersion(newPolicy.enforce, oldPolicy.enforce)) return;
    if (newPolicy.enforce.level === 'privileged') return;
    if (sameVersion(newPolicy.enforce.version, oldPolicy.enforce.version) && compareLevels(newPolicy.enforce.level, oldPolicy.enforce.level) < 1) return;
    if (this.#exemptNamespace(name)) {
      this.#warnExemptNamespace(attrs, name, newPolicy);
      return;
    }
    for (const w of await this.evaluatePodsInNamespace(name, newPolicy.enforce)) attrs.warn(w);
  }

  #warnExemptNamespace(attrs: AdmissionAttributes, name: string, policy: Policy): void {
    if (fullyPrivileged(policy) || equivalentPolicy(policy, this.#config.defaults)) return;
    attrs.warn(`namespace ${JSON.stringify(name)} is exempt from Pod Security, and the policy (${compactPolicyString(policy)}) will be ignored`);
  }

  async validatePod(attrs: AdmissionAttributes): Promise<void> {
    if (IGNORED_POD_SUBRESOURCES.has(attrs.subresource)) return;
    if (this.#exemptNamespace(attrs.namespace)) return attrs.annotate(AUDIT_KEYS.exempt, 'namespace');
    if (this.#exemptUser(attrs)) return attrs.annotate(AUDIT_KEYS.exempt, 'user');
    let labels: Readonly<Record<string, string>> | null;
    try {
      labels = await this.#sources.namespaceLabels(attrs.namespace);
    } catch {
      labels = null;
    }
    if (labels === null) {
      const message = `failed to lookup namespace ${JSON.stringify(attrs.namespace)}`;
      attrs.annotate(AUDIT_KEYS.error, `Internal error occurred: ${message}`);
      throw errors.internal(message);
    }
    const { policy, errors: policyErrs } = this.#policy(labels);
    if (policyErrs.length === 0 && fullyPrivileged(policy)) {
      attrs.annotate(AUDIT_KEYS.enforcePolicy, levelVersionString(PRIVILEGED_LATEST));
      return;
    }
    const pod = attrs.object;
    if (pod === null) return;
    if (attrs.operation === 'UPDATE' && attrs.oldObject !== null && !isSignificantPodUpdate(pod, attrs.oldObject)) return;
    this.#evaluatePod(attrs, policy, policyErrs, podView(pod.metadata, (pod as Json)['spec']), true);
  }

  async validatePodController(attrs: AdmissionAttributes): Promise<void> {
    if (attrs.subresource !== '' || attrs.object === null) return;
    if (this.#exemptNamespace(attrs.namespace)) return attrs.annotate(AUDIT_KEYS.exempt, 'namespace');
    if (this.#exemptUser(attrs)) return attrs.annotate(AUDIT_KEYS.exempt, 'user');
    let labels: Readonly<Record<string, string>> | null;
    try {
      labels = await this.#sources.namespaceLabels(attrs.namespace);
    } catch (e) {
      // Workloads are never rejected by PodSecurity: note the failure for audit and let them through.
      attrs.annotate(AUDIT_KEYS.error, `failed to lookup namespace ${JSON.stringify(attrs.namespace)}: ${(e as Error).message}`);
      return;
    }
    if (labels === null) {
      attrs.annotate(AUDIT_KEYS.error, `failed to lookup namespace ${JSON.stringify(attrs.namespace)}: namespaces ${JSON.stringify(attrs.namespace)} not found`);
      return;
    }
    const { policy, errors: policyErrs } = this.#policy(labels);
    if (policyErrs.length === 0 && policy.warn.level === 'privileged' && policy.audit.level === 'privileged') return;
    const pod = extractPod(attrs.resourceType.resource, attrs.object);
    if (pod === undefined) return;
    this.#evaluatePod(attrs, policy, policyErrs, pod, false);
  }

  /** The original's EvaluatePod: enforce (pods only), then audit, then warn, each level:version evaluated once. */
  #evaluatePod(attrs: AdmissionAttributes, policy: Policy, policyErrs: FieldError[], pod: PodView, enforce: boolean): void {
    if (this.#exemptRuntimeClass(pod.spec)) return attrs.annotate(AUDIT_KEYS.exempt, 'runtimeClass');
    if (policyErrs.length > 0) attrs.annotate(AUDIT_KEYS.error, `Failed to parse policy: ${aggregateErrors(policyErrs)}`);
    const cache: Array<[LevelVersion, AggregateResult]> = [];
    const evaluate = (lv: LevelVersion): AggregateResult => {
      const hit = cache.find(([k]) => sameLevelVersion(k, lv));
      if (hit !== undefined) return hit[1];
      const r = this.#evaluator.evaluateAggregate(lv, pod);
      cache.push([lv, r]);
      return r;
    };
    let rejection: Error | undefined;
    if (enforce) {
      attrs.annotate(AUDIT_KEYS.enforcePolicy, levelVersionString(policy.enforce));
      const r = evaluate(policy.enforce);
      if (!r.allowed) {
        const rt = attrs.resourceType;
        rejection = errors.forbidden(rt.group, rt.resource, attrs.name, `violates PodSecurity ${JSON.stringify(levelVersionString(policy.enforce))}: ${forbiddenDetail(r)}`);
      }
    }
    const audit = evaluate(policy.audit);
    if (!audit.allowed) {
      attrs.annotate(AUDIT_KEYS.auditViolations, `would violate PodSecurity ${JSON.stringify(levelVersionString(policy.audit))}: ${forbiddenDetail(audit)}`);
    }
    if (rejection !== undefined) throw rejection; // no warnings on a request already rejected
    const warn = evaluate(policy.warn);
    if (!warn.allowed) attrs.warn(`would violate PodSecurity ${JSON.stringify(levelVersionString(policy.warn))}: ${forbiddenDetail(warn)}`);
  }

  /**
   * Warnings for a namespace whose enforce level rises: which existing pods
   * would violate it, grouped by reasons, one pod named per group. Pods of a
   * controller already seen are checked last; at most maxPodsToCheck pods,
   * for at most podCheckTimeoutMs.
   */
  async evaluatePodsInNamespace(namespace: string, enforce: LevelVersion): Promise<string[]> {
    const deadline = performance.now() + this.#limits.podCheckTimeoutMs;
    let pods: KObject[];
    try {
      pods = await this.#sources.listPods(namespace);
    } catch {
      return ['failed to list pods while checking new PodSecurity enforce level'];
    }
    const prioritized = this.#prioritizePods(pods);
    const total = prioritized.length;
    const toCheck = prioritized.slice(0, this.#limits.maxPodsToCheck);
    let checked = toCheck.length;
    const counts = new Map<string, { podName: string; count: number }>();
    const order: string[] = [];
    for (let i = 0; i < toCheck.length; i++) {
      const pod = toCheck[i]!;
      const r = this.#evaluator.evaluateAggregate(enforce, podView(pod.metadata, (pod as Json)['spec']));
      if (!r.allowed) {
        const warning = forbiddenReason(r);
        const podName = pod.metadata.name ?? '';
        const c = counts.get(warning);
        if (c === undefined) {
          counts.set(warning, { podName, count: 1 });
          order.push(warning);
        } else {
          if (podName < c.podName) c.podName = podName;
          c.count++;
        }
      }
      if (performance.now() > deadline) {
        checked = i + 1;
        break;
      }
    }
    const warnings: string[] = [];
    if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
    if (order.length > 0) warnings.push(`existing pods in namespace ${JSON.stringify(namespace)} violate the new PodSecurity enforce level ${JSON.stringify(levelVersionString(enforce))}`);
    const decorated = order.map((w) => {
      const c = counts.get(w)!;
      if (c.count === 1) return `${c.podName}: ${w}`;
      if (c.count === 2) return `${c.podName} (and 1 other pod): ${w}`;
      return `${c.podName} (and ${c.count - 1} other pods): ${w}`;
    });
    decorated.sort();
    return [...warnings, ...decorated];
  }

  /** Pods without an exempt runtime class; the first pod of each controller before the others (the original's prioritizePods). */
  #prioritizePods(pods: readonly KObject[]): KObject[] {
    const first: KObject[] = [];
    const duplicates: KObject[] = [];
    const seen = new Set<string>();
    for (const pod of pods) {
      if (this.#exemptRuntimeClass(asObject((pod as Json)['spec']) ?? {})) continue;
      const owner = (pod.metadata.ownerReferences ?? []).find((o) => o.controller === true);
      if (owner === undefined) first.push(pod);
      else if (seen.has(owner.uid)) duplicates.push(pod);
      else {
        seen.add(owner.uid);
        first.push(pod);
      }
    }
    return [...first, ...duplicates];
  }
}

function sameErrors(a: readonly FieldError[], b: readonly FieldError[]): boolean {
  return a.length === b.length && a.every((e, i) => e.field === b[i]!.field && e.message === b[i]!.message && e.type === b[i]!.type);
}

/** Go's aggregate of field errors: one as is, several in brackets. */
function aggregateErrors(errs: readonly FieldError[]): string {
  const list = errs.map((e) => `${e.field}: ${e.message}`);
  return list.length === 1 ? list[0]! : `[${list.join(', ')}]`;
}
