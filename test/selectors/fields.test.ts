/**
 * Field selectors against the tables of k8s.io/apimachinery
 * pkg/fields/selector_test.go (TestSelectorParse, TestSplitTerms,
 * TestSplitTerm, TestEscapeValue, TestSelectorMatches, TestRequiresExactMatch)
 * and the exact error texts a kube-apiserver returns.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  SelectorError,
  escapeFieldValue,
  everythingFieldSelector,
  fieldSelectorFromSet,
  parseFieldSelector,
  unescapeFieldValue,
  type FieldGetter,
} from '../../src/selectors/index.ts';

const from =
  (fields: Readonly<Record<string, string>>): FieldGetter =>
  (name) =>
    Object.hasOwn(fields, name) ? fields[name] : undefined;

function parseError(text: string): SelectorError {
  try {
    parseFieldSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorError, `${JSON.stringify(text)} threw a non-SelectorError: ${String(err)}`);
    return err;
  }
  assert.fail(`${JSON.stringify(text)} parsed, expected an error`);
}

describe('parseFieldSelector: valid selectors and their canonical form', () => {
  // [input, canonical toString]
  const cases: [string, string][] = [
    // TestSelectorParse good strings round-trip unchanged
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=a||y\\=b', 'x=a||y\\=b'],
    ['x=a\\=\\=b', 'x=a\\=\\=b'],
    // TestDeterministicParse: terms are sorted
    ['x=a,a=x', 'a=x,x=a'],
    ['spec.nodeName=n1,metadata.namespace!=kube-system', 'metadata.namespace!=kube-system,spec.nodeName=n1'],
    // `==` is `=`
    ['x==a', 'x=a'],
    ['b==x,a!=y', 'a!=y,b=x'],
    // empty terms are skipped (TestSplitTerms: `a=a,`, `,a=a`)
    ['a=a,', 'a=a'],
    [',a=a', 'a=a'],
    ['a=b,,c=d', 'a=b,c=d'],
    [',', ''],
    [',,,', ''],
    // escapes (TestSplitTerms, TestEscapeValue)
    ['k=\\,,k2=v2', 'k2=v2,k=\\,'],
    ['k=\\\\,k2=v2', 'k2=v2,k=\\\\'],
    ['k=\\\\\\,,k2=v2', 'k2=v2,k=\\\\\\,'],
    ['k=\\=', 'k=\\='],
    ['k=\\\\\\=\\\\\\,\\\\', 'k=\\\\\\=\\\\\\,\\\\'],
    // empty value, `!` needs no escape, the field name is not validated
    ['x=', 'x='],
    ['x!=', 'x!='],
    ['x=!', 'x=!'],
    ['x=a!b', 'x=a!b'],
    [' x = y ', ' x = y '],
    ['=y', '=y'],
    ['!=y', '!=y'],
    // a term with neither field nor value is dropped, as Kubernetes' transform does
    ['=', ''],
    ['!=', ''],
    ['==', ''],
    ['=,a=b', 'a=b'],
    // multi-byte
    ['함=수,목=록', '목=록,함=수'],
    ['x=\u{1F600}', 'x=\u{1F600}'],
    // Kubernetes orders by bytes: the astral character sorts after U+FFFD
    ['a=\u{1F600},a=\uFFFD', 'a=\uFFFD,a=\u{1F600}'],
  ];
  for (const [input, canonical] of cases) {
    it(JSON.stringify(input), () => {
      assert.equal(parseFieldSelector(input).toString(), canonical);
    });
  }

  it('the canonical form parses back to itself', () => {
    for (const [, canonical] of cases) assert.equal(parseFieldSelector(canonical).toString(), canonical);
  });
});

describe('parseFieldSelector: requirements', () => {
  const cases: [string, { field: string; operator: string; value: string }[]][] = [
    ['', []],
    ['a=b', [{ field: 'a', operator: '=', value: 'b' }]],
    ['a==b', [{ field: 'a', operator: '=', value: 'b' }]],
    ['a!=b', [{ field: 'a', operator: '!=', value: 'b' }]],
    ['a=', [{ field: 'a', operator: '=', value: '' }]],
    // the first operator splits: the field name has no escaping
    ['a!=b\\=c', [{ field: 'a', operator: '!=', value: 'b=c' }]],
    ['a=!b', [{ field: 'a', operator: '=', value: '!b' }]],
    ['k=\\,', [{ field: 'k', operator: '=', value: ',' }]],
    ['k=\\=', [{ field: 'k', operator: '=', value: '=' }]],
    ['k=\\\\', [{ field: 'k', operator: '=', value: '\\' }]],
    ['complex=\\=value\\\\\\,\\\\', [{ field: 'complex', operator: '=', value: '=value\\,\\' }]],
    [
      'metadata.name=x,status.phase!=Running',
      [
        { field: 'metadata.name', operator: '=', value: 'x' },
        { field: 'status.phase', operator: '!=', value: 'Running' },
      ],
    ],
  ];
  for (const [input, expected] of cases) {
    it(JSON.stringify(input), () => {
      const sel = parseFieldSelector(input);
      assert.deepEqual(sel.requirements, expected);
      assert.equal(sel.empty, expected.length === 0);
    });
  }

  it('requirements are immutable', () => {
    const sel = parseFieldSelector('a=b');
    assert.ok(Object.isFrozen(sel.requirements));
    assert.ok(Object.isFrozen(sel.requirements[0]));
  });
});

describe('parseFieldSelector: invalid selectors', () => {
  // [input, exact Kubernetes message]
  const cases: [string, string][] = [
    // TestSelectorParse bad strings
    ['x=a||y=b', 'invalid field selector: unescaped character in value: 61'],
    ['x==a==b', 'invalid field selector: unescaped character in value: 61'],
    ['x=a,b', "invalid selector: 'x=a,b'; can't understand 'b'"],
    ['x in (a)', "invalid selector: 'x in (a)'; can't understand 'x in (a)'"],
    ['x in (a,b,c)', "invalid selector: 'x in (a,b,c)'; can't understand 'b'"],
    ['x', "invalid selector: 'x'; can't understand 'x'"],
    // no other operators
    ['x>1', "invalid selector: 'x>1'; can't understand 'x>1'"],
    ['x!y', "invalid selector: 'x!y'; can't understand 'x!y'"],
    ['!x', "invalid selector: '!x'; can't understand '!x'"],
    // terms are sorted before parsing, so the first bad one in sorted order is reported
    ['z,a', "invalid selector: 'z,a'; can't understand 'a'"],
    ['b=\\q,a', "invalid selector: 'b=\\q,a'; can't understand 'a'"],
    // escapes (TestEscapeValue invalid cases)
    ['k=\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\\\\\', 'invalid field selector: invalid escape sequence: \\'],
    ['k=\\a', 'invalid field selector: invalid escape sequence: \\a'],
    ['k=\\!', 'invalid field selector: invalid escape sequence: \\!'],
    ['k=\\함', 'invalid field selector: invalid escape sequence: \\함'],
    ['k=a=b', 'invalid field selector: unescaped character in value: 61'],
    // the operator is the first `!=`, `==` or `=`, so what follows keeps its `=`
    ['x=!=', 'invalid field selector: unescaped character in value: 61'],
    ['x!==y', 'invalid field selector: unescaped character in value: 61'],
    ['x===y', 'invalid field selector: unescaped character in value: 61'],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input), () => {
      const err = parseError(input);
      assert.equal(err.message, message);
      assert.equal(err.code, 'InvalidSelector');
      assert.equal(err.kind, 'field');
    });
  }
});

describe('FieldSelector.matches', () => {
  const fieldset = { foo: 'bar', baz: 'blah', complex: '=value\\,\\' };
  // [selector, fields, expected] (TestSelectorMatches)
  const cases: [string, Readonly<Record<string, string>>, boolean][] = [
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['foo=bar', fieldset, true],
    ['baz=blah', fieldset, true],
    ['foo=bar,baz=blah', fieldset, true],
    ['foo=bar,baz=blah,complex=\\=value\\\\\\,\\\\', fieldset, true],
    ['foo=blah', fieldset, false],
    ['baz=bar', fieldset, false],
    ['foo=bar,foobar=bar,baz=blah', fieldset, false],
    // a missing field reads as ""
    ['x=', {}, true],
    ['x!=', {}, false],
    ['x=a', {}, false],
    ['x!=a', {}, true],
    ['x==a', { x: 'a' }, true],
    ['spec.nodeName=', { 'spec.nodeName': '' }, true],
    ['spec.nodeName!=', { 'spec.nodeName': 'n1' }, true],
    ['x=A', { x: 'a' }, false],
    ['x=a!b', { x: 'a!b' }, true],
    ['=', { '': 'x' }, true], // dropped term
    ['=y', { '': 'y' }, true],
    ['=y', {}, false],
  ];
  for (const [selector, fields, expected] of cases) {
    it(`${JSON.stringify(selector)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(fields)}`, () => {
      assert.equal(parseFieldSelector(selector).matches(from(fields)), expected);
    });
  }

  it('asks the getter for the selector fields only', () => {
    const asked: string[] = [];
    parseFieldSelector('b=1,a!=2').matches((f) => {
      asked.push(f);
      return undefined;
    });
    assert.deepEqual(asked.sort(), ['a', 'b']);
  });
  it('the empty selector never calls the getter', () => {
    let calls = 0;
    assert.equal(
      everythingFieldSelector.matches(() => {
        calls++;
        return 'x';
      }),
      true,
    );
    assert.equal(calls, 0);
  });
});

describe('FieldSelector.requiresExactMatch', () => {
  // [selector, field, expected] (TestRequiresExactMatch)
  const cases: [string, string, string | undefined][] = [
    ['', 'test', undefined],
    ['a=b', 'test', undefined],
    ['test=b', 'test', 'b'],
    ['test=', 'test', ''],
    ['test==b', 'test', 'b'],
    ['test!=b', 'test', undefined],
    ['test!=', 'test', undefined],
    ['a=b,test=b', 'test', 'b'],
    ['test!=a,test=b', 'test', 'b'],
    ['metadata.name=foo,metadata.namespace=ns', 'metadata.name', 'foo'],
    ['spec.nodeName=node-1', 'spec.nodeName', 'node-1'],
    ['x=\\,', 'x', ','],
  ];
  for (const [selector, field, expected] of cases) {
    it(`${JSON.stringify(selector)} pins ${field} to ${JSON.stringify(expected)}`, () => {
      assert.equal(parseFieldSelector(selector).requiresExactMatch(field), expected);
    });
  }
});

describe('FieldSelector.toString is a cache key', () => {
  const equivalent: string[][] = [
    ['x=a,a=x', 'a=x,x=a', 'a==x,x=a,'],
    ['k=\\,', ',k==\\,'],
  ];
  for (const group of equivalent) {
    it(group.map((s) => JSON.stringify(s)).join(' == '), () => {
      assert.equal(new Set(group.map((s) => parseFieldSelector(s).toString())).size, 1);
    });
  }
  it('different selectors print differently', () => {
    const distinct = ['x=a', 'x!=a', 'x=', 'x!=', 'x=a\\,b', 'x=a\\,b\\=c', 'x=a,b=c'];
    assert.equal(new Set(distinct.map((s) => parseFieldSelector(s).toString())).size, distinct.length);
  });
});

describe('escapeFieldValue / unescapeFieldValue', () => {
  // [raw, escaped] (TestEscapeValue)
  const cases: [string, string][] = [
    ['', ''],
    ['a', 'a'],
    ['=', '\\='],
    [',', '\\,'],
    ['\\', '\\\\'],
    ['\\=\\,\\', '\\\\\\=\\\\\\,\\\\'],
    ['a=b,c', 'a\\=b\\,c'],
    ['!', '!'],
    ['함=수', '함\\=수'],
  ];
  for (const [raw, escaped] of cases) {
    it(`${JSON.stringify(raw)} <-> ${JSON.stringify(escaped)}`, () => {
      assert.equal(escapeFieldValue(raw), escaped);
      assert.equal(unescapeFieldValue(escaped), raw);
    });
  }
  it('an escaped value selects exactly the raw value', () => {
    for (const [raw] of cases) {
      const sel = parseFieldSelector('f=' + escapeFieldValue(raw));
      assert.equal(sel.matches(from({ f: raw })), true);
      assert.equal(sel.requiresExactMatch('f'), raw);
    }
  });
  for (const bad of ['\\', '\\\\\\', '\\a', 'a,b', 'a=b']) {
    it(`unescape rejects ${JSON.stringify(bad)}`, () => {
      assert.throws(() => unescapeFieldValue(bad), SelectorError);
    });
  }
});

describe('fieldSelectorFromSet', () => {
  it('matches exactly the set', () => {
    const s = fieldSelectorFromSet({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' });
    assert.equal(s.toString(), 'metadata.name=a\\,b,metadata.namespace=ns');
    assert.equal(s.matches(from({ 'metadata.name': 'a,b', 'metadata.namespace': 'ns' })), true);
    assert.equal(s.matches(from({ 'metadata.name': 'a,b' })), false);
    assert.equal(s.requiresExactMatch('metadata.name'), 'a,b');
  });
  it('null and {} select everything', () => {
    assert.equal(fieldSelectorFromSet(null), everythingFieldSelector);
    assert.equal(fieldSelectorFromSet({}).empty, true);
  });
});
