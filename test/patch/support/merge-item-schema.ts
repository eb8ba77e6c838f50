/**
 * The test type of the original's strategicpatch tests (MergeItem and
 * RetainKeysMergeItem in patch_test.go), declared with our schema DSL so the
 * ported cases run through `schemaLookupFor` like real kinds do.
 */
import { ANY, BYTES, f, I64, list, map, namespace, S, type StructDecl } from '../../../src/openapi/schema-dsl.ts';
import { SchemaSet } from '../../../src/openapi/schema-set.ts';
import { schemaLookupFor, type SchemaLookup } from '../../../src/patch/index.ts';

const t = namespace('io.orch.test.strategicpatch', { group: 'test', version: 'v1' });
const item = t.ref('MergeItem');
const byName = { patchStrategy: 'merge', patchMergeKey: 'name' } as const;

export const MERGE_ITEM_TYPES: readonly StructDecl[] = [
  t.struct('MergeItem', 'Test item.', {
    name: f(S, 'Merge key.'),
    value: f(S, 'A scalar.'),
    other: f(S, 'Another scalar.'),
    mergingList: f(list(item), 'Merged by name.', byName),
    nonMergingList: f(list(item), 'Replaced.'),
    mergingIntList: f(list(I64), 'Merged as a set.', { patchStrategy: 'merge' }),
    nonMergingIntList: f(list(I64), 'Replaced.'),
    // A pointer to MergeItem in Go; the original's cases use it as a list too.
    mergeItemPtr: f(list(item), 'Merged by name.', byName),
    simpleMap: f(map(S), 'A map of strings.'),
    replacingItem: f(ANY, 'A RawExtension, replaced whole.', { patchStrategy: 'replace' }),
    jsonItem: f(t.ref('JSONItem'), 'A struct with only a Raw field.'),
    retainKeysMap: f(t.ref('RetainKeysMergeItem'), 'Cleared to the listed keys.', { patchStrategy: 'retainKeys' }),
    retainKeysMergingList: f(list(item), 'Merged by name, items cleared to their listed keys.', { patchStrategy: 'merge,retainKeys', patchMergeKey: 'name' }),
  }),
  t.struct('RetainKeysMergeItem', 'Test item under retainKeys.', {
    name: f(S, 'A scalar.'),
    value: f(S, 'A scalar.'),
    other: f(S, 'A scalar.'),
    simpleMap: f(map(S), 'A map of strings.'),
    mergingIntList: f(list(I64), 'Merged as a set.', { patchStrategy: 'merge' }),
    mergingList: f(list(item), 'Merged by name.', byName),
    nonMergingList: f(list(item), 'Replaced.'),
  }),
  t.struct('JSONItem', 'Go struct{ Raw []byte }.', { Raw: f(BYTES, 'Bytes.') }),
];

export function mergeItemSchema(): SchemaLookup {
  return schemaLookupFor(new SchemaSet(MERGE_ITEM_TYPES), t.name('MergeItem'));
}
