/**
 * RbacPolicy: the in-memory RBAC state of one serving thread and the
 * decisions made from it, after the original's RBACAuthorizer and
 * DefaultRuleResolver.
 *
 * What it keeps: the four kinds of objects by key, and which bindings name
 * each subject (a user name, a group name; a ServiceAccount subject is the
 * user `system:serviceaccount:<ns>:<name>`). On a decision it compiles, once
 * per subject, the rules that reach that subject (cluster-wide ones and, per
 * namespace, those of RoleBindings there) and keeps them until a binding
 * naming the subject, or a role such a binding names, changes. A decision is then one map lookup for the user, one per
 * group, and a scan of the few rules found. Subjects no binding names cost one
 * failed lookup and are never cached, so the cache is bounded by the subjects
 * the stored bindings name.
 */
import type { AuthorizationAttributes, AuthorizationResult } from '../types.ts';
import type { UserInfo } from '../../server/context.ts';
import { goQuote } from '../../selectors/go-format.ts';
import { compileRule, ruleAllows, type CompiledRule } from './rules.ts';
import { serviceAccountUsername, type BindingRecord, type PolicyRule, type RbacResource, type RoleRecord, type RoleRef, type Subject } from './types.ts';

/** Where a grant comes from: the allow answer is built from it on first use. */
interface Origin {
  readonly binding: BindingRecord;
  readonly subject: Subject;
  result: AuthorizationResult | null;
}

interface Grant {
  readonly rule: CompiledRule;
  readonly raw: PolicyRule;
  readonly origin: Origin;
}

/** `RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to User "z"`, built once per origin. */
function allowResult(origin: Origin): AuthorizationResult {
  return (origin.result ??= Object.freeze({ decision: 'allow', reason: `RBAC: allowed by ${describeBinding(origin.binding, origin.subject)}` }));
}

/**
 * The grants of one subject in one scope (cluster-wide, or one namespace),
 * bucketed so a decision looks at the few rules that can match: rules by
 * each resource they name (`pods`, `pods/log`), rules that match any
 * resource or a `*\/sub` form, rules for non-resource URLs.
 */
class GrantIndex {
  readonly all: Grant[] = [];
  readonly errors: string[] = [];
  /** verb -> resource (`pods`, `pods/log`) -> grants. */
  readonly #byVerb = new Map<string, Map<string, Grant[]>>();
  /** Rules with verb `*`: resource -> grants. */
  readonly #anyVerb = new Map<string, Grant[]>();
  /** Rules naming every resource or a `*\/sub` form. */
  readonly #anyResource: Grant[] = [];
  readonly #nonResource: Grant[] = [];

