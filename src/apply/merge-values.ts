/**
 * Merges an applied configuration into a live value, as the original's
 * typed.Merge with its keep-the-right-hand-side rule: scalars, atomic lists
 * and maps, and empty ones, take the configuration's value; maps merge key
 * by key; associative lists merge item by item, keeping live-only items and
 * ordering shared items as the configuration orders them.
 *
 * Untouched subtrees of either side are shared, not copied.
 */
import type { PathElement } from './path.ts';
import type { ListSchema, MapSchema, SchemaType } from './schema.ts';
import { asList, asMap, isEmptyMap, memberType, partOf, rememberItemElement, tryItemElement } from './typed.ts';
import { hasKey, setKey, type Json, type JsonList } from './value.ts';

/** `rhs` merged into `lhs`; undefined when neither side has a value. */
export function mergeValues(lhs: Json | undefined, rhs: Json | undefined, t: SchemaType): Json | undefined {
  if (lhs === undefined && rhs === undefined) return undefined;
  // When the value changes shape the right-hand side's shape wins, as in the original.
  const part = rhs === undefined ? partOf(t, lhs) : partOf(t, rhs);
  switch (part) {
    case 'list':
      return mergeList(t.list!, lhs, rhs);
    case 'map':
      return mergeMap(t.map!, lhs, rhs);
    default:
      return rhs !== undefined ? rhs : lhs;
  }
}

function mergeList(list: ListSchema, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  const l = asList(lhs);
  const r = asList(rhs);
  if (list.atomic || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) {
    return rhs !== undefined ? rhs : lhs;
  }
  const out = mergeListItems(list, l ?? [], r ?? []);
  return out.length > 0 ? out : undefined;
}

interface Indexed {
  readonly pes: PathElement[];
  /** Item per element id; null for an element that appears more than once. */
  readonly items: Map<string, Json>;
}

function index(list: ListSchema, items: JsonList, allowDuplicates: boolean): Indexed {
  const pes: PathElement[] = [];
  const byId = new Map<string, Json>();
  items.forEach((item, i) => {
    const pe = tryItemElement(list, item);
    if (pe === undefined) throw new MergeError(`element ${i}: list item has no key`);
    if (byId.has(pe.id)) {
      if (!allowDuplicates) throw new MergeError(`duplicate entries for key ${pe.id}`);
      byId.set(pe.id, null);
    } else byId.set(pe.id, item);
    pes.push(pe);
  });
  return { pes, items: byId };
}

/** Thrown when the configuration cannot be merged (it failed validation). */
export class MergeError extends Error {}

/**
 * The original's ordering: walk both lists; shared items come in the
 * configuration's order, live-only items stay where they were relative to
 * the shared ones, new items follow the configuration.
 */
function mergeListItems(list: ListSchema, lhs: JsonList, rhs: JsonList): Json[] {
  const r = index(list, rhs, false);
  const l = index(list, lhs, true);
  const shared = r.pes.filter((pe) => l.items.has(pe.id));
  let si = 0;
  let nextShared: PathElement | undefined = shared[si++];
  const merged = new Set<string>();
  const out: Json[] = [];
  const push = (v: Json | undefined, pe: PathElement): void => {
    if (v === undefined) return;
    out.push(v);
    rememberItemElement(list, v, pe);
  };
  const lLen = l.pes.length;
  const rLen = r.pes.length;
  let li = 0;
  let ri = 0;
  while (li < lLen || ri < rLen) {
    if (li < lLen && ri < rLen) {
      const pe = l.pes[li]!;
      if (pe.id === r.pes[ri]!.id) {
        merged.add(pe.id);
        push(mergeValues(l.items.get(pe.id), r.items.get(pe.id), list.element), pe);
        li++;
        ri++;
        nextShared = shared[si++];
        continue;
      }
      // A shared item out of the configuration's order waits for its turn.
      if (r.items.has(pe.id) && nextShared !== undefined && nextShared.id !== pe.id) {
        li++;
        continue;
      }
    }
    if (li < lLen) {
      const pe = l.pes[li]!;
      if (!r.items.has(pe.id)) {
        push(mergeValues(lhs[li]!, undefined, list.element), pe);
        li++;
        continue;
      } else if (merged.has(pe.id)) li++;
    }
    if (ri < rLen) {
      const pe = r.pes[ri]!;
      merged.add(pe.id);
      push(mergeValues(l.items.get(pe.id), r.items.get(pe.id), list.element), pe);
      ri++;
      if (nextShared !== undefined && nextShared.id === pe.id) nextShared = shared[si++];
    }
  }
  return out;
}

function mergeMap(map: MapSchema, lhs: Json | undefined, rhs: Json | undefined): Json | undefined {
  const l = asMap(lhs);
  const r = asMap(rhs);
  if (map.atomic || ((l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r)))) {
    return rhs !== undefined ? rhs : lhs;
  }
  const out: Record<string, Json> = {};
  let n = 0;
  // Live keys keep their order; new keys follow in the configuration's order.
  if (l !== undefined) {
    for (const key of Object.keys(l)) {
      const v = mergeValues(l[key]!, r !== undefined && hasKey(r, key) ? r[key]! : undefined, memberType(map, key));
      if (v !== undefined) {
        setKey(out, key, v);
        n++;
      }
    }
  }
  if (r !== undefined) {
    for (const key of Object.keys(r)) {
      if (l !== undefined && hasKey(l, key)) continue;
      const v = mergeValues(undefined, r[key]!, memberType(map, key));
      if (v !== undefined) {
        setKey(out, key, v);
        n++;
      }
    }
  }
  return n > 0 ? out : undefined;
}
