/**
 * Strategic merge patch against the original's own test tables
 * (apimachinery pkg/util/strategicpatch/patch_test.go, converted to
 * fixtures/strategicpatch-cases.json): each case's two-way patch applied to
 * its original, and its three-way patch applied to its current object, must
 * give the result the original expects. Cases the original compares after
 * sorting merge lists by key are sorted here the same way, inputs included;
 * "raw" cases compare exactly, list order and all.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { applyStrategicMergePatch, PatchError } from '../../src/patch/index.ts';
import type { JsonObject } from '../../src/patch/json-value.ts';
import { mergeItemSchema } from './support/merge-item-schema.ts';
import { sortMergeLists } from './support/sort-merge-lists.ts';

interface Case {
  description: string;
  original?: JsonObject | null;
  twoWay?: JsonObject | null;
  modified?: JsonObject | null;
  current?: JsonObject | null;
  threeWay?: JsonObject | null;
  result?: JsonObject | null;
  twoWayResult?: JsonObject | null;
  expectedError?: string;
}

interface Fixture {
  source: string;
  customCases: Case[];
  customRawCases: Case[];
  createCases: Case[];
  rawCases: Case[];
  replaceRawExtensionCases: Case[];
}

const fixture = JSON.parse(readFileSync(new URL('./fixtures/strategicpatch-cases.json', import.meta.url), 'utf8')) as Fixture;
const schema = mergeItemSchema();
const sorted = (o: JsonObject | null | undefined): JsonObject => sortMergeLists(o ?? {}, schema);
const exact = (o: JsonObject | null | undefined): JsonObject => o ?? {};

/** Applies `patch` to `base` and checks the outcome: the expected object, or an error containing `expectedError`. */
function check(base: JsonObject, patch: JsonObject, expected: JsonObject | undefined, expectedError: string | undefined, prepare: (o: JsonObject) => JsonObject): void {
  if (expectedError !== undefined) {
    assert.throws(() => applyStrategicMergePatch(base, patch, schema), (e: unknown) => e instanceof PatchError && e.message.includes(expectedError));
    return;
  }
  const before = structuredClone(base);
  assert.deepEqual(applyStrategicMergePatch(base, patch, schema), prepare(expected ?? {}));
  assert.deepEqual(base, before, 'the original object is not modified');
}

function runCases(cases: Case[], prepare: (o: JsonObject | null | undefined) => JsonObject): void {
  for (const c of cases) {
    if (c.twoWay !== undefined && c.twoWay !== null) {
      it(`${c.description} (two-way)`, () => {
        check(prepare(c.original), prepare(c.twoWay), c.twoWayResult ?? c.modified ?? undefined, c.expectedError, prepare);
      });
    }
    if (c.threeWay !== undefined && c.threeWay !== null && c.result !== undefined && c.result !== null) {
      it(`${c.description} (three-way)`, () => {
        check(prepare(c.current), prepare(c.threeWay), c.result ?? undefined, c.expectedError, prepare);
      });
    }
  }
}

describe(`strategic merge patch: ${fixture.source}`, () => {
  it('carries every table of the original', () => {
    assert.equal(fixture.customCases.length, 18);
    assert.equal(fixture.customRawCases.length, 10);
    assert.equal(fixture.createCases.length, 22);
    assert.equal(fixture.rawCases.length, 94);
    assert.equal(fixture.replaceRawExtensionCases.length, 2);
  });
  describe('customStrategicMergePatchTestCaseData', () => runCases(fixture.customCases, sorted));
  describe('customStrategicMergePatchRawTestCases', () => runCases(fixture.customRawCases, exact));
  describe('createStrategicMergePatchTestCaseData', () => runCases(fixture.createCases, sorted));
  describe('strategicMergePatchRawTestCases', () => runCases(fixture.rawCases, exact));
  describe('replaceRawExtensionPatchTestCases', () => runCases(fixture.replaceRawExtensionCases, exact));
});

