/**
 * Label selectors against the tables of k8s.io/apimachinery
 * pkg/labels/selector_test.go (TestSelectorParse, TestSetSelectorParser,
 * TestSelectorMatches, TestRequirementSelectorMatching, TestToString,
 * TestRequiresExactMatch, TestRequirementConstructor), plus the exact error
 * texts a kube-apiserver returns, and metav1.LabelSelector conversion.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  SelectorError,
  everythingLabelSelector,
  labelSelectorFromObject,
  labelSelectorFromSet,
  nothingLabelSelector,
  parseLabelSelector,
  type LabelSelectorObject,
  type Labels,
} from '../../src/selectors/index.ts';

const keyRegexMsg =
  "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const valueRegexMsg =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";
const subdomainMsg =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const operatorsMsg = 'in, notin, =, ==, !=, gt, lt';

function parseError(text: string): SelectorError {
  try {
    parseLabelSelector(text);
  } catch (err) {
    assert.ok(err instanceof SelectorError, `${JSON.stringify(text)} threw a non-SelectorError: ${String(err)}`);
    return err;
  }
  assert.fail(`${JSON.stringify(text)} parsed, expected an error`);
}

describe('parseLabelSelector: valid selectors and their canonical form', () => {
  // [input, canonical toString]
  const cases: [string, string][] = [
    // TestSelectorParse: the string round-trips once spaces are removed
    ['x=a,y=b,z=c', 'x=a,y=b,z=c'],
    ['', ''],
    ['x!=a,y=b', 'x!=a,y=b'],
    ['x=', 'x='],
    ['x= ', 'x='],
    ['x=,z= ', 'x=,z='],
    ['x= ,z= ', 'x=,z='],
    ['!x', '!x'],
    ['x>1', 'x>1'],
    ['x>1,z<5', 'x>1,z<5'],
    // TestSetSelectorParser
    ['\rx', 'x'],
    ['this-is-a-dns.domain.com/key-with-dash', 'this-is-a-dns.domain.com/key-with-dash'],
    ['this-is-another-dns.domain.com/key-with-dash in (so,what)', 'this-is-another-dns.domain.com/key-with-dash in (so,what)'],
    ['0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)', '0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)'],
    ['foo  in\t (abc)', 'foo in (abc)'],
    ['x notin\n (abc)', 'x notin (abc)'],
    ['x  notin\t\t\t(abc,def)', 'x notin (abc,def)'],
    ['x in (abc,def)', 'x in (abc,def)'],
    ['x in (abc,)', 'x in (,abc)'],
    ['x in (abc,abc)', 'x in (abc)'],
    ['x in ()', 'x in ()'],
    ['x in (a,,)', 'x in (,a)'],
    ['x in (a,,,)', 'x in (,a)'],
    ['x in (a,,,,,,)', 'x in (,a)'],
    ['x in (a,,a,,a,,a,,)', 'x in (,a)'],
    ['x notin (abc,,def),bar,z in (),w', 'bar,w,x notin (,abc,def),z in ()'],
    ['x,y in (a)', 'x,y in (a)'],
    ['x=a', 'x=a'],
    ['x<7', 'x<7'],
    ['x=a,y!=b', 'x=a,y!=b'],
    ['x=a,y!=b,z in (h,i,j)', 'x=a,y!=b,z in (h,i,j)'],
    ['x notin ( )', 'x notin ()'],
    ['x notin (, a)', 'x notin (,a)'],
    ['a ', 'a'],
    ['a in (x,y,notin, z,in)', 'a in (in,notin,x,y,z)'],
    // keywords are plain identifiers where no operator can stand
    ['notin=in', 'notin=in'],
    ['in', 'in'],
    ['!notin', '!notin'],
    ['in in (in)', 'in in (in)'],
    // `==` is kept distinct, as Kubernetes' String() keeps it
    ['x==a', 'x==a'],
    ['x == a , y != b', 'x==a,y!=b'],
    // sorted by key (Kubernetes: TestDeterministicParse)
    ['x=a,a=x', 'a=x,x=a'],
    ['c,!b,a=1', 'a=1,!b,c'],
    // whitespace set: space, tab, CR, LF
    [' \t\r\nx\n=\ta\r', 'x=a'],
    // limits: 253-byte prefix, 63-byte name, 63-byte value
    [`${'a'.repeat(253)}/${'b'.repeat(63)}=${'c'.repeat(63)}`, `${'a'.repeat(253)}/${'b'.repeat(63)}=${'c'.repeat(63)}`],
    ['Upper.Case_key-1=Value_1.x', 'Upper.Case_key-1=Value_1.x'],
    ['x>0099', 'x>0099'],
    // Go's lexer reads a NUL byte as "end of input" where a token starts
    ['a=b \u0000c=d', 'a=b'],
  ];
  for (const [input, canonical] of cases) {
    it(JSON.stringify(input), () => {
      assert.equal(parseLabelSelector(input).toString(), canonical);
    });
  }

  it('the canonical form parses back to itself', () => {
    for (const [, canonical] of cases) assert.equal(parseLabelSelector(canonical).toString(), canonical);
  });
});

describe('parseLabelSelector: requirements', () => {
  const cases: [string, { key: string; operator: string; values: string[] }[]][] = [
    ['', []],
    ['x', [{ key: 'x', operator: 'exists', values: [] }]],
    ['!x', [{ key: 'x', operator: '!', values: [] }]],
    ['x=a', [{ key: 'x', operator: '=', values: ['a'] }]],
    ['x==a', [{ key: 'x', operator: '==', values: ['a'] }]],
    ['x!=a', [{ key: 'x', operator: '!=', values: ['a'] }]],
    ['x=', [{ key: 'x', operator: '=', values: [''] }]],
    ['x>1', [{ key: 'x', operator: 'gt', values: ['1'] }]],
    ['x<1', [{ key: 'x', operator: 'lt', values: ['1'] }]],
    ['x in (c,b,a,b)', [{ key: 'x', operator: 'in', values: ['a', 'b', 'c'] }]],
    ['x notin ()', [{ key: 'x', operator: 'notin', values: [''] }]],
    [
      'x notin (abc,,def),bar,z in (),w',
      [
        { key: 'bar', operator: 'exists', values: [] },
        { key: 'w', operator: 'exists', values: [] },
        { key: 'x', operator: 'notin', values: ['', 'abc', 'def'] },
        { key: 'z', operator: 'in', values: [''] },
      ],
    ],
  ];
  for (const [input, expected] of cases) {
    it(JSON.stringify(input), () => {
      const sel = parseLabelSelector(input);
      assert.deepEqual(sel.requirements, expected);
      assert.equal(sel.empty, expected.length === 0);
    });
  }

  it('requirements are immutable', () => {
    const sel = parseLabelSelector('x in (a,b)');
    assert.ok(Object.isFrozen(sel.requirements));
    assert.ok(Object.isFrozen(sel.requirements[0]));
    assert.ok(Object.isFrozen(sel.requirements[0]!.values));
  });
});

describe('parseLabelSelector: invalid selectors', () => {
  // [input, exact Kubernetes message]
  const cases: [string, string][] = [
    // TestSelectorParse bad strings
    ['x=a||y=b', `unable to parse requirement: values[0][x]: Invalid value: "a||y": ${valueRegexMsg}`],
    ['x==a==b', "found '==', expected: ',' or 'end of string'"],
    ['!x=a', "found '=', expected: ',' or 'end of string'"],
    ['x<a', `unable to parse requirement: values[0]: Invalid value: "a": for 'Gt', 'Lt' operators, the value must be an integer`],
    // TestSetSelectorParser invalid rows
    ['x,,y', "found ',', expected: identifier after ','"],
    [',x,y', "found ',', expected: !, identifier, or 'end of string'"],
    ['x nott in (y)', `unable to parse requirement: found 'nott', expected: ${operatorsMsg}`],
    ['a in (xyz),', "found '', expected: identifier after ','"],
    ['a in (xyz)b notin ()', "found 'b', expected: ',' or 'end of string'"],
    ['a in (xyz abc)', "unable to parse requirement: found 'abc', expected: ',' or ')'"],
    ['a notin(', "unable to parse requirement: found '', expected: ',', ')' or identifier"],
    ['a (', `unable to parse requirement: found '(', expected: ${operatorsMsg}`],
    ['(', "found '(', expected: !, identifier, or 'end of string'"],
    // TestParseOperator failures, in context
    ['x !', `unable to parse requirement: found '!', expected: ${operatorsMsg}`],
    ['x exists', `unable to parse requirement: found 'exists', expected: ${operatorsMsg}`],
    // more grammar
    ['!', "unable to parse requirement: found '', expected: identifier"],
    ['!!x', "unable to parse requirement: found '!', expected: identifier"],
    ['x,', "found '', expected: identifier after ','"],
    [',', "found ',', expected: !, identifier, or 'end of string'"],
    [')', "found ')', expected: !, identifier, or 'end of string'"],
    ['x=(a)', "unable to parse requirement: found '(', expected: identifier"],
    ['x in a', "unable to parse requirement: found 'a' expected: '('"],
    ['x in (a', "unable to parse requirement: found '', expected: ',' or ')'"],
    ['x in (a b)', "unable to parse requirement: found 'b', expected: ',' or ')'"],
    ['x in (=)', "unable to parse requirement: found '=', expected: ',', ')' or identifier"],
    ['x in (a,=)', "unable to parse requirement: found '=', expected: ',', or identifier"],
    ['x===a', "unable to parse requirement: found '=', expected: identifier"],
    ['x y', `unable to parse requirement: found 'y', expected: ${operatorsMsg}`],
    ['x=a y=b', "found 'y', expected: ',' or 'end of string'"],
    ['x=a;y=b', `unable to parse requirement: values[0][x]: Invalid value: "a;y": ${valueRegexMsg}`],
    // label keys (checked with a nil field path, hence "<nil>")
    ['app:monolith', `unable to parse requirement: <nil>: Invalid value: "app:monolith": name part ${keyRegexMsg}`],
    ['*bar', `unable to parse requirement: <nil>: Invalid value: "*bar": name part ${keyRegexMsg}`],
    ['-x', `unable to parse requirement: <nil>: Invalid value: "-x": name part ${keyRegexMsg}`],
    ['x_=a', `unable to parse requirement: <nil>: Invalid value: "x_": name part ${keyRegexMsg}`],
    [
      'x/y/z',
      `unable to parse requirement: <nil>: Invalid value: "x/y/z": a valid label key ${keyRegexMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`,
    ],
    ['/x', 'unable to parse requirement: <nil>: Invalid value: "/x": prefix part must be non-empty'],
    [
      'example.com/',
      `unable to parse requirement: <nil>: Invalid value: "example.com/": name part must be non-empty; name part ${keyRegexMsg}`,
    ],
    [
      'app.kubernetes_io/name=x',
      `unable to parse requirement: <nil>: Invalid value: "app.kubernetes_io/name": prefix part ${subdomainMsg}`,
    ],
    ['Example.com/x', `unable to parse requirement: <nil>: Invalid value: "Example.com/x": prefix part ${subdomainMsg}`],
    [
      'x'.repeat(64),
      `unable to parse requirement: <nil>: Invalid value: "${'x'.repeat(64)}": name part must be no more than 63 bytes`,
    ],
    [
      `${'a'.repeat(254)}/x`,
      `unable to parse requirement: <nil>: Invalid value: "${'a'.repeat(254)}/x": prefix part must be no more than 253 bytes`,
    ],
    // label values
    ['x=' + 'a'.repeat(64), `unable to parse requirement: values[0][x]: Invalid value: "${'a'.repeat(64)}": must be no more than 63 bytes`],
    [
      'x=-' + 'a'.repeat(63),
      `unable to parse requirement: values[0][x]: Invalid value: "-${'a'.repeat(63)}": must be no more than 63 bytes; ${valueRegexMsg}`,
    ],
    ['x=a_', `unable to parse requirement: values[0][x]: Invalid value: "a_": ${valueRegexMsg}`],
    ['x in (ok,b/c)', `unable to parse requirement: values[0][x]: Invalid value: "b/c": ${valueRegexMsg}`],
    [
      'x in (-a,-b)',
      `unable to parse requirement: [values[0][x]: Invalid value: "-a": ${valueRegexMsg}, values[1][x]: Invalid value: "-b": ${valueRegexMsg}]`,
    ],
    // values are quoted the way Go's %q does
    ['x="a"', `unable to parse requirement: values[0][x]: Invalid value: "\\"a\\"": ${valueRegexMsg}`],
    ['x=a\u0001', `unable to parse requirement: values[0][x]: Invalid value: "a\\x01": ${valueRegexMsg}`],
    ['x=\u00e9', `unable to parse requirement: values[0][x]: Invalid value: "\u00e9": ${valueRegexMsg}`],
    ['x=a\u00a0', `unable to parse requirement: values[0][x]: Invalid value: "a\\u00a0": ${valueRegexMsg}`],
    // gt / lt take one int64 that is also a valid label value
    ['x>', `unable to parse requirement: values[0]: Invalid value: "": for 'Gt', 'Lt' operators, the value must be an integer`],
    ['x>1.5', `unable to parse requirement: values[0]: Invalid value: "1.5": for 'Gt', 'Lt' operators, the value must be an integer`],
    [
      'x>9223372036854775808',
      `unable to parse requirement: values[0]: Invalid value: "9223372036854775808": for 'Gt', 'Lt' operators, the value must be an integer`,
    ],
    ['x<-1', `unable to parse requirement: values[0][x]: Invalid value: "-1": ${valueRegexMsg}`],
    [
      'x>-a',
      `unable to parse requirement: [values[0]: Invalid value: "-a": for 'Gt', 'Lt' operators, the value must be an integer, values[0][x]: Invalid value: "-a": ${valueRegexMsg}]`,
    ],
    // ...and as a separator inside a token
    ['a=b\u0000c=d', "found 'c', expected: ',' or 'end of string'"],
    ['x>>1', "unable to parse requirement: found '>', expected: identifier"],
    ['x>=1', "unable to parse requirement: found '=', expected: identifier"],
  ];
  for (const [input, message] of cases) {
    it(JSON.stringify(input.length > 60 ? input.slice(0, 57) + '...' : input), () => {
      const err = parseError(input);
      assert.equal(err.message, message);
      assert.equal(err.code, 'InvalidSelector');
      assert.equal(err.kind, 'label');
      assert.equal(err.name, 'SelectorError');
    });
  }

  it('the largest int64 is accepted and one more is not', () => {
    assert.equal(parseLabelSelector('x<9223372036854775807').toString(), 'x<9223372036854775807');
    assert.throws(() => parseLabelSelector('x<9223372036854775808'), SelectorError);
  });
});

describe('LabelSelector.matches', () => {
  const fooBaz: Labels = { foo: 'bar', baz: 'blah' };
  // [selector, labels, expected]
  const cases: [string, Labels | undefined | null, boolean][] = [
    // TestSelectorMatches
    ['', { x: 'y' }, true],
    ['x=y', { x: 'y' }, true],
    ['x=y,z=w', { x: 'y', z: 'w' }, true],
    ['x!=y,z!=w', { x: 'z', z: 'a' }, true],
    ['notin=in', { notin: 'in' }, true],
    ['x', { x: 'z' }, true],
    ['!x', { y: 'z' }, true],
    ['x>1', { x: '2' }, true],
    ['x<1', { x: '0' }, true],
    ['x=z', {}, false],
    ['x=y', { x: 'z' }, false],
    ['x=y,z=w', { x: 'w', z: 'w' }, false],
    ['x!=y,z!=w', { x: 'z', z: 'w' }, false],
    ['x', { y: 'z' }, false],
    ['!x', { x: 'z' }, false],
    ['x>1', { x: '0' }, false],
    ['x<1', { x: '2' }, false],
    ['foo=bar', fooBaz, true],
    ['baz=blah', fooBaz, true],
    ['foo=bar,baz=blah', fooBaz, true],
    ['foo=blah', fooBaz, false],
    ['baz=bar', fooBaz, false],
    ['foo=bar,foobar=bar,baz=blah', fooBaz, false],
    // TestRequirementSelectorMatching
    ['x in (foo),y notin (alpha)', { x: 'foo', y: 'baz' }, true],
    ['x in (foo),y in (alpha)', { x: 'foo', y: 'baz' }, false],
    ['x notin (),y', { y: '' }, true],
    ['!x,y', { y: '' }, true],
    ['x notin (),!y', { y: '' }, false],
    ['x in ()', { y: 'baz' }, false],
    ['z>1', { z: '2' }, true],
    ['z>1', { z: 'v2' }, false],
    // equality and absence
    ['x=', { x: '' }, true],
    ['x=', {}, false],
    ['x!=', {}, true],
    ['x!=', { x: '' }, false],
    ['x==y', { x: 'y' }, true],
    ['x!=y', {}, true],
    ['x in (a,b)', { x: 'b' }, true],
    ['x in (a,b)', { x: 'c' }, false],
    ['x in (a,b)', {}, false],
    ['x notin (a,b)', {}, true],
    ['x notin (a,b)', { x: 'a' }, false],
    ['x notin (a,b)', { x: 'c' }, true],
    ['x in (,a)', { x: '' }, true],
    // values are case-sensitive
    ['x=A', { x: 'a' }, false],
    // wide sets (matched through a Set)
    ['x in (a,b,c,d,e,f,g,h,i,j,k)', { x: 'k' }, true],
    ['x in (a,b,c,d,e,f,g,h,i,j,k)', { x: 'l' }, false],
    ['x notin (a,b,c,d,e,f,g,h,i,j,k)', { x: 'f' }, false],
    ['x notin (a,b,c,d,e,f,g,h,i,j,k)', { x: 'z' }, true],
    // gt / lt compare as int64; a non-integer label never matches either
    ['x>1', {}, false],
    ['x<1', {}, false],
    ['x>1', { x: '1' }, false],
    ['x<1', { x: '1' }, false],
    ['x>9', { x: '10' }, true],
    ['x<10', { x: '9' }, true],
    ['x>1', { x: '+2' }, true],
    ['x<1', { x: '-5' }, true],
    ['x<1', { x: '-0' }, true],
    ['x>0', { x: '-0' }, false],
    ['x>1', { x: '007' }, true],
    ['x>1', { x: '' }, false],
    ['x>1', { x: '+' }, false],
    ['x<1', { x: '-' }, false],
    ['x>1', { x: '2 ' }, false],
    ['x>1', { x: '1_0' }, false],
    ['x>1', { x: '0x10' }, false],
    ['x>1', { x: '1e3' }, false],
    ['x>9007199254740992', { x: '9007199254740993' }, true],
    ['x<9007199254740993', { x: '9007199254740992' }, true],
    ['x<9007199254740993', { x: '9007199254740993' }, false],
    ['x<9223372036854775807', { x: '9223372036854775806' }, true],
    ['x>9223372036854775806', { x: '9223372036854775807' }, true],
    ['x>1', { x: '9223372036854775808' }, false], // out of int64: not a number to Kubernetes
    ['x<1', { x: '-9223372036854775808' }, true],
    ['x<1', { x: '-9223372036854775809' }, false],
    ['x>1', { x: '0000000000000000000000002' }, true],
    ['x<100000000000000000', { x: '99999999999999999' }, true],
    ['x>100000000000000000', { x: '2' }, false],
    // no labels at all
    ['', undefined, true],
    ['', null, true],
    ['!x', undefined, true],
    ['x notin (a)', null, true],
    ['x', undefined, false],
    ['x=a', null, false],
    // Object.prototype members are not labels
    ['constructor', {}, false],
    ['!toString', {}, true],
    ['hasOwnProperty notin (a)', {}, true],
    ['valueOf in (a)', {}, false],
    ['constructor', { constructor: 'x' }, true],
  ];
  for (const [selector, labels, expected] of cases) {
    it(`${JSON.stringify(selector)} ${expected ? 'matches' : 'does not match'} ${JSON.stringify(labels)}`, () => {
      assert.equal(parseLabelSelector(selector).matches(labels), expected);
    });
  }

  it('labels in a null-prototype object work', () => {
    const labels = Object.assign(Object.create(null) as Record<string, string>, { a: 'b' });
    assert.equal(parseLabelSelector('a=b').matches(labels), true);
    assert.equal(parseLabelSelector('a=c').matches(labels), false);
  });
});

describe('LabelSelector.empty and the shared selectors', () => {
  it('"" and whitespace are the everything selector', () => {
    assert.equal(parseLabelSelector(''), everythingLabelSelector);
    assert.equal(parseLabelSelector(' \t'), everythingLabelSelector);
    assert.equal(everythingLabelSelector.empty, true);
    assert.equal(everythingLabelSelector.matches({ a: 'b' }), true);
  });
  it('a selector with requirements is not empty', () => {
    assert.equal(parseLabelSelector('a').empty, false);
  });
  it('nothing is not empty and matches nothing', () => {
    assert.equal(nothingLabelSelector.empty, false);
    assert.equal(nothingLabelSelector.matches({}), false);
    assert.equal(nothingLabelSelector.matches(undefined), false);
    assert.equal(nothingLabelSelector.toString(), '');
  });
});

describe('LabelSelector.toString is a cache key', () => {
  const equivalent: string[][] = [
    ['x=a,a=x', 'a=x,x=a', ' a = x , x = a '],
    ['x in (b,a)', 'x in (a,b)', 'x in (a,b,a)', 'x in ( b , a )'],
    ['a,a!=b', 'a!=b,a'],
    ['a in (x),a notin (y),!b', '!b,a notin (y),a in (x)'],
  ];
  for (const group of equivalent) {
    it(group.map((s) => JSON.stringify(s)).join(' == '), () => {
      const keys = new Set(group.map((s) => parseLabelSelector(s).toString()));
      assert.equal(keys.size, 1);
    });
  }
  const distinct = ['x=a', 'x==a', 'x!=a', 'x in (a)', 'x notin (a)', 'x', '!x', 'x>1', 'x<1', 'x=', 'x in ()'];
  it('different selectors print differently', () => {
    const keys = new Set(distinct.map((s) => parseLabelSelector(s).toString()));
    assert.equal(keys.size, distinct.length);
  });
});

describe('LabelSelector.requiresExactMatch', () => {
  // [selector, key, expected] (TestRequiresExactMatch)
  const cases: [string, string, string | undefined][] = [
    ['key in (value)', 'key', 'value'],
    ['key in (value,value2)', 'key', undefined],
    ['key in (value,value1),key2 in (value2)', 'key2', 'value2'],
    ['key=value', 'key', 'value'],
    ['key==value', 'key', 'value'],
    ['key!=value', 'key', undefined],
    ['key in (value),key2 in (value2)', 'key', 'value'],
    ['key=', 'key', ''],
    ['key', 'key', undefined],
    ['!key', 'key', undefined],
    ['key notin (value)', 'key', undefined],
    ['key>1', 'key', undefined],
    ['other=value', 'key', undefined],
    ['', 'key', undefined],
    ['key,key=value', 'key', 'value'],
  ];
  for (const [selector, key, expected] of cases) {
    it(`${JSON.stringify(selector)} pins ${key} to ${JSON.stringify(expected)}`, () => {
      assert.equal(parseLabelSelector(selector).requiresExactMatch(key), expected);
    });
  }
});

describe('labelSelectorFromObject (metav1.LabelSelector)', () => {
  it('null and undefined select nothing', () => {
    assert.equal(labelSelectorFromObject(null), nothingLabelSelector);
    assert.equal(labelSelectorFromObject(undefined), nothingLabelSelector);
  });
  it('an empty selector selects everything', () => {
    for (const sel of [{}, { matchLabels: {} }, { matchExpressions: [] }, { matchLabels: null, matchExpressions: null }]) {
      const s = labelSelectorFromObject(sel);
      assert.equal(s.empty, true);
      assert.equal(s.matches({ a: 'b' }), true);
    }
  });

  // [selector, canonical toString, labels that match, labels that do not]
  const cases: [LabelSelectorObject, string, Labels, Labels][] = [
    [{ matchLabels: { app: 'web' } }, 'app=web', { app: 'web', x: 'y' }, { app: 'db' }],
    [{ matchLabels: { b: '1', a: '2' } }, 'a=2,b=1', { a: '2', b: '1' }, { a: '2' }],
    [{ matchLabels: { a: '' } }, 'a=', { a: '' }, {}],
    [
      { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front', 'back'] }] },
      'tier in (back,front)',
      { tier: 'front' },
      { tier: 'cache' },
    ],
    [{ matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['x'] }] }, 'tier notin (x)', {}, { tier: 'x' }],
    [{ matchExpressions: [{ key: 'tier', operator: 'Exists' }] }, 'tier', { tier: '' }, {}],
    [{ matchExpressions: [{ key: 'tier', operator: 'DoesNotExist', values: [] }] }, '!tier', {}, { tier: 'a' }],
    [{ matchExpressions: [{ key: 'tier', operator: 'In', values: ['a', 'a'] }] }, 'tier in (a,a)', { tier: 'a' }, { tier: 'b' }],
    [
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'env', operator: 'NotIn', values: ['dev'] },
          { key: 'app', operator: 'Exists' },
        ],
      },
      'app,app=web,env notin (dev)',
      { app: 'web', env: 'prod' },
      { app: 'web', env: 'dev' },
    ],
  ];
  for (const [sel, canonical, yes, no] of cases) {
    it(canonical, () => {
      const s = labelSelectorFromObject(sel);
      assert.equal(s.toString(), canonical);
      assert.equal(s.empty, false);
      assert.equal(s.matches(yes), true);
      assert.equal(s.matches(no), false);
    });
  }

  it('keeps values as given and does not alias the input', () => {
    const values = ['b', 'a', 'b'];
    const s = labelSelectorFromObject({ matchExpressions: [{ key: 'k', operator: 'In', values }] });
    assert.deepEqual(s.requirements[0]!.values, ['b', 'a', 'b']);
    values[0] = 'z';
    assert.equal(s.matches({ k: 'b' }), true);
    assert.equal(s.matches({ k: 'z' }), false);
  });

  const errors: [LabelSelectorObject, string][] = [
    [
      { matchExpressions: [{ key: 'a', operator: 'In' }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'NotIn', values: [] }] },
      "values: Invalid value: null: for 'in', 'notin' operators, values set can't be empty",
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] },
      'values: Invalid value: ["x"]: values set must be empty for exists and does not exist',
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'DoesNotExist', values: ['<x>'] }] },
      `[values: Invalid value: ["\\u003cx\\u003e"]: values set must be empty for exists and does not exist, values[0][a]: Invalid value: "<x>": ${valueRegexMsg}]`,
    ],
    [
      { matchExpressions: [{ key: 'a', operator: 'Gt' as never, values: ['1'] }] },
      '"Gt" is not a valid label selector operator',
    ],
    [{ matchExpressions: [{ key: 'a', operator: 'in' as never, values: ['1'] }] }, '"in" is not a valid label selector operator'],
    [{ matchExpressions: [{ key: 'a/b/c', operator: 'Exists' }] }, `key: Invalid value: "a/b/c": a valid label key ${keyRegexMsg} with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`],
    [{ matchLabels: { 'bad key': 'v' } }, `key: Invalid value: "bad key": name part ${keyRegexMsg}`],
    [{ matchLabels: { k: 'bad value' } }, `values[0][k]: Invalid value: "bad value": ${valueRegexMsg}`],
    [
      { matchLabels: { '-k': '-v' } },
      `[key: Invalid value: "-k": name part ${keyRegexMsg}, values[0][-k]: Invalid value: "-v": ${valueRegexMsg}]`,
    ],
    // the first bad requirement wins: matchLabels by sorted key, then matchExpressions
    [
      { matchLabels: { z: '-z', a: '-a' }, matchExpressions: [{ key: 'b', operator: 'In' }] },
      `values[0][a]: Invalid value: "-a": ${valueRegexMsg}`,
    ],
  ];
  for (const [sel, message] of errors) {
    it(`rejects ${JSON.stringify(sel)}`, () => {
      assert.throws(
        () => labelSelectorFromObject(sel),
        (err: unknown) => err instanceof SelectorError && err.kind === 'label' && err.message === message,
      );
    });
  }
});

describe('labelSelectorFromSet', () => {
  it('matches exactly the set', () => {
    const s = labelSelectorFromSet({ foo: 'bar', baz: 'blah' });
    assert.equal(s.toString(), 'baz=blah,foo=bar');
    assert.equal(s.matches({ foo: 'bar', baz: 'blah', x: 'y' }), true);
    assert.equal(s.matches({ foo: 'bar' }), false);
    assert.equal(s.requiresExactMatch('foo'), 'bar');
  });
  it('null and {} select everything', () => {
    assert.equal(labelSelectorFromSet(null), everythingLabelSelector);
    assert.equal(labelSelectorFromSet({}), everythingLabelSelector);
  });
  it('does not validate, as Kubernetes does not', () => {
    const s = labelSelectorFromSet({ foo: '=blah' });
    assert.equal(s.matches({ foo: '=blah' }), true);
    assert.equal(s.matches({ foo: 'blah' }), false);
  });
});
