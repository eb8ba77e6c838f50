/**
 * Field selectors (the `fieldSelector` query parameter), as Kubernetes'
 * fields.ParseSelector parses them: comma-separated `field=value`,
 * `field==value` (same as `=`) and `field!=value`, values escaped with
 * `\\`, `\,`, `\=`. Field names are not checked here: which fields a resource
 * supports is the resource's business (Kubernetes answers "field label not
 * supported" there).
 *
 * `matches` takes a getter so each resource decides how to read its fields;
 * a missing field reads as "", as in Kubernetes.
 */
import { SelectorError } from './errors.ts';
import { compareGo } from './go-format.ts';
import { escapeFieldValue, splitTerm, splitTerms, unescapeFieldValue } from './field-terms.ts';

export { escapeFieldValue, unescapeFieldValue } from './field-terms.ts';

export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** Unescaped. */
  readonly value: string;
}

export type FieldGetter = (field: string) => string | undefined;

export interface FieldSelector {
  /** True when the selector does not restrict anything. */
  readonly empty: boolean;
  /** In canonical order. */
  readonly requirements: readonly FieldRequirement[];
  matches(get: FieldGetter): boolean;
  /** The value a `field=value` term pins, for index lookups (spec.nodeName, metadata.name). */
  requiresExactMatch(field: string): string | undefined;
  /**
   * Kubernetes' String(): terms sorted, `==` written `=`, values re-escaped.
   * Equal for selectors that differ only in term order or `=`/`==`, so usable
   * as a cache key.
   */
  toString(): string;
}

function termString(r: FieldRequirement): string {
  return r.field + r.operator + escapeFieldValue(r.value);
}

class CompiledFieldSelector implements FieldSelector {
  readonly empty: boolean;
  readonly requirements: readonly FieldRequirement[];
  // Parallel arrays: the match loop touches nothing else.
  private readonly fields: readonly string[];
  private readonly values: readonly string[];
  private readonly negated: readonly boolean[];
  private readonly text: string;

  constructor(requirements: readonly FieldRequirement[]) {
    const entries = requirements
      .map((r) => {
        const req: FieldRequirement = Object.freeze({ field: r.field, operator: r.operator, value: r.value });
        return { text: termString(req), req };
      })
      .sort((a, b) => compareGo(a.text, b.text));
    this.requirements = Object.freeze(entries.map((e) => e.req));
    this.fields = entries.map((e) => e.req.field);
    this.values = entries.map((e) => e.req.value);
    this.negated = entries.map((e) => e.req.operator === '!=');
    this.text = entries.map((e) => e.text).join(',');
    this.empty = entries.length === 0;
  }

  matches(get: FieldGetter): boolean {
    const fields = this.fields;
    for (let i = 0; i < fields.length; i++) {
      const equal = (get(fields[i]!) ?? '') === this.values[i];
      if (equal === this.negated[i]) return false;
    }
    return true;
  }

  requiresExactMatch(field: string): string | undefined {
    for (let i = 0; i < this.fields.length; i++) {
      if (!this.negated[i] && this.fields[i] === field) return this.values[i];
    }
    return undefined;
  }

  toString(): string {
    return this.text;
  }
}

/** The selector that matches every object. */
export const everythingFieldSelector: FieldSelector = new CompiledFieldSelector([]);

/**
 * fields.ParseSelector. Throws SelectorError with Kubernetes' message:
 * `invalid selector: '<selector>'; can't understand '<term>'`, or
 * `invalid field selector: ...` for a bad escape.
 */
export function parseFieldSelector(text: string): FieldSelector {
  // Kubernetes sorts the raw terms before parsing, which decides which bad
  // term is reported; we keep that, then order by canonical text.
  const parts = splitTerms(text).sort(compareGo);
  const requirements: FieldRequirement[] = [];
  for (const part of parts) {
    if (part === '') continue; // "a=b,,c=d" and a trailing comma are fine
    const term = splitTerm(part);
    if (term === undefined) throw new SelectorError('field', `invalid selector: '${text}'; can't understand '${part}'`);
    const value = unescapeFieldValue(term.rhs);
    // Kubernetes parses through an identity transform, which drops a term
    // whose field and value are both empty: "=" selects everything.
    if (term.lhs === '' && value === '') continue;
    requirements.push({ field: term.lhs, operator: term.op === '!=' ? '!=' : '=', value });
  }
  return requirements.length === 0 ? everythingFieldSelector : new CompiledFieldSelector(requirements);
}

/** fields.SelectorFromSet: `field=value` for every entry (e.g. metadata.name for a one-object watch). */
export function fieldSelectorFromSet(set: Readonly<Record<string, string>> | null | undefined): FieldSelector {
  if (set == null) return everythingFieldSelector;
  const requirements = Object.keys(set).map((field): FieldRequirement => ({ field, operator: '=', value: set[field]! }));
  return requirements.length === 0 ? everythingFieldSelector : new CompiledFieldSelector(requirements);
}
