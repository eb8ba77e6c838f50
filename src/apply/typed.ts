/**
 * Values read through a schema, as the original's `typed` package: which
 * part of a type a value takes (scalar, list or map), how a list item is
 * identified, the set of fields a value sets (ToFieldSet), and removing a
 * set of fields from a value (RemoveItems).
 *
 * Absent values are `undefined`; JSON `null` is a value. Where the original
 * reports an error on a value that does not fit its schema, these walkers
 * carry on as the original's do when they ignore such errors: the applied
 * configuration is validated separately (validate.ts), live objects are
 * read leniently.
 */
import { FieldSet, type SetChild } from './field-set.ts';
import { compareElements, fieldElement, keyElement, valueElement, type KeyField, type PathElement } from './path.ts';
import { UNTYPED_ATOMIC, type ListSchema, type MapSchema, type SchemaType } from './schema.ts';
import { hasKey, isList, isMap, setKey, type Json, type JsonList, type JsonMap } from './value.ts';

export type Part = 'scalar' | 'list' | 'map';

/**
 * The part of `t` that handles `v`: the one matching the value's shape, or,
 * for null and mismatched values, the type's first part in the original's
 * order (map, scalar, list). Undefined when the type has no part at all.
 */
export function partOf(t: SchemaType, v: Json | undefined): Part | undefined {
  if (v !== undefined && v !== null) {
    if (typeof v !== 'object') {
      if (t.scalar !== undefined) return 'scalar';
    } else if (Array.isArray(v)) {
      if (t.list !== undefined) return 'list';
    } else if (t.map !== undefined) return 'map';
  }
  return t.map !== undefined ? 'map' : t.scalar !== undefined ? 'scalar' : t.list !== undefined ? 'list' : undefined;
}

/** Type of member `key` of a map: the declared field, else the element type, else untyped. */
export function memberType(m: MapSchema, key: string): SchemaType {
  return m.field(key) ?? m.element ?? UNTYPED_ATOMIC;
}

/** A list value, or undefined for null and non-lists (the original's listValue, errors ignored). */
export function asList(v: Json | undefined): JsonList | undefined {
  return isList(v) ? v : undefined;
}

/** A map value, or undefined for null and non-maps. */
export function asMap(v: Json | undefined): JsonMap | undefined {
  return isMap(v) ? v : undefined;
}

/** Why a list item has no path element. */
export class ItemError extends Error {}

/**
 * The path element of an item of an associative list: its key fields (with
 * declared defaults for missing ones) for a map list, its value for a set.
 */
export function itemElement(list: ListSchema, item: Json): PathElement {
  if (list.keys.length > 0) {
    if (item === null) throw new ItemError('associative list with keys may not have a null element');
    if (!isMap(item)) throw new ItemError('associative list with keys may not have non-map elements');
    const fields: KeyField[] = [];
    for (const name of list.keys) {
      if (hasKey(item, name)) fields.push({ name, value: item[name]! });
      else {
        const def = list.element.map?.fieldDefault(name);
        if (def !== undefined && def !== null) fields.push({ name, value: def });
      }
    }
    if (fields.length === 0) {
      throw new ItemError(
        `associative list with keys has an element that omits all key fields ${goStringList(list.keys)} (and doesn't have default values for any key fields)`,
      );
    }
    return keyElement(fields);
  }
  if (isMap(item)) throw new ItemError("associative list without keys has an element that's a map type");
  if (isList(item)) throw new ItemError('not supported: associative list with lists as elements');
  if (item === null) throw new ItemError("associative list without keys has an element that's an explicit null");
  return valueElement(item);
}

/** Go's `%q` of a []string: `["a" "b"]`. */
function goStringList(keys: readonly string[]): string {
  return `[${keys.map((k) => JSON.stringify(k)).join(' ')}]`;
}

/**
 * Elements of map-list items, remembered per item object: one apply reads
 * the same items several times (validate, merge, field sets, compare,
 * prune), and building a key element serializes its fields. The key values
 * are kept too and checked on every hit, so an item changed in place since
 * (a defaulted key, say) is keyed afresh.
 */
interface Remembered {
  readonly list: ListSchema;
  readonly pe: PathElement | undefined;
  readonly keys: readonly (Json | undefined)[];
}

const itemElements = new WeakMap<object, Remembered>();

function keyValues(list: ListSchema, item: Json): (Json | undefined)[] {
  return isMap(item) ? list.keys.map((k) => (hasKey(item, k) ? item[k] : undefined)) : [];
}

function stillValid(hit: Remembered, list: ListSchema, item: Json): boolean {
  if (hit.list !== list) return false;
  if (!isMap(item)) return true;
  const keys = list.keys;
  for (let i = 0; i < keys.length; i++) {
    const now = hasKey(item, keys[i]!) ? item[keys[i]!] : undefined;
    if (now !== hit.keys[i]) return false;
  }
  return true;
}

/** Records the element of an item built elsewhere (a merged item keeps the key of its sources). */
export function rememberItemElement(list: ListSchema, item: Json, pe: PathElement): void {
  if (typeof item === 'object' && item !== null) itemElements.set(item, { list, pe, keys: keyValues(list, item) });
}

