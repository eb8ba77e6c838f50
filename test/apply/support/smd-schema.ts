/**
 * Reads schemas written in the original's own schema language (the YAML
 * its merge tests declare types in: `types: [{name, map|list|scalar}]`)
 * into our apply schema, so the ported test tables keep their types
 * verbatim. `__untyped_atomic_` and `__untyped_deduced_` name the shared
 * untyped types.
 */
import { parse } from 'yaml';
import { DEDUCED, UNTYPED_ATOMIC, type ListSchema, type MapSchema, type ScalarKind, type SchemaType } from '../../../src/apply/schema.ts';
import type { Json } from '../../../src/apply/value.ts';

type Raw = Record<string, unknown>;

export interface SmdSchema {
  /** The named type. */
  type(name: string): SchemaType;
}

export function smdSchema(yamlText: string): SmdSchema {
  const doc = parse(yamlText) as { types: Raw[] };
  const defs = new Map<string, Raw>();
  for (const t of doc.types) defs.set(t['name'] as string, t);
  const built = new Map<string, SchemaType>();

  const named = (name: string): SchemaType => {
    if (name === '__untyped_atomic_') return UNTYPED_ATOMIC;
    if (name === '__untyped_deduced_') return DEDUCED;
    let t = built.get(name);
    if (t === undefined) {
      const def = defs.get(name);
      if (def === undefined) throw new Error(`no type ${name}`);
      // Built in place so that recursive references find it.
      const holder: { scalar?: ScalarKind; list?: ListSchema; map?: MapSchema } = {};
      built.set(name, holder);
      Object.assign(holder, atom(def));
      t = holder;
    }
    return t;
  };

  const ref = (r: Raw | undefined): SchemaType | undefined => {
    if (r === undefined || Object.keys(r).length === 0) return undefined;
    let t: SchemaType = typeof r['namedType'] === 'string' ? named(r['namedType']) : atom(r);
    const rel = r['elementRelationship'];
    if (typeof rel === 'string') t = override(t, rel);
    return t;
  };

  const atom = (a: Raw): SchemaType => {
    const out: { scalar?: ScalarKind; list?: ListSchema; map?: MapSchema } = {};
    if (typeof a['scalar'] === 'string') out.scalar = a['scalar'] as ScalarKind;
    if (a['untyped'] !== undefined) out.scalar = 'untyped';
    const l = a['list'] as Raw | undefined;
    if (l !== undefined) {
      let element: SchemaType | undefined;
      const elementRaw = l['elementType'] as Raw | undefined;
      out.list = {
        atomic: l['elementRelationship'] !== 'associative',
        keys: (l['keys'] as string[] | undefined) ?? [],
        get element(): SchemaType {
          return (element ??= ref(elementRaw) ?? UNTYPED_ATOMIC);
        },
      };
    }
    const m = a['map'] as Raw | undefined;
    if (m !== undefined) {
      const fields = new Map<string, Raw>();
      for (const f of (m['fields'] as Raw[] | undefined) ?? []) fields.set(f['name'] as string, f);
      const resolved = new Map<string, SchemaType | undefined>();
      let element: SchemaType | undefined | null = null;
      const elementRaw = m['elementType'] as Raw | undefined;
      out.map = {
        atomic: m['elementRelationship'] === 'atomic',
        field: (name) => {
          const f = fields.get(name);
          if (f === undefined) return undefined;
          if (!resolved.has(name)) resolved.set(name, ref(f['type'] as Raw));
          return resolved.get(name);
        },
        fieldDefault: (name) => fields.get(name)?.['default'] as Json | undefined,
        get element(): SchemaType | undefined {
          if (element === null) element = ref(elementRaw);
          return element;
        },
        get deduced(): boolean {
          return fields.size === 0 && elementRaw?.['namedType'] === '__untyped_deduced_';
        },
      };
    }
    return out;
  };

  return { type: named };
}

/** A field-level `elementRelationship` overriding the referenced type's own. */
function override(t: SchemaType, rel: string): SchemaType {
  if (t.map !== undefined) {
    const base = t.map;
    return {
      ...t,
      map: {
        atomic: rel === 'atomic',
        field: (n) => base.field(n),
        fieldDefault: (n) => base.fieldDefault(n),
        get element() {
          return base.element;
        },
        get deduced() {
          return base.deduced;
        },
      },
    };
  }
  if (t.list !== undefined) {
    const base = t.list;
    return {
      ...t,
      list: {
        atomic: rel !== 'associative',
        keys: base.keys,
        get element() {
          return base.element;
        },
      },
    };
  }
  return t;
}
