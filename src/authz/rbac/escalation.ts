/**
 * Escalation prevention, after the original's RBAC registry (policybased
 * storage and rbac/validation ConfirmNoEscalation): a Role or ClusterRole may
 * only be written by someone who holds every permission it grants, unless
 * they may `escalate` roles/clusterroles; a binding only by someone who may
 * `bind` the role it references, or who holds all of that role's
 * permissions. Members of system:masters pass. The check runs as a write
 * hook, right before the object is stored, for creates and updates alike
 * (dry runs included).
 */
import { errors, StatusError } from '../../api/status.ts';
import type { UserInfo } from '../../server/context.ts';
import type { GenericStore } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { WriteHooks } from '../../registry/write-hooks.ts';
import { NO_TRANSACTION } from '../../registry/write-hooks.ts';
import { cloneJson, jsonEqual, type KObject } from '../../registry/object.ts';
import type { AuthorizationAttributes, Authorizer } from '../types.ts';
import { GROUP_MASTERS } from '../../authn/types.ts';
import { apiGroup } from '../../naming/index.ts';
import { goQuote } from '../../selectors/go-format.ts';
import { compactRuleString, covers } from './covers.ts';
import { parseBinding, parseRules } from './parse.ts';
import { RoleNotFoundError, type RbacPolicy } from './policy.ts';
import type { PolicyRule } from './types.ts';

const RBAC_GROUP = apiGroup('rbac.authorization');

function escalationAllowed(user: UserInfo): boolean {
  return user.groups.includes(GROUP_MASTERS);
}

function resourceAttrs(user: UserInfo, verb: string, resource: string, namespace: string, name: string): AuthorizationAttributes {
  return { user, verb, isResourceRequest: true, path: '', namespace, apiGroup: RBAC_GROUP, apiVersion: 'v1', resource, subresource: '', name };
}

async function allowed(authorizer: Authorizer, attrs: AuthorizationAttributes): Promise<boolean> {
  try {
    return (await authorizer.authorize(attrs)).decision === 'allow';
  } catch {
    // A failing authorizer grants nothing; the covering check still may.
    return false;
  }
}

/** Go's %q of a []string: `["a" "b"]`. */
function quoteList(xs: readonly string[]): string {
  return `[${xs.map(goQuote).join(' ')}]`;
}

/** CompactRules: atomic rules that differ only in verb become one rule. */
function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byKey = new Map<string, { verbs: string[] }>();
  for (const r of rules) {
    const simple = (r.resourceNames ?? []).length === 0 && (r.nonResourceURLs ?? []).length === 0 && (r.apiGroups ?? []).length === 1 && (r.resources ?? []).length === 1;
    if (!simple) {
      out.push(r);
      continue;
    }
    const k = `${r.apiGroups![0]}\u0000${r.resources![0]}`;
    const seen = byKey.get(k);
    if (seen !== undefined) {
      for (const v of r.verbs) if (!seen.verbs.includes(v)) seen.verbs.push(v);
      continue;
    }
    const merged = { apiGroups: r.apiGroups, resources: r.resources, verbs: [...r.verbs] };
    byKey.set(k, merged);
    out.push(merged);
  }
  return out;
}

/**
 * ConfirmNoEscalation: null when `user`'s own rules in `namespace` cover
 * `rules`, else the original's message naming what is missing.
 */
export function confirmNoEscalation(policy: RbacPolicy, user: UserInfo, namespace: string, rules: readonly PolicyRule[]): string | null {
  const owner = policy.rulesFor(user, namespace);
  const result = covers(owner.rules, rules);
  if (result.covered) return null;
  const missing = [...new Set(compactRules(result.uncovered).map(compactRuleString))].sort();
  let msg = `user ${goQuote(user.name)} (groups=${quoteList(user.groups)}) is attempting to grant RBAC permissions not currently held:\n${missing.join('\n')}`;
  if (owner.errors.length > 0) msg += `; resolution errors: [${owner.errors.join(' ')}]`;
  return msg;
}

