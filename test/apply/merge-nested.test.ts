/**
 * Nested lists and maps and field-level overrides of list and map
 * markers (the original's merge/nested_test.go and
 * field_level_overrides_test.go, case by case).
 */
import { describe, it } from 'node:test';
import { applyOp, runCase, updateOp, type Case } from './support/fixture.ts';
import { nestedType, overrideStructType } from './support/smd-schemas.ts';

type Row = Omit<Case, 'type'>;

describe('TestUpdateNestedType (nested_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'listOfLists_change_value',
      ops: [
        applyOp('default', 'v1', `
          listOfLists:
          - name: a
            value:
            - b
            - c
        `),
        applyOp('default', 'v1', `
          listOfLists:
          - name: a
            value:
            - a
            - c
        `),
      ],
      object: `
        listOfLists:
        - name: a
          value:
          - a
          - c
      `,
      managed: {
        'default': ['v1', '.listOfLists[name="a"]', '.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="a"]', '.listOfLists[name="a"].value[="c"]'],
      },
    },
    {
      name: 'listOfLists_change_key_and_value',
      ops: [
        applyOp('default', 'v1', `
          listOfLists:
          - name: a
            value:
            - b
            - c
        `),
        applyOp('default', 'v1', `
          listOfLists:
          - name: b
            value:
            - a
            - c
        `),
      ],
      object: `
        listOfLists:
        - name: b
          value:
          - a
          - c
      `,
      managed: {
        'default': ['v1', '.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="a"]', '.listOfLists[name="b"].value[="c"]'],
      },
    },
    {
      name: 'listOfMaps_change_value',
      ops: [
        applyOp('default', 'v1', `
          listOfMaps:
          - name: a
            value:
              b: "x"
              c: "y"
        `),
        applyOp('default', 'v1', `
          listOfMaps:
          - name: a
            value:
              a: "x"
              c: "z"
        `),
      ],
      object: `
        listOfMaps:
        - name: a
          value:
            a: "x"
            c: "z"
      `,
      managed: {
        'default': ['v1', '.listOfMaps[name="a"]', '.listOfMaps[name="a"].name', '.listOfMaps[name="a"].value.a', '.listOfMaps[name="a"].value.c'],
      },
    },
    {
      name: 'listOfMaps_change_key_and_value',
      ops: [
        applyOp('default', 'v1', `
          listOfMaps:
          - name: a
            value:
              b: "x"
              c: "y"
        `),
        applyOp('default', 'v1', `
          listOfMaps:
          - name: b
            value:
              a: "x"
              c: "z"
        `),
      ],
      object: `
        listOfMaps:
        - name: b
          value:
            a: "x"
            c: "z"
      `,
      managed: {
        'default': ['v1', '.listOfMaps[name="b"]', '.listOfMaps[name="b"].name', '.listOfMaps[name="b"].value.a', '.listOfMaps[name="b"].value.c'],
      },
    },
    {
      name: 'mapOfLists_change_value',
      ops: [
        applyOp('default', 'v1', `
          mapOfLists:
            a:
            - b
            - c
        `),
        applyOp('default', 'v1', `
          mapOfLists:
            a:
            - a
            - c
        `),
      ],
      object: `
        mapOfLists:
          a:
          - a
          - c
      `,
      managed: {
        'default': ['v1', '.mapOfLists.a', '.mapOfLists.a[="a"]', '.mapOfLists.a[="c"]'],
      },
    },
    {
      name: 'mapOfLists_change_key_and_value',
      ops: [
        applyOp('default', 'v1', `
          mapOfLists:
            a:
            - b
            - c
        `),
        applyOp('default', 'v1', `
          mapOfLists:
            b:
            - a
            - c
        `),
      ],
      object: `
        mapOfLists:
          b:
          - a
          - c
      `,
      managed: {
        'default': ['v1', '.mapOfLists.b', '.mapOfLists.b[="a"]', '.mapOfLists.b[="c"]'],
      },
    },
    {
      name: 'mapOfMaps_change_value',
      ops: [
        applyOp('default', 'v1', `
          mapOfMaps:
            a:
              b: "x"
              c: "y"
        `),
        applyOp('default', 'v1', `
          mapOfMaps:
            a:
              a: "x"
              c: "z"
        `),
      ],
      object: `
        mapOfMaps:
          a:
            a: "x"
            c: "z"
      `,
      managed: {
        'default': ['v1', '.mapOfMaps.a', '.mapOfMaps.a.a', '.mapOfMaps.a.c'],
      },
    },
    {
      name: 'mapOfMaps_change_key_and_value',
      ops: [
        applyOp('default', 'v1', `
          mapOfMaps:
            a:
              b: "x"
              c: "y"
        `),
        applyOp('default', 'v1', `
          mapOfMaps:
            b:
              a: "x"
              c: "z"
        `),
      ],
      object: `
        mapOfMaps:
          b:
            a: "x"
            c: "z"
      `,
      managed: {
        'default': ['v1', '.mapOfMaps.b', '.mapOfMaps.b.a', '.mapOfMaps.b.c'],
      },
    },
    {
      name: 'mapOfMapsRecursive_change_middle_key',
      ops: [
        applyOp('default', 'v1', `
          mapOfMapsRecursive:
            a:
              b:
                c:
        `),
        applyOp('default', 'v1', `
          mapOfMapsRecursive:
            a:
              d:
                c:
        `),
      ],
      object: `
        mapOfMapsRecursive:
          a:
            d:
              c:
      `,
      managed: {
        'default': ['v1', '.mapOfMapsRecursive.a', '.mapOfMapsRecursive.a.d', '.mapOfMapsRecursive.a.d.c'],
      },
    },
    {
      name: 'struct_apply_remove_all',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
            value: 1
        `),
        applyOp('default', 'v1', ''),
      ],
      object: '',
      managed: {
      },
    },
    {
      name: 'struct_apply_remove_dangling',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
        `),
        applyOp('default', 'v1', `
          struct:
        `),
      ],
      object: `
        struct:
      `,
      managed: {
        'default': ['v1', '.struct'],
      },
    },
    {
      name: 'struct_apply_update_remove_all',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
        `),
        updateOp('controller', 'v1', `
          struct:
            name: a
            value: 1
        `),
        applyOp('default', 'v1', ''),
      ],
      object: `
        struct:
          value: 1
      `,
    },
    {
      name: 'struct_apply_update_dict_dangling',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
        `),
        updateOp('controller', 'v1', `
          struct:
            name: a
            value: 1
        `),
        applyOp('default', 'v1', `
          struct: {}
        `),
      ],
      object: `
        struct:
          value: 1
      `,
    },
    {
      name: 'struct_apply_update_dict_null',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
        `),
        updateOp('controller', 'v1', `
          struct:
            name: a
            value: 1
        `),
        applyOp('default', 'v1', `
          struct:
        `),
      ],
      object: `
        struct:
          value: 1
      `,
    },
    {
      name: 'struct_apply_update_took_over',
      ops: [
        applyOp('default', 'v1', `
          struct:
            name: a
        `),
        updateOp('controller', 'v1', `
          struct:
            name: b
            value: 1
        `),
        applyOp('default', 'v1', `
          struct:
        `),
      ],
      object: `
        struct:
          name: b
          value: 1
      `,
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: nestedType }));
});


describe('TestMultipleAppliersFieldUnsetting (field_level_overrides_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'test_override_atomic_map_with_separable',
      ops: [
        applyOp('apply_one', 'v1', `
          separableMapReference:
            name: a
        `),
        applyOp('apply_two', 'v1', `
          separableMapReference:
            value: 2
        `),
      ],
      object: `
        separableMapReference:
          name: a
          value: 2
      `,
      managed: {
        'apply_one': ['v1', '.separableMapReference.name'],
        'apply_two': ['v1', '.separableMapReference.value'],
      },
    },
    {
      name: 'test_override_unspecified_map_with_atomic',
      ops: [
        applyOp('apply_one', 'v1', `
          atomicMapReference:
            name: a
        `),
        applyOp('apply_two', 'v1', `
          atomicMapReference:
            value: 2
        `, [['apply_one', '.atomicMapReference']]),
        applyOp('apply_one', 'v1', `
          atomicMapReference:
            name: b
            value: 2
        `),
      ],
      object: `
        atomicMapReference:
          name: b
          value: 2
      `,
      managed: {
        'apply_one': ['v1', '.atomicMapReference'],
      },
    },
    {
      name: 'test_override_associative_list_with_atomic',
      ops: [
        applyOp('apply_one', 'v1', `
          associativeListReference:
            - name: a
              value: 1
        `),
        applyOp('apply_two', 'v1', `
          associativeListReference:
          - name: b
            value: 2
        `, [['apply_one', '.associativeListReference']]),
      ],
      object: `
        associativeListReference:
          - name: a
            value: 1
      `,
      managed: {
        'apply_one': ['v1', '.associativeListReference'],
      },
    },
    {
      name: 'test_override_inline_atomic_list_with_associative',
      ops: [
        applyOp('apply_one', 'v1', `
          separableInlineList:
          - 1
        `),
        applyOp('apply_two', 'v1', `
          separableInlineList:
          - 2
        `),
      ],
      object: `
        separableInlineList:
        - 1
        - 2
      `,
      managed: {
        'apply_one': ['v1', '.separableInlineList[=1]'],
        'apply_two': ['v1', '.separableInlineList[=2]'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: overrideStructType }));
});

