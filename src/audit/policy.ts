/**
 * The audit policy (`--audit-policy-file`): read and checked once at start,
 * then compiled into one closure per rule over Sets, so a request costs a
 * few Set lookups until the first rule that matches (first match wins; no
 * match is level None). The matching is the original's policy checker
 * (staging/src/k8s.io/apiserver/pkg/audit/policy/checker.go).
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { AUDIT_API_VERSION, LEVELS, STAGES, type GroupResources, type Level, type Policy, type PolicyRule, type Stage } from './types.ts';

/** What the checker needs from a request (a subset of the authorization attributes). */
export interface AuditAttributes {
  readonly user: { readonly name: string; readonly groups: readonly string[] } | undefined;
  readonly verb: string;
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly namespace: string;
  readonly apiGroup: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

/** The level a request is audited at and the stages it skips. */
export interface RequestAuditConfig {
  readonly level: Level;
  readonly omitStages: ReadonlySet<Stage>;
  readonly omitManagedFields: boolean;
}

export class PolicyError extends Error {}

const NONE: RequestAuditConfig = { level: 'None', omitStages: new Set(), omitManagedFields: false };

type Matcher = (a: AuditAttributes) => boolean;

function pathMatches(path: string, spec: string): boolean {
  if (spec === '*' || spec === path) return true;
  return spec.endsWith('*') && path.startsWith(spec.replace(/\*+$/, ''));
}

function resourceMatcher(groups: readonly GroupResources[]): (a: AuditAttributes) => boolean {
  const compiled = groups.map((gr) => ({
    group: gr.group ?? '',
    resources: gr.resources ?? [],
    names: gr.resourceNames !== undefined && gr.resourceNames.length > 0 ? new Set(gr.resourceNames) : null,
  }));
  return (a) => {
    const combined = a.subresource === '' ? a.resource : `${a.resource}/${a.subresource}`;
    for (const gr of compiled) {
      if (gr.group !== a.apiGroup) continue;
      if (gr.resources.length === 0) return true;
      if (gr.names !== null && !gr.names.has(a.name)) continue;
      for (const res of gr.resources) {
        if (res === combined || res === '*') return true;
        if (a.subresource !== '' && res.startsWith('*/') && a.subresource === res.slice(2)) return true;
        if (res.endsWith('/*') && a.resource === res.slice(0, -2)) return true;
      }
    }
    return false;
  };
}

function compileRule(rule: PolicyRule): Matcher {
  const users = rule.users?.length ? new Set(rule.users) : null;
  const groups = rule.userGroups?.length ? new Set(rule.userGroups) : null;
  const verbs = rule.verbs?.length ? new Set(rule.verbs) : null;
  const namespaces = rule.namespaces?.length ? new Set(rule.namespaces) : null;
  const resources = rule.resources?.length ? resourceMatcher(rule.resources) : null;
  const urls = rule.nonResourceURLs?.length ? rule.nonResourceURLs : null;
  return (a) => {
    if (users !== null && (a.user === undefined || !users.has(a.user.name))) return false;
    if (groups !== null && (a.user === undefined || !a.user.groups.some((g) => groups.has(g)))) return false;
    if (verbs !== null && !verbs.has(a.verb)) return false;
    if (namespaces !== null || resources !== null) {
      if (!a.isResourceRequest) return false;
      // Cluster-scoped requests have namespace "", which a rule names as "".
      if (namespaces !== null && !namespaces.has(a.namespace)) return false;
      return resources === null || resources(a);
    }
    if (urls !== null) return !a.isResourceRequest && urls.some((u) => pathMatches(a.path, u));
    return true;
  };
}

/** A compiled policy: `evaluate` gives the level and omitted stages of one request. */
export class PolicyChecker {
  readonly #rules: { match: Matcher; config: RequestAuditConfig }[];

  constructor(policy: Policy) {
    const policyOmit = policy.omitStages ?? [];
    this.#rules = policy.rules.map((rule) => ({
      match: compileRule(rule),
      config:
        rule.level === 'None'
          ? NONE
          : {
              level: rule.level,
              omitStages: new Set([...policyOmit, ...(rule.omitStages ?? [])]),
              omitManagedFields: rule.omitManagedFields ?? policy.omitManagedFields ?? false,
            },
    }));
  }

  /** True when no rule can give a level above None (auditing is then off). */
  get auditsNothing(): boolean {
    return this.#rules.every((r) => r.config.level === 'None');
  }

  evaluate(a: AuditAttributes): RequestAuditConfig {
    for (const r of this.#rules) if (r.match(a)) return r.config;
    return NONE;
  }
}

function stringList(v: unknown, where: string): string[] | undefined {
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || !v.every((s) => typeof s === 'string')) throw new PolicyError(`${where}: must be a list of strings`);
  return v as string[];
}

function stageList(v: unknown, where: string): Stage[] | undefined {
  const list = stringList(v, where);
  for (const s of list ?? []) if (!(STAGES as readonly string[]).includes(s)) throw new PolicyError(`${where}: unsupported stage ${JSON.stringify(s)}, must be one of ${STAGES.join(', ')}`);
  return list as Stage[] | undefined;
}

