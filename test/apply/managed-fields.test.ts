/**
 * `metadata.managedFields` decoding and encoding (managed-fields.ts): the
 * original's managedfields_test.go cases (required fieldsType, apiVersion
 * and operation; round trips; manager identities; entry order), and the
 * wipe rule of spec 4.8.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import {
  decodeManagedFields,
  encodeManagedFields,
  formatTime,
  isWipe,
  ManagedFieldsError,
  managerKey,
  sortEntries,
  type Operation,
} from '../../src/apply/managed-fields.ts';
import type { ManagedFieldsEntry } from '../../src/registry/object.ts';

const entries = (text: string): ManagedFieldsEntry[] => parse(text) as ManagedFieldsEntry[];

describe('decoding checks each entry', () => {
  const valid = `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:field: {}
  manager: foo
  operation: Apply
`;
  it('accepts a valid entry', () => {
    const m = decodeManagedFields(entries(valid));
    assert.equal(m.fields.size, 1);
    assert.equal(m.fields.get('{"manager":"foo","operation":"Apply"}')?.set.toString(), '.field');
  });

  const invalid: [string, string, RegExp][] = [
    ['invalid fieldsType', valid.replace('FieldsV1\n', 'FieldsV2\n'), /invalid fieldsType "FieldsV2" in managed fields entry 0/],
    ['missing fieldsType', valid.replace('  fieldsType: FieldsV1\n', ''), /missing fieldsType in managed fields entry 0/],
    ['missing apiVersion', valid.replace('- apiVersion: v1\n  fieldsType', '- fieldsType'), /apiVersion must not be empty/],
    ['invalid operation', valid.replace('operation: Apply', 'operation: Invalid'), /operation must be `Apply` or `Update`/],
    ['missing operation', valid.replace('  operation: Apply\n', ''), /operation must be `Apply` or `Update`/],
    ['malformed field set', valid.replace('f:field: {}', 'i:x: {}'), /error decoding versioned set/],
  ];
  for (const [name, text, message] of invalid) {
    it(`rejects: ${name}`, () => {
      assert.throws(() => decodeManagedFields(entries(text)), (err: unknown) => err instanceof ManagedFieldsError && message.test(err.message));
    });
  }
});

describe('round trips (TestRoundTripManagedFields)', () => {
  const cases = [
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    v:3:
      f:alsoPi: {}
    v:3.1415:
      f:pi: {}
    v:false:
      f:notTrue: {}
  manager: foo
  operation: Update
  time: "2001-02-03T04:05:06Z"
- apiVersion: v1beta1
  fieldsType: FieldsV1
  fieldsV1:
    i:5:
      f:i: {}
  manager: foo
  operation: Update
  time: "2011-12-13T14:15:16Z"
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:spec:
      f:containers:
        k:{"name":"c"}:
          f:image: {}
          f:name: {}
  manager: foo
  operation: Apply
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:labels:
        f:app: {}
      f:name: {}
    f:spec:
      f:replicas: {}
      f:selector:
        f:matchLabels:
          f:app: {}
      f:template:
        f:medatada:
          f:labels:
            f:app: {}
        f:spec:
          f:containers:
            k:{"name":"nginx"}:
              .: {}
              f:image: {}
              f:name: {}
              f:ports:
                i:0:
                  f:containerPort: {}
  manager: foo
  operation: Update
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:allowVolumeExpansion: {}
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:name: {}
      f:parameters:
        f:resturl: {}
        f:restuser: {}
        f:secretName: {}
        f:secretNamespace: {}
    f:provisioner: {}
  manager: foo
  operation: Apply
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:apiVersion: {}
    f:kind: {}
    f:metadata:
      f:name: {}
    f:spec:
      f:group: {}
      f:names:
        f:kind: {}
        f:plural: {}
        f:shortNames:
          i:0: {}
        f:singular: {}
      f:scope: {}
      f:versions:
        k:{"name":"v1"}:
          f:name: {}
          f:served: {}
          f:storage: {}
  manager: foo
  operation: Update
`,
    `- apiVersion: v1
  fieldsType: FieldsV1
  fieldsV1:
    f:spec:
      f:replicas: {}
  manager: foo
  operation: Update
  subresource: scale
`,
  ];
  cases.forEach((text, i) => {
    it(`case ${i}`, () => {
      const input = entries(text);
      const out = encodeManagedFields(decodeManagedFields(input));
      assert.deepEqual(out, input);
      // Keys come out in the order of the original's Go struct.
      for (const e of out ?? []) {
        const order = ['manager', 'operation', 'apiVersion', 'time', 'fieldsType', 'fieldsV1', 'subresource'];
        const keys = Object.keys(e);
        assert.deepEqual(keys, order.filter((k) => keys.includes(k)));
      }
    });
  });

  it('null and empty decode to nobody and encode to nothing', () => {
    assert.equal(encodeManagedFields(decodeManagedFields(null)), undefined);
    assert.equal(encodeManagedFields(decodeManagedFields([])), undefined);
  });

  it('entries sharing an identity: the last one wins', () => {
    const m = decodeManagedFields(
      entries(`- {apiVersion: v1, fieldsType: FieldsV1, fieldsV1: {"f:a": {}}, manager: m, operation: Apply}
- {apiVersion: v2, fieldsType: FieldsV1, fieldsV1: {"f:b": {}}, manager: m, operation: Apply}
- {apiVersion: v1, fieldsType: FieldsV1, fieldsV1: {"f:c": {}}, manager: m, operation: Update}
- {apiVersion: v2, fieldsType: FieldsV1, fieldsV1: {"f:d": {}}, manager: m, operation: Update}`),
    );
    // Appliers are one manager whatever the version; updaters are one per version.
    assert.deepEqual([...m.fields.keys()], [
      '{"manager":"m","operation":"Apply"}',
      '{"manager":"m","operation":"Update","apiVersion":"v1"}',
      '{"manager":"m","operation":"Update","apiVersion":"v2"}',
    ]);
    assert.equal(m.fields.get('{"manager":"m","operation":"Apply"}')?.set.toString(), '.b');
  });
});

describe('manager identities (TestBuildManagerIdentifier)', () => {
  const cases: [string, Operation, string | undefined, string | undefined, string][] = [
    ['foo', 'Update', 'v1', undefined, '{"manager":"foo","operation":"Update","apiVersion":"v1"}'],
    ['foo', 'Apply', 'v1', undefined, '{"manager":"foo","operation":"Apply"}'],
    ['foo', 'Apply', 'v1', 'scale', '{"manager":"foo","operation":"Apply","subresource":"scale"}'],
    ['', 'Update', 'v1', 'status', '{"operation":"Update","apiVersion":"v1","subresource":"status"}'],
  ];
  for (const [manager, operation, apiVersion, subresource, want] of cases) {
    it(want, () => assert.equal(managerKey({ manager, operation, apiVersion, subresource }), want));
  }
});

describe('entry order (TestSortEncodedManagedFields)', () => {
  type E = [string, Operation, string?, string?];
  const e = ([manager, operation, time, subresource]: E): ManagedFieldsEntry => ({
    manager,
    operation,
    ...(time === undefined ? {} : { time }),
    ...(subresource === undefined ? {} : { subresource }),
  });
  const cases: [string, E[], E[]][] = [
    ['empty', [], []],
    ['remains untouched', [['a', 'Apply'], ['a', 'Update', '2001-01-01T01:00:00Z']], [['a', 'Apply'], ['a', 'Update', '2001-01-01T01:00:00Z']]],
    ['manager without time first', [['a', 'Apply'], ['a', 'Apply', '2001-01-01T01:00:00Z']], [['a', 'Apply'], ['a', 'Apply', '2001-01-01T01:00:00Z']]],
    [
      'manager without time first name last',
      [['a', 'Apply', '2001-01-01T01:00:00Z'], ['b', 'Apply'], ['a', 'Apply']],
      [['a', 'Apply'], ['b', 'Apply'], ['a', 'Apply', '2001-01-01T01:00:00Z']],
    ],
    ['apply first', [['a', 'Update', '2001-01-01T01:00:00Z'], ['a', 'Apply']], [['a', 'Apply'], ['a', 'Update', '2001-01-01T01:00:00Z']]],
    [
      'newest last',
      [['c', 'Update', '2001-01-01T01:00:00Z'], ['a', 'Apply'], ['c', 'Update', '2002-01-01T01:00:00Z'], ['b', 'Apply']],
      [['a', 'Apply'], ['b', 'Apply'], ['c', 'Update', '2001-01-01T01:00:00Z'], ['c', 'Update', '2002-01-01T01:00:00Z']],
    ],
    [
      'manager last',
      [['c', 'Update', '2001-01-01T01:00:00Z'], ['a', 'Apply'], ['d', 'Update', '2001-01-01T01:00:00Z'], ['b', 'Apply']],
      [['a', 'Apply'], ['b', 'Apply'], ['c', 'Update', '2001-01-01T01:00:00Z'], ['d', 'Update', '2001-01-01T01:00:00Z']],
    ],
    [
      'manager sorted',
      [
        ['c', 'Update', '2001-01-01T01:00:00Z'],
        ['a', 'Apply'],
        ['g', 'Apply'],
        ['f', 'Update', '2002-01-01T01:00:00Z'],
        ['i', 'Apply'],
        ['d', 'Update', '2002-01-01T01:00:00Z'],
        ['h', 'Apply'],
        ['e', 'Update', '2003-01-01T01:00:00Z'],
        ['b', 'Apply'],
      ],
      [
        ['a', 'Apply'],
        ['b', 'Apply'],
        ['g', 'Apply'],
        ['h', 'Apply'],
        ['i', 'Apply'],
        ['c', 'Update', '2001-01-01T01:00:00Z'],
        ['d', 'Update', '2002-01-01T01:00:00Z'],
        ['f', 'Update', '2002-01-01T01:00:00Z'],
        ['e', 'Update', '2003-01-01T01:00:00Z'],
      ],
    ],
    [
      'sort drops sub-second precision',
      [['c', 'Update', '1999-12-31T00:00:00.001Z'], ['a', 'Update', '1999-12-31T00:00:00.002Z'], ['b', 'Update', '1999-12-31T00:00:00.003Z']],
      [['a', 'Update', '1999-12-31T00:00:00.002Z'], ['b', 'Update', '1999-12-31T00:00:00.003Z'], ['c', 'Update', '1999-12-31T00:00:00.001Z']],
    ],
    [
      'entries with subresource field',
      [['a', 'Apply', undefined, 'status'], ['a', 'Apply', undefined, 'scale'], ['a', 'Apply']],
      [['a', 'Apply'], ['a', 'Apply', undefined, 'scale'], ['a', 'Apply', undefined, 'status']],
    ],
  ];
  for (const [name, input, want] of cases) {
    it(name, () => assert.deepEqual(sortEntries(input.map(e)), want.map(e)));
  }
});

describe('times and wipes', () => {
  it('times are RFC 3339 in UTC with whole seconds', () => {
    assert.equal(formatTime(new Date('2024-05-06T07:08:09.987Z')), '2024-05-06T07:08:09Z');
  });

  it('[{}] wipes; [] and anything else does not', () => {
    assert.equal(isWipe([{}]), true);
    assert.equal(isWipe([{ manager: '' }]), true);
    assert.equal(isWipe([]), false);
    assert.equal(isWipe(undefined), false);
    assert.equal(isWipe([{}, {}]), false);
    assert.equal(isWipe([{ manager: 'x' }]), false);
  });
});
