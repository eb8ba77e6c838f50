/**
 * The classifier: which FlowSchema a request matches, hence its priority
 * level and flow, after the original's apf_controller.go (matchesFlowSchema)
 * and rule.go. Schemas are tried by matchingPrecedence, then name; the first
 * whose any rule matches wins (subjects, then a resource or non-resource
 * rule). A schema naming a priority level that does not exist is dangling
 * and skipped.
 *
 * Everything is compiled once per configuration: wildcards become flags,
 * lists become Sets, and the schemas are split in two sequences — those
 * with resource rules and those with non-resource rules — so a request only
 * visits schemas that can match its kind. Classifying allocates nothing
 * (a subresource request builds one `resource/subresource` string).
 */
import type { RequestInfo, UserInfo } from '../server/context.ts';
import { ALL, type Distinguisher, type FlowSchemaConfig, type NonResourceRule, type ResourceRule, type Subject } from './types.ts';

const SA_PREFIX = 'system:serviceaccount:';

/** A set of strings, or every string (`*`). */
class Match {
  readonly all: boolean;
  readonly #set: ReadonlySet<string>;
  constructor(values: readonly string[]) {
    this.all = values.includes(ALL);
    this.#set = new Set(values);
  }
  has(v: string): boolean {
    return this.all || this.#set.has(v);
  }
}

class SubjectMatcher {
  readonly #anyone: boolean;
  readonly #users: ReadonlySet<string>;
  readonly #groups: ReadonlySet<string>;
  /** `system:serviceaccount:<ns>:` of ServiceAccount subjects named `*`. */
  readonly #saNamespacePrefixes: readonly string[];

  constructor(subjects: readonly Subject[]) {
    const users = new Set<string>();
    const groups = new Set<string>();
    const prefixes: string[] = [];
    let anyone = false;
    for (const s of subjects) {
      if (s.kind === 'User' || s.kind === 'Group') {
        if (s.name === ALL) anyone = true;
        else (s.kind === 'User' ? users : groups).add(s.name);
      } else if (s.name === ALL) prefixes.push(`${SA_PREFIX}${s.namespace}:`);
      else users.add(`${SA_PREFIX}${s.namespace}:${s.name}`);
    }
    this.#anyone = anyone;
    this.#users = users;
    this.#groups = groups;
    this.#saNamespacePrefixes = prefixes;
  }

