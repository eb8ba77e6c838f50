/**
 * Leaves, sets and untyped values (the original's merge/leaf_test.go,
 * set_test.go, deduced_test.go and preserve_unknown_test.go, case by case).
 */
import { describe, it } from 'node:test';
import { DEDUCED } from '../../src/apply/schema.ts';
import { applyOp, forceApplyOp, runCase, updateOp, type Case } from './support/fixture.ts';
import { leafFields, preserveUnknown, setFields } from './support/smd-schemas.ts';

type Row = Omit<Case, 'type'>;

describe('TestUpdateLeaf (leaf_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'apply_twice',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "string"
          bool: false
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: false
      `,
      managed: {
        'default': ['v1', '.numeric', '.string', '.bool'],
      },
    },
    {
      name: 'apply_twice_different_versions',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        applyOp('default', 'v2', `
          numeric: 2
          string: "string"
          bool: false
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: false
      `,
      managed: {
        'default': ['v2', '.numeric', '.string', '.bool'],
      },
    },
    {
      name: 'apply_update_apply_no_conflict',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v1', `
          numeric: 1
          string: "string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "string"
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v1', '.bool'],
      },
    },
    {
      name: 'apply_update_apply_no_conflict_different_version',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v2', `
          numeric: 1
          string: "string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "string"
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v2', '.bool'],
      },
    },
    {
      name: 'apply_update_apply_with_conflict',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v1', `
          numeric: 1
          string: "controller string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `, [['controller', '.string']]),
        forceApplyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `),
      ],
      object: `
        numeric: 2
        string: "user string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v1', '.bool'],
      },
    },
    {
      name: 'apply_update_apply_with_conflict_across_version',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v2', `
          numeric: 1
          string: "controller string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `, [['controller', '.string']]),
        forceApplyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `),
      ],
      object: `
        numeric: 2
        string: "user string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v2', '.bool'],
      },
    },
    {
      name: 'apply_twice_remove',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
          bool: false
        `),
        applyOp('default', 'v1', `
          string: "new string"
        `),
      ],
      object: `
        string: "new string"
      `,
      managed: {
        'default': ['v1', '.string'],
      },
    },
    {
      name: 'update_apply_omits',
      ops: [
        applyOp('default', 'v1', `
          numeric: 2
        `),
        updateOp('controller', 'v1', `
          numeric: 1
        `),
        applyOp('default', 'v1', ''),
      ],
      object: `
        numeric: 1
      `,
      managed: {
        'controller': ['v1', '.numeric'],
      },
    },
    {
      name: 'apply_twice_remove_different_version',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
          bool: false
        `),
        applyOp('default', 'v2', `
          string: "new string"
        `),
      ],
      object: `
        string: "new string"
      `,
      managed: {
        'default': ['v2', '.string'],
      },
    },
    {
      name: 'update_remove_empty_set',
      ops: [
        applyOp('default', 'v1', `
          string: "string"
        `),
        updateOp('controller', 'v1', `
          string: "new string"
        `),
      ],
      object: `
        string: "new string"
      `,
      managed: {
        'controller': ['v1', '.string'],
      },
    },
    {
      name: 'apply_remove_empty_set',
      ops: [
        applyOp('default', 'v1', `
          string: "string"
        `),
        applyOp('default', 'v1', ''),
      ],
      object: '',
      managed: {
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: leafFields }));
});


