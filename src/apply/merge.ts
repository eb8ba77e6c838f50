/**
 * The two operations of server-side apply, as the original's
 * merge.Updater: Update records who changed what in a write that was
 * merged elsewhere; Apply merges a configuration into the live value and
 * records ownership. Both take and return the managers' field sets; the
 * input map is not modified.
 *
 * Ownership rules (spec 2.5):
 * 1. A changed field moves to the manager that changed it.
 * 2. Appliers that set a field to the value it has share it; an apply that
 *    changes a field someone else owns conflicts unless forced.
 * 3./4. A field an applier applied before and omits now is removed, unless
 *    another manager owns it (list and map items too).
 * 5. Managers left with no fields are dropped.
 *
 * All managers' sets are read against one schema: objects are not converted
 * between API versions (the version is recorded, not interpreted).
 */
import { compareValues, type Comparison } from './compare.ts';
import { ConflictError, conflictsFromManagers } from './conflict.ts';
import type { FieldFilter } from './field-filter.ts';
import { ensureNamedFieldsAreMembers, FieldSet } from './field-set.ts';
import { versionedSet, type ManagedFields } from './managers.ts';
import { mergeValues } from './merge-values.ts';
import { reconcileWithSchema } from './reconcile.ts';
import type { SchemaType } from './schema.ts';
import { removeItems, toFieldSet } from './typed.ts';
import { equals, type Json } from './value.ts';

export interface UpdateArgs {
  /** The object before the write; null when it is being created. */
  readonly live: Json;
  /** The object the write stores. */
  readonly next: Json;
  readonly type: SchemaType;
  /** API version the manager's paths refer to. */
  readonly version: string;
  readonly managers: ManagedFields;
  readonly manager: string;
  /** Fields nobody may own (reset by the strategy). */
  readonly ignore?: FieldFilter | undefined;
}

/** Ownership after a write by `manager`; never conflicts. */
export function update(args: UpdateArgs): ManagedFields {
  const { manager, version, ignore } = args;
  const reconciled = reconcileManagers(args.managers, args.type);
  const { managers, comparison } = takeChanges(args.live, args.next, args.type, reconciled, manager, true, ignore);
  const previous = managers.get(manager)?.set ?? new FieldSet();
  let set = previous.difference(comparison.removed).union(comparison.modified).union(comparison.added);
  if (ignore !== undefined) set = ignore(set);
  if (set.empty()) managers.delete(manager);
  else managers.set(manager, versionedSet(set, version, false));
  return managers;
}

export interface ApplyArgs {
  /** The live object; null when apply creates it. */
  readonly live: Json;
  /** The applied configuration (already validated). */
  readonly config: Json;
  readonly type: SchemaType;
  readonly version: string;
  readonly managers: ManagedFields;
  readonly manager: string;
  readonly force: boolean;
  readonly ignore?: FieldFilter | undefined;
}

export interface ApplyResult {
  /** The merged object; undefined when it equals the live one. */
  readonly object: Json | undefined;
  readonly managers: ManagedFields;
}

/** Merges `config` into `live` for `manager`; throws ConflictError unless forced. */
export function apply(args: ApplyArgs): ApplyResult {
  const { type, manager, version, ignore } = args;
  let managers = reconcileManagers(args.managers, type);
  const merged = mergeValues(args.live, args.config, type) ?? null;
  const last = managers.get(manager);
  let set = toFieldSet(args.config, type);
  if (ignore !== undefined) set = ignore(set);
  managers.set(manager, versionedSet(set, version, true));
  // Pruning removes only what the last set has and the new one lacks; an
  // applier that applies at least what it applied before (the usual re-apply)
  // has nothing to prune, and the full walk is skipped.
  const pruned = last === undefined || last.set.difference(set).empty() ? merged : prune(merged, type, managers, last.set);
  managers = takeChanges(args.live, pruned, type, managers, manager, args.force, ignore).managers;
  return { object: equals(args.live, pruned) ? undefined : pruned, managers };
}

/** A copy of `managers` with every set reconciled with the schema's topology. */
function reconcileManagers(managers: ManagedFields, type: SchemaType): ManagedFields {
  const out: ManagedFields = new Map();
  for (const [manager, vs] of managers) {
    const set = reconcileWithSchema(vs.set, type);
    out.set(manager, set === undefined ? vs : versionedSet(set, vs.apiVersion, vs.applied));
  }
  return out;
}

/**
 * Compares `live` with `next` and takes what changed away from everyone but
 * `workflow`: added or modified fields others own are conflicts (an error
 * unless `force`), removed fields leave every owner. Drops empty managers.
 * Updates `managers` in place (callers pass their own copy).
 */
function takeChanges(
  live: Json,
  next: Json,
  type: SchemaType,
  managers: ManagedFields,
  workflow: string,
  force: boolean,
  ignore: FieldFilter | undefined,
): { managers: ManagedFields; comparison: Comparison } {
  let comparison = compareValues(live, next, type);
  if (ignore !== undefined) {
    comparison = { added: ignore(comparison.added), modified: ignore(comparison.modified), removed: ignore(comparison.removed) };
  }
  const changed = comparison.modified.union(comparison.added);
  const conflicts: ManagedFields = new Map();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    const c = vs.set.intersection(changed);
    if (!c.empty()) conflicts.set(manager, versionedSet(c, vs.apiVersion, false));
  }
  if (!force && conflicts.size > 0) throw new ConflictError(conflictsFromManagers(conflicts));
  const removedAny = !comparison.removed.empty();
  for (const [manager, vs] of managers) {
    if (manager === workflow) continue;
    let set = vs.set;
    const c = conflicts.get(manager);
    if (c !== undefined) set = set.difference(c.set);
    if (removedAny) set = set.difference(comparison.removed);
    if (set !== vs.set) managers.set(manager, versionedSet(set, vs.apiVersion, vs.applied));
  }
  for (const [manager, vs] of managers) if (vs.set.empty()) managers.delete(manager);
  return { managers, comparison };
}

/**
 * Removes what the applier applied last time and omits now, unless another
 * manager owns it, as the original: remove the whole last set, add back
 * everything someone (the applier's new configuration included) owns, then
 * add back whatever was removed but was not in the last set.
 */
function prune(merged: Json, type: SchemaType, managers: ManagedFields, lastSet: FieldSet): Json {
  const last = ensureNamedFieldsAreMembers(lastSet, type);
  const pruned = removeItems(merged, type, last);
  const mergedSet = ensureNamedFieldsAreMembers(toFieldSet(merged, type), type);
  let owned = new FieldSet();
  for (const vs of managers.values()) owned = owned.union(vs.set);
  const prunedSet = ensureNamedFieldsAreMembers(toFieldSet(pruned, type), type);
  const keptOwned = removeItems(merged, type, mergedSet.difference(prunedSet.union(ensureNamedFieldsAreMembers(owned, type))));
  const keptSet = ensureNamedFieldsAreMembers(toFieldSet(keptOwned, type), type);
  return removeItems(merged, type, mergedSet.difference(keptSet).intersection(last));
}
