/**
 * Several appliers and updaters on one object (the original's
 * merge/multiple_appliers_test.go and key_test.go, case by case): shared
 * ownership, conflicts, force, giving up fields by omission, removal when no
 * one else owns, list items by key, atomic maps. Cases that need objects
 * converted between API versions are not ported (we record versions without
 * converting); the field-unsetting cases run with one version.
 */
import { describe, it } from 'node:test';
import { DEDUCED } from '../../src/apply/schema.ts';
import { applyOp, forceApplyOp, runCase, updateOp, type Case } from './support/fixture.ts';
import { associativeList, atomicMap, nestedType, structMultiversion } from './support/smd-schemas.ts';

type Row = Omit<Case, 'type'>;

describe('TestMultipleAppliersSet (multiple_appliers_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'remove_one',
      ops: [
        applyOp('apply-one', 'v1', `
          list:
          - name: a
          - name: b
        `),
        applyOp('apply-two', 'v2', `
          list:
          - name: c
        `),
        applyOp('apply-one', 'v3', `
          list:
          - name: a
        `),
      ],
      object: `
        list:
        - name: a
        - name: c
      `,
      managed: {
        'apply-one': ['v3', '.list[name="a"]', '.list[name="a"].name'],
        'apply-two': ['v2', '.list[name="c"]', '.list[name="c"].name'],
      },
    },
    {
      name: 'same_value_no_conflict',
      ops: [
        applyOp('apply-one', 'v1', `
          list:
          - name: a
            value: 0
        `),
        applyOp('apply-two', 'v2', `
          list:
          - name: a
            value: 0
        `),
      ],
      object: `
        list:
        - name: a
          value: 0
      `,
      managed: {
        'apply-one': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
        'apply-two': ['v2', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
      },
    },
    {
      name: 'change_value_yes_conflict',
      ops: [
        applyOp('apply-one', 'v1', `
          list:
          - name: a
            value: 0
        `),
        applyOp('apply-two', 'v2', `
          list:
          - name: a
            value: 1
        `, [['apply-one', '.list[name="a"].value']]),
      ],
      object: `
        list:
        - name: a
          value: 0
      `,
      managed: {
        'apply-one': ['v1', '.list[name="a"]', '.list[name="a"].name', '.list[name="a"].value'],
      },
    },
    {
      name: 'remove_one_keep_one',
      ops: [
        applyOp('apply-one', 'v1', `
          list:
          - name: a
          - name: b
          - name: c
        `),
        applyOp('apply-two', 'v2', `
          list:
          - name: c
          - name: d
        `),
        applyOp('apply-one', 'v3', `
          list:
          - name: a
        `),
      ],
      object: `
        list:
        - name: a
        - name: c
        - name: d
      `,
      managed: {
        'apply-one': ['v3', '.list[name="a"]', '.list[name="a"].name'],
        'apply-two': ['v2', '.list[name="c"]', '.list[name="d"]', '.list[name="c"].name', '.list[name="d"].name'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: associativeList }));
});