describe('TestUpdateSet (set_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'apply_twice',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
        - d
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="b"]', '.list[="c"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_no_overlap',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        updateOp('controller', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - aprime
          - c
          - cprime
        `),
      ],
      object: `
        list:
        - a
        - b
        - aprime
        - c
        - d
        - cprime
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="aprime"]', '.list[="c"]', '.list[="cprime"]'],
        'controller': ['v1', '.list[="b"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_no_overlap_and_different_version',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        updateOp('controller', 'v2', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - aprime
          - c
          - cprime
        `),
      ],
      object: `
        list:
        - a
        - b
        - aprime
        - c
        - d
        - cprime
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="aprime"]', '.list[="c"]', '.list[="cprime"]'],
        'controller': ['v2', '.list[="b"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_with_overlap',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        updateOp('controller', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
        - d
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="b"]', '.list[="c"]'],
        'controller': ['v1', '.list[="b"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_with_overlap_and_different_version',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        updateOp('controller', 'v2', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
        - d
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="b"]', '.list[="c"]'],
        'controller': ['v2', '.list[="b"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_twice_reorder',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - d
          - c
          - b
        `),
      ],
      object: `
        list:
        - a
        - d
        - c
        - b
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="b"]', '.list[="c"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_reorder',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        updateOp('controller', 'v1', `
          list:
          - a
          - d
          - c
          - b
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
        - d
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="b"]', '.list[="c"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_update_apply_reorder_across_versions',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        updateOp('controller', 'v1', `
          list:
          - a
          - d
          - c
          - b
        `),
        applyOp('default', 'v2', `
          list:
          - a
          - b
          - c
          - d
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
        - d
      `,
      managed: {
        'default': ['v2', '.list[="a"]', '.list[="b"]', '.list[="c"]', '.list[="d"]'],
      },
    },
    {
      name: 'apply_twice_remove',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
      ],
      object: `
        list:
        - a
        - c
      `,
      managed: {
        'default': ['v1', '.list[="a"]', '.list[="c"]'],
      },
    },
    {
      name: 'apply_twice_remove_across_versions',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        applyOp('default', 'v2', `
          list:
          - a
          - c
          - e
        `),
      ],
      object: `
        list:
        - a
        - c
        - e
      `,
      managed: {
        'default': ['v2', '.list[="a"]', '.list[="c"]', '.list[="e"]'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: setFields }));
});


describe('TestDeduced (deduced_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'leaf_apply_twice',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "string"
          bool: false
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: false
      `,
      managed: {
        'default': ['v1', '.numeric', '.string', '.bool'],
      },
    },
    {
      name: 'leaf_apply_update_apply_no_conflict',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v1', `
          numeric: 1
          string: "string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "string"
        `),
      ],
      object: `
        numeric: 2
        string: "string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v1', '.bool'],
      },
    },
    {
      name: 'leaf_apply_update_apply_with_conflict',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
        `),
        updateOp('controller', 'v1', `
          numeric: 1
          string: "controller string"
          bool: true
        `),
        applyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `, [['controller', '.string']]),
        forceApplyOp('default', 'v1', `
          numeric: 2
          string: "user string"
        `),
      ],
      object: `
        numeric: 2
        string: "user string"
        bool: true
      `,
      managed: {
        'default': ['v1', '.numeric', '.string'],
        'controller': ['v1', '.bool'],
      },
    },
    {
      name: 'leaf_apply_twice_remove',
      ops: [
        applyOp('default', 'v1', `
          numeric: 1
          string: "string"
          bool: false
        `),
        applyOp('default', 'v1', `
          string: "new string"
        `),
      ],
      object: `
        string: "new string"
      `,
      managed: {
        'default': ['v1', '.string'],
      },
    },
    {
      name: 'leaf_update_remove_empty_set',
      ops: [
        applyOp('default', 'v1', `
          string: "string"
        `),
        updateOp('controller', 'v1', `
          string: "new string"
        `),
      ],
      object: `
        string: "new string"
      `,
      managed: {
        'controller': ['v1', '.string'],
      },
    },
    {
      name: 'apply_twice_list_is_atomic',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        applyOp('default', 'v1', `
          list:
          - a
          - d
          - c
          - b
        `),
      ],
      object: `
        list:
        - a
        - d
        - c
        - b
      `,
      managed: {
        'default': ['v1', '.list'],
      },
    },
    {
      name: 'apply_update_apply_list',
      ops: [
        applyOp('default', 'v1', `
          list:
          - a
          - c
        `),
        updateOp('controller', 'v1', `
          list:
          - a
          - b
          - c
          - d
        `),
        forceApplyOp('default', 'v1', `
          list:
          - a
          - b
          - c
        `),
      ],
      object: `
        list:
        - a
        - b
        - c
      `,
      managed: {
        'default': ['v1', '.list'],
      },
    },
    {
      name: 'leaf_apply_remove_empty_set',
      ops: [
        applyOp('default', 'v1', `
          string: "string"
        `),
        applyOp('default', 'v1', ''),
      ],
      object: '',
      managed: {
      },
    },
    {
      name: 'apply_update_apply_nested',
      ops: [
        applyOp('default', 'v1', `
          a: 1
          b:
            c:
              d: 2
              e:
              - 1
              - 2
              - 3
              f:
              - name: n
                value: 1
        `),
        updateOp('controller', 'v1', `
          a: 1
          b:
            c:
              d: 3
              e:
              - 1
              - 2
              - 3
              - 4
              f:
              - name: n
                value: 2
          g: 5
        `),
        applyOp('default', 'v1', `
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        `, [['controller', '.b.c.d'], ['controller', '.b.c.e'], ['controller', '.b.c.f']]),
        forceApplyOp('default', 'v1', `
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        `),
      ],
      object: `
        a: 2
        b:
          c:
            d: 2
            e:
            - 3
            - 2
            - 1
            f:
            - name: n
              value: 1
        g: 5
      `,
    },
    {
      name: 'apply_update_apply_nested_different_version',
      ops: [
        applyOp('default', 'v1', `
          a: 1
          b:
            c:
              d: 2
              e:
              - 1
              - 2
              - 3
              f:
              - name: n
                value: 1
        `),
        updateOp('controller', 'v2', `
          a: 1
          b:
            c:
              d: 3
              e:
              - 1
              - 2
              - 3
              - 4
              f:
              - name: n
                value: 2
          g: 5
        `),
        applyOp('default', 'v3', `
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        `, [['controller', '.b.c.d'], ['controller', '.b.c.e'], ['controller', '.b.c.f']]),
        forceApplyOp('default', 'v3', `
          a: 2
          b:
            c:
              d: 2
              e:
              - 3
              - 2
              - 1
              f:
              - name: n
                value: 1
        `),
      ],
      object: `
        a: 2
        b:
          c:
            d: 2
            e:
            - 3
            - 2
            - 1
            f:
            - name: n
              value: 1
        g: 5
      `,
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: DEDUCED }));
});


describe('TestPreserveUnknownFields (preserve_unknown_test.go)', () => {
  const rows: Row[] = [
    {
      name: 'preserve_unknown_fields',
      ops: [
        applyOp('default', 'v1', `
          num: 5
          unknown: value
        `),
        applyOp('default', 'v1', `
          num: 6
          unknown: new
        `),
      ],
      object: `
        num: 6
        unknown: new
      `,
      managed: {
        'default': ['v1', '.num', '.unknown'],
      },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: preserveUnknown }));
});