  add(grant: Grant): void {
    this.all.push(grant);
    const rule = grant.rule;
    if (rule.nonResource) this.#nonResource.push(grant);
    if (!rule.resourceRule) return;
    if (rule.allResources || rule.anySubresources.size > 0) this.#anyResource.push(grant);
    if (rule.resources.size === 0) return;
    const buckets: Map<string, Grant[]>[] = [];
    if (rule.allVerbs) buckets.push(this.#anyVerb);
    else {
      for (const verb of rule.verbs) {
        let m = this.#byVerb.get(verb);
        if (m === undefined) this.#byVerb.set(verb, (m = new Map()));
        buckets.push(m);
      }
    }
    for (const m of buckets) {
      for (const r of rule.resources) {
        let list = m.get(r);
        if (list === undefined) m.set(r, (list = []));
        list.push(grant);
      }
    }
  }

  /** The first grant allowing the request, or null. (Indexed loops: this is the hot path.) */
  find(attrs: AuthorizationAttributes, combined: string): Grant | null {
    if (!attrs.isResourceRequest) return first(this.#nonResource, attrs);
    const byResource = this.#byVerb.get(attrs.verb);
    if (byResource !== undefined) {
      const list = byResource.get(combined);
      if (list !== undefined) {
        const g = first(list, attrs);
        if (g !== null) return g;
      }
    }
    if (this.#anyVerb.size > 0) {
      const list = this.#anyVerb.get(combined);
      if (list !== undefined) {
        const g = first(list, attrs);
        if (g !== null) return g;
      }
    }
    return first(this.#anyResource, attrs);
  }
}

function first(list: readonly Grant[], attrs: AuthorizationAttributes): Grant | null {
  for (let i = 0; i < list.length; i++) if (ruleAllows(list[i]!.rule, attrs)) return list[i]!;
  return null;
}

interface SubjectEntry {
  readonly refs: Set<string>;
  grants: SubjectGrants | null;
  gen: number;
}

interface SubjectGrants {
  /** Grants of ClusterRoleBindings: the whole answer cluster-wide and in namespaces without a local grant. */
  readonly cluster: GrantIndex;
  /** Per namespace with RoleBindings: that namespace's grants alone. */
  readonly local: Map<string, GrantIndex>;
  /** Per namespace asked about: the cluster grants then the local ones in one index, built on first use. */
  readonly merged: Map<string, GrantIndex>;
}

/** The index a decision in `ns` reads: one lookup once the namespace was seen. */
function scopeOf(g: SubjectGrants, ns: string): GrantIndex {
  if (ns === '') return g.cluster;
  const m = g.merged.get(ns);
  if (m !== undefined) return m;
  const local = g.local.get(ns);
  if (local === undefined) return g.cluster;
  // Cluster grants first, as the original visits ClusterRoleBindings first.
  const merged = new GrantIndex();
  for (const grant of g.cluster.all) merged.add(grant);
  for (const grant of local.all) merged.add(grant);
  merged.errors.push(...g.cluster.errors, ...local.errors);
  g.merged.set(ns, merged);
  return merged;
}

const EMPTY_GRANTS: SubjectGrants = { cluster: new GrantIndex(), local: new Map(), merged: new Map() };
const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: '' });

/** Users and groups are kept in separate maps, so a lookup needs no key building. */
const USER = 0;
const GROUP = 1;
type SubjectKind = typeof USER | typeof GROUP;

function key(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** The user or group a binding subject stands for, or null for a subject that names nobody. */
function subjectOf(s: Subject, bindingNamespace: string): [SubjectKind, string] | null {
  switch (s.kind) {
    case 'User':
      return [USER, s.name];
    case 'Group':
      return [GROUP, s.name];
    case 'ServiceAccount': {
      // An unqualified service account in a RoleBinding is the binding's namespace's.
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
      return ns === '' ? null : [USER, serviceAccountUsername(ns, s.name)];
    }
    default:
      return null;
  }
}

/** The key of the role a binding names (as #compiledRoles keys them). */
function roleKeyOf(b: BindingRecord): string {
  return b.roleRef.kind === 'Role' ? `r:${b.namespace}/${b.roleRef.name}` : `c:${b.roleRef.name}`;
}

function describeSubject(s: Subject, bindingNamespace: string): string {
  if (s.kind === 'ServiceAccount') {
    const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
    return `${s.kind} ${goQuote(`${s.name}/${ns}`)}`;
  }
  return `${s.kind} ${goQuote(s.name)}`;
}

function describeBinding(b: BindingRecord, s: Subject): string {
  const which = b.namespace === '' ? `ClusterRoleBinding ${goQuote(b.name)}` : `RoleBinding ${goQuote(`${b.name}/${b.namespace}`)}`;
  return `${which} of ${b.roleRef.kind} ${goQuote(b.roleRef.name)} to ${describeSubject(s, b.namespace)}`;
}

/** utilerrors.NewAggregate's text: one error alone, several in brackets. */
function aggregate(errs: readonly string[]): string {
  return errs.length === 1 ? errs[0]! : `[${errs.join(', ')}]`;
}

export class RoleNotFoundError extends Error {
  constructor(
    readonly kind: 'Role' | 'ClusterRole',
    readonly roleName: string,
    rbacGroup: string,
  ) {
    // The lister's NotFound: singular resource, as the original's message reads.
    super(`${kind.toLowerCase()}.${rbacGroup} ${goQuote(roleName)} not found`);
    this.name = 'RoleNotFoundError';
  }
}

export class RbacPolicy {
  readonly #rbacGroup: string;
  readonly #roles = new Map<string, RoleRecord>();
  readonly #clusterRoles = new Map<string, RoleRecord>();
  readonly #bindings = new Map<string, BindingRecord>();
  readonly #clusterBindings = new Map<string, BindingRecord>();
  /**
   * User or group name -> the bindings (by `r:` or `c:` key) naming it, and
   * its compiled grants (dropped when one of those bindings or their roles
   * changes; all stale at once when `gen` is behind the policy's generation):
   * a decision costs one lookup per subject.
   */
  readonly #bySubject: [Map<string, SubjectEntry>, Map<string, SubjectEntry>] = [new Map(), new Map()];
  /** Compiled rules per role (`r:ns/name`, `c:name`); an entry goes when its role changes. */
  readonly #compiledRoles = new Map<string, Grant['rule'][]>();
  /** Role key (`r:ns/name`, `c:name`) -> the bindings (`r:`/`c:` keys) naming it, for targeted invalidation. */
  readonly #bindingsByRole = new Map<string, Set<string>>();
  /** Bumped when everything compiled is stale at once. */
  #generation = 0;

  constructor(rbacGroup: string) {
    this.#rbacGroup = rbacGroup;
  }

  get clusterRoles(): ReadonlyMap<string, RoleRecord> {
    return this.#clusterRoles;
  }

  get sizes(): { roles: number; clusterRoles: number; roleBindings: number; clusterRoleBindings: number; subjects: number } {
    return {
      roles: this.#roles.size,
      clusterRoles: this.#clusterRoles.size,
      roleBindings: this.#bindings.size,
      clusterRoleBindings: this.#clusterBindings.size,
      subjects: this.#bySubject[USER].size + this.#bySubject[GROUP].size,
    };
  }

  /** Everything compiled is stale (a lost watch's state replaced). */
  #changedAll(): void {
    this.#generation++;
    this.#compiledRoles.clear();
  }

  /** The subjects of one binding must compile again. */
  #invalidateBinding(binding: BindingRecord): void {
    for (const s of binding.subjects) {
      const who = subjectOf(s, binding.namespace);
      if (who === null) continue;
      const entry = this.#bySubject[who[0]].get(who[1]);
      if (entry !== undefined) entry.grants = null;
    }
  }

