/**
 * Brings a manager's field set in line with the current schema after a
 * type changed topology (the original's ReconcileFieldSetWithSchema):
 * whoever owned fields inside a list or map that is now atomic owns the
 * whole list or map instead, so later changes by others conflict. The other
 * direction needs nothing: the owner of a formerly atomic value keeps
 * owning it as a leaf, and its new sub-fields have no owner.
 */
import { FieldSet } from './field-set.ts';
import { compareElements, type PathElement } from './path.ts';
import type { SchemaType } from './schema.ts';

/** The reconciled set, or undefined when `set` needs no change. */
export function reconcileWithSchema(set: FieldSet, t: SchemaType): FieldSet | undefined {
  const replace: PathElement[][] = [];
  visit(set, t, [], false, replace);
  if (replace.length === 0) return undefined;
  const paths = FieldSet.of(...replace);
  return set.recursiveDifference(paths).union(paths);
}

/**
 * `node` is the subtree under `path` (undefined when the path is only a
 * member); `isLeaf` says the path is a member with nothing below it.
 */
function visit(node: FieldSet | undefined, t: SchemaType, path: PathElement[], isLeaf: boolean, replace: PathElement[][]): void {
  // Like the original, resolve by the type's first part: map, then list.
  if (t.map !== undefined) {
    const map = t.map;
    if (map.deduced) return;
    if (!isLeaf && map.atomic) {
      if (node !== undefined && node.size() > 0) replace.push([...path]);
      return;
    }
    if (node === undefined) return;
    eachElement(node, (pe, sub, leaf) => {
      const ft = pe.t === 0 ? (map.field(pe.name) ?? map.element) : map.element;
      if (ft === undefined) return; // Fields the schema does not know are left alone.
      path.push(pe);
      visit(sub, ft, path, leaf, replace);
      path.pop();
    });
    return;
  }
  if (t.scalar !== undefined || t.list === undefined) return;
  const list = t.list;
  if (!isLeaf && list.atomic) {
    replace.push([...path]);
    return;
  }
  if (node === undefined) return;
  eachElement(node, (pe, sub, leaf) => {
    path.push(pe);
    visit(sub, list.element, path, leaf, replace);
    path.pop();
  });
}

/** Every element of a node once, with its subtree (if any) and whether it is a member without one. */
function eachElement(node: FieldSet, fn: (pe: PathElement, sub: FieldSet | undefined, leaf: boolean) => void): void {
  const { members, children } = node;
  let mi = 0;
  let ci = 0;
  // Both arrays are sorted: one merge walk instead of a search per element.
  while (mi < members.length || ci < children.length) {
    const m = members[mi];
    const c = children[ci];
    const d = m === undefined ? 1 : c === undefined ? -1 : compareElements(m, c.pe);
    if (d < 0) {
      fn(m!, undefined, true);
      mi++;
    } else if (d > 0) {
      fn(c!.pe, c!.set, false);
      ci++;
    } else {
      fn(m!, c!.set, false);
      mi++;
      ci++;
    }
  }
}