/** Only finalizers, owner references or deletion marks changed: the garbage collector's and deletion's business, never an escalation. */
function onlyGcFields(obj: KObject, old: KObject): boolean {
  const strip = (o: KObject): KObject => {
    const c = cloneJson(o);
    for (const f of ['finalizers', 'ownerReferences', 'managedFields', 'resourceVersion', 'generation', 'deletionTimestamp', 'deletionGracePeriodSeconds'] as const) delete c.metadata[f];
    return c;
  };
  return jsonEqual(strip(obj), strip(old));
}

interface Checker {
  (obj: KObject, old: KObject | null, user: UserInfo | undefined): Promise<void>;
}

function roleChecker(policy: RbacPolicy, authorizer: Authorizer, resource: 'roles' | 'clusterroles'): Checker {
  return async (obj, old, user) => {
    // Writes without a user are the server's own (the default policy, controllers).
    if (user === undefined || escalationAllowed(user)) return;
    if (old !== null && onlyGcFields(obj, old)) return;
    const namespace = obj.metadata.namespace ?? '';
    const name = obj.metadata.name ?? '';
    if (await allowed(authorizer, resourceAttrs(user, 'escalate', resource, namespace, old === null ? '' : name))) return;
    const problem = confirmNoEscalation(policy, user, namespace, parseRules(obj['rules']));
    if (problem !== null) throw errors.forbidden(RBAC_GROUP, resource, name, problem);
  };
}

function bindingChecker(policy: RbacPolicy, authorizer: Authorizer, resource: 'rolebindings' | 'clusterrolebindings'): Checker {
  return async (obj, old, user) => {
    if (user === undefined || escalationAllowed(user)) return;
    if (old !== null && onlyGcFields(obj, old)) return;
    const binding = parseBinding(obj);
    const namespace = binding.namespace;
    const ref = binding.roleRef;
    const roleResource = ref.kind === 'ClusterRole' ? 'clusterroles' : ref.kind === 'Role' ? 'roles' : null;
    if (roleResource !== null && (await allowed(authorizer, { ...resourceAttrs(user, 'bind', roleResource, namespace, ref.name), apiGroup: ref.apiGroup }))) return;
    let rules: readonly PolicyRule[];
    try {
      rules = policy.roleReferenceRules(ref, namespace);
    } catch (err) {
      if (err instanceof RoleNotFoundError) throw errors.notFound(RBAC_GROUP, err.kind === 'Role' ? 'roles' : 'clusterroles', err.roleName);
      throw new StatusError(403, 'Forbidden', err instanceof Error ? err.message : String(err));
    }
    const problem = confirmNoEscalation(policy, user, namespace, rules);
    if (problem !== null) throw errors.forbidden(RBAC_GROUP, resource, binding.name, problem);
  };
}

function hooksOf(check: Checker): WriteHooks {
  return {
    beginCreate: async (obj, ctx) => {
      await check(obj, null, ctx.user);
      return NO_TRANSACTION;
    },
    beginUpdate: async (obj, old, ctx) => {
      await check(obj, old, ctx.user);
      return NO_TRANSACTION;
    },
  };
}

/**
 * Installs the checks on one GenericStore. `authorizer` is the whole chain
 * (for `escalate` and `bind`); `policy` the thread's RBAC state (for what a
 * user holds and what a role grants).
 */
export function installEscalationChecks(store: GenericStore, registry: ResourceRegistry, policy: RbacPolicy, authorizer: Authorizer): void {
  for (const resource of ['roles', 'clusterroles'] as const) {
    const rt = registry.lookup(RBAC_GROUP, 'v1', resource);
    if (rt !== undefined) store.setWriteHooks(rt, hooksOf(roleChecker(policy, authorizer, resource)));
  }
  for (const resource of ['rolebindings', 'clusterrolebindings'] as const) {
    const rt = registry.lookup(RBAC_GROUP, 'v1', resource);
    if (rt !== undefined) store.setWriteHooks(rt, hooksOf(bindingChecker(policy, authorizer, resource)));
  }
}
