/**
 * The original's merge test fixture, for our Updater (src/apply/merge.ts):
 * a case is a list of operations (apply, forced apply, update, schema
 * change) run against one live object, then the expected object and the
 * expected managers' sets and versions. Objects are YAML, as in the
 * original's tables; expected sets are printed paths (support/paths.ts).
 */
import assert from 'node:assert/strict';
import { parse } from 'yaml';
import { ConflictError } from '../../../src/apply/conflict.ts';
import type { FieldFilter } from '../../../src/apply/field-filter.ts';
import type { ManagedFields } from '../../../src/apply/managers.ts';
import { apply, update } from '../../../src/apply/merge.ts';
import { pathString } from '../../../src/apply/path.ts';
import type { SchemaType } from '../../../src/apply/schema.ts';
import { validate, validationMessage } from '../../../src/apply/validate.ts';
import { equals, type Json } from '../../../src/apply/value.ts';
import { setOf } from './paths.ts';

export type Op =
  | { readonly op: 'apply'; readonly manager: string; readonly version: string; readonly object: string; readonly force: boolean; readonly conflicts?: readonly (readonly [string, string])[] }
  | { readonly op: 'update'; readonly manager: string; readonly version: string; readonly object: string }
  | { readonly op: 'schema'; readonly type: SchemaType };

export interface Case {
  readonly name: string;
  readonly type: SchemaType;
  readonly ops: readonly Op[];
  /** The live object afterwards (YAML); unchecked when absent. */
  readonly object?: string;
  /** Manager -> [version, ...paths]; unchecked when absent. */
  readonly managed?: Readonly<Record<string, readonly string[]>>;
  readonly ignore?: FieldFilter;
}

/** An apply; `conflicts` lists the [manager, path] pairs it must fail with. */
export function applyOp(manager: string, version: string, object: string, conflicts?: readonly (readonly [string, string])[]): Op {
  return conflicts === undefined ? { op: 'apply', manager, version, object, force: false } : { op: 'apply', manager, version, object, force: false, conflicts };
}

export function forceApplyOp(manager: string, version: string, object: string): Op {
  return { op: 'apply', manager, version, object, force: true };
}

export function updateOp(manager: string, version: string, object: string): Op {
  return { op: 'update', manager, version, object };
}

export function schemaOp(type: SchemaType): Op {
  return { op: 'schema', type };
}

/** YAML written indented inside a template literal. */
export function yaml(text: string): Json {
  const lines = text.split('\n');
  while (lines.length > 0 && lines[0]!.trim() === '') lines.shift();
  const indent = Math.min(...lines.filter((l) => l.trim() !== '').map((l) => l.length - l.trimStart().length), Infinity);
  const body = lines.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
  const v = parse(body) as Json | undefined;
  return v === undefined ? null : v;
}

export interface State {
  live: Json;
  managers: ManagedFields;
  type: SchemaType;
}

export function runOps(c: Pick<Case, 'type' | 'ops' | 'ignore'>): State {
  const state: State = { live: null, managers: new Map(), type: c.type };
  c.ops.forEach((op, i) => {
    try {
      runOp(state, op, c.ignore);
    } catch (err) {
      if (err instanceof Error) err.message = `operation ${i}: ${err.message}`;
      throw err;
    }
  });
  return state;
}

function runOp(state: State, op: Op, ignore: FieldFilter | undefined): void {
  switch (op.op) {
    case 'schema':
      state.type = op.type;
      return;
    case 'update':
      state.managers = update({ live: state.live, next: yaml(op.object), type: state.type, version: op.version, managers: state.managers, manager: op.manager, ignore });
      state.live = yaml(op.object);
      return;
    case 'apply': {
      const config = yaml(op.object);
      const errs = validate(config, state.type);
      if (errs.length > 0) throw new Error(`invalid configuration: ${validationMessage(errs)}`);
      let result;
      try {
        result = apply({ live: state.live, config, type: state.type, version: op.version, managers: state.managers, manager: op.manager, force: op.force, ignore });
      } catch (err) {
        if (!(err instanceof ConflictError) || op.conflicts === undefined) throw err;
        const got = err.conflicts.map((x) => `${x.manager} ${pathString(x.path)}`).sort();
        assert.deepEqual(got, op.conflicts.map(([m, p]) => `${m} ${p}`).sort(), 'conflicts');
        return;
      }
      if (op.conflicts !== undefined && op.conflicts.length > 0) assert.fail(`expected conflicts ${JSON.stringify(op.conflicts)}, got none`);
      state.managers = result.managers;
      if (result.object !== undefined) state.live = result.object;
      return;
    }
  }
}

/** Runs a case and checks its expectations. */
export function runCase(c: Case): void {
  const state = runOps(c);
  if (c.object !== undefined) {
    const want = yaml(c.object);
    assert.ok(equals(state.live, want), `live object:\n got ${JSON.stringify(state.live)}\nwant ${JSON.stringify(want)}`);
  }
  if (c.managed !== undefined) assertManaged(state.managers, c.managed);
  for (const [m, vs] of state.managers) assert.ok(!vs.set.empty(), `manager ${m} has an empty set`);
}

export function assertManaged(got: ManagedFields, want: Readonly<Record<string, readonly string[]>>): void {
  const show = (m: ManagedFields): Record<string, string[]> =>
    Object.fromEntries([...m].map(([k, vs]) => [k, [vs.apiVersion, ...vs.set.paths().map(pathString)]]));
  const wantMap: ManagedFields = new Map(
    Object.entries(want).map(([k, [version, ...paths]]) => [k, { set: setOf(...paths), apiVersion: version!, applied: false }]),
  );
  const names = new Set([...got.keys(), ...wantMap.keys()]);
  for (const m of names) {
    const g = got.get(m);
    const w = wantMap.get(m);
    const same = g !== undefined && w !== undefined ? g.apiVersion === w.apiVersion && g.set.equals(w.set) : (g ?? w)!.set.empty();
    assert.ok(same, `managers differ at ${m}:\n got ${JSON.stringify(show(got))}\nwant ${JSON.stringify(show(wantMap))}`);
  }
}
