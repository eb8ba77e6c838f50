/**
 * SchemaSet: a checked collection of struct declarations. It resolves names,
 * flattens embedded structs into their hosts, finds kinds by group/version/
 * kind, and walks what a set of schemas references (the closure a document
 * must carry). Construction fails on dangling references, so a typo in a
 * declaration breaks the build rather than producing a broken document.
 */
import type { FieldDecl, GroupVersionKind, StructDecl, TypeExpr } from './schema-dsl.ts';

export function gvkKey(gvk: GroupVersionKind): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

export class SchemaSet {
  readonly #byName = new Map<string, StructDecl>();
  readonly #byGvk = new Map<string, StructDecl>();
  readonly #flat = new Map<string, Readonly<Record<string, FieldDecl>>>();

  constructor(decls: Iterable<StructDecl>) {
    for (const d of decls) {
      if (this.#byName.has(d.name)) throw new Error(`schema ${d.name} declared twice`);
      this.#byName.set(d.name, d);
      if (d.gvk !== undefined) {
        const key = gvkKey(d.gvk);
        if (this.#byGvk.has(key)) throw new Error(`kind ${key} declared twice`);
        this.#byGvk.set(key, d);
      }
    }
    for (const d of this.#byName.values()) this.#check(d);
  }

  get size(): number {
    return this.#byName.size;
  }

  names(): IterableIterator<string> {
    return this.#byName.keys();
  }

  get(name: string): StructDecl | undefined {
    return this.#byName.get(name);
  }

  byKind(gvk: GroupVersionKind): StructDecl | undefined {
    return this.#byGvk.get(gvkKey(gvk));
  }

  /** Fields as they appear in JSON: embedded structs' fields first, then the struct's own. */
  fields(name: string): Readonly<Record<string, FieldDecl>> {
    const cached = this.#flat.get(name);
    if (cached !== undefined) return cached;
    const decl = this.#require(name);
    const out: Record<string, FieldDecl> = {};
    for (const e of decl.embeds ?? []) Object.assign(out, this.fields(e.name));
    Object.assign(out, decl.fields);
    this.#flat.set(name, out);
    return out;
  }

  /**
   * Names of every struct reachable from `roots` through field types (not
   * embeds: embedded structs only lend their fields), roots included.
   */
  closure(roots: Iterable<string>): Set<string> {
    const seen = new Set<string>();
    const stack = [...roots];
    while (stack.length > 0) {
      const name = stack.pop()!;
      if (seen.has(name)) continue;
      seen.add(name);
      for (const field of Object.values(this.fields(name))) collectRefs(field.type, stack);
    }
    return seen;
  }

  #require(name: string): StructDecl {
    const d = this.#byName.get(name);
    if (d === undefined) throw new Error(`unknown schema ${name}`);
    return d;
  }

  #check(d: StructDecl): void {
    for (const e of d.embeds ?? []) if (!this.#byName.has(e.name)) throw new Error(`${d.name} embeds unknown ${e.name}`);
    for (const [field, decl] of Object.entries(d.fields)) {
      const refs: string[] = [];
      collectRefs(decl.type, refs);
      for (const r of refs) if (!this.#byName.has(r)) throw new Error(`${d.name}.${field} references unknown ${r}`);
      if (decl.listMapKeys !== undefined && decl.listType !== 'map') throw new Error(`${d.name}.${field}: listMapKeys needs listType map`);
    }
  }
}

export function collectRefs(t: TypeExpr, into: string[]): void {
  switch (t.kind) {
    case 'ref':
      into.push(t.name);
      return;
    case 'array':
      collectRefs(t.items, into);
      return;
    case 'map':
      collectRefs(t.values, into);
      return;
    default:
      return;
  }
}
