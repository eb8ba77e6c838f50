/**
 * Label selectors: parsed from the `labelSelector` query parameter
 * (Kubernetes' labels.Parse), built from a metav1.LabelSelector
 * (LabelSelectorAsSelector) or from a plain map (SelectorFromSet).
 *
 * Parsing runs once per request; `matches` runs per object per watcher, so a
 * selector compiles its requirements into flat records and matching is one
 * loop with a switch: no regex, no allocation.
 */
import { SelectorError } from './errors.ts';
import { compareGo, goQuote } from './go-format.ts';
import { compareInt64, int64Bound, parseInt64, type Int64Bound } from './int64.ts';
import { parseLabelRequirements } from './label-parser.ts';
import {
  compareRequirements,
  requirementError,
  requirementString,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.ts';

export type { LabelOperator, LabelRequirement } from './label-requirement.ts';

export type Labels = Readonly<Record<string, string>>;

export interface LabelSelector {
  /** True when the selector does not restrict anything (`""`, `{}`). */
  readonly empty: boolean;
  /** Sorted by key, as Kubernetes sorts them. */
  readonly requirements: readonly LabelRequirement[];
  matches(labels: Labels | null | undefined): boolean;
  /**
   * The value `key` must have for a match (from `=`, `==` or a one-value
   * `in`), for index lookups; undefined when the selector does not pin it.
   */
  requiresExactMatch(key: string): string | undefined;
  /**
   * Kubernetes' String(): requirements sorted by key (ties by text), set
   * values sorted. Equal for selectors that differ only in order, spacing or
   * duplicate set values, so usable as a cache key. Note the nothing-selector
   * of a null metav1.LabelSelector also prints "" (as in Kubernetes).
   */
  toString(): string;
}

/** metav1.LabelSelectorOperator */
export type LabelSelectorOperator = 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';

/** metav1.LabelSelectorRequirement */
export interface LabelSelectorRequirementObject {
  readonly key: string;
  readonly operator: LabelSelectorOperator;
  readonly values?: readonly string[] | null;
}

/** metav1.LabelSelector */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>> | null;
  readonly matchExpressions?: readonly LabelSelectorRequirementObject[] | null;
}

// Compiled operations. `=`, `==` and one-value `in` are all EQ; `!=` and
// one-value `notin` are NE.
const EQ = 0;
const NE = 1;
const IN = 2;
const NOT_IN = 3;
const EXISTS = 4;
const NOT_EXISTS = 5;
const GT = 6;
const LT = 7;

/** Above this many values a Set beats a linear scan. */
const SET_THRESHOLD = 8;

/** One requirement flattened for the match loop; every field always set so the shape stays monomorphic. */
class Compiled {
  readonly op: number;
  readonly value: string;
  readonly values: readonly string[];
  readonly set: ReadonlySet<string> | null;
  readonly bound: Int64Bound | null;

  constructor(readonly key: string, operator: LabelOperator, values: readonly string[]) {
    const single = values.length === 1;
    this.value = values[0] ?? '';
    this.values = values;
    this.set = values.length > SET_THRESHOLD ? new Set(values) : null;
    this.bound = null;
    switch (operator) {
      case '=':
      case '==':
        this.op = EQ;
        break;
      case 'in':
        this.op = single ? EQ : IN;
        break;
      case '!=':
        this.op = NE;
        break;
      case 'notin':
        this.op = single ? NE : NOT_IN;
        break;
      case 'exists':
        this.op = EXISTS;
        break;
      case '!':
        this.op = NOT_EXISTS;
        break;
      case 'gt':
      case 'lt': {
        this.op = operator === 'gt' ? GT : LT;
        // Validated by requirementError; sets without a value from labelSelectorFromSet are never gt/lt.
        const big = parseInt64(this.value);
        this.bound = big === undefined ? null : int64Bound(big);
        break;
      }
    }
  }

  has(v: string): boolean {
    if (this.set !== null) return this.set.has(v);
    const values = this.values;
    for (let i = 0; i < values.length; i++) if (values[i] === v) return true;
    return false;
  }
}

const noLabels: Labels = Object.freeze({});

class CompiledLabelSelector implements LabelSelector {
  readonly empty: boolean;
  readonly requirements: readonly LabelRequirement[];
  private readonly compiled: readonly Compiled[];
  private readonly text: string;

