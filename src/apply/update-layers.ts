/**
 * How the original's field manager layers record one write around the
 * merge-level update: the changes go to a temporary manager, lose the
 * paths nobody may own, join the writer's earlier set (stamped with the
 * time), and the oldest updaters are folded into `ancient-changes` when
 * there are too many.
 */
import type { FieldFilter } from './field-filter.ts';
import { FieldSet } from './field-set.ts';
import { formatTime, managerKey, type Managed } from './managed-fields.ts';
import { versionedSet, type ManagedFields } from './managers.ts';
import { update } from './merge.ts';
import { fieldElement } from './path.ts';
import type { SchemaType } from './schema.ts';
import type { Json } from './value.ts';

const CURRENT_OPERATION = 'current-operation';
const ANCIENT_CHANGES = 'ancient-changes';

/** Paths nobody owns: set by the server or identifying the object (the original's strip set). */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
);

/** `key`'s set without the stripped paths; the manager goes when nothing is left. Changes `fields`. */
export function strip(fields: ManagedFields, key: string): ManagedFields {
  const vs = fields.get(key);
  if (vs === undefined) return fields;
  const set = vs.set.difference(STRIPPED);
  if (set.empty()) fields.delete(key);
  else fields.set(key, versionedSet(set, vs.apiVersion, vs.applied));
  return fields;
}

export interface RecordUpdateArgs {
  readonly live: Json;
  readonly next: Json;
  readonly managed: Managed;
  /** The writer's manager identity (managerKey). */
  readonly key: string;
  readonly apiVersion: string;
  readonly type: SchemaType;
  readonly ignore: FieldFilter | undefined;
  readonly now: Date;
  readonly maxUpdateManagers: number;
}

/** The managers after a write by `key`. */
export function recordUpdate(args: RecordUpdateArgs): Managed {
  const { key } = args;
  const fields = strip(
    update({
      live: args.live,
      next: args.next,
      type: args.type,
      version: args.apiVersion,
      managers: args.managed.fields,
      manager: CURRENT_OPERATION,
      ignore: args.ignore,
    }),
    CURRENT_OPERATION,
  );
  const times = new Map(args.managed.times);
  const current = fields.get(CURRENT_OPERATION);
  if (current !== undefined) {
    fields.delete(CURRENT_OPERATION);
    const previous = fields.get(key);
    fields.set(key, previous === undefined ? current : versionedSet(current.set.union(previous.set), current.apiVersion, current.applied));
    times.set(key, formatTime(args.now));
  }
  capUpdateManagers(fields, times, args.maxUpdateManagers);
  return { fields, times };
}

/**
 * Folds the oldest updaters into one `ancient-changes` manager per API
 * version until at most `max` updaters are left (the original's cap).
 */
function capUpdateManagers(fields: ManagedFields, times: Map<string, string | undefined>, max: number): void {
  const updaters = [...fields].filter(([, vs]) => !vs.applied).map(([k]) => k);
  if (updaters.length <= max) return;
  const seconds = (k: string): number => {
    const t = times.get(k);
    const ms = t === undefined ? NaN : Date.parse(t);
    return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const manager = updaters[i]!;
    const vs = fields.get(manager)!;
    const bucket = managerKey({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      // The oldest of a version stays until a second one joins it in the bucket.
      firstOfVersion.set(vs.apiVersion, manager);
      continue;
    }
    if (!fields.has(bucket)) {
      fields.set(bucket, fields.get(first)!);
      fields.delete(first);
    }
    fields.set(bucket, versionedSet(vs.set.union(fields.get(bucket)!.set), vs.apiVersion, vs.applied));
    fields.delete(manager);
    length--;
    times.set(bucket, times.get(manager));
  }
}
