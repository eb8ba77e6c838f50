/**
 * JSON merge patch against RFC 7386 appendix A and the merge tests of the
 * library the original server uses (evanphx/json-patch v4 merge_test.go).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyMergePatch } from '../../src/patch/index.ts';

function merge(target: string, patch: string): unknown {
  return applyMergePatch(JSON.parse(target), JSON.parse(patch));
}

describe('merge patch: RFC 7386 appendix A', () => {
  const cases: [target: string, patch: string, result: string][] = [
    ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
    ['{"a":"b"}', '{"a":null}', '{}'],
    ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
    ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
    ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
    ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
    ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
    ['["a","b"]', '["c","d"]', '["c","d"]'],
    ['{"a":"b"}', '["c"]', '["c"]'],
    ['{"a":"foo"}', 'null', 'null'],
    ['{"a":"foo"}', '"bar"', '"bar"'],
    ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
    ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
    ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
  ];
  for (const [target, patch, result] of cases) {
    it(`${target} + ${patch}`, () => {
      const doc = JSON.parse(target) as unknown;
      const before = structuredClone(doc);
      assert.deepEqual(applyMergePatch(doc, JSON.parse(patch)), JSON.parse(result));
      assert.deepEqual(doc, before, 'the target is not modified');
    });
  }
});

describe('merge patch: evanphx/json-patch v4', () => {
  it('replaces a key', () => assert.deepEqual(merge('{ "title": "hello" }', '{ "title": "goodbye" }'), { title: 'goodbye' }));
  it('ignores other values', () => assert.deepEqual(merge('{ "title": "hello", "age": 18 }', '{ "title": "goodbye" }'), { title: 'goodbye', age: 18 }));
  it('merges into a null member', () => assert.deepEqual(merge('{ "title": null }', '{ "title": {"foo": "bar"} }'), { title: { foo: 'bar' } }));
  it('recurses into objects', () => assert.deepEqual(merge('{ "person": { "title": "hello", "age": 18 } }', '{ "person": { "title": "goodbye" } }'), { person: { title: 'goodbye', age: 18 } }));
  it('an empty list replaces a list', () => assert.deepEqual(merge('{ "array": ["one", "two"] }', '{ "array": [] }'), { array: [] }));

  const nilArray: [string, string, string][] = [
    ['{"a": [ {"b":"c"} ] }', '{"a": [1]}', '{"a": [1]}'],
    ['{"a": [ {"b":"c"} ] }', '{"a": [null, 1]}', '{"a": [null, 1]}'],
    ['["a",null]', '[null]', '[null]'],
    ['["a"]', '[null]', '[null]'],
    ['["a", "b"]', '["a", null]', '["a", null]'],
    ['{"a":["b"]}', '{"a": ["b", null]}', '{"a":["b", null]}'],
    ['{"a":[]}', '{"a": ["b", null, null, "a"]}', '{"a":["b", null, null, "a"]}'],
  ];
  for (const [target, patch, result] of nilArray) {
    it(`keeps null list elements: ${target} + ${patch}`, () => assert.deepEqual(merge(target, patch), JSON.parse(result)));
  }

  const wholesale: [string, string, string][] = [
    ['[1]', '[2]', '[2]'],
    ['{ "a": 1 }', '[2]', '[2]'],
    ['[1]', '{ "a": 1 }', '{ "a": 1 }'],
    ['{ "a": 1, "b": 1 }', '{ "a": 2 }', '{ "a": 2, "b": 1 }'],
  ];
  for (const [target, patch, result] of wholesale) {
    it(`replaces non-objects wholesale: ${target} + ${patch}`, () => assert.deepEqual(merge(target, patch), JSON.parse(result)));
  }

  it('drops null members inside objects of a list that is taken as it is', () => {
    assert.deepEqual(merge('{}', '{"a":[{"b":null,"c":1}]}'), { a: [{ c: 1 }] });
    assert.deepEqual(merge('{"a":[{"b":2}]}', '{"a":[{"b":null}]}'), { a: [{}] });
  });

  it('keeps them when the list replaces an object, as v4 does', () => {
    assert.deepEqual(merge('{"a":{"x":1}}', '{"a":[{"b":null}]}'), { a: [{ b: null }] });
  });

  it('treats __proto__ as an ordinary member', () => {
    const out = merge('{}', '{"__proto__":{"polluted":true}}') as Record<string, unknown>;
    assert.deepEqual(Object.keys(out), ['__proto__']);
    assert.equal(({} as Record<string, unknown>)['polluted'], undefined);
  });
});