  /** `matchNothing` is Kubernetes' labels.Nothing(): not empty, matches nothing. */
  constructor(requirements: readonly LabelRequirement[], private readonly matchNothing = false) {
    const entries = requirements
      .map((r) => {
        const req: LabelRequirement = Object.freeze({
          key: r.key,
          operator: r.operator,
          values: Object.freeze([...r.values]),
        });
        return { key: r.key, text: requirementString(req), req };
      })
      .sort(compareRequirements);
    this.requirements = Object.freeze(entries.map((e) => e.req));
    this.compiled = Object.freeze(entries.map((e) => new Compiled(e.key, e.req.operator, e.req.values)));
    this.text = entries.map((e) => e.text).join(',');
    this.empty = !matchNothing && entries.length === 0;
  }

  matches(labels: Labels | null | undefined): boolean {
    if (this.matchNothing) return false;
    const reqs = this.compiled;
    const ls = labels ?? noLabels;
    for (let i = 0; i < reqs.length; i++) {
      const r = reqs[i]!;
      // typeof, not `in`: a key like "constructor" must not find Object.prototype's.
      const raw: unknown = ls[r.key];
      const v = typeof raw === 'string' ? raw : undefined;
      switch (r.op) {
        case EQ:
          if (v !== r.value) return false;
          break;
        case NE:
          if (v === r.value) return false;
          break;
        case IN:
          if (v === undefined || !r.has(v)) return false;
          break;
        case NOT_IN:
          if (v !== undefined && r.has(v)) return false;
          break;
        case EXISTS:
          if (v === undefined) return false;
          break;
        case NOT_EXISTS:
          if (v !== undefined) return false;
          break;
        case GT:
        case LT: {
          if (v === undefined || r.bound === null) return false;
          const c = compareInt64(v, r.bound);
          if (c === undefined || (r.op === GT ? c <= 0 : c >= 0)) return false;
          break;
        }
      }
    }
    return true;
  }

  // Any pinning requirement for the key counts (Kubernetes looks only at the
  // first one with that key); both are sound since callers still run matches.
  requiresExactMatch(key: string): string | undefined {
    for (const r of this.compiled) if (r.key === key && r.op === EQ) return r.value;
    return undefined;
  }

  toString(): string {
    return this.text;
  }
}

function fail(message: string): never {
  throw new SelectorError('label', message);
}

/** The selector that matches every object. */
export const everythingLabelSelector: LabelSelector = new CompiledLabelSelector([]);

/** The selector that matches no object (a null metav1.LabelSelector). */
export const nothingLabelSelector: LabelSelector = new CompiledLabelSelector([], true);

/**
 * labels.Parse: `a=b,c!=d,e in (f,g),h notin (i),j,!k,l>1,m<2`. Throws
 * SelectorError with Kubernetes' message. `""` selects everything.
 */
export function parseLabelSelector(text: string): LabelSelector {
  const requirements = parseLabelRequirements(text);
  return requirements.length === 0 ? everythingLabelSelector : new CompiledLabelSelector(requirements);
}

const objectOperators: Readonly<Record<LabelSelectorOperator, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

function objectRequirement(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const err = requirementError(key, operator, values);
  if (err !== undefined) fail(err);
  return { key, operator, values };
}

/**
 * metav1.LabelSelectorAsSelector, as Deployments, ReplicaSets and webhooks
 * use it: null/undefined selects nothing, `{}` selects everything. Values are
 * kept as given (not deduplicated). Throws SelectorError on the first invalid
 * requirement: matchLabels (by sorted key) before matchExpressions.
 */
export function labelSelectorFromObject(sel: LabelSelectorObject | null | undefined): LabelSelector {
  if (sel == null) return nothingLabelSelector;
  const matchLabels = sel.matchLabels ?? {};
  const expressions = sel.matchExpressions ?? [];
  const labelKeys = Object.keys(matchLabels).sort(compareGo);
  if (labelKeys.length + expressions.length === 0) return everythingLabelSelector;
  const requirements: LabelRequirement[] = [];
  for (const key of labelKeys) requirements.push(objectRequirement(key, '=', [matchLabels[key]!]));
  for (const expr of expressions) {
    const operator: LabelOperator | undefined = Object.hasOwn(objectOperators, expr.operator)
      ? objectOperators[expr.operator]
      : undefined;
    if (operator === undefined) fail(`${goQuote(String(expr.operator))} is not a valid label selector operator`);
    requirements.push(objectRequirement(expr.key, operator, expr.values ?? []));
  }
  return new CompiledLabelSelector(requirements);
}

/**
 * labels.SelectorFromSet: `key=value` for every entry, without validation
 * (Kubernetes' behaviour; e.g. a Service's spec.selector, already validated).
 */
export function labelSelectorFromSet(set: Labels | null | undefined): LabelSelector {
  const keys = set == null ? [] : Object.keys(set);
  if (set == null || keys.length === 0) return everythingLabelSelector;
  return new CompiledLabelSelector(keys.map((key) => ({ key, operator: '=', values: [set[key]!] })));
}