  matches(user: UserInfo): boolean {
    if (this.#anyone || this.#users.has(user.name)) return true;
    if (this.#groups.size > 0) for (const g of user.groups) if (this.#groups.has(g)) return true;
    for (const p of this.#saNamespacePrefixes) if (user.name.startsWith(p)) return true;
    return false;
  }
}

class ResourceMatcher {
  readonly #verbs: Match;
  readonly #groups: Match;
  readonly #resources: Match;
  readonly #clusterScope: boolean;
  readonly #namespaces: Match;
  constructor(r: ResourceRule) {
    this.#verbs = new Match(r.verbs);
    this.#groups = new Match(r.apiGroups);
    this.#resources = new Match(r.resources);
    this.#clusterScope = r.clusterScope;
    this.#namespaces = new Match(r.namespaces);
  }
  matches(info: RequestInfo): boolean {
    if (!this.#verbs.has(info.verb) || !this.#groups.has(info.apiGroup)) return false;
    if (!this.#resources.all && !this.#resources.has(info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`)) return false;
    // The original: a request without a namespace matches only clusterScope rules.
    if (info.namespace === '') return this.#clusterScope;
    return this.#namespaces.has(info.namespace);
  }
}

class NonResourceMatcher {
  readonly #verbs: Match;
  readonly #urls: Match;
  /** `/prefix/` of patterns `/prefix/*`. */
  readonly #prefixes: readonly string[];
  constructor(r: NonResourceRule) {
    this.#verbs = new Match(r.verbs);
    this.#urls = new Match(r.nonResourceURLs);
    this.#prefixes = r.nonResourceURLs.filter((u) => u !== ALL && u.endsWith('*')).map((u) => u.replace(/\*+$/, ''));
  }
  matches(info: RequestInfo): boolean {
    if (!this.#verbs.has(info.verb)) return false;
    if (this.#urls.has(info.path)) return true;
    for (const p of this.#prefixes) if (info.path.startsWith(p)) return true;
    return false;
  }
}

interface CompiledRule {
  readonly subjects: SubjectMatcher;
  readonly resources: readonly ResourceMatcher[];
  readonly nonResources: readonly NonResourceMatcher[];
}

/** A schema compiled, with what the classifier hands to the queueing side. */
export interface ClassifiedSchema<L> {
  readonly schema: FlowSchemaConfig;
  /** What `attach` gave for the schema (the controller's route to its priority level). */
  readonly level: L;
  readonly rules: readonly CompiledRule[];
}

/** The original's order: matchingPrecedence ascending, then name. */
export function compareSchemas(a: FlowSchemaConfig, b: FlowSchemaConfig): number {
  if (a.matchingPrecedence !== b.matchingPrecedence) return a.matchingPrecedence - b.matchingPrecedence;
  return a.name < b.name ? -1 : a.name > b.name ? 1 : 0;
}

export class Classifier<L> {
  readonly #forResources: readonly ClassifiedSchema<L>[];
  readonly #forNonResources: readonly ClassifiedSchema<L>[];

  /** `schemas` in any order; `attach` gives what a match returns for a schema, undefined when the schema dangles. */
  constructor(schemas: readonly FlowSchemaConfig[], attach: (schema: FlowSchemaConfig) => L | undefined) {
    const sorted = [...schemas].sort(compareSchemas);
    const forResources: ClassifiedSchema<L>[] = [];
    const forNonResources: ClassifiedSchema<L>[] = [];
    for (const schema of sorted) {
      const level = attach(schema);
      if (level === undefined) continue;
      const rules = schema.rules.map((r) => ({
        subjects: new SubjectMatcher(r.subjects),
        resources: r.resourceRules.map((x) => new ResourceMatcher(x)),
        nonResources: r.nonResourceRules.map((x) => new NonResourceMatcher(x)),
      }));
      const compiled = { schema, level, rules };
      if (rules.some((r) => r.resources.length > 0)) forResources.push(compiled);
      if (rules.some((r) => r.nonResources.length > 0)) forNonResources.push(compiled);
    }
    this.#forResources = forResources;
    this.#forNonResources = forNonResources;
  }

  /** The first matching schema, or undefined (only when the catch-all is gone, which the controller prevents). */
  classify(info: RequestInfo, user: UserInfo): ClassifiedSchema<L> | undefined {
    if (info.isResourceRequest) {
      for (const c of this.#forResources) {
        for (const r of c.rules) {
          if (r.resources.length === 0 || !r.subjects.matches(user)) continue;
          for (const m of r.resources) if (m.matches(info)) return c;
        }
      }
      return undefined;
    }
    for (const c of this.#forNonResources) {
      for (const r of c.rules) {
        if (r.nonResources.length === 0 || !r.subjects.matches(user)) continue;
        for (const m of r.nonResources) if (m.matches(info)) return c;
      }
    }
    return undefined;
  }
}

/** The flow's distinguisher: the user's name, the request's namespace, or nothing. */
export function flowDistinguisher(method: Distinguisher, info: RequestInfo, user: UserInfo): string {
  return method === 'ByUser' ? user.name : method === 'ByNamespace' ? info.namespace : '';
}

/** The two FNV-1a lanes of flowHash (module state: hashing allocates nothing). */
let laneA = 0;
let laneB = 0;

function mix(s: string): void {
  for (let i = 0; i < s.length; i++) mixByte(s.charCodeAt(i));
}

function mixByte(c: number): void {
  laneA = Math.imul(laneA ^ c, 0x01000193);
  laneB = Math.imul(laneB ^ c, 0x01000193) ^ (laneB >>> 15);
}

/**
 * A 53-bit hash of (schema name, distinguisher): the flow's identity for
 * shuffle sharding. The original hashes with SHA-256; two FNV-1a lanes
 * spread flows as well for this purpose and cost no allocation.
 */
export function flowHash(schemaName: string, distinguisher: string): number {
  laneA = 0x811c9dc5;
  laneB = 0x050c5d1f;
  mix(schemaName);
  mixByte(0); // the separator, as the original's
  mix(distinguisher);
  return (laneB >>> 11) * 0x100000000 + (laneA >>> 0);
}
