/**
 * RbacPolicy: the in-memory RBAC state of one serving thread and the
 * decisions made from it, after the original's RBACAuthorizer and
 * DefaultRuleResolver.
 *
 * What it keeps: the four kinds of objects by key, and which bindings name
 * each subject (a user name, a group name; a ServiceAccount subject is the
 * user `system:serviceaccount:<ns>:<name>`). On a decision it compiles, once
 * per subject, the rules that reach that subject (cluster-wide ones and, per
 * namespace, those of RoleBindings there) and keeps them until any RBAC
 * object changes. A decision is then one map lookup for the user, one per
 * group, and a scan of the few rules found. Subjects no binding names cost one
 * failed lookup and are never cached, so the cache is bounded by the subjects
 * the stored bindings name.
 */
import type { AuthorizationAttributes, AuthorizationResult } from '../types.ts';
import type { UserInfo } from '../../server/context.ts';
import { goQuote } from '../../selectors/go-format.ts';
import { compileRule, ruleAllows, type CompiledRule } from './rules.ts';
import { serviceAccountUsername, type BindingRecord, type PolicyRule, type RbacResource, type RoleRecord, type RoleRef, type Subject } from './types.ts';

interface Grant {
  readonly rule: CompiledRule;
  readonly raw: PolicyRule;
  /** `ClusterRoleBinding "x" of ClusterRole "y" to User "z"`: the allow reason. */
  readonly source: string;
}

interface SubjectGrants {
  readonly cluster: Grant[];
  readonly clusterErrors: string[];
  readonly byNamespace: Map<string, Grant[]>;
  readonly namespaceErrors: Map<string, string[]>;
}

const EMPTY_GRANTS: SubjectGrants = { cluster: [], clusterErrors: [], byNamespace: new Map(), namespaceErrors: new Map() };
const NO_OPINION: AuthorizationResult = Object.freeze({ decision: 'noOpinion', reason: '' });

const USER = 'u\u0000';
const GROUP = 'g\u0000';