/** The element of an item, or undefined when it has none (errors are the validator's to report). */
export function tryItemElement(list: ListSchema, item: Json): PathElement | undefined {
  const memo = typeof item === 'object' && item !== null;
  if (memo) {
    const hit = itemElements.get(item);
    if (hit !== undefined && stillValid(hit, list, item)) return hit.pe;
  }
  let pe: PathElement | undefined;
  try {
    pe = itemElement(list, item);
  } catch (err) {
    if (!(err instanceof ItemError)) throw err;
    pe = undefined;
  }
  if (memo) itemElements.set(item, { list, pe, keys: keyValues(list, item) });
  return pe;
}

/**
 * The fields `v` sets, as the original's ToFieldSet: scalars, atomic lists
 * and maps, null and empty-map members, and undeclared map keys are leaves;
 * list items are members with their fields below them. Items of an
 * associative list that appear twice are listed once, without their fields.
 */
export function toFieldSet(v: Json, t: SchemaType): FieldSet {
  return walk(v, t).sub ?? new FieldSet();
}

interface Walked {
  /** Paths strictly below the value. */
  readonly sub: FieldSet | undefined;
  /** The value's own path is a member. */
  readonly self: boolean;
}

const LEAF: Walked = { sub: undefined, self: true };
const NOTHING: Walked = { sub: undefined, self: false };

function walk(v: Json, t: SchemaType): Walked {
  switch (partOf(t, v)) {
    case 'scalar':
      return LEAF;
    case 'list': {
      const list = t.list!;
      if (list.atomic) return LEAF;
      const items = asList(v);
      return items === undefined ? NOTHING : { sub: walkListItems(list, items), self: false };
    }
    case 'map': {
      const map = t.map!;
      if (map.atomic) return LEAF;
      const m = asMap(v);
      return m === undefined ? NOTHING : { sub: walkMapItems(map, m), self: false };
    }
    default:
      return NOTHING;
  }
}

function walkListItems(list: ListSchema, items: JsonList): FieldSet | undefined {
  const pes = items.map((item) => tryItemElement(list, item));
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const pe of pes) {
    if (pe === undefined) continue;
    if (seen.has(pe.id)) duplicates.add(pe.id);
    else seen.add(pe.id);
  }
  const members: PathElement[] = [];
  const children: SetChild[] = [];
  const listedDuplicates = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    // The original indexes an item it cannot key as the zero element; it is skipped here.
    const pe = pes[i];
    if (pe === undefined) continue;
    if (duplicates.has(pe.id)) {
      if (!listedDuplicates.has(pe.id)) {
        listedDuplicates.add(pe.id);
        members.push(pe);
      }
      continue;
    }
    const w = walk(items[i]!, list.element);
    if (w.sub !== undefined && !w.sub.empty()) children.push({ pe, set: w.sub });
    members.push(pe);
  }
  return node(members, children);
}

function walkMapItems(map: MapSchema, m: JsonMap): FieldSet | undefined {
  const members: PathElement[] = [];
  const children: SetChild[] = [];
  for (const key of Object.keys(m)) {
    const val = m[key]!;
    const declared = map.field(key);
    const w = walk(val, declared ?? map.element ?? UNTYPED_ATOMIC);
    const pe = fieldElement(key);
    if (w.sub !== undefined && !w.sub.empty()) children.push({ pe, set: w.sub });
    if (w.self || val === null || (isMap(val) && isEmptyMap(val)) || declared === undefined) members.push(pe);
  }
  return node(members, children);
}

function node(members: PathElement[], children: SetChild[]): FieldSet | undefined {
  if (members.length === 0 && children.length === 0) return undefined;
  if (members.length > 1) members.sort(compareElements);
  if (children.length > 1) children.sort((a, b) => compareElements(a.pe, b.pe));
  return new FieldSet(members, children);
}

export function isEmptyMap(m: JsonMap): boolean {
  for (const k in m) if (hasKey(m, k)) return false;
  return true;
}

/**
 * `v` without the fields in `remove`: struct and map members, list items.
 * A map or list left empty becomes null, and so does the root, as in the
 * original (callers decide what a null means for them).
 */
export function removeItems(v: Json, t: SchemaType, remove: FieldSet): Json {
  switch (partOf(t, v)) {
    case 'scalar':
      return v;
    case 'list': {
      const items = asList(v);
      const list = t.list!;
      if (items === undefined || items.length === 0 || list.atomic) return null;
      const out: Json[] = [];
      for (const item of items) {
        const pe = tryItemElement(list, item);
        if (pe === undefined) {
          out.push(item);
          continue;
        }
        if (remove.hasMember(pe)) continue;
        const sub = remove.child(pe);
        out.push(sub !== undefined && !sub.empty() ? removeItems(item, list.element, sub) : item);
      }
      return out.length > 0 ? out : null;
    }
    case 'map': {
      const m = asMap(v);
      const map = t.map!;
      if (m === undefined || map.atomic || isEmptyMap(m)) return null;
      const out: Record<string, Json> = {};
      let n = 0;
      for (const key of Object.keys(m)) {
        const pe = fieldElement(key);
        if (remove.hasMember(pe)) continue;
        const sub = remove.child(pe);
        setKey(out, key, sub !== undefined && !sub.empty() ? removeItems(m[key]!, memberType(map, key), sub) : m[key]!);
        n++;
      }
      return n > 0 ? out : null;
    }
    default:
      return null;
  }
}