function optBool(v: unknown, where: string): boolean | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'boolean') throw new PolicyError(`${where}: must be true or false`);
  return v;
}

function validateRule(raw: unknown, i: number): PolicyRule {
  const where = `rules[${i}]`;
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new PolicyError(`${where}: must be an object`);
  const r = raw as Record<string, unknown>;
  if (!(LEVELS as readonly unknown[]).includes(r['level'])) {
    throw new PolicyError(`${where}.level: ${r['level'] === undefined ? 'Required value' : `Unsupported value ${JSON.stringify(r['level'])}`}: must be one of ${LEVELS.join(', ')}`);
  }
  const nonResourceURLs = stringList(r['nonResourceURLs'], `${where}.nonResourceURLs`);
  const namespaces = stringList(r['namespaces'], `${where}.namespaces`);
  let resources: GroupResources[] | undefined;
  if (r['resources'] !== undefined && r['resources'] !== null) {
    if (!Array.isArray(r['resources'])) throw new PolicyError(`${where}.resources: must be a list`);
    resources = r['resources'].map((g: unknown, j: number) => {
      const w = `${where}.resources[${j}]`;
      if (typeof g !== 'object' || g === null) throw new PolicyError(`${w}: must be an object`);
      const gr = g as Record<string, unknown>;
      if (gr['group'] !== undefined && typeof gr['group'] !== 'string') throw new PolicyError(`${w}.group: must be a string`);
      const res = stringList(gr['resources'], `${w}.resources`);
      const resourceNames = stringList(gr['resourceNames'], `${w}.resourceNames`);
      for (const name of res ?? []) {
        if (name === '') throw new PolicyError(`${w}.resources: Invalid value "": non-empty resource required`);
      }
      return { group: (gr['group'] as string | undefined) ?? '', resources: res, resourceNames };
    });
  }
  if (nonResourceURLs?.length && (resources?.length || namespaces?.length)) {
    throw new PolicyError(`${where}.nonResourceURLs: Invalid value: rules cannot apply to both regular resources and non-resource URLs`);
  }
  for (const url of nonResourceURLs ?? []) {
    if (url !== '*' && !url.startsWith('/')) throw new PolicyError(`${where}.nonResourceURLs: Invalid value ${JSON.stringify(url)}: non-resource URL rules must begin with a '/' character`);
    if (url.slice(0, -1).includes('*')) throw new PolicyError(`${where}.nonResourceURLs: Invalid value ${JSON.stringify(url)}: non-resource URL wildcards ('*') must be the final character of the rule`);
  }
  return {
    level: r['level'] as Level,
    users: stringList(r['users'], `${where}.users`),
    userGroups: stringList(r['userGroups'], `${where}.userGroups`),
    verbs: stringList(r['verbs'], `${where}.verbs`),
    resources,
    namespaces,
    nonResourceURLs,
    omitStages: stageList(r['omitStages'], `${where}.omitStages`),
    omitManagedFields: optBool(r['omitManagedFields'], `${where}.omitManagedFields`),
  };
}

/** Checks a decoded policy document (YAML or JSON) and returns it typed. */
export function validatePolicy(doc: unknown): Policy {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new PolicyError('audit policy: must be an object');
  const d = doc as Record<string, unknown>;
  if (d['kind'] !== 'Policy') throw new PolicyError(`audit policy: kind must be Policy, not ${JSON.stringify(d['kind'])}`);
  // The original also reads its older versions; the rules are the same shape.
  const accepted = [AUDIT_API_VERSION, `${AUDIT_API_VERSION}beta1`, `${AUDIT_API_VERSION}alpha1`];
  if (typeof d['apiVersion'] !== 'string' || !accepted.includes(d['apiVersion'])) {
    throw new PolicyError(`audit policy: apiVersion must be ${AUDIT_API_VERSION}, not ${JSON.stringify(d['apiVersion'])}`);
  }
  if (!Array.isArray(d['rules'])) throw new PolicyError('audit policy: rules must be a list');
  // The original refuses a policy without rules: it would audit nothing by mistake.
  if (d['rules'].length === 0) throw new PolicyError('audit policy: loaded illegal policy with 0 rules');
  return {
    rules: d['rules'].map(validateRule),
    omitStages: stageList(d['omitStages'], 'omitStages'),
    omitManagedFields: optBool(d['omitManagedFields'], 'omitManagedFields'),
  };
}

export function parsePolicy(text: string): Policy {
  let doc: unknown;
  try {
    doc = parseYaml(text);
  } catch (err) {
    throw new PolicyError(`audit policy: not YAML or JSON: ${(err as Error).message}`);
  }
  return validatePolicy(doc);
}

export async function loadPolicy(file: string): Promise<PolicyChecker> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new PolicyError(`cannot read --audit-policy-file ${JSON.stringify(file)}: ${(err as Error).message}`);
  }
  return new PolicyChecker(parsePolicy(text));
}
