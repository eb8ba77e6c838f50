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
  /**
   * A copy of the original list that is updated the way the caller's view of
   * the list changes in Go, where the merge edits the list's backing array in
   * place: see GoListView. Only `$setElementOrder` needs it.
   */
  readonly aliasView?: unknown[];
}

/**
 * In the original, a list item merge works on the original list's backing
 * array: deleting an item shifts the later ones left (leaving the last slot
 * stale), and an item appended after a deletion lands in a freed slot. The
 * `$setElementOrder` step then orders server-only items by that same array,
 * now edited, and its own tests expect the outcome (a server-only item stays
 * before an added one). Appends past the original length reach memory the
 * view does not cover, so this is exact whatever Go's capacities were. Only
 * lists of maps are tracked: for primitives the in-place effect depends on
 * capacities (and only shows when the server list repeats a value).
 */
class GoListView {
  #len: number;
  constructor(private readonly view: unknown[] | undefined) {
    this.#len = view?.length ?? 0;
  }
  deleted(index: number): void {
    if (this.view === undefined) return;
    this.view.copyWithin(index, index + 1, this.#len);
    this.#len--;
  }
  assigned(index: number, value: unknown): void {
    if (this.view !== undefined && index < this.view.length) this.view[index] = value;
  }
  appended(value: unknown): void {
    if (this.view !== undefined && this.#len < this.view.length) this.view[this.#len] = value;
    this.#len++;
  }
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
    const view = new GoListView(m.aliasView);
    let replaced: boolean;
    [original, patch, replaced] = applySpecialElements(original, patch, m.mergeKey, view);
    // After a `$patch: replace` the list is a new one: no more edits in place.
    merged = mergeByKey(original, patch, m, replaced ? new GoListView(undefined) : view);
  }
  const [patchItems, serverOnly] = m.mergeKey === '' ? partitionPrimitives(merged, patch) : partitionMaps(merged, patch, m.mergeKey);
  return normalizeElementOrder(patchItems, serverOnly, patch, original, m.mergeKey, kind);
}

/**
 * Handles the patch items carrying `$patch`: deletions apply to the original
 * at once; a replace item makes the remaining patch items the new original
 * and leaves nothing to merge. Returns the new original and the plain items.
 */
function applySpecialElements(original: unknown[], patch: unknown[], mergeKey: string, view: GoListView): [unknown[], unknown[], boolean] {
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
      original = deleteByKey(original, mergeKey, item[mergeKey], view);
    } else if (directive === REPLACE_DIRECTIVE) {
      // Keep going: the other directive items still have to be dropped.
      replace = true;
    } else if (directive === MERGE_DIRECTIVE) {
      throw smpErrors.other('merging lists cannot yet be specified in the patch');
    } else {
      throw smpErrors.badPatchType(directive, item);
    }
  }
  return replace ? [plain, [], true] : [original, plain, false];
}

function deleteByKey(original: unknown[], mergeKey: string, value: unknown, view: GoListView): unknown[] {
  let out = original;
  for (let found = findMapByKey(out, mergeKey, value); found !== undefined; found = findMapByKey(out, mergeKey, value)) {
    out = [...out.slice(0, found.index), ...out.slice(found.index + 1)];
    view.deleted(found.index);
  }
  return out;
}

/** Merges each patch item into the original item with the same key, or appends it. */
function mergeByKey(original: unknown[], patch: unknown[], m: SliceMerge, view: GoListView): unknown[] {
  const out = [...original];
  for (const v of patch) {
    const item = v as JsonObject;
    if (!hasOwn(item, m.mergeKey)) throw smpErrors.noMergeKey(item, m.mergeKey);
    const found = findMapByKey(out, m.mergeKey, item[m.mergeKey]);
    if (found !== undefined) {
      out[found.index] = m.mergeMap(found.item, item, m.schema);
      view.assigned(found.index, out[found.index]);
    } else {
      out.push(v);
      view.appended(v);
    }
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
