/**
 * Schema changes, defaulted keys and duplicated items (the original's
 * merge/schema_change_test.go, default_keys_test.go and duplicates_test.go,
 * case by case).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { applyOp, forceApplyOp, runCase, schemaOp, updateOp, type Case } from './support/fixture.ts';
import { associativeListNewKeyWithDefault, associativeListNewOptionalKey, associativeListOld, associativeListPromoteKeyAfter, associativeListPromoteKeyBefore, book, duplicates, portList, struct, structWithAtomic } from './support/smd-schemas.ts';

type Row = Omit<Case, 'type'>;

describe('TestGranularToAtomicSchemaChanges (schema_change_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'to-atomic',
      ops: [
        applyOp('one', 'v1', `
          struct:
            numeric: 1
        `),
        schemaOp(structWithAtomic),
        applyOp('two', 'v1', `
          struct:
            string: "string"
        `, [['one', '.struct']]),
        forceApplyOp('two', 'v1', `
          struct:
            string: "string"
        `),
      ],
      object: `
        struct:
          string: "string"
      `,
      managed: {
        'two': ['v1', '.struct'],
      },
    },
    {
      name: 'to-atomic-owner-with-no-child-fields',
      ops: [
        applyOp('one', 'v1', `
          struct:
            numeric: 1
        `),
        forceApplyOp('two', 'v1', `
          struct:
            numeric: 2
        `),
        schemaOp(structWithAtomic),
        applyOp('three', 'v1', `
          struct:
            string: "string"
        `, [['two', '.struct']]),
        forceApplyOp('two', 'v1', `
          struct:
            string: "string"
        `),
      ],
      object: `
        struct:
          string: "string"
      `,
      managed: {
        'two': ['v1', '.struct'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: struct }));
});

describe('TestAtomicToGranularSchemaChanges (schema_change_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'to-granular',
      ops: [
        applyOp('one', 'v1', `
          struct:
            numeric: 1
            string: "a"
        `),
        applyOp('two', 'v1', `
          struct:
            string: "b"
        `, [['one', '.struct']]),
        schemaOp(struct),
        applyOp('two', 'v1', `
          struct:
            string: "b"
        `),
      ],
      object: `
        struct:
          numeric: 1
          string: "b"
      `,
      managed: {
        'one': ['v1', '.struct'],
        'two': ['v1', '.struct.string'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: structWithAtomic }));
});

describe('TestAssociativeListSchemaChanges (schema_change_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'new required key with default',
      ops: [
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 1
          - name: b
            value: 1
          - name: c
            value: 1
        `),
        schemaOp(associativeListNewKeyWithDefault),
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 2
          - name: b
            id: 1
            value: 2
          - name: c
            value: 1
          - name: c
            id: 2
            value: 2
          - name: c
            id: 3
            value: 3
        `),
      ],
      object: `
        list:
        - name: a
          value: 2
        - name: b
          id: 1
          value: 2
        - name: c
          value: 1
        - name: c
          id: 2
          value: 2
        - name: c
          id: 3
          value: 3
      `,
      managed: {
        'one': ['v1', '.list[id=1,name="a"]', '.list[id=1,name="a"].name', '.list[id=1,name="a"].value', '.list[id=1,name="b"]', '.list[id=1,name="b"].name', '.list[id=1,name="b"].id', '.list[id=1,name="b"].value', '.list[id=1,name="c"]', '.list[id=1,name="c"].name', '.list[id=1,name="c"].value', '.list[id=2,name="c"]', '.list[id=2,name="c"].name', '.list[id=2,name="c"].id', '.list[id=2,name="c"].value', '.list[id=3,name="c"]', '.list[id=3,name="c"].name', '.list[id=3,name="c"].id', '.list[id=3,name="c"].value'],
      },
    },
    {
      name: 'new optional key',
      ops: [
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 1
        `),
        schemaOp(associativeListNewOptionalKey),
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 2
          - name: a
            id: 1
            value: 1
        `),
      ],
      object: `
        list:
        - name: a
          value: 2
        - name: a
          id: 1
          value: 1
      `,
      managed: {
        'one': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value', '.list[id=1,name="a"]', '.list[id=1,name="a"].name', '.list[id=1,name="a"].id', '.list[id=1,name="a"].value'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: associativeListOld }));
});

describe('TestPromoteFieldToAssociativeListKey (schema_change_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'identical item merges',
      ops: [
        applyOp('one', 'v1', `
          list:
          - name: a
            id: 1
            value: 1
        `),
        schemaOp(associativeListPromoteKeyAfter),
        applyOp('one', 'v1', `
          list:
          - name: a
            id: 1
            value: 2
        `),
      ],
      object: `
        list:
        - name: a
          id: 1
          value: 2
      `,
      managed: {
        'one': ['v1', '.list[id=1,name="a"]', '.list[id=1,name="a"].name', '.list[id=1,name="a"].id', '.list[id=1,name="a"].value'],
      },
    },
    {
      name: 'distinct item added',
      ops: [
        applyOp('one', 'v1', `
          list:
          - name: a
            id: 1
            value: 1
        `),
        schemaOp(associativeListPromoteKeyAfter),
        applyOp('one', 'v1', `
          list:
          - name: a
            id: 1
            value: 1
          - name: a
            id: 2
            value: 2
        `),
      ],
      object: `
        list:
        - name: a
          id: 1
          value: 1
        - name: a
          id: 2
          value: 2
      `,
      managed: {
        'one': ['v1', '.list[id=1,name="a"]', '.list[id=1,name="a"].name', '.list[id=1,name="a"].id', '.list[id=1,name="a"].value', '.list[id=2,name="a"]', '.list[id=2,name="a"].name', '.list[id=2,name="a"].id', '.list[id=2,name="a"].value'],
      },
    },
    {
      name: 'item missing new key field is distinct',
      ops: [
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 1
        `),
        schemaOp(associativeListPromoteKeyAfter),
        applyOp('one', 'v1', `
          list:
          - name: a
            value: 1
          - name: a
            id: 2
            value: 2
        `),
      ],
      object: `
        list:
        - name: a
          value: 1
        - name: a
          id: 2
          value: 2
      `,
      managed: {
        'one': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value', '.list[id=2,name="a"]', '.list[id=2,name="a"].name', '.list[id=2,name="a"].id', '.list[id=2,name="a"].value'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: associativeListPromoteKeyBefore }));
});


describe('TestDefaultKeysFlat (default_keys_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'apply_missing_defaulted_key_A',
      ops: [
        applyOp('default', 'v1', `
          containerPorts:
          - port: 80
        `),
      ],
      object: `
        containerPorts:
        - port: 80
      `,
      managed: {
        'default': ['v1', '.containerPorts[port=80,protocol="TCP"]', '.containerPorts[port=80,protocol="TCP"].port'],
      },
    },
    {
      name: 'apply_missing_defaulted_key_B',
      ops: [
        applyOp('default', 'v1', `
          containerPorts:
          - port: 80
          - port: 80
            protocol: UDP
        `),
      ],
      object: `
        containerPorts:
        - port: 80
        - port: 80
          protocol: UDP
      `,
      managed: {
        'default': ['v1', '.containerPorts[port=80,protocol="TCP"]', '.containerPorts[port=80,protocol="TCP"].port', '.containerPorts[port=80,protocol="UDP"]', '.containerPorts[port=80,protocol="UDP"].port', '.containerPorts[port=80,protocol="UDP"].protocol'],
      },
    },
    {
      name: 'apply_missing_defaulted_key_with_conflict',
      ops: [
        applyOp('apply-one', 'v1', `
          containerPorts:
          - port: 80
            protocol: TCP
            name: foo
        `),
        applyOp('apply-two', 'v1', `
          containerPorts:
          - port: 80
            name: bar
        `, [['apply-one', '.containerPorts[port=80,protocol="TCP"].name']]),
      ],
      object: `
        containerPorts:
        - port: 80
          protocol: TCP
          name: foo
      `,
      managed: {
        'apply-one': ['v1', '.containerPorts[port=80,protocol="TCP"]', '.containerPorts[port=80,protocol="TCP"].port', '.containerPorts[port=80,protocol="TCP"].protocol', '.containerPorts[port=80,protocol="TCP"].name'],
      },
    },
    {
      name: 'apply_missing_undefaulted_defaulted_key',
      ops: [
        applyOp('default', 'v1', `
          containerPorts:
          - protocol: TCP
            name: A
        `),
      ],
      object: `
        containerPorts:
        - protocol: TCP
          name: A
      `,
      managed: {
        'default': ['v1', '.containerPorts[protocol="TCP"]', '.containerPorts[protocol="TCP"].name', '.containerPorts[protocol="TCP"].protocol'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: portList }));
});

describe('TestDefaultKeysFlatErrors (default_keys_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'apply_missing_defaulted_key_ambiguous_A',
      ops: [
        applyOp('default', 'v1', `
          containerPorts:
          - port: 80
          - port: 80
        `),
      ],
    },
    {
      name: 'apply_missing_defaulted_key_ambiguous_B',
      ops: [
        applyOp('default', 'v1', `
          containerPorts:
          - port: 80
          - port: 80
            protocol: TCP
        `),
      ],
    },
  ];
  // The configuration names the same port twice once the default is filled in.
  for (const row of rows) it(row.name, () => assert.throws(() => runCase({ ...row, type: portList }), /duplicate entries for key \[port=80,protocol="TCP"\]/));
});

describe('TestDefaultKeysNested (default_keys_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'apply_missing_every_key_nested',
      ops: [
        applyOp('default', 'v1', `
          book:
          - sentences:
            - text: blah
        `),
      ],
      object: `
        book:
        - sentences:
          - text: blah
      `,
      managed: {
        'default': ['v1', '.book[chapter=1,section="A"]', '.book[chapter=1,section="A"].sentences[line=3,page=2]', '.book[chapter=1,section="A"].sentences[line=3,page=2].text'],
      },
    },
    {
      name: 'apply_integer_key_with_float_default',
      ops: [
        applyOp('default', 'v1', `
          book:
          - sentences:
            - text: blah
        `),
        applyOp('default', 'v1', `
          book:
          - sentences:
            - text: blah
              page: 2
        `),
      ],
      object: `
        book:
        - sentences:
          - text: blah
            page: 2
      `,
      managed: {
        'default': ['v1', '.book[chapter=1,section="A"]', '.book[chapter=1,section="A"].sentences[line=3,page=2]', '.book[chapter=1,section="A"].sentences[line=3,page=2].text', '.book[chapter=1,section="A"].sentences[line=3,page=2].page'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: book }));
});


describe('TestDuplicates (duplicates_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'sets/ownership/duplicates',
      ops: [
        updateOp('updater-one', 'v1', `
          set: [1, 1, 3, 4]
        `),
      ],
      managed: {
        'updater-one': ['v1', '.set', '.set[=1]', '.set[=3]', '.set[=4]'],
      },
    },
    {
      name: 'sets/ownership/add_duplicate',
      ops: [
        updateOp('updater-one', 'v1', `
          set: [1, 3, 4]
        `),
        updateOp('updater-two', 'v1', `
          set: [1, 1, 3, 4]
        `),
      ],
      managed: {
        'updater-one': ['v1', '.set', '.set[=3]', '.set[=4]'],
        'updater-two': ['v1', '.set[=1]'],
      },
    },
    {
      name: 'sets/ownership/remove_duplicate',
      ops: [
        updateOp('updater-one', 'v1', `
          set: [1, 1, 3, 4]
        `),
        updateOp('updater-two', 'v1', `
          set: [1, 3, 4]
        `),
      ],
      managed: {
        'updater-one': ['v1', '.set', '.set[=3]', '.set[=4]'],
        'updater-two': ['v1', '.set[=1]'],
      },
    },
    {
      name: 'sets/merging/remove_duplicate',
      ops: [
        updateOp('updater', 'v1', `
          set: [1, 1, 3, 4]
        `),
        applyOp('applier', 'v1', `
          set: [1]
        `, [['updater', '.set[=1]']]),
        forceApplyOp('applier', 'v1', `
          set: [1]
        `),
      ],
      object: `
        set: [1, 3, 4]
      `,
      managed: {
        'updater': ['v1', '.set', '.set[=3]', '.set[=4]'],
        'applier': ['v1', '.set[=1]'],
      },
    },
    {
      name: 'sets/merging/ignore_duplicate',
      ops: [
        updateOp('updater', 'v1', `
          set: [1, 1, 3, 4]
        `),
        applyOp('applier', 'v1', `
          set: [5]
        `),
      ],
      object: `
        set: [1, 1, 3, 4, 5]
      `,
      managed: {
        'updater': ['v1', '.set', '.set[=1]', '.set[=3]', '.set[=4]'],
        'applier': ['v1', '.set[=5]'],
      },
    },
    {
      name: 'list/ownership/duplicated_items',
      ops: [
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
      ],
      managed: {
        'updater': ['v1', '.list', '.list[name="a"]', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
      },
    },
    {
      name: 'list/ownership/change_duplicated_items',
      ops: [
        updateOp('updater-one', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        updateOp('updater-two', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 3
          - name: b
            value1: 3
        `),
      ],
      managed: {
        'updater-one': ['v1', '.list', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'updater-two': ['v1', '.list[name="a"]'],
      },
    },
    {
      name: 'list/ownership/change_fields_duplicated_items',
      ops: [
        updateOp('updater-one', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        updateOp('updater-two', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
            value2: 3 # New field
          - name: b
            value1: 3
        `),
      ],
      managed: {
        'updater-one': ['v1', '.list', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'updater-two': ['v1', '.list[name="a"]'],
      },
    },
    {
      name: 'list/ownership/add_duplicated_items_different_field',
      ops: [
        updateOp('updater-one', 'v1', `
          list:
          - name: a
            value1: 1
          - name: b
            value1: 3
        `),
        updateOp('updater-two', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value2: 3 # New field
          - name: b
            value1: 3
        `),
      ],
      managed: {
        'updater-one': ['v1', '.list', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'updater-two': ['v1', '.list[name="a"]'],
      },
    },
    {
      name: 'list/ownership/add_unrelated_to_list_with_duplicates',
      ops: [
        updateOp('updater-one', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
        `),
        updateOp('updater-two', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
      ],
      managed: {
        'updater-one': ['v1', '.list', '.list[name="a"]'],
        'updater-two': ['v1', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
      },
    },
    {
      name: 'list/merge/unrelated_with_duplicated_items',
      ops: [
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        forceApplyOp('applier', 'v1', `
          unrelated: 5
        `),
      ],
      object: `
        list:
        - name: a
          value1: 1
        - name: a
          value1: 2
        - name: b
          value1: 3
        unrelated: 5
      `,
      managed: {
        'updater': ['v1', '.list', '.list[name="a"]', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'applier': ['v1', '.unrelated'],
      },
    },
    {
      name: 'list/merge/change_duplicated_item',
      ops: [
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        applyOp('applier', 'v1', `
          list:
          - name: a
            value1: 3
        `, [['updater', '.list[name="a"]']]),
        forceApplyOp('applier', 'v1', `
          list:
          - name: a
            value1: 3
        `),
      ],
      object: `
        list:
        - name: a
          value1: 3
        - name: b
          value1: 3
      `,
      managed: {
        'updater': ['v1', '.list', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'applier': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value1'],
      },
    },
    {
      name: 'list/merge/unchanged_duplicated_item',
      ops: [
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        applyOp('applier', 'v1', `
          list:
          - name: a
            value1: 2
        `, [['updater', '.list[name="a"]']]),
        forceApplyOp('applier', 'v1', `
          list:
          - name: a
            value1: 3
        `),
      ],
      object: `
        list:
        - name: a
          value1: 3
        - name: b
          value1: 3
      `,
      managed: {
        'updater': ['v1', '.list', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'applier': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value1'],
      },
    },
    {
      name: 'list/merge/change_non_duplicated_item',
      ops: [
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        forceApplyOp('applier', 'v1', `
          list:
          - name: b
            value1: 4
        `),
      ],
      object: `
        list:
        - name: a
          value1: 1
        - name: a
          value1: 2
        - name: b
          value1: 4
      `,
      managed: {
        'updater': ['v1', '.list', '.list[name="a"]', '.list[name="b"]', '.list[name="b"].name'],
        'applier': ['v1', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
      },
    },
    {
      name: 'list/merge/apply_update_duplicates_apply_without',
      ops: [
        applyOp('applier', 'v1', `
          list:
          - name: a
            value1: 1
          - name: b
            value1: 3
        `),
        updateOp('updater', 'v1', `
          list:
          - name: a
            value1: 1
          - name: a
            value1: 2
          - name: b
            value1: 3
        `),
        applyOp('applier', 'v1', `
          list:
          - name: b
            value1: 3
        `),
      ],
      object: `
        list:
        - name: a
          value1: 1
        - name: a
          value1: 2
        - name: b
          value1: 3
      `,
      managed: {
        'applier': ['v1', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value1'],
        'updater': ['v1', '.list[name="a"]'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: duplicates }));
});

