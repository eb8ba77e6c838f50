/**
 * compileFilter turns a request's namespace, label selector and field
 * selector into a Predicate the watch cache can test objects against.
 * Selector syntax errors surface as SelectorError (a 400 for the client).
 */
import { parseFieldSelector, parseLabelSelector } from '../selectors/index.ts';
import type { CachedObject } from './cached-object.ts';
import { makePredicate, type Predicate } from './predicate.ts';

export interface FilterSpec {
  namespace?: string | undefined;
  name?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

/** Fields whose exact-match watchers are indexed (the original indexes pods by node name). */
export const INDEXED_FIELDS = ['spec.nodeName'] as const;

export function compileFilter(filter: FilterSpec): Predicate {
  let namespace = filter.namespace === '' ? undefined : filter.namespace;
  let name = filter.name === '' ? undefined : filter.name;
  const labels = filter.labelSelector ? parseLabelSelector(filter.labelSelector) : undefined;
  const fields = filter.fieldSelector ? parseFieldSelector(filter.fieldSelector) : undefined;
  // metadata.name= and metadata.namespace= pins become scoping, which the cache indexes.
  const pinnedName = fields?.requiresExactMatch('metadata.name');
  if (pinnedName !== undefined) {
    if (name !== undefined && name !== pinnedName) return nothing(filter);
    name = pinnedName;
  }
  const pinnedNamespace = fields?.requiresExactMatch('metadata.namespace');
  if (pinnedNamespace !== undefined) {
    if (namespace !== undefined && namespace !== pinnedNamespace) return nothing(filter);
    namespace = pinnedNamespace;
  }
  const labelTest = labels !== undefined && !labels.empty ? labels : undefined;
  const fieldTest = fields !== undefined && !fields.empty ? fields : undefined;
  let test: ((obj: CachedObject) => boolean) | undefined;
  if (labelTest !== undefined && fieldTest !== undefined) {
    test = (obj) => labelTest.matches(obj.labels()) && fieldTest.matches((f) => obj.field(f));
  } else if (labelTest !== undefined) {
    test = (obj) => labelTest.matches(obj.labels());
  } else if (fieldTest !== undefined) {
    test = (obj) => fieldTest.matches((f) => obj.field(f));
  }
  let pinned: { field: string; value: string } | undefined;
  for (const field of INDEXED_FIELDS) {
    const value = fields?.requiresExactMatch(field);
    if (value !== undefined) {
      pinned = { field, value };
      break;
    }
  }
  return makePredicate({
    namespace,
    name,
    conditionsId: `l=${labelTest?.toString() ?? ''}|f=${fieldTest?.toString() ?? ''}`,
    test,
    pinned,
  });
}

/** A filter whose conditions contradict each other selects nothing. */
function nothing(filter: FilterSpec): Predicate {
  return makePredicate({
    namespace: filter.namespace,
    conditionsId: `none:${JSON.stringify(filter)}`,
    test: () => false,
  });
}