describe('TestMultipleAppliersFieldUnsetting (multiple_appliers_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'unset_scalar_sole_owner',
      ops: [
        applyOp('apply-one', 'v1', `
          struct:
            name: a
            scalarField_v1: a
        `),
        applyOp('apply-one', 'v1', `
          struct:
            name: a
        `),
      ],
      object: `
        struct:
          name: a
      `,
      managed: {
        'apply-one': ['v1', '.struct.name'],
      },
    },
    {
      name: 'unset_scalar_shared_with_applier',
      ops: [
        applyOp('apply-one', 'v1', `
          struct:
            name: a
            scalarField_v1: a
        `),
        applyOp('apply-two', 'v1', `
          struct:
            scalarField_v1: a
        `),
        applyOp('apply-one', 'v1', `
          struct:
            name: a
        `),
      ],
      object: `
        struct:
          name: a
          scalarField_v1: a
      `,
      managed: {
        'apply-one': ['v1', '.struct.name'],
        'apply-two': ['v1', '.struct.scalarField_v1'],
      },
    },
    {
      name: 'unset_scalar_shared_with_updater',
      ops: [
        updateOp('updater', 'v1', `
          struct:
            name: a
            scalarField_v1: a
        `),
        applyOp('applier', 'v1', `
          struct:
            name: a
            scalarField_v1: a
        `),
        applyOp('applier', 'v1', `
          struct:
            name: a
        `),
      ],
      object: `
        struct:
          name: a
          scalarField_v1: a
      `,
      managed: {
        'updater': ['v1', '.struct', '.struct.name', '.struct.scalarField_v1'],
        'applier': ['v1', '.struct.name'],
      },
    },
    {
      name: 'updater_claims_field',
      ops: [
        applyOp('applier', 'v1', `
          struct:
            name: a
            scalarField_v1: a
        `),
        updateOp('updater', 'v1', `
          struct:
            name: a
            scalarField_v1: b
        `),
      ],
      object: `
        struct:
          name: a
          scalarField_v1: b
      `,
      managed: {
        'updater': ['v1', '.struct.scalarField_v1'],
        'applier': ['v1', '.struct.name'],
      },
    },
    {
      name: 'unset_complex_sole_owner',
      ops: [
        applyOp('apply-one', 'v1', `
          struct:
            name: a
            complexField_v1:
              name: b
        `),
        applyOp('apply-one', 'v1', `
          struct:
            name: a
        `),
      ],
      object: `
        struct:
          name: a
      `,
      managed: {
        'apply-one': ['v1', '.struct.name'],
      },
    },
    {
      name: 'unset_complex_shared_with_applier',
      ops: [
        applyOp('apply-one', 'v1', `
          struct:
            name: a
            complexField_v1:
              name: b
        `),
        applyOp('apply-two', 'v1', `
          struct:
            complexField_v1:
              name: b
        `),
        applyOp('apply-one', 'v1', `
          struct:
            name: a
        `),
      ],
      object: `
        struct:
          name: a
          complexField_v1:
            name: b
      `,
      managed: {
        'apply-one': ['v1', '.struct.name'],
        'apply-two': ['v1', '.struct.complexField_v1.name'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: structMultiversion }));
});

