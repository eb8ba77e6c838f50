/**
 * Name validators against the tables of k8s.io/apimachinery v0.32
 * pkg/util/validation/validation_test.go and pkg/api/validation/path/
 * name_test.go, plus the exact message texts clients see.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  isConfigMapKey,
  isDNS1035Label,
  isDNS1123Label,
  isDNS1123Subdomain,
  isQualifiedName,
  isValidLabelValue,
  isValidPathSegmentName,
  isValidPortName,
  isValidPortNum,
  validateName,
} from '../../../src/registry/validation/names.ts';

const SUBDOMAIN_MSG =
  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
const LABEL_MSG =
  "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
const DNS1035_MSG =
  "a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')";
const QNAME_PART_MSG =
  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
const LABEL_VALUE_MSG =
  "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

function table(fn: (v: string) => string[], good: string[], bad: string[]): void {
  for (const v of good) assert.deepEqual(fn(v), [], `expected ${JSON.stringify(v)} to be valid`);
  for (const v of bad) assert.notDeepEqual(fn(v), [], `expected ${JSON.stringify(v)} to be invalid`);
}

describe('isDNS1123Label', () => {
  it('accepts and rejects the original table', () => {
    table(
      isDNS1123Label,
      ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a'.repeat(63)],
      ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2',
        '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'a'.repeat(64)],
    );
  });
  it('prints the regex message, and says "must not contain dots" for a subdomain', () => {
    assert.deepEqual(isDNS1123Label('My-Name'), [LABEL_MSG]);
    assert.deepEqual(isDNS1123Label('a.b'), ['must not contain dots']);
    assert.deepEqual(isDNS1123Label('a'.repeat(64)), ['must be no more than 63 characters']);
  });
});

describe('isDNS1123Subdomain', () => {
  it('accepts and rejects the original table', () => {
    table(
      isDNS1123Subdomain,
      ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', '0', '01', '012', '1a', '1-a', '1--a--b--2', 'a.a', 'ab.a', 'abc.a', 'a1.a',
        'a-1.a', 'a--1--2--b.a', 'a.1', 'ab.1', 'abc.1', 'a1.1', 'a-1.1', 'a--1--2--b.1', '0.a', '01.a', '012.a', '1a.a',
        '1-a.a', '0.1', '01.1', '012.1', '1a.1', '1-a.1', '1--a--b--2.1', 'a.b.c.d.e', 'aa.bb.cc.dd.ee', '1.2.3.4.5',
        '11.22.33.44.55', 'a'.repeat(253)],
      ['', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1', '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.',
        'a.', '.a', 'a..b', '1.', '.1', '1..2', ' ', 'a ', ' a', 'a b', '1 ', ' 1', '1 2', 'A.a', 'aB.a', 'ab.A', 'A1.a',
        'a1.A', 'A.1', 'aB.1', 'A1.1', '1A.1', '0.A', '01.A', '012.A', '1A.a', '1a.A', 'A.B.C.D.E', 'AA.BB.CC.DD.EE',
        'a.B.c.d.e', 'aa.bB.cc.dd.ee', 'a@b', 'a,b', 'a_b', 'a;b', 'a:b', 'a%b', 'a?b', 'a$b', 'a'.repeat(254)],
    );
  });
  it('prints the exact messages, length first', () => {
    assert.deepEqual(isDNS1123Subdomain('Foo'), [SUBDOMAIN_MSG]);
    assert.deepEqual(isDNS1123Subdomain('a'.repeat(254)), ['must be no more than 253 characters']);
    assert.deepEqual(isDNS1123Subdomain(`${'A'.repeat(254)}`), ['must be no more than 253 characters', SUBDOMAIN_MSG]);
  });
  it('counts bytes, not characters', () => {
    assert.deepEqual(isDNS1123Label('é'.repeat(32)).includes('must be no more than 63 characters'), true);
  });
});

describe('isDNS1035Label', () => {
  it('accepts and rejects the original table', () => {
    table(
      isDNS1035Label,
      ['a', 'ab', 'abc', 'a1', 'a-1', 'a--1--2--b', 'a'.repeat(63)],
      ['0', '01', '012', '1a', '1-a', '1--a--b--2', '', 'A', 'ABC', 'aBc', 'A1', 'A-1', '1-A', '-', 'a-', '-a', '1-', '-1',
        '_', 'a_', '_a', 'a_b', '1_', '_1', '1_2', '.', 'a.', '.a', 'a.b', '1.', '.1', '1.2', ' ', 'a ', ' a', 'a b', '1 ',
        ' 1', '1 2', 'a'.repeat(64)],
    );
    assert.deepEqual(isDNS1035Label('1abc'), [DNS1035_MSG]);
  });
});

describe('isQualifiedName', () => {
  it('accepts and rejects the original table', () => {
    table(
      isQualifiedName,
      ['simple', 'now-with-dashes', '1-starts-with-num', '1234', 'simple/simple', 'now-with-dashes/simple',
        'now-with-dashes/now-with-dashes', 'now.with.dots/simple', 'now-with.dashes-and.dots/simple', '1-num.2-num/3-num',
        '1234/5678', '1.2.3.4/5678', 'Uppercase_Is_OK_123', 'example.com/Uppercase_Is_OK_123', 'requests.storage-foo',
        'a'.repeat(63), `${'a'.repeat(253)}/${'b'.repeat(63)}`],
      ['nospecialchars%^=@', 'cantendwithadash-', '-cantstartwithadash-', 'only/one/slash', 'Example.com/abc',
        'example_com/abc', 'example.com/', '/simple', 'a'.repeat(64), `${'a'.repeat(254)}/abc`],
    );
  });
  it('prints the name and prefix part messages', () => {
    assert.deepEqual(isQualifiedName('bad-'), [QNAME_PART_MSG]);
    // An empty name part is reported twice, as in the original.
    assert.deepEqual(isQualifiedName('example.com/'), ['name part must be non-empty', QNAME_PART_MSG]);
    assert.deepEqual(isQualifiedName('/simple'), ['prefix part must be non-empty']);
    assert.deepEqual(isQualifiedName('Example.com/abc'), [`prefix part ${SUBDOMAIN_MSG}`]);
    assert.deepEqual(isQualifiedName('a'.repeat(64)), ['name part must be no more than 63 characters']);
    assert.equal(
      isQualifiedName('only/one/slash')[0],
      "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')",
    );
  });
});

describe('isValidLabelValue', () => {
  it('accepts and rejects the original table', () => {
    table(
      isValidLabelValue,
      ['simple', 'now-with-dashes', '1-starts-with-num', 'end-with-num-1', '1234', 'a'.repeat(63), ''],
      ['nospecialchars%^=@', 'Tama-nui-te-rā.is.Māori.sun', '\\backslashes\\are\\bad', '-starts-with-dash', 'ends-with-dash-',
        '.starts.with.dot', 'ends.with.dot.', 'a'.repeat(64)],
    );
    assert.deepEqual(isValidLabelValue('-x'), [LABEL_VALUE_MSG]);
    assert.deepEqual(isValidLabelValue('a'.repeat(64)), ['must be no more than 63 characters']);
  });
});

describe('isValidPathSegmentName', () => {
  it('follows path/name_test.go', () => {
    for (const ok of ['', 'foo.bar.baz', 'sha256:ABCDEF012345@ABCDEF012345', 'Iñtërnâtiônàlizætiøn', '.test', '..test']) {
      assert.deepEqual(isValidPathSegmentName(ok), [], ok);
    }
    assert.deepEqual(isValidPathSegmentName('.'), ["may not be '.'"]);
    assert.deepEqual(isValidPathSegmentName('..'), ["may not be '..'"]);
    assert.deepEqual(isValidPathSegmentName('foo/bar'), ["may not contain '/'"]);
    assert.deepEqual(isValidPathSegmentName('foo%bar'), ["may not contain '%'"]);
    assert.deepEqual(isValidPathSegmentName('foo//bar%'), ["may not contain '/'", "may not contain '%'"]);
  });
});

describe('config keys and ports', () => {
  it('isConfigMapKey follows the original table', () => {
    table(
      isConfigMapKey,
      ['a', 'good', 'good-good', 'still.good', 'this.is.also.good', '.so.is.this', 'THIS_IS_GOOD', 'so_is_this_17'],
      ['.', '..', '..bad', 'b*d', 'bad!&bad'],
    );
    assert.deepEqual(isConfigMapKey('..'), ["must not be '..'"]);
    assert.deepEqual(isConfigMapKey('..bad'), ["must not start with '..'"]);
  });
  it('isValidPortName and isValidPortNum follow the original tables', () => {
    table(isValidPortName, ['telnet', 're-mail-ck', 'pop3', 'a', 'a-1', '1-a', 'a-1-b-2-c', '1-a-2-b-3'],
      ['longerthan15characters', '', 'a'.repeat(16), '12345', '1-2-3-4', '-begin', 'end-', 'two--hyphens', 'whois++']);
    for (const p of [1, 2, 1000, 16384, 32768, 65535]) assert.deepEqual(isValidPortNum(p), []);
    for (const p of [0, -1, 65536, 100000]) assert.deepEqual(isValidPortNum(p), ['must be between 1 and 65535, inclusive']);
  });
});

describe('validateName (name rules of metadata)', () => {
  it('lets a generateName prefix end in a dash', () => {
    assert.deepEqual(validateName('subdomain', 'web-', true), []);
    assert.deepEqual(validateName('label', 'web-', true), []);
    assert.deepEqual(validateName('subdomain', 'web-', false), [SUBDOMAIN_MSG]);
  });
  it('path segments forbid only . .. / %', () => {
    assert.deepEqual(validateName('path-segment', 'system:controller:Foo', false), []);
    assert.deepEqual(validateName('path-segment', 'a/b', false), ["may not contain '/'"]);
  });
});
