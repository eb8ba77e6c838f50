/**
 * Helpers for reading the generated documents in tests: parse bytes, walk
 * every `$ref`, find a schema by its GVK extension the way kubectl does.
 */
import type { Json, JsonObject } from '../../src/openapi/extensions.ts';

export function parse(bytes: Uint8Array): JsonObject {
  return JSON.parse(new TextDecoder().decode(bytes)) as JsonObject;
}

export function obj(v: Json | undefined): JsonObject {
  if (v === null || v === undefined || typeof v !== 'object' || Array.isArray(v)) throw new Error(`not an object: ${JSON.stringify(v)?.slice(0, 80)}`);
  return v;
}

/** Every `$ref` value anywhere in `doc`. */
export function refs(doc: Json, out: string[] = []): string[] {
  if (Array.isArray(doc)) for (const v of doc) refs(v, out);
  else if (doc !== null && typeof doc === 'object') {
    for (const [k, v] of Object.entries(doc)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

export interface Gvk {
  group: string;
  version: string;
  kind: string;
}

/** The schema whose `x-<spelling>-group-version-kind` list holds exactly this GVK. */
export function schemaByGvk(schemas: JsonObject, gvk: Gvk, spelling: 'kubernetes' | 'orch' = 'kubernetes'): [string, JsonObject] | undefined {
  for (const [name, s] of Object.entries(schemas)) {
    const list = obj(s)[`x-${spelling}-group-version-kind`];
    if (!Array.isArray(list)) continue;
    for (const e of list) {
      const o = obj(e);
      if (Object.keys(o).length === 3 && o['group'] === gvk.group && o['version'] === gvk.version && o['kind'] === gvk.kind) return [name, obj(s)];
    }
  }
  return undefined;
}

/** Follows `$ref` or a single-element `allOf` to the named schema. */
export function deref(schemas: JsonObject, s: JsonObject): JsonObject {
  const ref = s['$ref'] ?? (Array.isArray(s['allOf']) ? obj(s['allOf'][0])['$ref'] : undefined);
  if (typeof ref !== 'string') return s;
  return obj(schemas[ref.slice(ref.lastIndexOf('/') + 1)]);
}

/** A property of a struct schema, by dotted path through refs and array items. */
export function property(schemas: JsonObject, root: JsonObject, path: string): JsonObject {
  let cur = root;
  for (const part of path.split('.')) {
    let s = deref(schemas, cur);
    if (s['type'] === 'array') s = deref(schemas, obj(s['items']));
    const next = obj(s['properties'])[part];
    if (next === undefined) throw new Error(`no property ${part} in ${path}`);
    cur = obj(next);
  }
  return cur;
}