function key(namespace: string, name: string): string {
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** The index key a binding subject stands for, or null for a subject that names nobody. */
function subjectKey(s: Subject, bindingNamespace: string): string | null {
  switch (s.kind) {
    case 'User':
      return USER + s.name;
    case 'Group':
      return GROUP + s.name;
    case 'ServiceAccount': {
      // An unqualified service account in a RoleBinding is the binding's namespace's.
      const ns = s.namespace !== undefined && s.namespace !== '' ? s.namespace : bindingNamespace;
      return ns === '' ? null : USER + serviceAccountUsername(ns, s.name);
    }
    default:
      return null;
  }
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
  /** Subject key -> the bindings (by `r:` or `c:` key) naming it. */
  readonly #bySubject = new Map<string, Set<string>>();
  /** Compiled grants per subject key; emptied on every change. */
  readonly #compiled = new Map<string, SubjectGrants>();
  /** Compiled rules per role (`r:ns/name`, `c:name`); emptied on every change. */
  readonly #compiledRoles = new Map<string, Grant['rule'][]>();
  #generation = 0;

  constructor(rbacGroup: string) {
    this.#rbacGroup = rbacGroup;
  }

  /** Bumped on every change: callers caching derived data compare it. */
  get generation(): number {
    return this.#generation;
  }

  get clusterRoles(): ReadonlyMap<string, RoleRecord> {
    return this.#clusterRoles;
  }

  get sizes(): { roles: number; clusterRoles: number; roleBindings: number; clusterRoleBindings: number; compiledSubjects: number } {
    return {
      roles: this.#roles.size,
      clusterRoles: this.#clusterRoles.size,
      roleBindings: this.#bindings.size,
      clusterRoleBindings: this.#clusterBindings.size,
      compiledSubjects: this.#compiled.size,
    };
  }

  #changed(): void {
    this.#generation++;
    this.#compiled.clear();
    this.#compiledRoles.clear();
  }

  setRole(resource: 'roles' | 'clusterroles', role: RoleRecord): void {
    (resource === 'roles' ? this.#roles : this.#clusterRoles).set(key(role.namespace, role.name), role);
    this.#changed();
  }

  setBinding(resource: 'rolebindings' | 'clusterrolebindings', binding: BindingRecord): void {
    const k = key(binding.namespace, binding.name);
    this.#dropBinding(resource, k);
    (resource === 'rolebindings' ? this.#bindings : this.#clusterBindings).set(k, binding);
    const ref = (resource === 'rolebindings' ? 'r:' : 'c:') + k;
    for (const s of binding.subjects) {
      const sk = subjectKey(s, binding.namespace);
      if (sk === null) continue;
      let set = this.#bySubject.get(sk);
      if (set === undefined) this.#bySubject.set(sk, (set = new Set()));
      set.add(ref);
    }
    this.#changed();
  }

  remove(resource: RbacResource, namespace: string, name: string): void {
    const k = key(namespace, name);
    if (resource === 'roles') this.#roles.delete(k);
    else if (resource === 'clusterroles') this.#clusterRoles.delete(k);
    else this.#dropBinding(resource, k);
    this.#changed();
  }

  /** Drops everything of one resource (a lost watch's state is replaced wholesale). */
  clear(resource: RbacResource): void {
    if (resource === 'roles') this.#roles.clear();
    else if (resource === 'clusterroles') this.#clusterRoles.clear();
    else for (const k of [...(resource === 'rolebindings' ? this.#bindings : this.#clusterBindings).keys()]) this.#dropBinding(resource, k);
    this.#changed();
  }

  #dropBinding(resource: 'rolebindings' | 'clusterrolebindings', k: string): void {
    const map = resource === 'rolebindings' ? this.#bindings : this.#clusterBindings;
    const old = map.get(k);
    if (old === undefined) return;
    map.delete(k);
    const ref = (resource === 'rolebindings' ? 'r:' : 'c:') + k;
    for (const s of old.subjects) {
      const sk = subjectKey(s, old.namespace);
      if (sk === null) continue;
      const set = this.#bySubject.get(sk);
      if (set === undefined) continue;
      set.delete(ref);
      if (set.size === 0) this.#bySubject.delete(sk);
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

  #grantsFor(sk: string): SubjectGrants {
    const cached = this.#compiled.get(sk);
    if (cached !== undefined) return cached;
    const refs = this.#bySubject.get(sk);
    if (refs === undefined) return EMPTY_GRANTS;
    const grants: SubjectGrants = { cluster: [], clusterErrors: [], byNamespace: new Map(), namespaceErrors: new Map() };
    for (const ref of refs) {
      const cluster = ref.startsWith('c:');
      const binding = (cluster ? this.#clusterBindings : this.#bindings).get(ref.slice(2));
      if (binding === undefined) continue;
      let list: Grant[];
      let errs: string[];
      if (cluster) {
        list = grants.cluster;
        errs = grants.clusterErrors;
      } else {
        list = grants.byNamespace.get(binding.namespace) ?? [];
        grants.byNamespace.set(binding.namespace, list);
        errs = grants.namespaceErrors.get(binding.namespace) ?? [];
        grants.namespaceErrors.set(binding.namespace, errs);
      }
      // A ClusterRoleBinding may only name a ClusterRole.
      if (cluster && binding.roleRef.kind !== 'ClusterRole') continue;
      let compiled: CompiledRule[];
      let raw: readonly PolicyRule[];
      try {
        compiled = this.#compiledRoleRules(binding.roleRef, binding.namespace);
        raw = this.roleReferenceRules(binding.roleRef, binding.namespace);
      } catch (err) {
        errs.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      const subject = binding.subjects.find((s) => subjectKey(s, binding.namespace) === sk)!;
      const source = describeBinding(binding, subject);
      for (let i = 0; i < compiled.length; i++) list.push({ rule: compiled[i]!, raw: raw[i]!, source });
    }
    this.#compiled.set(sk, grants);
    return grants;
  }

  /** The RBAC decision: allow, or no opinion with the resolution errors as reason. */
  authorize(attrs: AuthorizationAttributes): AuthorizationResult {
    const user = attrs.user;
    const ns = attrs.namespace;
    let errors: string[] | null = null;
    const check = (sk: string): Grant | null => {
      const g = this.#grantsFor(sk);
      if (g === EMPTY_GRANTS) return null;
      for (const grant of g.cluster) if (ruleAllows(grant.rule, attrs)) return grant;
      if (g.clusterErrors.length > 0) (errors ??= []).push(...g.clusterErrors);
      if (ns !== '') {
        const list = g.byNamespace.get(ns);
        if (list !== undefined) for (const grant of list) if (ruleAllows(grant.rule, attrs)) return grant;
        const nsErrs = g.namespaceErrors.get(ns);
        if (nsErrs !== undefined && nsErrs.length > 0) (errors ??= []).push(...nsErrs);
      }
      return null;
    };
    let found = check(USER + user.name);
    for (let i = 0; found === null && i < user.groups.length; i++) found = check(GROUP + user.groups[i]!);
    if (found !== null) return { decision: 'allow', reason: `RBAC: allowed by ${found.source}` };
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
    for (const sk of [USER + user.name, ...user.groups.map((g) => GROUP + g)]) {
      const g = this.#grantsFor(sk);
      for (const grant of g.cluster) rules.push(grant.raw);
      errors.push(...g.clusterErrors);
      if (namespace !== '') {
        for (const grant of g.byNamespace.get(namespace) ?? []) rules.push(grant.raw);
        errors.push(...(g.namespaceErrors.get(namespace) ?? []));
      }
    }
    return { rules, errors: [...new Set(errors)] };
  }
}
