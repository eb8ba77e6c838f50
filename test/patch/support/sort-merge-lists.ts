/**
 * The original tests' sortMergeListsByName: merging lists sorted by merge key
 * (primitive ones de-duplicated and sorted), recursively, so cases written
 * without regard to list order compare as the original compares them.
 */
import { goFormat } from '../../../src/patch/go-format.ts';
import { isJsonObject, type JsonObject } from '../../../src/patch/json-value.ts';
import type { SchemaLookup } from '../../../src/patch/index.ts';
import { mainStrategy } from '../../../src/patch/smp-directives.ts';
import { sliceElementKind } from '../../../src/patch/smp-order.ts';

export function sortMergeLists(obj: JsonObject, schema: SchemaLookup): JsonObject {
  const out: JsonObject = {};
  for (const [k, v] of Object.entries(obj)) {
    let value = v;
    if (k === '$retainKeys' || k.startsWith('$deleteFromPrimitiveList')) {
      value = sortScalars(v as unknown[]);
    } else if (!k.startsWith('$') && isJsonObject(v)) {
      value = sortMergeLists(v, schema.field(k).schema);
    } else if (!k.startsWith('$') && Array.isArray(v)) {
      const { meta, schema: sub } = schema.field(k);
      if (mainStrategy(meta.strategies) === 'merge') value = sortList(v, sub, meta.mergeKey);
    }
    out[k] = value;
  }
  return out;
}

function sortList(list: unknown[], schema: SchemaLookup, mergeKey: string): unknown[] {
  if (list.length === 0) return list;
  if (sliceElementKind(list) !== 'map') return sortScalars([...new Set(list)]);
  const items = list.map((x) => sortMergeLists(x as JsonObject, schema));
  return byString(items, (x) => goFormat((x as JsonObject)[mergeKey]));
}

function sortScalars(list: unknown[]): unknown[] {
  return byString(list, goFormat);
}

function byString<T>(list: readonly T[], key: (x: T) => string): T[] {
  return [...list].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
