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

const FRACTION = /\.(\d+)/;

/** Parses RFC 3339 (any offset, any fraction length); undefined when it is not a time. */
export function parseRfc3339(s: string): Timestamp | undefined {
  const ms = Date.parse(s);
  if (Number.isNaN(ms) || s.length < 20 || s[10] !== 'T') return undefined;
  const seconds = Math.floor(ms / 1000);
  const frac = FRACTION.exec(s.slice(19));
  let nanos = 0;
  if (frac !== null) nanos = Number(frac[1]!.slice(0, 6).padEnd(6, '0')) * 1000;
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
