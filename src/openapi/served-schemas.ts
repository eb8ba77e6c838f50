/**
 * The schemas behind the served resource types: the declared ones, a `List`
 * kind for each listed kind, and, for a served kind nobody declared yet, a
 * minimal schema (apiVersion, kind, metadata; other fields kept as sent) so
 * every served kind still carries its GVK extension.
 */
import type { ResourceType } from '../registry/resource-type.ts';
import { f, LIST_META, list, OBJECT_META, typeMetaFields, type GroupVersionKind, type StructDecl } from './schema-dsl.ts';
import { gvkKey, SchemaSet } from './schema-set.ts';
import { groupPackage } from './gvk.ts';
import { streamingKind, subresourceGvk } from './subresources.ts';
import { ALL_TYPES } from './types/index.ts';
import { INTERNAL_SCHEMA_PREFIX } from '../naming/index.ts';

export interface ServedSchemas {
  readonly set: SchemaSet;
  /** Schema name of a kind that a served type or subresource uses. */
  kindSchema(gvk: GroupVersionKind): string;
  /** Schema name of a kind's list. */
  listSchema(gvk: GroupVersionKind): string;
  /**
   * The kind's schema describes all its top-level fields: clients may compute
   * strategic merge patches from it. False for fallback and shallow kinds.
   */
  isDescribed(gvk: GroupVersionKind): boolean;
}

export function servedSchemas(types: readonly ResourceType[], declared: readonly StructDecl[] = ALL_TYPES): ServedSchemas {
  const base = new SchemaSet(declared);
  const extra = new Map<string, StructDecl>();
  const kindNames = new Map<string, string>();
  const listNames = new Map<string, string>();
  const taken = new Set<string>(base.names());

  const uniqueName = (wanted: string): string => {
    let name = wanted;
    for (let i = 2; taken.has(name); i++) name = `${wanted}${i}`;
    taken.add(name);
    return name;
  };
  const ensureKind = (gvk: GroupVersionKind, topLevel: boolean): string => {
    const key = gvkKey(gvk);
    const known = kindNames.get(key) ?? base.byKind(gvk)?.name;
    if (known !== undefined) {
      kindNames.set(key, known);
      return known;
    }
    const name = uniqueName(`${INTERNAL_SCHEMA_PREFIX}.api.${groupPackage(gvk.group)}.${gvk.version}.${gvk.kind}`);
    const apiVersion = gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
    const fields = topLevel
      ? { ...typeMetaFields(), metadata: f({ kind: 'ref', name: OBJECT_META }, 'Standard object metadata.', { proto: 1 }) }
      : typeMetaFields();
    extra.set(name, {
      name,
      description: `${gvk.kind} (${apiVersion}). Its fields are not described here; they are kept as sent.`,
      fields,
      gvk,
      preserveUnknownFields: true,
    });
    kindNames.set(key, name);
    return name;
  };
  const ensureList = (gvk: GroupVersionKind, itemSchema: string): void => {
    const key = gvkKey(gvk);
    if (listNames.has(key)) return;
    const listGvk = { ...gvk, kind: `${gvk.kind}List` };
    const declaredList = base.byKind(listGvk)?.name;
    if (declaredList !== undefined) {
      listNames.set(key, declaredList);
      return;
    }
    const name = uniqueName(`${itemSchema}List`);
    extra.set(name, {
      name,
      description: `A list of ${gvk.kind} objects.`,
      fields: {
        ...typeMetaFields(),
        metadata: f({ kind: 'ref', name: LIST_META }, 'List metadata: resource version and continue token.', { proto: 1 }),
        items: f(list({ kind: 'ref', name: itemSchema }), `The ${gvk.kind} objects.`, { required: true, proto: 2 }),
      },
      gvk: listGvk,
    });
    listNames.set(key, name);
  };

  for (const rt of types) {
    const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
    const name = ensureKind(gvk, true);
    if (rt.verbs.includes('list')) ensureList(gvk, name);
  }
  for (const rt of types) {
    for (const sub of rt.subresources) if (streamingKind(sub) === undefined) ensureKind(subresourceGvk(rt, sub), false);
  }

  const set = new SchemaSet([...declared, ...extra.values()]);
  const describedCache = new Map<string, boolean>();
  return {
    set,
    kindSchema: (gvk) => kindNames.get(gvkKey(gvk)) ?? ensureKnown(set, gvk),
    listSchema: (gvk) => {
      const name = listNames.get(gvkKey(gvk));
      if (name === undefined) throw new Error(`no list schema for ${gvkKey(gvk)}`);
      return name;
    },
    isDescribed: (gvk) => {
      const key = gvkKey(gvk);
      let v = describedCache.get(key);
      if (v === undefined) {
        const decl = set.byKind(gvk);
        v = decl !== undefined && !extra.has(decl.name) && !decl.preserveUnknownFields && topLevelFieldsDescribed(set, decl.name);
        describedCache.set(key, v);
      }
      return v;
    },
  };
}

function ensureKnown(set: SchemaSet, gvk: GroupVersionKind): string {
  const decl = set.byKind(gvk);
  if (decl === undefined) throw new Error(`no schema for kind ${gvkKey(gvk)}`);
  return decl.name;
}

/** No top-level field is an opaque object or a list or map of them. */
function topLevelFieldsDescribed(set: SchemaSet, name: string): boolean {
  for (const field of Object.values(set.fields(name))) {
    let t = field.type;
    while (t.kind === 'array' || t.kind === 'map') t = t.kind === 'array' ? t.items : t.values;
    if (t.kind === 'opaque' || t.kind === 'any') return false;
  }
  return true;
}