describe('TestMultipleAppliersNestedType (multiple_appliers_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'remove_one_keep_one_with_two_sub_items',
      ops: [
        applyOp('apply-one', 'v1', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        `),
        applyOp('apply-two', 'v2', `
          listOfLists:
          - name: b
            value:
            - d
        `),
        applyOp('apply-one', 'v3', `
          listOfLists:
          - name: a
        `),
      ],
      object: `
        listOfLists:
        - name: a
        - name: b
          value:
          - d
      `,
      managed: {
        'apply-one': ['v3', '.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['v2', '.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
      },
    },
    {
      name: 'remove_one_keep_one_with_dangling_subitem',
      ops: [
        applyOp('apply-one', 'v1', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        `),
        applyOp('apply-two', 'v2', `
          listOfLists:
          - name: b
            value:
            - d
        `),
        updateOp('controller', 'v2', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
            - d
            - e
        `),
        applyOp('apply-one', 'v3', `
          listOfLists:
          - name: a
        `),
      ],
      object: `
        listOfLists:
        - name: a
        - name: b
          value:
          - d
          - e
      `,
      managed: {
        'apply-one': ['v3', '.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['v2', '.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
        'controller': ['v2', '.listOfLists[name="b"].value[="e"]'],
      },
    },
    {
      name: 'remove_one_with_dangling_subitem_keep_one',
      ops: [
        applyOp('apply-one', 'v1', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        `),
        applyOp('apply-two', 'v2', `
          listOfLists:
          - name: a
            value:
            - b
        `),
        updateOp('controller', 'v2', `
          listOfLists:
          - name: a
            value:
            - b
          - name: b
            value:
            - c
            - d
        `),
        applyOp('apply-one', 'v3', `
          listOfLists:
          - name: a
        `),
      ],
      object: `
        listOfLists:
        - name: a
          value:
          - b
      `,
      managed: {
        'apply-one': ['v3', '.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['v2', '.listOfLists[name="a"]', '.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="b"]'],
      },
    },
    {
      name: 'remove_one_with_managed_subitem_keep_one',
      ops: [
        applyOp('apply-one', 'v1', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        `),
        applyOp('apply-two', 'v2', `
          listOfLists:
          - name: a
            value:
            - b
        `),
        updateOp('controller', 'v2', `
          listOfLists:
          - name: a
            value:
            - b
          - name: b
            value:
            - c
            - d
        `),
        applyOp('apply-one', 'v3', `
          listOfLists:
          - name: a
        `),
      ],
      object: `
        listOfLists:
        - name: a
          value:
          - b
      `,
      managed: {
        'apply-one': ['v3', '.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['v2', '.listOfLists[name="a"]', '.listOfLists[name="a"].name', '.listOfLists[name="a"].value[="b"]'],
      },
    },
    {
      name: 'remove_one_keep_one_with_sub_item',
      ops: [
        applyOp('apply-one', 'v1', `
          listOfLists:
          - name: a
          - name: b
            value:
            - c
        `),
        applyOp('apply-two', 'v2', `
          listOfLists:
          - name: b
            value:
            - d
        `),
        applyOp('apply-one', 'v3', `
          listOfLists:
          - name: a
        `),
      ],
      object: `
        listOfLists:
        - name: a
        - name: b
          value:
          - d
      `,
      managed: {
        'apply-one': ['v3', '.listOfLists[name="a"]', '.listOfLists[name="a"].name'],
        'apply-two': ['v2', '.listOfLists[name="b"]', '.listOfLists[name="b"].name', '.listOfLists[name="b"].value[="d"]'],
      },
    },
    {
      name: 'multiple_appliers_recursive_map',
      ops: [
        applyOp('apply-one', 'v1', `
          mapOfMapsRecursive:
            a:
              b:
            c:
              d:
        `),
        applyOp('apply-two', 'v2', `
          mapOfMapsRecursive:
            a:
            c:
              d:
        `),
        updateOp('controller-one', 'v3', `
          mapOfMapsRecursive:
            a:
              b:
                c:
            c:
              d:
                e:
        `),
        updateOp('controller-two', 'v2', `
          mapOfMapsRecursive:
            a:
              b:
                c:
                  d:
            c:
              d:
                e:
                  f:
        `),
        updateOp('controller-one', 'v3', `
          mapOfMapsRecursive:
            a:
              b:
                c:
                  d:
                    e:
            c:
              d:
                e:
                  f:
                    g:
        `),
        applyOp('apply-one', 'v4', `
          mapOfMapsRecursive:
        `),
      ],
      object: `
        mapOfMapsRecursive:
          a:
          c:
            d:
              e:
                f:
                  g:
      `,
      managed: {
        'apply-one': ['v4', '.mapOfMapsRecursive'],
        'apply-two': ['v2', '.mapOfMapsRecursive.a', '.mapOfMapsRecursive.c', '.mapOfMapsRecursive.c.d'],
        'controller-one': ['v3', '.mapOfMapsRecursive.c.d.e', '.mapOfMapsRecursive.c.d.e.f.g'],
        'controller-two': ['v2', '.mapOfMapsRecursive.c.d.e.f'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: nestedType }));
});

describe('TestMultipleAppliersDeducedType (multiple_appliers_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'multiple_appliers_recursive_map_deduced',
      ops: [
        applyOp('apply-one', 'v1', `
          a:
            b:
          c:
            d:
        `),
        applyOp('apply-two', 'v2', `
          a:
          c:
            d:
        `),
        updateOp('controller-one', 'v3', `
          a:
            b:
              c:
          c:
            d:
              e:
        `),
        updateOp('controller-two', 'v2', `
          a:
            b:
              c:
                d:
          c:
            d:
              e:
                f:
        `),
        updateOp('controller-one', 'v3', `
          a:
            b:
              c:
                d:
                  e:
          c:
            d:
              e:
                f:
                  g:
        `),
        applyOp('apply-one', 'v4', ''),
      ],
      object: `
        a:
        c:
          d:
            e:
              f:
                g:
      `,
      managed: {
        'apply-two': ['v2', '.a', '.c', '.c.d'],
        'controller-one': ['v3', '.c.d.e', '.c.d.e.f.g'],
        'controller-two': ['v2', '.c.d.e.f'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: DEDUCED }));
});

describe('TestMultipleApplierAtomicMaps (multiple_appliers_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'force',
      ops: [
        applyOp('apply-one', 'v1', `
          atomicMap:
            field1: a
        `),
        applyOp('apply-two', 'v1', `
          atomicMap:
            field2: b
        `, [['apply-one', '.atomicMap']]),
        forceApplyOp('apply-two', 'v1', `
          atomicMap:
            field2: b
        `),
      ],
      object: `
        atomicMap:
          field2: b
      `,
      managed: {
        'apply-two': ['v1', '.atomicMap'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: atomicMap }));
});


describe('TestUpdateAssociativeLists (key_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'removing_obsolete_applied_structs',
      ops: [
        applyOp('default', 'v1', `
          list:
          - name: a
            value: 1
        `),
        applyOp('default', 'v1', `
          list:
          - name: b
            value: 2
        `),
      ],
      object: `
        list:
        - name: b
          value: 2
      `,
      managed: {
        'default': ['v1', '.list[name="b"]', '.list[name="b"].name', '.list[name="b"].value'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: associativeList }));
});

