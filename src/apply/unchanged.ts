/**
 * keepTimesIfUnchanged: the last step before an object is stored, as the
 * original's IgnoreManagedFieldsTimestampsTransformer. A write that, after
 * the strategy reset what it may not change, leaves the object and the
 * ownership as they were must not store new managedFields times either;
 * otherwise a no-op apply (or one whose changes the strategy undid) would
 * still bump resourceVersion and wake every watcher.
 */
import type { KObject, ManagedFieldsEntry } from '../registry/object.ts';
import { equals, type Json } from './value.ts';

/**
 * `next`, with the stored managedFields of `old` when only times (and so the
 * order, which follows times) would change. The original compares entries
 * position by position; a bumped time can reorder them, so entries are
 * matched here by everything but the time.
 */
export function keepTimesIfUnchanged(next: KObject, old: KObject): KObject {
  const nextEntries = next.metadata?.managedFields;
  const oldEntries = old.metadata?.managedFields;
  if (nextEntries === undefined || oldEntries === undefined) return next;
  if (nextEntries.length !== oldEntries.length || nextEntries.length === 0) return next;
  if (nextEntries.every((e, i) => e.time === oldEntries[i]!.time && equals(e as unknown as Json, oldEntries[i] as unknown as Json))) return next;
  const unmatched = oldEntries.map(withoutTime);
  for (const e of nextEntries) {
    const i = unmatched.findIndex((o) => o !== null && equals(o, withoutTime(e)));
    if (i < 0) return next;
    unmatched[i] = null;
  }
  if (!equalIgnoringManagedFields(next, old)) return next;
  return { ...next, metadata: { ...next.metadata, managedFields: oldEntries } };
}

function withoutTime(e: ManagedFieldsEntry): Json {
  const { time: _t, ...rest } = e;
  return rest as unknown as Json;
}

function equalIgnoringManagedFields(a: KObject, b: KObject): boolean {
  const strip = (o: KObject): Json => {
    const { managedFields: _m, ...metadata } = o.metadata ?? {};
    return { ...o, metadata } as unknown as Json;
  };
  return equals(strip(a), strip(b));
}
