/**
 * Conflicts and ignored fields at the merge level: the original's
 * merge/conflict_test.go and ignore_test.go, case by case, plus the rules
 * of spec 4.8 and 7 rule 2: every conflicting field of every manager is
 * reported, force takes the fields over, update never conflicts.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConflictError, conflictsFromManagers } from '../../src/apply/conflict.ts';
import { excludeFilter } from '../../src/apply/field-filter.ts';
import { versionedSet, type ManagedFields } from '../../src/apply/managers.ts';
import { apply } from '../../src/apply/merge.ts';
import { pathString } from '../../src/apply/path.ts';
import { DEDUCED } from '../../src/apply/schema.ts';
import { applyOp, forceApplyOp, runCase, updateOp, yaml, type Case } from './support/fixture.ts';
import { setOf } from './support/paths.ts';
import { leafFields } from './support/smd-schemas.ts';

type Row = Omit<Case, 'type'>;

describe('conflicts from managers (conflict_test.go)', () => {
  const managers = (m: Record<string, string[]>): ManagedFields =>
    new Map(Object.entries(m).map(([k, paths]) => [k, versionedSet(setOf(...paths), 'v1', false)]));

  it('TestNewFromSets: grouped by sorted manager, paths in set order', () => {
    const conflicts = conflictsFromManagers(
      managers({
        Bob: ['.key', '.list[id=2,key="a"].id'],
        Alice: ['.value', '.list[id=2,key="a"].key'],
      }),
    );
    assert.equal(
      new ConflictError(conflicts).message,
      `conflicts with "Alice":
- .value
- .list[id=2,key="a"].key
conflicts with "Bob":
- .key
- .list[id=2,key="a"].id`,
    );
  });

  it('TestToSet: every path of every manager', () => {
    const conflicts = conflictsFromManagers(
      managers({
        Bob: ['.key', '.list[id=2,key="a"].id'],
        Alice: ['.value', '.list[id=2,key="a"].key'],
      }),
    );
    const set = setOf();
    for (const c of conflicts) set.insert(c.path);
    assert.ok(set.equals(setOf('.key', '.value', '.list[id=2,key="a"].id', '.list[id=2,key="a"].key')));
  });

  it('TestConflictsFromManagers: deep paths', () => {
    const conflicts = conflictsFromManagers(managers({ Bob: ['.obj.template.obj.list[name="a"].id', '.obj.template.obj.list[name="a"].key'] }));
    assert.equal(
      new ConflictError(conflicts).message,
      `conflicts with "Bob":
- .obj.template.obj.list[name="a"].id
- .obj.template.obj.list[name="a"].key`,
    );
  });

  it('one conflict reads as one line', () => {
    const conflicts = conflictsFromManagers(managers({ Bob: ['.spec.replicas'] }));
    assert.equal(new ConflictError(conflicts).message, 'conflict with "Bob": .spec.replicas');
  });
});

describe('ignored fields (ignore_test.go, TestIgnoreFilter and TestIgnoredFields)', () => {
  const rows: Row[] = [
    {
      name: 'update_does_not_own_ignored',
      ops: [updateOp('default', 'v1', `numeric: 1\nstring: "some string"`)],
      object: `numeric: 1\nstring: "some string"`,
      managed: { default: ['v1', '.numeric'] },
      ignore: excludeFilter(setOf('.string')),
    },
    {
      name: 'update_does_not_own_deep_ignored',
      ops: [updateOp('default', 'v1', '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}')],
      object: '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}',
      managed: { default: ['v1', '.numeric'] },
      ignore: excludeFilter(setOf('.obj')),
    },
    {
      name: 'apply_does_not_own_ignored',
      ops: [applyOp('default', 'v1', `numeric: 1\nstring: "some string"`)],
      object: `numeric: 1\nstring: "some string"`,
      managed: { default: ['v1', '.numeric'] },
      ignore: excludeFilter(setOf('.string')),
    },
    {
      name: 'apply_does_not_own_deep_ignored',
      ops: [applyOp('default', 'v1', '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}')],
      object: '{"numeric": 1, "obj": {"string": "foo", "numeric": 2}}',
      managed: { default: ['v1', '.numeric'] },
      ignore: excludeFilter(setOf('.obj')),
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: DEDUCED }));
});

describe('conflicts, force and update (spec 4.8, 7 rule 2)', () => {
  const rows: Row[] = [
    {
      name: 'update never conflicts: it takes the fields it changes',
      ops: [
        applyOp('applier', 'v1', 'numeric: 1\nstring: a'),
        updateOp('updater', 'v1', 'numeric: 2\nstring: b\nbool: true'),
      ],
      object: 'numeric: 2\nstring: b\nbool: true',
      managed: { updater: ['v1', '.numeric', '.string', '.bool'] },
    },
    {
      name: 'an update that leaves a value alone leaves its owner alone',
      ops: [
        applyOp('applier', 'v1', 'numeric: 1\nstring: a'),
        updateOp('updater', 'v1', 'numeric: 1\nstring: b'),
      ],
      object: 'numeric: 1\nstring: b',
      managed: { applier: ['v1', '.numeric'], updater: ['v1', '.string'] },
    },
    {
      name: 'the apply fails, nothing changes, then force takes over',
      ops: [
        applyOp('one', 'v1', 'numeric: 1\nstring: a'),
        updateOp('two', 'v1', 'numeric: 1\nstring: a\nbool: true'),
        applyOp('three', 'v1', 'numeric: 2\nstring: b\nbool: false', [
          ['one', '.numeric'],
          ['one', '.string'],
          ['two', '.bool'],
        ]),
        forceApplyOp('three', 'v1', 'numeric: 2\nstring: b\nbool: false'),
      ],
      object: 'numeric: 2\nstring: b\nbool: false',
      managed: { three: ['v1', '.numeric', '.string', '.bool'] },
    },
    {
      name: 'setting the live value shares ownership, and then any change conflicts',
      ops: [
        applyOp('one', 'v1', 'string: a'),
        applyOp('two', 'v1', 'string: a'),
        applyOp('one', 'v1', 'string: b', [['two', '.string']]),
        updateOp('three', 'v1', 'string: c'),
      ],
      object: 'string: c',
      managed: { three: ['v1', '.string'] },
    },
    {
      name: 'omitting a conflicting field gives it up and keeps the value',
      ops: [
        applyOp('one', 'v1', 'numeric: 1\nstring: a'),
        applyOp('two', 'v1', 'numeric: 2\nstring: a', [['one', '.numeric']]),
        applyOp('two', 'v1', 'string: a'),
        applyOp('one', 'v1', 'string: a'),
      ],
      object: 'string: a',
      managed: { one: ['v1', '.string'], two: ['v1', '.string'] },
    },
  ];
  for (const row of rows) it(row.name, () => runCase({ ...row, type: leafFields }));

  it('the error carries every conflicting path of every manager', () => {
    const managers: ManagedFields = new Map([
      ['a', versionedSet(setOf('.numeric'), 'v1', true)],
      ['b', versionedSet(setOf('.string', '.bool'), 'v1', false)],
    ]);
    const live = yaml('numeric: 1\nstring: x\nbool: true');
    assert.throws(
      () => apply({ live, config: yaml('numeric: 2\nstring: y\nbool: false'), type: leafFields, version: 'v1', managers, manager: 'c', force: false }),
      (err: unknown) => {
        assert.ok(err instanceof ConflictError);
        assert.deepEqual(
          err.conflicts.map((c) => `${c.manager} ${pathString(c.path)}`),
          ['a .numeric', 'b .bool', 'b .string'],
        );
        return true;
      },
    );
    // The input map is left as it was.
    assert.deepEqual([...managers.keys()], ['a', 'b']);
  });
});
