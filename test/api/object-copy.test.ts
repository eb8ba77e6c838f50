/**
 * The request path's shallow copies (src/api/object-copy.ts) give what the
 * spreads they replace gave: the same members in the same order, the source
 * untouched, and a JSON `__proto__` member kept as a member.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { copyOf, copyWith } from '../../src/api/object-copy.ts';
import { cloneJson, setOwn } from '../../src/patch/json-value.ts';

describe('copyWith and copyOf', () => {
  it('append a new member last and replace a present one in its place, as a spread does', () => {
    const source = { op: 'get', key: '/a' };
    const added = copyWith(source, 'id', 7);
    assert.deepEqual(Object.entries(added), Object.entries({ ...source, id: 7 }));
    assert.deepEqual(Object.keys(added), ['op', 'key', 'id']);
    const replaced = copyWith({ a: 1, b: 2, c: 3 }, 'b', 9);
    assert.deepEqual(Object.entries(replaced), [['a', 1], ['b', 9], ['c', 3]]);
    assert.deepEqual(source, { op: 'get', key: '/a' }, 'the source is not changed');
    assert.notEqual(copyOf(source), source);
    assert.deepEqual(copyOf(source), source);
  });

  it('keep an own __proto__ member (as JSON.parse makes it) a member, with the ordinary prototype', () => {
    const parsed = JSON.parse('{"__proto__":{"polluted":true},"name":"x"}') as Record<string, unknown>;
    for (const copy of [copyOf(parsed), copyWith(parsed, 'managedFields', [])]) {
      assert.equal(Object.getPrototypeOf(copy), Object.prototype);
      assert.deepEqual(Object.keys(copy).slice(0, 2), ['__proto__', 'name']);
      assert.deepEqual(Object.getOwnPropertyDescriptor(copy, '__proto__')?.value, { polluted: true });
      assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    }
    const named = copyWith({ a: 1 }, '__proto__', { polluted: true });
    assert.equal(Object.getPrototypeOf(named), Object.prototype);
    assert.deepEqual(Object.keys(named), ['a', '__proto__']);
  });
});

describe('setOwn and cloneJson', () => {
  it('copy deeply, __proto__ members included, leaving every prototype alone', () => {
    const parsed = JSON.parse('{"a":{"__proto__":{"x":1},"b":[{"__proto__":2},3]},"c":null}') as Record<string, unknown>;
    const copy = cloneJson(parsed);
    assert.equal(JSON.stringify(copy), JSON.stringify(parsed));
    const a = copy['a'] as Record<string, unknown>;
    assert.equal(Object.getPrototypeOf(a), Object.prototype);
    assert.notEqual(a, parsed['a'], 'a deep copy');
    const target: Record<string, unknown> = { keep: 1 };
    setOwn(target, '__proto__', { y: 2 });
    setOwn(target, 'keep', 3);
    assert.equal(Object.getPrototypeOf(target), Object.prototype);
    assert.deepEqual(Object.keys(target), ['keep', '__proto__']);
    assert.equal(target['keep'], 3);
  });
});
