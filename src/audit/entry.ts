/**
 * An audit event as the sinks and backends pass it: its JSON, made once
 * where the event is made (what the log writes as a line, what an EventList
 * carries as an item, what crosses from a worker thread as a plain string),
 * and the event object only when something needs its fields (the legacy log
 * format, the truncate plugin), decoded then.
 */
import type { AuditEvent } from './types.ts';

export interface AuditEntry {
  /** The event's JSON (one line of the log without its newline). */
  readonly json: string;
  /** The event as an object; decoded from `json` on first use. Do not change it: other backends share it. */
  event(): AuditEvent;
}

class JsonEntry implements AuditEntry {
  #event: AuditEvent | undefined;

  constructor(
    readonly json: string,
    event?: AuditEvent,
  ) {
    this.#event = event;
  }

  event(): AuditEvent {
    return (this.#event ??= JSON.parse(this.json) as AuditEvent);
  }
}

/** An entry of an event object (serialized now). */
export function entryOf(event: AuditEvent): AuditEntry {
  return new JsonEntry(JSON.stringify(event), event);
}

/** An entry of an event's JSON (made by serialize.ts, or received from another thread). */
export function jsonEntry(json: string): AuditEntry {
  return new JsonEntry(json);
}
