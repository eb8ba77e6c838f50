/**
 * Builds the authorizer from --authorization-mode (spec 5.8): a comma list
 * of modes tried in order. Every problem is a start-up error: an unknown or
 * repeated mode, an empty list, or a mode this server does not implement yet
 * — refusing to start is the only safe answer to a policy we cannot enforce.
 */
import type { Authorizer } from './types.ts';
import { AlwaysAllowAuthorizer, AlwaysDenyAuthorizer } from './always.ts';
import { UnionAuthorizer } from './union.ts';
import { PrivilegedGroupsAuthorizer } from './privileged-groups.ts';
import { GROUP_MASTERS } from '../authn/types.ts';
import { UnionRuleResolver, type RuleResolver } from './rule-resolver.ts';

export const AUTHORIZATION_MODES = ['AlwaysAllow', 'AlwaysDeny', 'ABAC', 'Webhook', 'RBAC', 'Node'] as const;
export type AuthorizationMode = (typeof AUTHORIZATION_MODES)[number];

export const DEFAULT_AUTHORIZATION_MODE: AuthorizationMode = 'AlwaysAllow';

/** Builds one mode's module; modes without a factory are refused. */
export type AuthorizerFactories = Partial<Record<AuthorizationMode, () => Authorizer>>;

const BUILT_IN: AuthorizerFactories = {
  AlwaysAllow: () => new AlwaysAllowAuthorizer(),
  AlwaysDeny: () => new AlwaysDenyAuthorizer(),
};

export class AuthorizationConfigError extends Error {
  constructor(readonly problems: readonly string[]) {
    super(problems.length === 1 ? problems[0]! : `[${problems.join(', ')}]`);
    this.name = 'AuthorizationConfigError';
  }
}

function isMode(s: string): s is AuthorizationMode {
  return (AUTHORIZATION_MODES as readonly string[]).includes(s);
}

/**
 * The modes named by the flag value (or the default when the flag is not
 * given). Names are case-sensitive, as in the original.
 */
export function parseAuthorizationModes(flag: string | readonly string[] | undefined): AuthorizationMode[] {
  if (flag === undefined) return [DEFAULT_AUTHORIZATION_MODE];
  const names = (typeof flag === 'string' ? flag.split(',') : flag.flatMap((f) => f.split(','))).map((s) => s.trim());
  const problems: string[] = [];
  if (names.length === 0 || names.every((n) => n === '')) problems.push('at least one authorization-mode must be passed');
  const seen = new Set<string>();
  const modes: AuthorizationMode[] = [];
  for (const name of names) {
    if (name === '' && names.some((n) => n !== '')) {
      problems.push('authorization-mode list contains an empty entry');
      continue;
    }
    if (name === '') continue;
    if (!isMode(name)) {
      problems.push(`authorization-mode "${name}" is not a valid mode`);
      continue;
    }
    if (seen.has(name)) {
      problems.push(`authorization-mode "${name}" has mode specified more than once`);
      continue;
    }
    seen.add(name);
    modes.push(name);
  }
  if (problems.length > 0) throw new AuthorizationConfigError([...new Set(problems)]);
  return modes;
}

/**
 * Checks the flag value completely (syntax and that every mode is built)
 * without building anything, so start-up can refuse a bad value before any
 * side effect. Returns the modes.
 */
export function validateAuthorizationModes(flag: string | readonly string[] | undefined, factories: AuthorizerFactories = {}): AuthorizationMode[] {
  const modes = parseAuthorizationModes(flag);
  const available: AuthorizerFactories = { ...factories, ...BUILT_IN };
  const missing = modes.filter((m) => available[m] === undefined);
  if (missing.length > 0) {
    throw new AuthorizationConfigError(missing.map((m) => `authorization mode ${m} is not supported yet`));
  }
  return modes;
}

/**
 * The authorizer for the flag value. `factories` supplies modes built
 * elsewhere (RBAC, Node, ...) as they arrive; built-ins cannot be replaced.
 * As in the original, the privileged-group authorizer (system:masters)
 * comes first whatever the modes are.
 */
export function buildAuthorizer(flag: string | readonly string[] | undefined, factories: AuthorizerFactories = {}): Authorizer {
  const modes = validateAuthorizationModes(flag, factories);
  const available: AuthorizerFactories = { ...factories, ...BUILT_IN };
  return new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS]), ...modes.map((m) => available[m]!())]);
}

/** The chain and what SelfSubjectRulesReview asks: the rules of the same modes. */
export interface BuiltAuthorization {
  readonly authorizer: Authorizer;
  /**
   * The modes' rules in order; a mode without `rulesFor` makes the answer
   * incomplete. The privileged-group module lists nothing, as in the original.
   */
  readonly rules: RuleResolver;
}

/** buildAuthorizer plus the rule resolver over the same mode instances. */
export function buildAuthorization(flag: string | readonly string[] | undefined, factories: AuthorizerFactories = {}): BuiltAuthorization {
  const modes = validateAuthorizationModes(flag, factories);
  const available: AuthorizerFactories = { ...factories, ...BUILT_IN };
  const built = modes.map((m) => available[m]!());
  const resolvers = built.map((a): RuleResolver | undefined => (a.rulesFor === undefined ? undefined : { rulesFor: (u, ns) => a.rulesFor!(u, ns) }));
  return {
    authorizer: new UnionAuthorizer([new PrivilegedGroupsAuthorizer([GROUP_MASTERS]), ...built]),
    rules: new UnionRuleResolver(resolvers),
  };
}
