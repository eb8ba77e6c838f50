/**
 * Element order after a strategic merge of a list, as the original computes
 * it: items named in the patch (or in its `$setElementOrder` list) keep the
 * patch's order, items only on the server keep theirs, and the two runs are
 * interleaved by the server's order where both sides know an item. Also the
 * checks on list shapes these steps rely on.
 */
import { goFormat } from './go-format.ts';
import { getOwn, hasOwn, isJsonObject, jsonKind, type JsonKind } from './json-value.ts';
import { MAP_TYPE, smpErrors } from './smp-errors.ts';

export const DIRECTIVE_MARKER = '$patch';
export const DELETE_DIRECTIVE = 'delete';
export const REPLACE_DIRECTIVE = 'replace';
export const MERGE_DIRECTIVE = 'merge';

/** The one element kind all given lists share; errors for lists of lists, mixed kinds, or no elements at all. */
export function sliceElementKind(...lists: readonly (readonly unknown[])[]): JsonKind {
  let kind: JsonKind | undefined;
  for (const list of lists) {
    for (const item of list) {
      const k = jsonKind(item);
      if (kind === undefined) {
        if (k === 'slice') throw smpErrors.noListOfLists();
        // The original crashes on a leading null element; a 500 either way.
        if (k === 'nil') throw smpErrors.other(`list element types are not identical: ${goFormat(lists)}`);
        kind = k;
      } else if (k !== kind) {
        throw smpErrors.other(`list element types are not identical: ${goFormat(lists)}`);
      }
    }
  }
  if (kind === undefined) throw smpErrors.other('no elements in any of the given slices');
  return kind;
}

/** Position of `item` in `list`, by merge key value for maps and by value otherwise; -1 when absent. */
export function indexOfItem(list: readonly unknown[], item: unknown, mergeKey: string, kind: JsonKind): number {
  const keyOf = kind === 'map' ? (x: unknown): unknown => (isJsonObject(x) ? (getOwn(x, mergeKey) ?? null) : null) : (x: unknown): unknown => x;
  const wanted = keyOf(item);
  return list.findIndex((x) => keyOf(x) === wanted);
}

/** The map in `list` whose `key` equals `value`, with its position; errors when an element is not a map. */
export function findMapByKey(list: readonly unknown[], key: string, value: unknown): { item: Record<string, unknown>; index: number } | undefined {
  for (let i = 0; i < list.length; i++) {
    const item = list[i];
    if (!isJsonObject(item)) throw smpErrors.other(`value for key ${i} is not a map`);
    if (hasOwn(item, key) && item[key] === value) return { item, index: i };
  }
  return undefined;
}

/** Splits primitives into those present in `by` and the rest, keeping their order. */
export function partitionPrimitives(list: readonly unknown[], by: readonly unknown[]): [present: unknown[], rest: unknown[]] {
  const inBy = new Set(by);
  const present: unknown[] = [];
  const rest: unknown[] = [];
  for (const v of list) (inBy.has(v) ? present : rest).push(v);
  return [present, rest];
}

/** Splits maps by whether `by` holds a map with the same merge key value. */
export function partitionMaps(list: readonly unknown[], by: readonly unknown[], mergeKey: string): [present: unknown[], rest: unknown[]] {
  const present: unknown[] = [];
  const rest: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw smpErrors.badArgType(MAP_TYPE, v);
    if (!hasOwn(v, mergeKey)) throw smpErrors.noMergeKey(v, mergeKey);
    (findMapByKey(by, mergeKey, v[mergeKey]) !== undefined ? present : rest).push(v);
  }
  return [present, rest];
}

/** Items carrying `$patch: delete` apart from the rest; every item must be a map. */
export function splitDeleteItems(list: readonly unknown[]): [keep: unknown[], toDelete: unknown[]] {
  const keep: unknown[] = [];
  const toDelete: unknown[] = [];
  for (const v of list) {
    if (!isJsonObject(v)) throw smpErrors.badArgType(MAP_TYPE, v);
    (getOwn(v, DIRECTIVE_MARKER) === DELETE_DIRECTIVE ? toDelete : keep).push(v);
  }
  return [keep, toDelete];
}

