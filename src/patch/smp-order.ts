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

/** The value an item is ordered by: its merge key value for maps, itself otherwise (a missing key counts as null, as in Go). */
function orderKey(item: unknown, mergeKey: string, kind: JsonKind): unknown {
  if (kind !== 'map') return item;
  return isJsonObject(item) ? (getOwn(item, mergeKey) ?? null) : null;
}

/** First position of each order key in `list`: lookups stay O(1) on long lists. */
function positions(list: readonly unknown[], mergeKey: string, kind: JsonKind): (item: unknown) => number {
  const first = new Map<unknown, number>();
  list.forEach((x, i) => {
    const k = orderKey(x, mergeKey, kind);
    if (!first.has(k)) first.set(k, i);
  });
  return (item) => first.get(orderKey(item, mergeKey, kind)) ?? -1;
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
  const posIn = positions(order, mergeKey, kind);
  const pos = toSort.map(posIn);
  if (pos.every((p) => p >= 0)) {
    // A consistent order: any stable sort gives Go's result.
    toSort = toSort.map((item, i) => ({ item, p: pos[i]! })).sort((a, b) => a.p - b.p).map((x) => x.item);
  } else {
    // Go's comparator says "before" whenever either side is missing from the
    // order, which no sort treats consistently; Go's stable sort is an
    // insertion sort up to 20 items, so the same insertion sort matches it there.
    const items = toSort.map((item, i) => ({ item, p: pos[i]! }));
    const before = (a: { p: number }, b: { p: number }): boolean => (a.p >= 0 && b.p >= 0 ? a.p < b.p : true);
    for (let i = 1; i < items.length; i++) {
      for (let j = i; j > 0 && before(items[j]!, items[j - 1]!); j--) [items[j], items[j - 1]] = [items[j - 1]!, items[j]!];
    }
    toSort = items.map((x) => x.item);
  }
  return [...toSort, ...toDelete];
}

/**
 * Merges two sorted runs: an item of `left` goes first only when the server
 * order knows both it and the next item of `right` and puts it earlier.
 */
function mergeSorted(left: readonly unknown[], right: readonly unknown[], serverOrder: readonly unknown[], mergeKey: string, kind: JsonKind): unknown[] {
  const posIn = positions(serverOrder, mergeKey, kind);
  const out: unknown[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++]);
    else if (j >= right.length) out.push(left[i++]);
    else {
      const li = posIn(left[i]);
      const ri = posIn(right[j]);
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
