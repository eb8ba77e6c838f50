/**
 * Field paths and field sets (src/apply/path.ts, field-set.ts,
 * fields-v1.ts): element order and printing, the set algebra, and the
 * FieldsV1 form byte for byte. Cases ported from the original's fieldpath
 * tests (element_test, path_test, set_test, serialize-pe_test,
 * serialize_test).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ensureNamedFieldsAreMembers, FieldSet } from '../../src/apply/field-set.ts';
import { FieldsV1Error, fromFieldsV1, toFieldsV1 } from '../../src/apply/fields-v1.ts';
import {
  compareElements,
  fieldElement,
  indexElement,
  keyOf,
  parseElement,
  PathElementError,
  pathString,
  UNKNOWN_ELEMENT,
  valueElement,
  type Path,
  type PathElement,
} from '../../src/apply/path.ts';
import { toFieldSet } from '../../src/apply/typed.ts';
import type { Json } from '../../src/apply/value.ts';
import { parsePath, setOf } from './support/paths.ts';
import { smdSchema } from './support/smd-schema.ts';
import { yaml } from './support/fixture.ts';

const f = fieldElement;
const k = keyOf;
const v = valueElement;
const i = indexElement;

describe('path elements: FieldsV1 keys round trip (serialize-pe_test)', () => {
  const cases: [string, PathElement][] = [
    ['i:0', i(0)],
    ['i:1234', i(1234)],
    ['f:', f('')],
    ['f:spec', f('spec')],
    ['f:more-complicated-string', f('more-complicated-string')],
    ['f: string-with-spaces   ', f(' string-with-spaces   ')],
    ['f:abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789', f('abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789')],
    ['k:{"name":"my-container"}', k({ name: 'my-container' })],
    ['k:{"name":"   name with spaces   "}', k({ name: '   name with spaces   ' })],
    ['k:{"port":"8080","protocol":"TCP"}', k({ protocol: 'TCP', port: '8080' })],
    ['k:{"optionalField":null}', k({ optionalField: null })],
    ['k:{"jsonField":{"A":1,"B":null,"C":"D","E":{"F":"G"}}}', k({ jsonField: { E: { F: 'G' }, C: 'D', B: null, A: 1 } })],
    ['k:{"listField":["1","2","3"]}', k({ listField: ['1', '2', '3'] })],
    ['v:null', v(null)],
    ['v:"some-string"', v('some-string')],
    ['v:1234', v(1234)],
    ['v:{"some":"json"}', v({ some: 'json' })],
    ['v:{"some":" some  with spaces  "}', v({ some: ' some  with spaces  ' })],
    ['k:{"name":"app-🚀"}', k({ name: 'app-🚀' })],
    ['k:{"name":"app-💻"}', k({ name: 'app-💻' })],
    ['k:{"name":"app with-unicøde"}', k({ name: 'app with-unicøde' })],
    ['k:{"name":"你好世界"}', k({ name: '你好世界' })],
    ['k:{"name":"Привет, мир"}', k({ name: 'Привет, мир' })],
    ['k:{"name":"नमस्ते दुनिया"}', k({ name: 'नमस्ते दुनिया' })],
    ['k:{"name":"👋"}', k({ name: '👋' })],
    ['f:spec-🚀', f('spec-🚀')],
    ['f:spec-\\n', f('spec-\\n')],
  ];
  for (const [s, pe] of cases) {
    it(s, () => {
      const parsed = parseElement(s);
      assert.notEqual(parsed, UNKNOWN_ELEMENT);
      assert.equal((parsed as PathElement).id, s);
      assert.equal(compareElements(parsed as PathElement, pe), 0);
      assert.equal(pe.id, s);
    });
  }

  it('skips unknown prefixes', () => {
    assert.equal(parseElement('r:Hello'), UNKNOWN_ELEMENT);
  });

  const bad = [
    '',
    'no-colon',
    'i:index is not a number',
    'i:1.23',
    'i:',
    'v:invalid json',
    'v:',
    'k:invalid json',
    'k:{"name":invalid}',
    'v:{"some":" \\x41"}',
    'v',
    'k',
    'f',
    'i',
    'v:{"a":"b"',
    'k:{"a":"b"',
    'i: 0',
    'i:0 ',
    'v:{"some":"json"} {"other":"json"}',
    'k:{"name":"my-container"} {"other":"my-container"}',
    'v:{"some":"json"} garbage',
    'k:{"name":"my-container"} garbage',
  ];
  for (const s of bad) {
    it(`rejects ${JSON.stringify(s)}`, () => {
      assert.throws(() => parseElement(s), PathElementError);
    });
  }

  const accepted: [string, PathElement][] = [
    ['v: {"some":"json"}', v({ some: 'json' })],
    ['k: {"name":"my-container"}', k({ name: 'my-container' })],
    ['v:{"some":"json"} ', v({ some: 'json' })],
    ['k:{"name":"my-container"} ', k({ name: 'my-container' })],
    ['k:{"name\\u002dcontainer":"my-container"}', k({ 'name-container': 'my-container' })],
    ['k:{"name\\nwith\\nnewlines":"my-container"}', k({ 'name\nwith\nnewlines': 'my-container' })],
    ['k:{"name\\"quoted\\"":"my-container"}', k({ 'name"quoted"': 'my-container' })],
    ['k:{"name-\\ud83d\\ude80":"my-container"}', k({ 'name-🚀': 'my-container' })],
    ['k:{"\\u4f60\\u597d":"\\u4e16\\u754c"}', k({ 你好: '世界' })],
    ['v:"value\\u002dcontainer"', v('value-container')],
    ['v:"value\\nwith\\nnewlines"', v('value\nwith\nnewlines')],
    ['v:"value\\"quoted\\""', v('value"quoted"')],
    ['v:"value-\\ud83d\\ude80"', v('value-🚀')],
    ['v:"\\u4f60\\u597d"', v('你好')],
    ['k:{"name-🚀":"my-container"}', k({ 'name-🚀': 'my-container' })],
    ['v:"value-🚀"', v('value-🚀')],
  ];
  for (const [s, pe] of accepted) {
    it(`reads ${s}`, () => {
      assert.equal((parseElement(s) as PathElement).id, pe.id);
    });
  }

  it('escapes HTML characters as Go does', () => {
    assert.equal(v('<a&b>').id, 'v:"\\u003ca\\u0026b\\u003e"');
  });
});

describe('path element order (element_test)', () => {
  const less: [string, PathElement, PathElement][] = [
    ['FieldName-1', f('anteater'), f('zebra')],
    ['FieldName-3', f('capybara'), k({ dog: 3 })],
    ['FieldName-4', f('elephant'), v(4)],
    ['FieldName-5', f('falcon'), i(5)],
    ['Key-2', k({ horse: 1 }), k({ horse: 2 })],
    ['Key-3', k({ ibex: 1 }), k({ jay: 1 })],
    ['Key-4', k({ kite: 1 }), k({ kite: 1, 'kite-2': 1 })],
    ['Key-5', k({ kite: 1 }), v(1)],
    ['Key-6', k({ kite: 1 }), i(5)],
    ['Value-1', v(1), v(2)],
    ['Value-3', v(1), i(1)],
    ['Index-1', i(1), i(2)],
    ['numbers before strings before booleans', v(3), v('aa')],
    ['numbers compare numerically', v(9), v(10)],
    ['code point order', f('\uffff'), f('\u{1f680}')],
  ];
  for (const [name, a, b] of less) {
    it(name, () => {
      assert.equal(compareElements(a, b), -1);
      assert.equal(compareElements(b, a), 1);
    });
  }
  const eq: [string, PathElement, PathElement][] = [
    ['FieldName-2', f('bee'), f('bee')],
    ['Key-1', k({ goat: 1 }), k({ goat: 1 })],
    ['Value-2', v(1), v(1)],
    ['Index-2', i(1), i(1)],
  ];
  for (const [name, a, b] of eq) {
    it(name, () => assert.equal(compareElements(a, b), 0));
  }
});

describe('path strings (path_test)', () => {
  const cases: [string, Path, string][] = [
    ['basic1', [f('foo'), i(1)], '.foo[1]'],
    ['basic2', [f('foo'), f('bar'), i(1), f('baz')], '.foo.bar[1].baz'],
    ['associative-list-ref', [f('foo'), k({ a: 'b', c: 1, d: 1.5, e: true })], '.foo[a="b",c=1,d=1.5,e=true]'],
    ['sets', [f('foo'), v('b'), v(5), v(false), v(3.14159)], '.foo[="b"][=5][=false][=3.14159]'],
    ['simple field', [f('spec')], '.spec'],
    ['app container image', [f('spec'), f('apps'), k({ name: 'app-🚀' }), f('container'), f('image')], '.spec.apps[name="app-🚀"].container.image'],
    [
      'app port',
      [f('spec'), f('apps'), k({ name: 'app-💻' }), f('container'), f('ports'), k({ name: 'port-🔑' }), f('containerPort')],
      '.spec.apps[name="app-💻"].container.ports[name="port-🔑"].containerPort',
    ],
    ['field with space', [f('spec'), f('field with space')], '.spec.field with space'],
    ['value with space', [f('spec'), f('apps'), v('app with space'), f('container'), f('image')], '.spec.apps[="app with space"].container.image'],
    ['value with quotes', [f('spec'), f('apps'), v('app with "quotes"'), f('container'), f('image')], '.spec.apps[="app with \\"quotes\\""].container.image'],
    ['value with unicode', [f('spec'), f('apps'), v('app-with-unicøde'), f('container'), f('image')], '.spec.apps[="app-with-unicøde"].container.image'],
    ['float in exponent form', [f('x'), v(1234567.5)], '.x[=1.2345675e+06]'],
  ];
  for (const [name, path, want] of cases) {
    it(name, () => {
      assert.equal(pathString(path), want);
      assert.equal(pathString(parsePath(want)), want);
    });
  }
});

describe('set algebra (set_test)', () => {
  it('inserts and finds paths', () => {
    const s = setOf('.foo[0].bar.baz', '.foo[0].bar', '.qux[name="first"]');
    assert.ok(s.has(parsePath('.foo[0].bar')));
    assert.ok(s.has(parsePath('.foo[0].bar.baz')));
    assert.ok(!s.has(parsePath('.foo[0]')));
    assert.ok(!s.has(parsePath('.qux[name="second"]')));
    assert.ok(!s.has([]));
    assert.equal(s.size(), 3);
  });

  it('prints a single path as the path', () => {
    assert.equal(setOf('.foo[name="first"]').toString(), '.foo[name="first"]');
  });

  it('iterates every path once (members first, then subtrees)', () => {
    const s = setOf(
      '.foo[0].bar.baz',
      '.foo[0].bar.zot',
      '.foo[0].bar',
      '.foo[0]',
      '.foo[1].bar.baz',
      '.foo[1].bar',
      '.qux[name="first"]',
      '.qux[name="first"].bar',
      '.qux[name="second"].bar',
    );
    const seen: string[] = [];
    const rebuilt = new FieldSet();
    s.iterate((p) => {
      assert.equal(rebuilt.size(), seen.length);
      seen.push(pathString(p));
      rebuilt.insert(p);
    });
    assert.ok(rebuilt.equals(s));
    assert.deepEqual(seen.slice(0, 2), ['.foo[0]', '.foo[0].bar']);
  });

  it('union', () => {
    const s1 = setOf('.foo[0]', '.foo', '.bar.baz', '.qux[name="first"]', '.parent.child.grandchild');
    const s2 = setOf('.foo[1]', '.bar.baz', '.bar', '.qux[name="second"]', '.parent.child');
    const u = setOf(
      '.foo[0]',
      '.foo[1]',
      '.foo',
      '.bar.baz',
      '.bar',
      '.qux[name="first"]',
      '.qux[name="second"]',
      '.parent.child',
      '.parent.child.grandchild',
    );
    assert.ok(s1.union(s2).equals(u));
    assert.ok(s2.union(s1).equals(u));
  });

  const s1 = setOf('.a0', '.a1', '.foo[0]', '.foo[1]', '.b0[name="first"]', '.b1[name="first"]', '.bar.c0', '.cp[name="first"].child');
  const s2 = setOf('.a1', '.a2', '.foo[1]', '.foo[2]', '.b1[name="first"]', '.b2[name="first"]', '.bar.c2', '.cp[name="first"]');
  const intersection = setOf('.a1', '.foo[1]', '.b1[name="first"]');

  it('intersection', () => assert.ok(s1.intersection(s2).equals(intersection)));
  it('s1 - s2', () => assert.ok(s1.difference(s2).equals(setOf('.a0', '.foo[0]', '.b0[name="first"]', '.bar.c0', '.cp[name="first"].child'))));
  it('s2 - s1', () => assert.ok(s2.difference(s1).equals(setOf('.a2', '.foo[2]', '.b2[name="first"]', '.bar.c2', '.cp[name="first"]'))));
  it('intersection the hard way', () => {
    const u = s1.union(s2);
    const notIntersection = s2.difference(s1).union(s1.difference(s2));
    assert.ok(u.difference(notIntersection).equals(intersection));
  });

  const differences: [string, string[], string[], string[], string[]][] = [
    ['removes simple path', ['.a'], ['.a'], [], []],
    ['removes direct path', ['.a.b.c'], ['.a.b.c'], [], []],
    ['only removes matching child', ['.a.b.c', '.b.b.c'], ['.a.b.c'], ['.b.b.c'], ['.b.b.c']],
    ['does not remove parent of specific path', ['.a'], ['.a.aa'], ['.a'], ['.a']],
    ['RecursiveDifference removes nested path', ['.a.b.c'], ['.a'], ['.a.b.c'], []],
    ['RecursiveDifference only removes nested path for matching children', ['.a.aa.aab', '.a.ab.aba'], ['.a.aa'], ['.a.aa.aab', '.a.ab.aba'], ['.a.ab.aba']],
    ['RecursiveDifference removes all matching children', ['.a.aa.aab', '.a.ab.aba'], ['.a'], ['.a.aa.aab', '.a.ab.aba'], []],
  ];
  for (const [name, a, b, diff, rdiff] of differences) {
    it(name, () => {
      assert.ok(setOf(...a).difference(setOf(...b)).equals(setOf(...diff)));
      assert.ok(setOf(...a).recursiveDifference(setOf(...b)).equals(setOf(...rdiff)));
    });
  }

  const leaves: [string, string[], string[]][] = [
    ['empty set', [], []],
    ['all leaves', ['.path1', '.path2', '.path3'], ['.path1', '.path2', '.path3']],
    ['only one leaf', ['.root', '.root.l1', '.root.l1.l2', '.root.l1.l2.l3'], ['.root.l1.l2.l3']],
    [
      'multiple values, check for overwrite',
      ['.root[name="a"]', '.root[name="a"].name', '.root[name="a"].value.b', '.root[name="a"].value.c'],
      ['.root[name="a"].name', '.root[name="a"].value.b', '.root[name="a"].value.c'],
    ],
    [
      'multiple values and nested',
      ['.root[name="a"]', '.root[name="a"].name', '.root[name="a"].value.b', '.root[name="a"].value.b.d', '.root[name="a"].value.c'],
      ['.root[name="a"].name', '.root[name="a"].value.b.d', '.root[name="a"].value.c'],
    ],
    [
      'all-in-one',
      [
        '.root',
        '.root[name="a"]',
        '.root[name="a"].name',
        '.root[name="a"].value.b',
        '.root[name="a"].value.b.c',
        '.root[name="a"].value.d',
        '.root[name="a"].value.e',
        '.root.x',
        '.root.x.y',
        '.root.x.z',
        '.root[name="p"]',
        '.root[name="p"].name',
        '.root[name="p"].value.q',
      ],
      [
        '.root[name="a"].name',
        '.root[name="a"].value.b.c',
        '.root[name="a"].value.d',
        '.root[name="a"].value.e',
        '.root.x.y',
        '.root.x.z',
        '.root[name="p"].name',
        '.root[name="p"].value.q',
      ],
    ],
  ];
  for (const [name, input, want] of leaves) {
    it(`leaves: ${name}`, () => assert.ok(setOf(...input).leaves().equals(setOf(...want))));
  }

  it('equality sees members and subtrees', () => {
    assert.ok(!setOf('.a').equals(setOf('.a.b')));
    assert.ok(!setOf('.a', '.a.b').equals(setOf('.a.b')));
    assert.ok(setOf('.a.b', '.a').equals(setOf('.a', '.a.b')));
    assert.ok(new FieldSet().empty());
    assert.ok(setOf('.a').difference(setOf('.a')).empty());
  });
});

describe('EnsureNamedFieldsAreMembers (set_test)', () => {
  const nested = smdSchema(`types:
- name: type
  map:
    elementType:
      namedType: type
    fields:
      - name: keyAStr
        type:
          scalar: string
      - name: keyBInt
        type:
          scalar: numeric
      - name: named
        type:
          namedType: type
      - name: list
        type:
          list:
            elementRelationship: associative
            keys: ["keyAStr", "keyBInt"]
            elementType:
              namedType: type
      - name: a
        type:
          namedType: type
      - name: value
        type:
          scalar: numeric
`).type('type');
  const assocList = (keys: string) =>
    smdSchema(`types:
- name: type
  map:
    fields:
      - name: values
        type:
          list:
            elementRelationship: associative
            keys: ${keys}
            elementType:
              map:
                fields:
                  - name: keyAStr
                    type:
                      scalar: string
                  - name: keyBInt
                    type:
                      scalar: numeric
                  - name: value
                    type:
                      scalar: numeric
`).type('type');
  const cases: [string, ReturnType<typeof assocList>, ReturnType<typeof assocList>, string[], string[]][] = [
    ['{"named": {"named": {"value": 0}}}', nested, nested, ['.named.named.value'], ['.named.named.value', '.named.named', '.named']],
    [
      '{"named": {"a": {"named": {"value": 42}}}, "a": {"named": {"value": 1}}}',
      nested,
      nested,
      ['.named.a.named.value', '.a.named.value'],
      ['.named.a.named.value', '.named.a.named', '.named.a', '.named', '.a.named.value', '.a.named', '.a'],
    ],
    [
      '{"named": {"list": [{"keyAStr": "a", "keyBInt": 1, "named": {"value": 0}}]}}',
      nested,
      nested,
      [
        '.named.list[keyAStr="a",keyBInt=1].keyAStr',
        '.named.list[keyAStr="a",keyBInt=1].keyBInt',
        '.named.list[keyAStr="a",keyBInt=1].named.value',
        '.named.list[keyAStr="a",keyBInt=1]',
      ],
      [
        '.named.list[keyAStr="a",keyBInt=1].keyAStr',
        '.named.list[keyAStr="a",keyBInt=1].keyBInt',
        '.named.list[keyAStr="a",keyBInt=1].named.value',
        '.named.list[keyAStr="a",keyBInt=1].named',
        '.named.list[keyAStr="a",keyBInt=1]',
        '.named.list',
        '.named',
      ],
    ],
    [
      '{"values": [{"keyAStr": "a", "value": 0}]}',
      assocList('["keyAStr"]'),
      assocList('["keyAStr", "keyBInt"]'),
      ['.values[keyAStr="a"].keyAStr', '.values[keyAStr="a"].value', '.values[keyAStr="a"]'],
      ['.values[keyAStr="a"].keyAStr', '.values[keyAStr="a"].value', '.values[keyAStr="a"]', '.values'],
    ],
    [
      '{"values": [{"keyAStr": "a", "value": 1}]}',
      assocList('["keyAStr", "keyBInt"]'),
      assocList('["keyAStr", "keyBInt"]'),
      ['.values[keyAStr="a"].keyAStr', '.values[keyAStr="a"].value', '.values[keyAStr="a"]'],
      ['.values[keyAStr="a"].keyAStr', '.values[keyAStr="a"].value', '.values[keyAStr="a"]', '.values'],
    ],
  ];
  for (const [value, before, after, wantBefore, wantAfter] of cases) {
    it(value, () => {
      const set = toFieldSet(yaml(value), before);
      assert.ok(set.equals(setOf(...wantBefore)), set.toString());
      const got = ensureNamedFieldsAreMembers(set, after);
      assert.ok(got.equals(setOf(...wantAfter)), got.toString());
    });
  }
});

describe('FieldsV1 (serialize_test)', () => {
  const golden = [
    `{"f:aaa":{},"f:aab":{},"f:aac":{},"f:aad":{},"f:aae":{},"f:aaf":{},"k:{\\"name\\":\\"first\\"}":{},"k:{\\"name\\":\\"second\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{},"v:2":{},"v:3":{},"v:\\"aa\\"":{},"v:\\"ab\\"":{},"v:true":{},"i:1":{},"i:2":{},"i:3":{},"i:4":{}}`,
    `{"f:aaa":{"k:{\\"name\\":\\"second\\"}":{"v:3":{"f:aab":{}}},"v:3":{},"v:true":{}},"f:aab":{"f:aaa":{},"f:aaf":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"k:{\\"name\\":\\"first\\"}":{}},"f:aac":{"f:aaa":{"v:1":{}},"f:aac":{},"v:3":{"k:{\\"name\\":\\"second\\"}":{}}},"f:aad":{"f:aac":{"v:1":{}},"f:aaf":{"k:{\\"name\\":\\"first\\"}":{"k:{\\"name\\":\\"first\\"}":{}}},"i:1":{"i:1":{},"i:3":{"v:true":{}}}},"f:aae":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:4":{"f:aaf":{}}},"f:aaf":{"i:1":{"f:aac":{}},"i:2":{},"i:3":{}},"k:{\\"name\\":\\"first\\"}":{"f:aad":{"f:aaf":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"f:aaa":{"f:aad":{}}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"f:aac":{},"k:{\\"name\\":\\"first\\"}":{"i:3":{}},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{"i:4":{}}},"v:1":{"f:aac":{"i:4":{}},"f:aaf":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}},"v:2":{"f:aad":{"f:aaf":{}},"i:1":{}},"v:3":{"f:aaa":{},"k:{\\"name\\":\\"first\\"}":{},"i:2":{}},"v:\\"aa\\"":{"f:aab":{"f:aaf":{}},"f:aae":{},"k:{\\"name\\":\\"first\\"}":{"f:aad":{}},"i:2":{}},"v:\\"ab\\"":{"f:aaf":{"i:4":{}},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{},"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{},"v:1":{"k:{\\"port\\":443,\\"protocol\\":\\"udp\\"}":{}},"i:1":{"f:aae":{"i:4":{}}}},"v:true":{"k:{\\"name\\":\\"second\\"}":{"f:aaa":{}},"i:2":{"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{}}},"i:1":{"i:3":{"f:aaf":{}}},"i:2":{"f:aae":{},"k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}":{"v:1":{}}},"i:3":{"f:aab":{"v:true":{"v:\\"aa\\"":{}}},"f:aaf":{},"i:1":{}},"i:4":{"v:\\"aa\\"":{"f:aab":{"k:{\\"name\\":\\"second\\"}":{}}}}}`,
    `{"f:spec":{".":{},"f:apps":{".":{},"k:{\\"name\\":\\" app-💻\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port 🔑\\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}},"k:{\\"name\\":\\" app-🚀\\"}":{".":{},"f:container":{".":{},"f:image":{},"f:name":{},"f:ports":{".":{},"k:{\\"name\\":\\"port-✅ \\"}":{".":{},"f:containerPort":{},"f:name":{}}}},"f:name":{}}}}}`,
  ];
  golden.forEach((str, n) => {
    it(`golden ${n} round trips byte for byte`, () => {
      assert.equal(JSON.stringify(toFieldsV1(fromFieldsV1(JSON.parse(str) as Json))), str);
    });
    it(`golden ${n} normalizes reordered keys`, () => {
      const reversed = reverseKeys(JSON.parse(str) as Json);
      assert.equal(JSON.stringify(toFieldsV1(fromFieldsV1(reversed))), str);
    });
  });

  it('normalizes spacing and key order inside keys', () => {
    const input = JSON.parse(`{
      "f:aad": {}, "f:aaa": {}, "f:aab": {}, "f:aac": {}, "f:aae": {}, "f:aaf": {},
      "k:{\\"name\\":\\"first\\"}": {}, "k:{\\"name\\":\\"second\\"}": {},
      "k:{\\"port\\":443,\\"protocol\\":\\"tcp\\"}": {}, "k:{ \\"protocol\\":\\"udp\\",\\"port\\":443}": {},
      "v:1": {}, "v:2": {}, "v: 3": {}, "v:\\"aa\\"": {}, "v:\\"ab\\"": {}, "v:true": {},
      "i:1": {}, "i:2": {}, "i:3": {}, "i:4": {}
    }`) as Json;
    assert.equal(JSON.stringify(toFieldsV1(fromFieldsV1(input))), golden[0]);
  });

  it('round trips random sets', () => {
    const alphabet: PathElement[] = [
      f('aaa'),
      f('aab'),
      f('abcdefghijklmnopqrstuvwxyz'),
      k({ name: 'привет' }),
      k({ name: '你好' }),
      k({ name: 'first' }),
      k({ port: 443, protocol: 'tcp' }),
      k({ key: ' value with spaces ' }),
      k({ 'unicode-key': 'unicode-value-🔥' }),
      v(1),
      v(2),
      v('aa'),
      v(true),
      v(0),
      v(-1),
      v(3.14159),
      i(0),
      i(1),
      i(3),
    ];
    let seed = 42;
    const rand = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed % n;
    };
    for (let round = 0; round < 200; round++) {
      const s = new FieldSet();
      for (let j = 0; j < 50; j++) {
        const len = 2 + rand(3);
        s.insert(Array.from({ length: len }, () => alphabet[rand(alphabet.length)]!));
      }
      const json = JSON.stringify(toFieldsV1(s));
      const back = fromFieldsV1(JSON.parse(json) as Json);
      assert.ok(back.equals(s), `round ${round}`);
      assert.equal(JSON.stringify(toFieldsV1(back)), json);
    }
  });

  it('reads members with and without "."', () => {
    const s = fromFieldsV1({ 'f:a': {}, 'f:b': { '.': {}, 'f:c': {} }, 'f:d': { 'f:e': {} } });
    assert.ok(s.equals(setOf('.a', '.b', '.b.c', '.d.e')));
  });

  it('skips unknown prefixes and rejects malformed keys', () => {
    assert.ok(fromFieldsV1({ 'r:x': {}, 'f:a': {} }).equals(setOf('.a')));
    assert.throws(() => fromFieldsV1({ 'i:x': {} }), FieldsV1Error);
    assert.throws(() => fromFieldsV1({ 'f:a': 1 }), FieldsV1Error);
    assert.throws(() => fromFieldsV1([] as Json), FieldsV1Error);
  });

  it('an empty set is {}', () => {
    assert.deepEqual(toFieldsV1(new FieldSet()), {});
    assert.ok(fromFieldsV1({}).empty());
    assert.ok(fromFieldsV1(undefined).empty());
  });
});

function reverseKeys(v: Json): Json {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
  const out: Record<string, Json> = {};
  for (const key of Object.keys(v).reverse()) out[key] = reverseKeys((v as Record<string, Json>)[key]!);
  return out;
}