  /** A role changed: it compiles again, and so do the subjects of every binding naming it. */
  #invalidateRole(roleKey: string): void {
    this.#compiledRoles.delete(roleKey);
    for (const ref of this.#bindingsByRole.get(roleKey) ?? []) {
      const binding = (ref.startsWith('c:') ? this.#clusterBindings : this.#bindings).get(ref.slice(2));
      if (binding !== undefined) this.#invalidateBinding(binding);
    }
  }

  setRole(resource: 'roles' | 'clusterroles', role: RoleRecord): void {
    (resource === 'roles' ? this.#roles : this.#clusterRoles).set(key(role.namespace, role.name), role);
    this.#invalidateRole(resource === 'roles' ? `r:${role.namespace}/${role.name}` : `c:${role.name}`);
  }

  setBinding(resource: 'rolebindings' | 'clusterrolebindings', binding: BindingRecord): void {
    const k = key(binding.namespace, binding.name);
    this.#dropBinding(resource, k);
    (resource === 'rolebindings' ? this.#bindings : this.#clusterBindings).set(k, binding);
    const ref = (resource === 'rolebindings' ? 'r:' : 'c:') + k;
    for (const s of binding.subjects) {
      const who = subjectOf(s, binding.namespace);
      if (who === null) continue;
      const map = this.#bySubject[who[0]];
      let entry = map.get(who[1]);
      if (entry === undefined) map.set(who[1], (entry = { refs: new Set(), grants: null, gen: -1 }));
      entry.refs.add(ref);
    }
    const rk = roleKeyOf(binding);
    let set = this.#bindingsByRole.get(rk);
    if (set === undefined) this.#bindingsByRole.set(rk, (set = new Set()));
    set.add(ref);
    this.#invalidateBinding(binding);
  }

  remove(resource: RbacResource, namespace: string, name: string): void {
    const k = key(namespace, name);
    if (resource === 'roles') {
      this.#roles.delete(k);
      this.#invalidateRole(`r:${namespace}/${name}`);
    } else if (resource === 'clusterroles') {
      this.#clusterRoles.delete(k);
      this.#invalidateRole(`c:${name}`);
    } else this.#dropBinding(resource, k);
  }

  /** Drops everything of one resource (a lost watch's state is replaced wholesale). */
  clear(resource: RbacResource): void {
    if (resource === 'roles') this.#roles.clear();
    else if (resource === 'clusterroles') this.#clusterRoles.clear();
    else for (const k of [...(resource === 'rolebindings' ? this.#bindings : this.#clusterBindings).keys()]) this.#dropBinding(resource, k);
    this.#changedAll();
  }

  #dropBinding(resource: 'rolebindings' | 'clusterrolebindings', k: string): void {
    const map = resource === 'rolebindings' ? this.#bindings : this.#clusterBindings;
    const old = map.get(k);
    if (old === undefined) return;
    this.#invalidateBinding(old);
    map.delete(k);
    const ref = (resource === 'rolebindings' ? 'r:' : 'c:') + k;
    for (const s of old.subjects) {
      const who = subjectOf(s, old.namespace);
      if (who === null) continue;
      const map = this.#bySubject[who[0]];
      const entry = map.get(who[1]);
      if (entry === undefined) continue;
      entry.refs.delete(ref);
      if (entry.refs.size === 0) map.delete(who[1]);
    }
    const rk = roleKeyOf(old);
    const set = this.#bindingsByRole.get(rk);
    if (set !== undefined) {
      set.delete(ref);
      if (set.size === 0) this.#bindingsByRole.delete(rk);
    }
  }

  // ---- resolution ----

  /** The rules a role reference grants (GetRoleReferenceRules); throws RoleNotFoundError. */
  roleReferenceRules(roleRef: RoleRef, bindingNamespace: string): readonly PolicyRule[] {
    if (roleRef.kind === 'Role') {
      const role = this.#roles.get(key(bindingNamespace, roleRef.name));
      if (role === undefined) throw new RoleNotFoundError('Role', roleRef.name, this.#rbacGroup);
      return role.rules;
    }
    if (roleRef.kind === 'ClusterRole') {
      const role = this.#clusterRoles.get(roleRef.name);
      if (role === undefined) throw new RoleNotFoundError('ClusterRole', roleRef.name, this.#rbacGroup);
      return role.rules;
    }
    throw new Error(`unsupported role reference kind: ${goQuote(roleRef.kind)}`);
  }

  #compiledRoleRules(roleRef: RoleRef, bindingNamespace: string): CompiledRule[] {
    const k = roleRef.kind === 'Role' ? `r:${bindingNamespace}/${roleRef.name}` : `c:${roleRef.name}`;
    let rules = this.#compiledRoles.get(k);
    if (rules === undefined) {
      rules = this.roleReferenceRules(roleRef, bindingNamespace).map(compileRule);
      this.#compiledRoles.set(k, rules);
    }
    return rules;
  }

  #grantsFor(kind: SubjectKind, name: string): SubjectGrants {
    const entry = this.#bySubject[kind].get(name);
    if (entry === undefined) return EMPTY_GRANTS;
    if (entry.gen === this.#generation && entry.grants !== null) return entry.grants;
    const refs = entry.refs;
    const cluster = new GrantIndex();
    const local = new Map<string, GrantIndex>();
    for (const ref of refs) {
      const isCluster = ref.startsWith('c:');
      const binding = (isCluster ? this.#clusterBindings : this.#bindings).get(ref.slice(2));
      if (binding === undefined) continue;
      let index: GrantIndex;
      if (isCluster) {
        index = cluster;
      } else {
        index = local.get(binding.namespace) ?? new GrantIndex();
        local.set(binding.namespace, index);
      }
      // A ClusterRoleBinding may only name a ClusterRole.
      if (isCluster && binding.roleRef.kind !== 'ClusterRole') continue;
      let compiled: CompiledRule[];
      let raw: readonly PolicyRule[];
      try {
        compiled = this.#compiledRoleRules(binding.roleRef, binding.namespace);
        raw = this.roleReferenceRules(binding.roleRef, binding.namespace);
      } catch (err) {
        index.errors.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      let subject = binding.subjects[0]!;
      for (const s of binding.subjects) {
        const who = subjectOf(s, binding.namespace);
        if (who !== null && who[0] === kind && who[1] === name) {
          subject = s;
          break;
        }
      }
      const origin: Origin = { binding, subject, result: null };
      for (let i = 0; i < compiled.length; i++) index.add({ rule: compiled[i]!, raw: raw[i]!, origin });
    }
    const grants: SubjectGrants = { cluster, local, merged: new Map() };
    entry.grants = grants;
    entry.gen = this.#generation;
    return grants;
  }

  /** The RBAC decision: allow, or no opinion with the resolution errors as reason. */
  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const user = attrs.user;
    const ns = attrs.namespace;
    let errors: string[] | null = null;
    const groups = user.groups;
    const combined = attrs.subresource === '' ? attrs.resource : `${attrs.resource}/${attrs.subresource}`;
    // The user, then each group: one map lookup each, then the few candidate rules.
    for (let i = -1; i < groups.length; i++) {
      const g = i < 0 ? this.#grantsFor(USER, user.name) : this.#grantsFor(GROUP, groups[i]!);
      if (g === EMPTY_GRANTS) continue;
      const index = scopeOf(g, ns);
      const found = index.find(attrs, combined);
      if (found === null && index.errors.length > 0) (errors ??= []).push(...index.errors);
      if (found !== null) return allowResult(found.origin);
    }
    if (errors === null) return NO_OPINION;
    return { decision: 'noOpinion', reason: `RBAC: ${aggregate([...new Set<string>(errors)])}` };
  }

  /**
   * Every rule that applies to the user in `namespace` ('' = cluster-wide
   * only), with the errors met (RulesFor), for escalation checks and rules
   * reviews.
   */
  rulesFor(user: UserInfo, namespace: string): { rules: PolicyRule[]; errors: string[] } {
    const rules: PolicyRule[] = [];
    const errors: string[] = [];
    for (let i = -1; i < user.groups.length; i++) {
      const g = i < 0 ? this.#grantsFor(USER, user.name) : this.#grantsFor(GROUP, user.groups[i]!);
      const index = scopeOf(g, namespace);
      for (const grant of index.all) rules.push(grant.raw);
      errors.push(...index.errors);
    }
    return { rules, errors: [...new Set(errors)] };
  }
}
