/**
 * Comparison of two values of one type, as the original's typed.Compare:
 * the fields the new value adds, modifies and removes. Atomic lists and
 * maps, and empty ones, compare as single leaves; associative lists compare
 * item by item by key; a list item that appears twice on a side compares as
 * a whole.
 */
import { FieldSet } from './field-set.ts';
import type { PathElement } from './path.ts';
import type { ListSchema, MapSchema, SchemaType } from './schema.ts';
import { asList, asMap, isEmptyMap, memberType, partOf, tryItemElement } from './typed.ts';
import { fieldElement } from './path.ts';
import { equals, type Json, type JsonList, type JsonMap } from './value.ts';

export interface Comparison {
  readonly added: FieldSet;
  readonly modified: FieldSet;
  readonly removed: FieldSet;
}

/** What changes from `lhs` to `rhs` (either may be absent: `undefined`). */
export function compareValues(lhs: Json | undefined, rhs: Json | undefined, t: SchemaType): Comparison {
  const w = new CompareWalker();
  w.node(lhs, rhs, t);
  return { added: w.added, modified: w.modified, removed: w.removed };
}

class CompareWalker {
  readonly added = new FieldSet();
  readonly modified = new FieldSet();
  readonly removed = new FieldSet();
  readonly #path: PathElement[] = [];

  node(lhs: Json | undefined, rhs: Json | undefined, t: SchemaType): void {
    const pl = lhs === undefined ? undefined : partOf(t, lhs);
    const pr = rhs === undefined ? undefined : partOf(t, rhs);
    let leaf: boolean;
    if (rhs === undefined) leaf = this.#part(pl, lhs, rhs, t);
    else if (lhs === undefined || pl === pr) leaf = this.#part(pr, lhs, rhs, t);
    else {
      // The value changed shape (possible only for untyped values): the
      // original walks it once as each shape, recording what each walk finds.
      this.#part(pl, lhs, rhs, t);
      leaf = this.#part(pr, lhs, rhs, t);
    }
    if (!leaf) {
      if (lhs === undefined) this.added.insert(this.#path);
      else if (rhs === undefined) this.removed.insert(this.#path);
    }
  }

  /** Handles one part of the type; true when the value compared as a leaf. */
  #part(part: 'scalar' | 'list' | 'map' | undefined, lhs: Json | undefined, rhs: Json | undefined, t: SchemaType): boolean {
    switch (part) {
      case 'scalar':
        this.#leaf(lhs, rhs);
        return true;
      case 'list':
        return this.#list(t.list!, lhs, rhs);
      case 'map':
        return this.#map(t.map!, lhs, rhs);
      default:
        return false;
    }
  }

  #leaf(lhs: Json | undefined, rhs: Json | undefined): void {
    if (lhs === undefined) this.added.insert(this.#path);
    else if (rhs === undefined) this.removed.insert(this.#path);
    else if (!equals(lhs, rhs)) this.modified.insert(this.#path);
  }

  #list(list: ListSchema, lhs: Json | undefined, rhs: Json | undefined): boolean {
    const l = asList(lhs);
    const r = asList(rhs);
    if (list.atomic || ((l === undefined || l.length === 0) && (r === undefined || r.length === 0))) {
      this.#leaf(lhs, rhs);
      return true;
    }
    this.#listItems(list, l ?? [], r ?? []);
    return false;
  }

  #listItems(list: ListSchema, lhs: JsonList, rhs: JsonList): void {
    const order: PathElement[] = [];
    const lValues = new Map<string, Json[]>();
    const rValues = new Map<string, Json[]>();
    for (const item of lhs) {
      const pe = tryItemElement(list, item);
      if (pe === undefined) continue;
      const seen = lValues.get(pe.id);
      if (seen !== undefined) seen.push(item);
      else {
        lValues.set(pe.id, [item]);
        order.push(pe);
      }
    }
    for (const item of rhs) {
      const pe = tryItemElement(list, item);
      if (pe === undefined) continue;
      const seen = rValues.get(pe.id);
      if (seen !== undefined) seen.push(item);
      else {
        rValues.set(pe.id, [item]);
        if (!lValues.has(pe.id)) order.push(pe);
      }
    }
    const path = this.#path;
    for (const pe of order) {
      const ls = lValues.get(pe.id) ?? [];
      const rs = rValues.get(pe.id) ?? [];
      if (ls.length <= 1 && rs.length <= 1) {
        path.push(pe);
        this.node(ls[0], rs[0], list.element);
        path.pop();
      } else if (ls.length >= 2 && rs.length >= 2) {
        // Duplicated on both sides: one leaf, modified unless every copy matches.
        if (ls.length !== rs.length || ls.some((x, i) => !equals(x, rs[i]!))) this.modified.insert([...path, pe]);
      } else if (ls.length >= 2) {
        if (rs.length !== 0) {
          path.push(pe);
          this.node(undefined, rs[0], list.element);
          path.pop();
        }
        this.removed.insert([...path, pe]);
      } else {
        if (ls.length !== 0) {
          path.push(pe);
          this.node(ls[0], undefined, list.element);
          path.pop();
        }
        this.added.insert([...path, pe]);
      }
    }
  }

  #map(map: MapSchema, lhs: Json | undefined, rhs: Json | undefined): boolean {
    const l = asMap(lhs);
    const r = asMap(rhs);
    if (map.atomic || ((l === undefined || isEmptyMap(l)) && (r === undefined || isEmptyMap(r)))) {
      this.#leaf(lhs, rhs);
      return true;
    }
    this.#mapItems(map, l, r);
    return false;
  }

  #mapItems(map: MapSchema, lhs: JsonMap | undefined, rhs: JsonMap | undefined): void {
    const path = this.#path;
    if (lhs !== undefined) {
      for (const key of Object.keys(lhs)) {
        path.push(fieldElement(key));
        this.node(lhs[key]!, rhs !== undefined && Object.prototype.hasOwnProperty.call(rhs, key) ? rhs[key]! : undefined, memberType(map, key));
        path.pop();
      }
    }
    if (rhs !== undefined) {
      for (const key of Object.keys(rhs)) {
        if (lhs !== undefined && Object.prototype.hasOwnProperty.call(lhs, key)) continue;
        path.push(fieldElement(key));
        this.node(undefined, rhs[key]!, memberType(map, key));
        path.pop();
      }
    }
  }
}
