/**
 * Conversion between the core v1 Event (the storage form) and the
 * events.<suffix>/v1 Event, so both APIs serve one storage. Fields are
 * renamed, never invented or dropped: converting there and back gives the
 * object that went in.
 */
import { cloneJson, type KObject } from '../object.ts';
import { apiGroup } from '../../naming/index.ts';

/** core v1 field name -> events.<suffix>/v1 field name. Fields not listed keep their name. */
const RENAMES: ReadonlyArray<readonly [core: string, v1: string]> = [
  ['involvedObject', 'regarding'],
  ['message', 'note'],
  ['source', 'deprecatedSource'],
  ['firstTimestamp', 'deprecatedFirstTimestamp'],
  ['lastTimestamp', 'deprecatedLastTimestamp'],
  ['count', 'deprecatedCount'],
  ['reportingComponent', 'reportingController'],
];

export const CORE_EVENT_API_VERSION = 'v1';
export const EVENTS_API_VERSION = `${apiGroup('events')}/v1`;

function rename(from: KObject, pairs: ReadonlyArray<readonly [string, string]>, apiVersion: string): KObject {
  const out = cloneJson(from);
  const moved = new Map<string, unknown>();
  for (const [src] of pairs) {
    if (Object.hasOwn(out, src)) {
      moved.set(src, out[src]);
      delete out[src];
    }
  }
  for (const [src, dst] of pairs) if (moved.has(src)) out[dst] = moved.get(src);
  out.apiVersion = apiVersion;
  out.kind = 'Event';
  return out;
}

/** A core v1 Event as events.<suffix>/v1 shows it. */
export function eventToV1(coreEvent: KObject): KObject {
  return rename(coreEvent, RENAMES, EVENTS_API_VERSION);
}

/** An events.<suffix>/v1 Event in its core v1 (storage) form. */
export function eventFromV1(v1Event: KObject): KObject {
  return rename(
    v1Event,
    RENAMES.map(([core, v1]) => [v1, core] as const),
    CORE_EVENT_API_VERSION,
  );
}
