/**
 * FieldSet: a set of field paths stored as a trie, as the original's
 * fieldpath.Set. Each node holds the path elements that end there
 * (`members`) and the subtrees below it (`children`), both sorted in the
 * original's element order, so set operations are linear merges and
 * serialization needs no sorting.
 *
 * A set is built with `insert` and then treated as immutable: the algebra
 * returns new nodes but shares untouched subtrees with its inputs.
 */
import { compareElements, pathString, type Path, type PathElement } from './path.ts';
import type { SchemaType } from './schema.ts';

export interface SetChild {
  readonly pe: PathElement;
  readonly set: FieldSet;
}

/** Index of `pe` in a sorted array, or -(insertion point) - 1. */
function search<T>(arr: readonly T[], pe: PathElement, get: (x: T) => PathElement): number {
  let lo = 0;
  let hi = arr.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1;
    const c = compareElements(get(arr[mid]!), pe);
    if (c === 0) return mid;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return -lo - 1;
}

const self = (pe: PathElement): PathElement => pe;
const childPe = (c: SetChild): PathElement => c.pe;

export class FieldSet {
  readonly members: PathElement[];
  readonly children: SetChild[];

  constructor(members: PathElement[] = [], children: SetChild[] = []) {
    this.members = members;
    this.children = children;
  }

  static of(...paths: Path[]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  /** Adds a path; the empty path is ignored (the root is never a member). */
  insert(path: Path): void {
    if (path.length === 0) return;
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) node = node.descend(path[i]!);
    node.insertMember(path[path.length - 1]!);
  }

  insertMember(pe: PathElement): void {
    const i = search(this.members, pe, self);
    if (i < 0) this.members.splice(-i - 1, 0, pe);
  }

  /** The subtree under `pe`, created when missing. */
  descend(pe: PathElement): FieldSet {
    const i = search(this.children, pe, childPe);
    if (i >= 0) return this.children[i]!.set;
    const set = new FieldSet();
    this.children.splice(-i - 1, 0, { pe, set });
    return set;
  }

  hasMember(pe: PathElement): boolean {
    return search(this.members, pe, self) >= 0;
  }

  /** The subtree under `pe`, if any. */
  child(pe: PathElement): FieldSet | undefined {
    const i = search(this.children, pe, childPe);
    return i >= 0 ? this.children[i]!.set : undefined;
  }

  has(path: Path): boolean {
    if (path.length === 0) return false;
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1; i++) {
      node = node.child(path[i]!);
      if (node === undefined) return false;
    }
    return node.hasMember(path[path.length - 1]!);
  }

  /** The paths below `pe`, with `pe` dropped from their front (empty when none). */
  withPrefix(pe: PathElement): FieldSet {
    return this.child(pe) ?? new FieldSet();
  }

  empty(): boolean {
    if (this.members.length > 0) return false;
    for (const c of this.children) if (!c.set.empty()) return false;
    return true;
  }

  size(): number {
    let n = this.members.length;
    for (const c of this.children) n += c.set.size();
    return n;
  }

  equals(o: FieldSet): boolean {
    if (this === o) return true;
    if (this.members.length !== o.members.length || this.children.length !== o.children.length) return false;
    for (let i = 0; i < this.members.length; i++) if (this.members[i]!.id !== o.members[i]!.id) return false;
    for (let i = 0; i < this.children.length; i++) {
      const a = this.children[i]!;
      const b = o.children[i]!;
      if (a.pe.id !== b.pe.id || !a.set.equals(b.set)) return false;
    }
    return true;
  }

  union(o: FieldSet): FieldSet {
    return new FieldSet(unionMembers(this.members, o.members), unionChildren(this.children, o.children));
  }

  intersection(o: FieldSet): FieldSet {
    const members: PathElement[] = [];
    mergeWalk(this.members, o.members, self, self, undefined, (a) => members.push(a), undefined);
    const children: SetChild[] = [];
    mergeWalk(this.children, o.children, childPe, childPe, undefined, (a, b) => {
      const s = a.set.intersection(b.set);
      if (!s.empty()) children.push({ pe: a.pe, set: s });
    }, undefined);
    return new FieldSet(members, children);
  }

  /**
   * Paths of this set that are not in `o`. A member of `o` removes only that
   * path, not what lies below it (see recursiveDifference).
   */
  difference(o: FieldSet): FieldSet {
    const members: PathElement[] = [];
    mergeWalk(this.members, o.members, self, self, (a) => members.push(a), undefined, undefined);
    const children: SetChild[] = [];
    mergeWalk(
      this.children,
      o.children,
      childPe,
      childPe,
      (a) => children.push(a),
      (a, b) => {
        const s = a.set.difference(b.set);
        if (!s.empty()) children.push({ pe: a.pe, set: s });
      },
      undefined,
    );
    return new FieldSet(members, children);
  }

  /** Like difference, but a member of `o` also removes everything below that path. */
  recursiveDifference(o: FieldSet): FieldSet {
    const members: PathElement[] = [];
    mergeWalk(this.members, o.members, self, self, (a) => members.push(a), undefined, undefined);
    const children: SetChild[] = [];
    for (const c of this.children) {
      if (o.hasMember(c.pe)) continue;
      const oc = o.child(c.pe);
      if (oc === undefined) {
        children.push(c);
        continue;
      }
      const s = c.set.recursiveDifference(oc);
      if (!s.empty()) children.push({ pe: c.pe, set: s });
    }
    return new FieldSet(members, children);
  }

  /** Only the paths with nothing below them. */
  leaves(): FieldSet {
    const members = this.members.filter((m) => search(this.children, m, childPe) < 0);
    return new FieldSet(
      members,
      this.children.map((c) => ({ pe: c.pe, set: c.set.leaves() })),
    );
  }

  /** Calls `fn` for every path: a node's members first, then its subtrees in order. */
  iterate(fn: (path: Path) => void): void {
    this.#iterate([], fn);
  }

  #iterate(prefix: PathElement[], fn: (path: Path) => void): void {
    for (const m of this.members) fn([...prefix, m]);
    for (const c of this.children) {
      prefix.push(c.pe);
      c.set.#iterate(prefix, fn);
      prefix.pop();
    }
  }

  paths(): Path[] {
    const out: Path[] = [];
    this.iterate((p) => out.push(p));
    return out;
  }

  toString(): string {
    return this.paths().map(pathString).join('\n');
  }
}