/**
 * TestUnknownField of the original: fields the schema does not declare are
 * taken from the patch as they are (nulls dropped) when the original lacks
 * them, and are an error when both sides have them as objects.
 */
describe('strategic merge patch: TestUnknownField', () => {
  const cases: { name: string; original: string; patch: string; result?: string; error?: string }[] = [
    { name: 'no diff', original: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}', patch: '{}', result: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}' },
    { name: 'no diff even if modified null', original: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}', patch: '{"complex_nullable":{"key":null}}', result: '{"array":[1,2,3],"complex":{"nested":true},"complex_nullable":{},"name":"foo","scalar":true}' },
    { name: 'discard nulls in nested and adds not nulls', original: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}', patch: '{"complex_nullable":{"key":{"keynotnull":"value","keynull":null}}}', result: '{"array":[1,2,3],"complex":{"nested":true},"complex_nullable":{"key":{"keynotnull":"value"}},"name":"foo","scalar":true}' },
    { name: 'discard if modified all nulls', original: '{}', patch: '{"complex":{"nested":null}}', result: '{"complex":{}}' },
    { name: 'add only not nulls', original: '{}', patch: '{"complex":{"nested":null,"nested2":"foo"}}', result: '{"complex":{"nested2":"foo"}}' },
    { name: 'null values in original are preserved', original: '{"thing":null}', patch: '{"nested":{"value":5}}', result: '{"nested":{"value":5},"thing":null}' },
    { name: 'nested null values in original are preserved', original: '{"complex":{"key":null},"thing":null}', patch: '{"nested":{"value":5}}', result: '{"complex":{"key":null},"nested":{"value":5},"thing":null}' },
    { name: 'add empty slices', original: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}', patch: '{"complex_nullable":[]}', result: '{"array":[1,2,3],"complex":{"nested":true},"complex_nullable":[],"name":"foo","scalar":true}' },
    { name: 'filter nulls from nested slices', original: '{}', patch: '{"complex_nullable":[{"inner_one":{"key_one":"foo","key_two":null}}]}', result: '{"complex_nullable":[{"inner_one":{"key_one":"foo"}}]}' },
    { name: 'filter if slice is all empty', original: '{}', patch: '{"complex_nullable":[{"inner_one":{"key_one":null,"key_two":null}}]}', result: '{"complex_nullable":[{"inner_one":{}}]}' },
    { name: 'not filter nulls from non-associative slice', original: '{}', patch: '{"complex_nullable":["key1",null,"key2"]}', result: '{"complex_nullable":["key1",null,"key2"]}' },
    { name: 'added only', original: '{"name":"foo"}', patch: '{"array":[1,2,3],"complex":{"nested":true},"scalar":true}', result: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}' },
    { name: 'removed only', original: '{"name":"foo","scalar":true,"complex":{"nested":true},"array":[1,2,3]}', patch: '{"complex":null,"scalar":null}', result: '{"array":[1,2,3],"name":"foo"}' },
    // The patches the original's diff would have made had it not failed first.
    { name: 'diff', original: '{"array":[1,2,3],"complex":{"nested":true},"name":"foo","scalar":true}', patch: '{"complex":{"nested":false}}', error: 'unable to find api field in struct MergeItem for the json field "complex"' },
    { name: 'json', original: '{"name":"foo","jsonItem":{"nested":{"nested2":{"nested3":{}}}}}', patch: '{"jsonItem":{"nested":{"nested2":{"nested3":{"a":"b"}}}}}', error: 'unable to find api field in struct JSONItem for the json field "nested"' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const run = (): unknown => applyStrategicMergePatch(JSON.parse(c.original) as JsonObject, JSON.parse(c.patch) as JsonObject, schema);
      if (c.error !== undefined) {
        assert.throws(run, (e: unknown) => e instanceof PatchError && e.code === 500 && e.message === c.error);
      } else {
        assert.deepEqual(run(), JSON.parse(c.result!));
      }
    });
  }
});
