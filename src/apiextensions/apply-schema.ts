/**
 * A custom resource version's apply schema (src/apply's SchemaType) from its
 * OpenAPI v3 schema: objects with properties are structs, additionalProperties
 * maps, lists atomic unless `x-<prefix>-list-type` says `set` or `map` (with
 * `list-map-keys`), `map-type: atomic` maps atomic; preserved unknown fields
 * and schemaless values are DEDUCED, as the original's structured-merge-diff
 * conversion of CRD schemas does.
 */
import { DEDUCED, listType, mapType, scalarType, UNTYPED_ATOMIC, type SchemaType } from '../apply/schema.ts';
import type { Json } from '../apply/value.ts';
import { MARK, schemaOf, type JSONSchemaProps } from './schema.ts';

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function applyTypeOf(root: JSONSchemaProps | undefined, objectMeta: SchemaType): SchemaType {
  if (root === undefined) return mapType({ fields: (n) => (n === 'metadata' ? objectMeta : undefined), element: DEDUCED });
  const t = convert(root);
  const fields = t.map;
  return mapType({
    atomic: false,
    fields: (n) => (n === 'metadata' ? objectMeta : n === 'apiVersion' || n === 'kind' ? scalarType('string') : fields?.field(n)),
    defaults: (n) => fields?.fieldDefault(n),
    ...(fields?.element !== undefined ? { element: fields.element } : {}),
  });
}

function convert(s: JSONSchemaProps): SchemaType {
  if (schemaOf.flag(s, MARK.intOrString)) return scalarType('untyped');
  const type = schemaOf.type(s);
  const preserve = schemaOf.flag(s, MARK.preserveUnknownFields);
  switch (type) {
    case 'string':
      return scalarType('string');
    case 'integer':
    case 'number':
      return scalarType('numeric');
    case 'boolean':
      return scalarType('boolean');
    case 'array': {
      const items = schemaOf.items(s);
      const element = items === undefined ? UNTYPED_ATOMIC : convert(items);
      const lt = s[MARK.listType];
      if (lt === 'set') return listType(element, {});
      if (lt === 'map') {
        const keys = Array.isArray(s[MARK.listMapKeys]) ? (s[MARK.listMapKeys] as string[]) : [];
        return listType(element, { keys });
      }
      return listType(element, { atomic: true });
    }
    case 'object': {
      const props = schemaOf.properties(s);
      const additional = schemaOf.additional(s);
      const atomic = s[MARK.mapType] === 'atomic';
      const converted = new Map<string, SchemaType>();
      const fieldOf = (n: string): SchemaType | undefined => {
        const p = props?.[n];
        if (!isObj(p)) return undefined;
        let ft = converted.get(n);
        if (ft === undefined) converted.set(n, (ft = convert(p)));
        return ft;
      };
      const element = isObj(additional) ? convert(additional) : additional === true || preserve ? DEDUCED : undefined;
      return mapType({
        atomic,
        ...(props !== undefined ? { fields: fieldOf } : {}),
        defaults: (n) => {
          const p = props?.[n];
          return isObj(p) && p['default'] !== undefined ? (p['default'] as Json) : undefined;
        },
        ...(element !== undefined ? { element } : props === undefined ? { element: DEDUCED } : {}),
      });
    }
    default:
      return DEDUCED;
  }
}
