/**
 * The FieldsV1 form of a field set, as `metadata.managedFields[].fieldsV1`
 * carries it: a nested object whose keys are serialized path elements and
 * whose leaves are `{}`. A key that is both a member and has a subtree
 * holds `".": {}` first. Keys come out in the original's element order, so
 * the JSON is byte-for-byte what the original writes (apart from HTML
 * escaping of the outer document, which is the JSON writer's business).
 */
import { FieldSet, type SetChild } from './field-set.ts';
import { compareElements, parseElement, PathElementError, UNKNOWN_ELEMENT, type PathElement } from './path.ts';
import { isMap, type Json, type JsonMap } from './value.ts';

export type FieldsV1 = { [key: string]: FieldsV1 };

/** The FieldsV1 object of a set. */
export function toFieldsV1(set: FieldSet): FieldsV1 {
  return emit(set, false);
}

function emit(set: FieldSet, includeSelf: boolean): FieldsV1 {
  const out: FieldsV1 = {};
  const { members, children } = set;
  if (includeSelf && (members.length > 0 || children.length > 0)) out['.'] = {};
  let mi = 0;
  let ci = 0;
  while (mi < members.length && ci < children.length) {
    const m = members[mi]!;
    const c = children[ci]!;
    const d = compareElements(m, c.pe);
    if (d < 0) {
      put(out, m.id, {});
      mi++;
    } else if (d > 0) {
      put(out, c.pe.id, emit(c.set, false));
      ci++;
    } else {
      put(out, c.pe.id, emit(c.set, true));
      mi++;
      ci++;
    }
  }
  for (; mi < members.length; mi++) put(out, members[mi]!.id, {});
  for (; ci < children.length; ci++) put(out, children[ci]!.pe.id, emit(children[ci]!.set, false));
  return out;
}

function put(out: FieldsV1, key: string, v: FieldsV1): void {
  // Keys are `f:...`, `k:...`: never `__proto__`, but stay safe for odd field names.
  if (key === '__proto__') Object.defineProperty(out, key, { value: v, writable: true, enumerable: true, configurable: true });
  else out[key] = v;
}

/** Thrown for a fieldsV1 value that is not a valid field set. */
export class FieldsV1Error extends Error {}

/**
 * The set a FieldsV1 object describes. Keys with an unknown prefix are
 * skipped (the original's forward compatibility); malformed keys and
 * non-object values throw FieldsV1Error.
 */
export function fromFieldsV1(fields: Json | undefined): FieldSet {
  if (fields === undefined || fields === null) return new FieldSet();
  if (!isMap(fields)) throw new FieldsV1Error('fieldsV1 must be an object');
  return read(fields).set ?? new FieldSet();
}

/**
 * Reads one level: the subtree it describes (undefined when it has no path
 * elements) and whether the level marks its own path a member (`.`, or an
 * empty object).
 */
function read(obj: JsonMap): { set: FieldSet | undefined; isMember: boolean } {
  let members: PathElement[] | undefined;
  let children: SetChild[] | undefined;
  let isMember = false;
  // Sets written by us (or the original) come sorted; only other input needs sorting.
  let sorted = true;
  for (const key of Object.keys(obj)) {
    const v = obj[key]!;
    if (key === '.') {
      isMember = true;
      continue;
    }
    let pe: PathElement | typeof UNKNOWN_ELEMENT;
    try {
      pe = parseElement(key);
    } catch (err) {
      throw new FieldsV1Error(`parsing key as path element: ${err instanceof PathElementError ? err.message : String(err)}`);
    }
    if (pe === UNKNOWN_ELEMENT) continue;
    if (!isMap(v)) throw new FieldsV1Error(`value of ${JSON.stringify(key)} must be an object`);
    const sub = read(v);
    if (sub.isMember) {
      members ??= [];
      if (sorted && members.length > 0 && compareElements(members[members.length - 1]!, pe) >= 0) sorted = false;
      members.push(pe);
    }
    if (sub.set !== undefined) {
      children ??= [];
      if (sorted && children.length > 0 && compareElements(children[children.length - 1]!.pe, pe) >= 0) sorted = false;
      children.push({ pe, set: sub.set });
    }
  }
  if (members === undefined && children === undefined) return { set: undefined, isMember: true };
  if (sorted) return { set: new FieldSet(members ?? [], children ?? []), isMember };
  members?.sort(compareElements);
  children?.sort((a, b) => compareElements(a.pe, b.pe));
  return { set: new FieldSet(dedupe(members ?? []), dedupeChildren(children ?? [])), isMember };
}

function dedupe(sorted: PathElement[]): PathElement[] {
  return sorted.filter((pe, i) => i === 0 || sorted[i - 1]!.id !== pe.id);
}

function dedupeChildren(sorted: SetChild[]): SetChild[] {
  const out: SetChild[] = [];
  for (const c of sorted) {
    const last = out[out.length - 1];
    if (last !== undefined && last.pe.id === c.pe.id) out[out.length - 1] = { pe: c.pe, set: last.set.union(c.set) };
    else out.push(c);
  }
  return out;
}