/**
 * Walks two sorted arrays together: `onlyA` for items only in `a`, `both`
 * for items in both, `onlyB` for items only in `b`.
 */
function mergeWalk<A, B>(
  a: readonly A[],
  b: readonly B[],
  peA: (x: A) => PathElement,
  peB: (x: B) => PathElement,
  onlyA: ((x: A) => void) | undefined,
  both: ((x: A, y: B) => void) | undefined,
  onlyB: ((y: B) => void) | undefined,
): void {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i]!;
    const y = b[j]!;
    const c = compareElements(peA(x), peB(y));
    // Indexes move outside the optional calls: `f?.(i++)` skips the increment when f is absent.
    if (c < 0) {
      i++;
      onlyA?.(x);
    } else if (c > 0) {
      j++;
      onlyB?.(y);
    } else {
      i++;
      j++;
      both?.(x, y);
    }
  }
  if (onlyA !== undefined) while (i < a.length) onlyA(a[i++]!);
  if (onlyB !== undefined) while (j < b.length) onlyB(b[j++]!);
}

function unionMembers(a: PathElement[], b: PathElement[]): PathElement[] {
  if (b.length === 0) return a.slice();
  if (a.length === 0) return b.slice();
  const out: PathElement[] = [];
  mergeWalk(a, b, self, self, (x) => out.push(x), (x) => out.push(x), (y) => out.push(y));
  return out;
}

function unionChildren(a: SetChild[], b: SetChild[]): SetChild[] {
  if (b.length === 0) return a.slice();
  if (a.length === 0) return b.slice();
  const out: SetChild[] = [];
  mergeWalk(
    a,
    b,
    childPe,
    childPe,
    (x) => out.push(x),
    (x, y) => out.push({ pe: x.pe, set: x.set.union(y.set) }),
    (y) => out.push(y),
  );
  return out;
}

/**
 * Makes every declared struct field that has a subtree a member too. A
 * field set lists a non-empty struct only through its leaves; removing the
 * set from an object must remove the struct fields themselves, so pruning
 * first lifts them to members (the original's EnsureNamedFieldsAreMembers).
 */
export function ensureNamedFieldsAreMembers(set: FieldSet, type: SchemaType | undefined): FieldSet {
  const map = type?.map;
  let members = set.members;
  if (map !== undefined) {
    for (const c of set.children) {
      if (c.pe.t === 0 && map.field(c.pe.name) !== undefined && search(members, c.pe, self) < 0) {
        if (members === set.members) members = members.slice();
        members.splice(-search(members, c.pe, self) - 1, 0, c.pe);
      }
    }
  }
  const children = set.children.map((c) => {
    let t: SchemaType | undefined;
    if (c.pe.t === 0 && map !== undefined) t = map.field(c.pe.name) ?? map.element;
    else if (c.pe.t === 1 && type?.list !== undefined) t = type.list.element;
    return { pe: c.pe, set: ensureNamedFieldsAreMembers(c.set, t) };
  });
  return new FieldSet(members === set.members ? members.slice() : members, children);
}
