/**
 * RFC 3339 strings <-> {seconds, nanos}, the way the original's Time (second
 * precision) and MicroTime (microsecond precision) marshal: JSON always in UTC
 * with `Z`; Time never carries fractions, MicroTime always six digits.
 */

/** Go's zero time (0001-01-01T00:00:00Z) in Unix seconds: the original writes it as an empty message and prints null. */
export const ZERO_TIME_SECONDS = -62135596800;

export interface Timestamp {
  readonly seconds: number;
  /** Sub-second part in nanoseconds, truncated to microseconds. */
  readonly nanos: number;
}

/** RFC 3339 with a zone (Date.parse alone would read a zoneless time as local time). */
const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.(\d+))?(?:Z|[+-]\d{2}:\d{2})$/;

/** Parses RFC 3339 (any offset, any fraction length); undefined when it is not a time. */
export function parseRfc3339(s: string): Timestamp | undefined {
  const m = RFC3339.exec(s);
  if (m === null) return undefined;
  const ms = Date.parse(s);
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  const frac = m[1];
  const nanos = frac === undefined ? 0 : Number(frac.slice(0, 6).padEnd(6, '0')) * 1000;
  return { seconds, nanos };
}

function isoSeconds(seconds: number): string {
  // toISOString gives YYYY-MM-DDTHH:MM:SS.sssZ; the milliseconds are always 000 here.
  return new Date(seconds * 1000).toISOString().slice(0, 19);
}

/** Time as JSON: `2006-01-02T15:04:05Z`. */
export function formatTime(seconds: number): string {
  return `${isoSeconds(seconds)}Z`;
}

/** MicroTime as JSON: `2006-01-02T15:04:05.000000Z`. */
export function formatMicroTime(seconds: number, nanos: number): string {
  const micros = Math.floor(nanos / 1000);
  return `${isoSeconds(seconds)}.${String(micros).padStart(6, '0')}Z`;
}
