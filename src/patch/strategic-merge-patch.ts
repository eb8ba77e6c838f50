/**
 * Strategic merge patch, as the original API server applies it
 * (apimachinery's strategicpatch.StrategicMergeMapPatch): a JSON merge patch
 * whose lists merge by the merge keys the schema declares, plus directives:
 * - `$patch: replace` (a map or list is replaced by the patch's content),
 *   `$patch: delete` (a map is emptied; a list item is removed by its key);
 * - `$retainKeys: [...]` (fields not listed are cleared);
 * - `$deleteFromPrimitiveList/<field>: [...]` (values removed from a list of primitives);
 * - `$setElementOrder/<field>: [...]` (the order of a merged list's items).
 * Null deletes a field; lists without `patchStrategy: merge` are replaced.
 *
 * The Go code mutates its inputs and relies on map iteration only where the
 * result does not depend on it; this port works on copies and visits keys in
 * patch order.
 */
import { cloneJson, hasOwn, isJsonObject, jsonKind, setOwn, type JsonObject } from './json-value.ts';
import type { SchemaLookup } from './schema-lookup.ts';
import {
  applyRetainKeys,
  DELETE_FROM_PRIMITIVE_LIST_PREFIX,
  directiveField,
  discardNulls,
  mainStrategy,
  removeDirectives,
  SET_ELEMENT_ORDER_PREFIX,
} from './smp-directives.ts';
import { SLICE_TYPE, smpErrors } from './smp-errors.ts';
import { mergeSliceValues } from './smp-lists.ts';
import { DELETE_DIRECTIVE, DIRECTIVE_MARKER, normalizeElementOrder, partitionMaps, partitionPrimitives, REPLACE_DIRECTIVE, sliceElementKind, validateSetElementOrder } from './smp-order.ts';

export type { FieldLookup, PatchMeta, SchemaLookup } from './schema-lookup.ts';
export { lookupPath, schemaLookupFor, UNKNOWN_SCHEMA } from './schema-lookup.ts';

/**
 * Applies a strategic merge patch to a copy of `doc`; neither input is
 * modified. Throws PatchError (code 400, 422 or 500 as the original answers).
 */
export function applyStrategicMergePatch(doc: JsonObject, patch: JsonObject, schema: SchemaLookup): JsonObject {
  return mergeMap(cloneJson(doc), cloneJson(patch), schema);
}

/** Merges `patch` into `original` (both owned by the caller and mutated) and returns the result. */
function mergeMap(original: JsonObject, patch: JsonObject, schema: SchemaLookup): JsonObject {
  if (hasOwn(patch, DIRECTIVE_MARKER)) return mapDirective(patch[DIRECTIVE_MARKER], patch);
  applyRetainKeys(original, patch);
  applySetElementOrder(original, patch, schema);

  for (const patchKey of Object.keys(patch)) {
    const patchV = patch[patchKey];
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST_PREFIX);
    const key = isDeleteList ? directiveField(patchKey, DELETE_FROM_PRIMITIVE_LIST_PREFIX) : patchKey;

    if (patchV === null) {
      delete original[key];
      continue;
    }
    if (!hasOwn(original, key) || jsonKind(original[key]) !== jsonKind(patchV)) {
      // Nothing to merge with: take the patch value (a deletion list has nothing to add).
      if (!isDeleteList) takePatchValue(original, key, patchV, true);
      continue;
    }
    const current = original[key];
    if (isJsonObject(current)) {
      const { schema: sub, meta } = schema.field(key);
      const strategy = mainStrategy(meta.strategies);
      setOwn(original, key, strategy === REPLACE_DIRECTIVE ? patchV : mergeMap(current, patchV as JsonObject, sub));
    } else if (Array.isArray(current)) {
      const { schema: sub, meta } = schema.field(key);
      setOwn(original, key, mergeSliceValues(current, patchV, { schema: sub, strategy: mainStrategy(meta.strategies), mergeKey: meta.mergeKey, isDeleteList, mergeMap }));
    } else {
      takePatchValue(original, key, patchV, false);
    }
  }
  return original;
}

/** Stores a patch value as it is, minus directive maps (and null members, for a value with nothing under it). */
function takePatchValue(original: JsonObject, key: string, patchV: unknown, dropNulls: boolean): void {
  if (dropNulls) discardNulls(patchV);
  const [value, keep] = removeDirectives(patchV);
  if (keep) setOwn(original, key, value);
  else delete original[key];
}

/** `$patch` on a map: `replace` gives the patch's own content, `delete` an empty map. */
function mapDirective(directive: unknown, patch: JsonObject): JsonObject {
  if (directive === REPLACE_DIRECTIVE) {
    delete patch[DIRECTIVE_MARKER];
    return patch;
  }
  if (directive === DELETE_DIRECTIVE) return {};
  throw smpErrors.badPatchType(directive, patch);
}

/**
 * Each `$setElementOrder/<field>`: merges the field's patch list (if any)
 * into the original list and orders the result: items named by the
 * directive in its order, server-only items where the server had them. The
 * field is then done and leaves the patch.
 */
function applySetElementOrder(original: JsonObject, patch: JsonObject, schema: SchemaLookup): void {
  for (const directiveKey of Object.keys(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER_PREFIX)) continue;
    const order = patch[directiveKey];
    delete patch[directiveKey];
    if (!Array.isArray(order)) throw smpErrors.badArgType(SLICE_TYPE, order);
    const key = directiveField(directiveKey, SET_ELEMENT_ORDER_PREFIX);

    const foundOriginal = hasOwn(original, key);
    const foundPatch = hasOwn(patch, key);
    const originalList = foundOriginal ? asList(original[key]) : [];
    const patchList = foundPatch ? asList(patch[key]) : [];
    const { schema: sub, meta } = schema.field(key);
    const strategy = mainStrategy(meta.strategies);
    validateSetElementOrder(patchList, order, meta.mergeKey);

    // The server order as the original sees it after merging (see GoListView in smp-lists.ts).
    const serverOrder = [...originalList];
    let merged: unknown[];
    if (foundOriginal && foundPatch) {
      merged = mergeSliceValues(originalList, patchList, { schema: sub, strategy, mergeKey: meta.mergeKey, isDeleteList: false, mergeMap, aliasView: serverOrder });
    } else if (foundPatch) {
      merged = removeDirectives(patchList)[0] as unknown[];
    } else if (foundOriginal) {
      merged = originalList;
    } else {
      continue;
    }
    const [named, serverOnly] = meta.mergeKey === '' ? partitionPrimitives(merged, order) : partitionMaps(merged, order, meta.mergeKey);
    const kind = sliceElementKind(serverOrder, patchList);
    setOwn(original, key, normalizeElementOrder(named, serverOnly, order, serverOrder, meta.mergeKey, kind));
    delete patch[key];
  }
}

function asList(v: unknown): unknown[] {
  if (!Array.isArray(v)) throw smpErrors.badArgType(SLICE_TYPE, v);
  return v;
}
