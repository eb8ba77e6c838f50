/**
 * `metadata.managedFields` in and out, as the original's managedfields
 * encoding: each entry becomes a manager identity (manager, operation,
 * subresource, and for updaters the API version) owning a field set; times
 * are kept per manager. Encoding sorts entries as the original does:
 * appliers before updaters, then by time (seconds), manager, API version
 * and subresource.
 */
import type { ManagedFieldsEntry } from '../registry/object.ts';
import { fromFieldsV1, toFieldsV1 } from './fields-v1.ts';
import { versionedSet, type ManagedFields } from './managers.ts';
import { compareStrings, isMap, type Json } from './value.ts';

export type Operation = 'Apply' | 'Update';

/** Who a manager is: the parts of an entry that tell one owner from another. */
export interface ManagerIdentity {
  readonly manager: string;
  readonly operation: Operation;
  /** Updaters only: each API version an updater wrote through is its own owner. */
  readonly apiVersion?: string | undefined;
  readonly subresource?: string | undefined;
}

/** Managers' sets and the time of each one's last change (RFC 3339, seconds). */
export interface Managed {
  readonly fields: ManagedFields;
  readonly times: Map<string, string | undefined>;
}

export function emptyManaged(): Managed {
  return { fields: new Map(), times: new Map() };
}

/**
 * The identity string of a manager, built like the original's (JSON of the
 * identifying entry fields, empty ones left out) so that it orders and
 * compares the same way.
 */
export function managerKey(id: ManagerIdentity): string {
  const o: Record<string, string> = {};
  if (id.manager !== '') o['manager'] = id.manager;
  o['operation'] = id.operation;
  if (id.operation === 'Update' && id.apiVersion !== undefined && id.apiVersion !== '') o['apiVersion'] = id.apiVersion;
  if (id.subresource !== undefined && id.subresource !== '') o['subresource'] = id.subresource;
  return JSON.stringify(o);
}

/** The identity a key stands for. */
export function parseManagerKey(key: string): ManagerIdentity {
  const o = JSON.parse(key) as Record<string, string | undefined>;
  return {
    manager: o['manager'] ?? '',
    operation: o['operation'] === 'Apply' ? 'Apply' : 'Update',
    apiVersion: o['apiVersion'],
    subresource: o['subresource'],
  };
}

/** Thrown for managedFields that cannot be decoded. */
export class ManagedFieldsError extends Error {}

/** Decodes entries; throws ManagedFieldsError on the first invalid one, as the original. */
export function decodeManagedFields(entries: readonly ManagedFieldsEntry[] | undefined | null): Managed {
  const managed = emptyManaged();
  if (entries === undefined || entries === null) return managed;
  if (!Array.isArray(entries)) throw new ManagedFieldsError('managedFields must be a list');
  entries.forEach((e: unknown, i) => {
    if (!isMap(e as Json)) throw new ManagedFieldsError(`managed fields entry ${i} must be an object`);
    const entry = e as ManagedFieldsEntry;
    const operation = entry.operation;
    if (operation !== 'Apply' && operation !== 'Update') throw new ManagedFieldsError('operation must be `Apply` or `Update`');
    if (typeof entry.apiVersion !== 'string' || entry.apiVersion === '') throw new ManagedFieldsError('apiVersion must not be empty');
    const fieldsType: unknown = entry.fieldsType;
    if (fieldsType === undefined || fieldsType === '') throw new ManagedFieldsError(`missing fieldsType in managed fields entry ${i}`);
    if (fieldsType !== 'FieldsV1') throw new ManagedFieldsError(`invalid fieldsType ${JSON.stringify(fieldsType)} in managed fields entry ${i}`);
    const key = managerKey({
      manager: typeof entry.manager === 'string' ? entry.manager : '',
      operation,
      apiVersion: entry.apiVersion,
      subresource: typeof entry.subresource === 'string' ? entry.subresource : undefined,
    });
    let set;
    try {
      set = fromFieldsV1(entry.fieldsV1 as Json | undefined);
    } catch (err) {
      throw new ManagedFieldsError(`error decoding versioned set: ${err instanceof Error ? err.message : String(err)}`);
    }
    managed.fields.set(key, versionedSet(set, entry.apiVersion, operation === 'Apply'));
    managed.times.set(key, typeof entry.time === 'string' ? entry.time : undefined);
  });
  return managed;
}

/** Entries for `metadata.managedFields`; undefined when nobody owns anything. */
export function encodeManagedFields(managed: Managed): ManagedFieldsEntry[] | undefined {
  if (managed.fields.size === 0) return undefined;
  const out: ManagedFieldsEntry[] = [];
  for (const [key, vs] of managed.fields) {
    const id = parseManagerKey(key);
    // Go's struct order: manager, operation, apiVersion, time, fieldsType, fieldsV1, subresource.
    const e: ManagedFieldsEntry = {};
    if (id.manager !== '') e.manager = id.manager;
    e.operation = vs.applied ? 'Apply' : id.operation;
    if (vs.apiVersion !== '') e.apiVersion = vs.apiVersion;
    const time = managed.times.get(key);
    if (time !== undefined) e.time = time;
    e.fieldsType = 'FieldsV1';
    e.fieldsV1 = toFieldsV1(vs.set);
    if (id.subresource !== undefined && id.subresource !== '') e.subresource = id.subresource;
    out.push(e);
  }
  return sortEntries(out);
}

/** Sorts entries in place as the original: operation, time (seconds), manager, API version, subresource. */
export function sortEntries(entries: ManagedFieldsEntry[]): ManagedFieldsEntry[] {
  return entries.sort(compareEntries);
}

function compareEntries(p: ManagedFieldsEntry, q: ManagedFieldsEntry): number {
  if (p.operation !== q.operation) return compareStrings(p.operation ?? '', q.operation ?? '');
  const ps = unixSeconds(p.time);
  const qs = unixSeconds(q.time);
  if (ps !== qs) return ps < qs ? -1 : 1;
  return (
    compareStrings(p.manager ?? '', q.manager ?? '') ||
    compareStrings(p.apiVersion ?? '', q.apiVersion ?? '') ||
    compareStrings(p.subresource ?? '', q.subresource ?? '')
  );
}

function unixSeconds(t: string | undefined): number {
  if (t === undefined) return 0;
  const ms = Date.parse(t);
  return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
}

let lastSecond = NaN;
let lastText = '';

/** RFC 3339 in UTC with whole seconds, as the original writes metav1.Time. */
export function formatTime(d: Date): string {
  // The text of the last second is kept: every write stamps its manager's time.
  const second = Math.floor(d.getTime() / 1000);
  if (second !== lastSecond) {
    lastText = d.toISOString().replace(/\.\d{3}Z$/, 'Z');
    lastSecond = second;
  }
  return lastText;
}

/**
 * `[{}]`: a request that clears ownership (spec 4.8). An entry counts as
 * empty when every field it has is empty. `[]` does not clear: clients that
 * do not know the field must not wipe it by accident.
 */
export function isWipe(entries: unknown): boolean {
  if (!Array.isArray(entries) || entries.length !== 1) return false;
  const e: unknown = entries[0];
  if (typeof e !== 'object' || e === null || Array.isArray(e)) return false;
  return Object.values(e).every((v) => v === undefined || v === null || v === '');
}
