/**
 * Go's time.ParseDuration, for the `timeout` query parameter: a sequence of
 * decimal numbers with units (`300ms`, `1.5h`, `2m30s`), an optional sign,
 * `0` alone allowed. Error texts are Go's, since clients see them in 400s.
 */

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  'µs': 1e-3, // U+00B5
  'μs': 1e-3, // U+03BC
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

export class DurationError extends Error {}

function quote(s: string): string {
  return JSON.stringify(s);
}

/** Milliseconds, possibly fractional; throws DurationError with Go's message. */
export function parseGoDuration(text: string): number {
  const invalid = (): DurationError => new DurationError(`time: invalid duration ${quote(text)}`);
  let s = text;
  let sign = 1;
  if (s.startsWith('-') || s.startsWith('+')) {
    if (s[0] === '-') sign = -1;
    s = s.slice(1);
  }
  if (s === '0') return 0;
  if (s === '') throw invalid();
  let total = 0;
  while (s !== '') {
    const num = /^(\d*)(?:\.(\d*))?/.exec(s)!;
    const [whole, intPart = '', fracPart] = num;
    if (intPart === '' && (fracPart === undefined || fracPart === '')) throw invalid();
    s = s.slice(whole.length);
    const unitMatch = /^[^0-9.]*/.exec(s)!;
    const unit = unitMatch[0];
    if (unit === '') throw new DurationError(`time: missing unit in duration ${quote(text)}`);
    const scale = UNIT_MS[unit];
    if (scale === undefined) throw new DurationError(`time: unknown unit ${quote(unit)} in duration ${quote(text)}`);
    s = s.slice(unit.length);
    total += Number(`${intPart || '0'}.${fracPart ?? '0'}`) * scale;
  }
  return sign * total;
}
