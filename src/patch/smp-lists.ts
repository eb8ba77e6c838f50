/**
 * Strategic merge of lists. A list whose field has `patchStrategy: merge`
 * merges: lists of maps by the merge key (`$patch: delete` items remove
 * matches, a `$patch: replace` item makes the rest of the patch list the
 * result), lists of primitives as sets. Any other list is replaced by the
 * patch. A `$deleteFromPrimitiveList/<field>` list removes values whatever
 * the field's strategy.
 */
import { hasOwn, type JsonObject } from './json-value.ts';
import type { SchemaLookup } from './schema-lookup.ts';
import { SLICE_TYPE, smpErrors } from './smp-errors.ts';
import {
  DELETE_DIRECTIVE,
  DIRECTIVE_MARKER,
  findMapByKey,
  MERGE_DIRECTIVE,
  normalizeElementOrder,
  partitionMaps,
  partitionPrimitives,
  REPLACE_DIRECTIVE,
  sliceElementKind,
} from './smp-order.ts';

/** Merges one list item (a map) into its match; the map-level merge, passed in to keep the two files acyclic. */
export type MergeMapFn = (original: JsonObject, patch: JsonObject, schema: SchemaLookup) => JsonObject;

export interface SliceMerge {
  readonly schema: SchemaLookup;
  /** The field's strategy without `retainKeys`: 'merge', 'replace' or ''. */
  readonly strategy: string;
  readonly mergeKey: string;
  /** Merging a `$deleteFromPrimitiveList` list. */
  readonly isDeleteList: boolean;
  readonly mergeMap: MergeMapFn;
}

/** The original's mergeSliceHandler: both values must be lists. */
export function mergeSliceValues(original: unknown, patch: unknown, m: SliceMerge): unknown[] {
  if (!Array.isArray(original)) throw smpErrors.badArgType(SLICE_TYPE, original);
  if (!Array.isArray(patch)) throw smpErrors.badArgType(SLICE_TYPE, patch);
  if (m.strategy === MERGE_DIRECTIVE || m.isDeleteList) return mergeSlice(original, patch, m);
  return patch;
}

function mergeSlice(original: unknown[], patch: unknown[], m: SliceMerge): unknown[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = sliceElementKind(original, patch);
  let merged: unknown[];
  if (kind !== 'map') {
    if (m.isDeleteList) return deleteValues(original, patch);
    merged = uniqueValues([...original, ...patch]);
  } else {
    if (m.mergeKey === '') throw smpErrors.other(`cannot merge lists without merge key for ${m.schema.name}`);
    [original, patch] = applySpecialElements(original, patch, m.mergeKey);
    merged = mergeByKey(original, patch, m);
  }
  const [patchItems, serverOnly] = m.mergeKey === '' ? partitionPrimitives(merged, patch) : partitionMaps(merged, patch, m.mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, m.mergeKey, kind);
}

/**
 * Handles the patch items carrying `$patch`: deletions apply to the original
 * at once; a replace item makes the remaining patch items the new original
 * and leaves nothing to merge. Returns the new original and the plain items.
 */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string): [unknown[], unknown[]] {
  const plain: unknown[] = [];
  let replace = false;
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, DIRECTIVE_MARKER)) {
      plain.push(v);
      continue;
    }
    const directive = item[DIRECTIVE_MARKER];
    if (directive === DELETE_DIRECTIVE) {
      if (!hasOwn(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
      original = deleteByKey(original, mergeKey, item[mergeKey]);
    } else if (directive === REPLACE_DIRECTIVE) {
      // Keep going: the other directive items still have to be dropped.
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw smpErrors.other('merging lists cannot yet be specified in the patch');
    } else {
      throw smpErrors.badPatchType(directive, item);
    }
  }
  return replace ? [plain, []] : [original, plain];
}

function deleteByKey(original: unknown[], mergeKey: string, value: unknown): unknown[] {
  let out = original;
  for (let found = findMapByKey(out, mergeKey, value); found !== undefined; found = findMapByKey(out, mergeKey, value)) {
    out = [...out.slice(0, found.index), ...out.slice(found.index + 1)];
  }
  return out;
}

/** Merges each patch item into the original item with the same key, or appends it. */
function mergeByKey(original: unknown[], patch: unknown[], m: SliceMerge): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, m.mergeKey)) throw smpErrors.noMergeKey(item, m.mergeKey);
    const found = findMapByKey(out, m.mergeKey, item[m.mergeKey]);
    if (found !== undefined) out[found.index] = m.mergeMap(found.item, item, m.schema);
    else out.push(v);
  }
  return out;
}

function deleteValues(current: readonly unknown[], toDelete: readonly unknown[]): unknown[] {
  const drop = new Set(toDelete);
  return current.filter((v) => !drop.has(v));
}

/** Drops repeated primitives; order does not matter, the caller re-sorts. */
function uniqueValues(values: readonly unknown[]): unknown[] {
  return [...new Set(values)];
}
