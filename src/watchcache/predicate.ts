/**
 * Predicate selects the objects a list or watch wants. Predicates with the
 * same `id` select the same objects, so watchers sharing one are served as a
 * group: each event is filtered and encoded once for all of them.
 */
import type { CachedObject } from './cached-object.ts';

export interface Predicate {
  /** Canonical identity, e.g. `ns=default|l=app=web|f=`; equal ids select equal sets. */
  readonly id: string;
  /** Only objects in this namespace; undefined for all namespaces. */
  readonly namespace: string | undefined;
  /** Only the object with this name (a `metadata.name=` field selector). */
  readonly name: string | undefined;
  /** True when the predicate is namespace/name scoping alone (no label or field test). */
  readonly scopeOnly: boolean;
  /**
   * An indexed field the predicate pins to one value (`spec.nodeName=n1` for
   * a kubelet's pod watch): the cache then tests an event only against the
   * groups pinned to the event's value, not against every group.
   */
  readonly pinned: { field: string; value: string } | undefined;
  matches(obj: CachedObject): boolean;
}

export interface PredicateParts {
  namespace?: string | undefined;
  name?: string | undefined;
  /** Canonical text of further conditions, for the id. */
  conditionsId?: string;
  /** Further conditions (selectors); absent means none. */
  test?: ((obj: CachedObject) => boolean) | undefined;
  pinned?: { field: string; value: string } | undefined;
}

export function makePredicate(parts: PredicateParts): Predicate {
  const { namespace, name, test } = parts;
  const id = `ns=${namespace ?? '*'}|n=${name ?? '*'}|${parts.conditionsId ?? ''}`;
  return {
    id,
    namespace,
    name,
    scopeOnly: test === undefined,
    pinned: parts.pinned,
    matches(obj: CachedObject): boolean {
      if (namespace !== undefined && obj.namespace !== namespace) return false;
      if (name !== undefined && obj.name !== name) return false;
      return test === undefined || test(obj);
    },
  };
}

/** Selects everything. */
export const everything: Predicate = makePredicate({});
