/**
 * The directive keys of a strategic merge patch other than list items'
 * `$patch`: `$retainKeys`, the `$setElementOrder/<field>` and
 * `$deleteFromPrimitiveList/<field>` parallel lists, and the clean-up the
 * original does on values that are taken from the patch as they are.
 */
import { hasOwn, isJsonObject, setOwn, type JsonObject } from './json-value.ts';
import { smpErrors } from './smp-errors.ts';
import { DIRECTIVE_MARKER } from './smp-order.ts';

export const RETAIN_KEYS_DIRECTIVE = '$retainKeys';
export const RETAIN_KEYS_STRATEGY = 'retainKeys';
export const DELETE_FROM_PRIMITIVE_LIST_PREFIX = '$deleteFromPrimitiveList';
export const SET_ELEMENT_ORDER_PREFIX = '$setElementOrder';

/**
 * The field name behind a `<prefix>/<field>` key. A key that starts with the
 * prefix but is not `<prefix>/...` is a malformed directive (400).
 */
export function directiveField(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST_PREFIX | typeof SET_ELEMENT_ORDER_PREFIX): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) {
    throw prefix === DELETE_FROM_PRIMITIVE_LIST_PREFIX ? smpErrors.badPrimitiveList() : smpErrors.badSetElementOrder();
  }
  return key.slice(slash + 1);
}

/**
 * The strategy besides `retainKeys` in a field's strategies
 * (`merge,retainKeys` gives `merge`); '' when there is none.
 */
export function mainStrategy(strategies: readonly string[]): string {
  switch (strategies.length) {
    case 0:
      return '';
    case 1:
      return strategies[0] === RETAIN_KEYS_STRATEGY ? '' : strategies[0]!;
    case 2:
      if (strategies[0] === RETAIN_KEYS_STRATEGY) return strategies[1]!;
      if (strategies[1] === RETAIN_KEYS_STRATEGY) return strategies[0]!;
  }
  throw smpErrors.other(`unexpected patch strategy: [${strategies.join(' ')}]`);
}

/**
 * `$retainKeys: [..]` in a patch map: fields of the original not listed are
 * cleared, and the patch may only set listed fields (null values and the
 * parallel-list directives aside). Removes the directive from the patch.
 */
export function applyRetainKeys(original: JsonObject, patch: JsonObject): void {
  if (!hasOwn(patch, RETAIN_KEYS_DIRECTIVE)) return;
  const list = patch[RETAIN_KEYS_DIRECTIVE];
  delete patch[RETAIN_KEYS_DIRECTIVE];
  if (!Array.isArray(list)) throw smpErrors.badRetainKeys();
  const retained = new Set<unknown>(list);
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX) || k.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    if (!retained.has(k)) throw smpErrors.badRetainKeys();
  }
  for (const k of Object.keys(original)) if (!retained.has(k)) delete original[k];
}

/**
 * A patch value taken as it is loses its `$patch` maps: returns the value to
 * store and whether to keep the field at all (a map that is itself a
 * directive is dropped). Mutates `v`.
 */
export function removeDirectives(v: unknown): [value: unknown, keep: boolean] {
  if (Array.isArray(v)) {
    const out: unknown[] = [];
    for (const item of v) {
      const [value, keep] = removeDirectives(item);
      if (keep) out.push(value);
    }
    return [out, true];
  }
  if (isJsonObject(v)) {
    if (hasOwn(v, DIRECTIVE_MARKER)) return [undefined, false];
    for (const k of Object.keys(v)) {
      const [value, keep] = removeDirectives(v[k]);
      if (keep) setOwn(v, k, value);
      else delete v[k];
    }
  }
  return [v, true];
}

/** Null members mean "delete"; in a value that has nothing to delete from they are dropped, at every depth. Mutates `v`. */
export function discardNulls(v: unknown): void {
  if (Array.isArray(v)) {
    for (const item of v) discardNulls(item);
  } else if (isJsonObject(v)) {
    for (const k of Object.keys(v)) {
      if (v[k] === null) delete v[k];
      else discardNulls(v[k]);
    }
  }
}