/**
 * Sorts the patch's items by `patchOrder` and the server-only items by
 * `serverOrder`, then interleaves them (the original's normalizeElementOrder).
 */
export function normalizeElementOrder(
  patchItems: readonly unknown[],
  serverOnly: readonly unknown[],
  patchOrder: readonly unknown[],
  serverOrder: readonly unknown[],
  mergeKey: string,
  kind: JsonKind,
): unknown[] {
  const patchSorted = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const serverSorted = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  return mergeSorted(serverSorted, patchSorted, serverOrder, mergeKey, kind);
}

function sortByOrder(items: readonly unknown[], order: readonly unknown[], mergeKey: string, kind: JsonKind): unknown[] {
  let toSort = [...items];
  let toDelete: unknown[] = [];
  if (kind === 'map') {
    for (const list of [toSort, order]) {
      for (const item of list) {
        if (!isJsonObject(item)) throw smpErrors.badArgType(MAP_TYPE, item);
        if (!hasOwn(item, mergeKey)) throw smpErrors.noMergeKey(item, mergeKey);
      }
    }
    [toSort, toDelete] = splitDeleteItems(toSort);
  }
  // Go's stable sort is an insertion sort at these sizes, and its comparator
  // says "before" whenever either side is missing from the order; doing the
  // same insertion sort keeps even those cases identical.
  const before = (a: unknown, b: unknown): boolean => {
    const ia = indexOfItem(order, a, mergeKey, kind);
    if (ia >= 0) {
      const ib = indexOfItem(order, b, mergeKey, kind);
      if (ib >= 0) return ia < ib;
    }
    return true;
  };
  for (let i = 1; i < toSort.length; i++) {
    for (let j = i; j > 0 && before(toSort[j], toSort[j - 1]); j--) {
      [toSort[j], toSort[j - 1]] = [toSort[j - 1], toSort[j]];
    }
  }
  return [...toSort, ...toDelete];
}

/**
 * Merges two sorted runs: an item of `left` goes first only when the server
 * order knows both it and the next item of `right` and puts it earlier.
 */
function mergeSorted(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: JsonKind): unknown[] {
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = indexOfItem(serverOrder, left[i], mergeKey, kind);
      const ri = indexOfItem(serverOrder, right[j], mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++]);
      else out.push(right[j++]);
    }
  }
  return out;
}

/**
 * A `$setElementOrder` list must name the patch list's items (deletions and
 * directive items aside) in the same relative order.
 */
export function validateSetElementOrder(patchList: unknown, orderList: unknown, mergeKey: string): void {
  if (!Array.isArray(orderList) || !Array.isArray(patchList)) throw smpErrors.badSetElementOrder();
  if (orderList.length === 0 || patchList.length === 0) return;
  const items = mergeKey === '' ? patchList : splitDeleteItems(patchList)[0];
  let p = 0;
  let o = 0;
  while (p < items.length && o < orderList.length) {
    const item = items[p];
    if (isJsonObject(item) && hasOwn(item, DIRECTIVE_MARKER)) {
      p++;
      continue;
    }
    if (mergeKeyValueEqual(item, orderList[o], mergeKey)) p++;
    o++;
  }
  if (p < items.length && o >= orderList.length) {
    throw smpErrors.other(`The order in patch list:\n${goFormat(patchList)}\n doesn't match $setElementOrder list:\n${goFormat(orderList)}\n`);
  }
}

function mergeKeyValueEqual(left: unknown, right: unknown, mergeKey: string): boolean {
  if (mergeKey === '') return left === right;
  if (!isJsonObject(left)) throw smpErrors.badArgType(MAP_TYPE, left);
  if (!isJsonObject(right)) throw smpErrors.badArgType(MAP_TYPE, right);
  if (!hasOwn(left, mergeKey)) throw smpErrors.noMergeKey(left, mergeKey);
  if (!hasOwn(right, mergeKey)) throw smpErrors.noMergeKey(right, mergeKey);
  return left[mergeKey] === right[mergeKey];
}
