/**
 * Cron schedule checking as the original's CronJob validation does it
 * (robfig/cron v3 ParseStandard): five fields or a descriptor, an optional
 * TZ= / CRON_TZ= prefix, names for months and weekdays. Returns the parser's
 * error text, which the API server reports verbatim, or undefined when the
 * schedule parses.
 */

interface Bounds {
  min: number;
  max: number;
  names?: Record<string, number>;
}

const MINUTES: Bounds = { min: 0, max: 59 };
const HOURS: Bounds = { min: 0, max: 23 };
const DOM: Bounds = { min: 1, max: 31 };
const MONTHS: Bounds = {
  min: 1,
  max: 12,
  names: { jan: 1, feb: 2, mar: 3, apr: 4, may: 5, jun: 6, jul: 7, aug: 8, sep: 9, oct: 10, nov: 11, dec: 12 },
};
const DOW: Bounds = { min: 0, max: 6, names: { sun: 0, mon: 1, tue: 2, wed: 3, thu: 4, fri: 5, sat: 6 } };

const DESCRIPTORS = ['@yearly', '@annually', '@monthly', '@weekly', '@daily', '@midnight', '@hourly'];

class CronError extends Error {}

/** Go's strconv.Atoi, with its error text. */
function atoi(s: string): number {
  if (!/^[+-]?[0-9]+$/.test(s)) throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: invalid syntax`);
  const n = Number(s);
  if (!Number.isSafeInteger(n) || Math.abs(n) > 2 ** 63 - 1) throw new CronError(`strconv.Atoi: parsing ${JSON.stringify(s)}: value out of range`);
  return n;
}

function mustParseInt(expr: string): number {
  let n: number;
  try {
    n = atoi(expr);
  } catch (e) {
    throw new CronError(`failed to parse int from ${expr}: ${(e as Error).message}`);
  }
  if (n < 0) throw new CronError(`negative number (${n}) not allowed: ${expr}`);
  return n;
}

function parseIntOrName(expr: string, names: Record<string, number> | undefined): number {
  const named = names?.[expr.toLowerCase()];
  return named !== undefined ? named : mustParseInt(expr);
}

function checkRange(expr: string, r: Bounds): void {
  const rangeAndStep = expr.split('/');
  const lowAndHigh = rangeAndStep[0]!.split('-');
  const single = lowAndHigh.length === 1;
  let start: number;
  let end: number;
  if (lowAndHigh[0] === '*' || lowAndHigh[0] === '?') {
    start = r.min;
    end = r.max;
  } else {
    start = parseIntOrName(lowAndHigh[0]!, r.names);
    if (lowAndHigh.length === 1) end = start;
    else if (lowAndHigh.length === 2) end = parseIntOrName(lowAndHigh[1]!, r.names);
    else throw new CronError(`too many hyphens: ${expr}`);
  }
  let step = 1;
  if (rangeAndStep.length === 2) {
    step = mustParseInt(rangeAndStep[1]!);
    // "N/step" means "N-max/step".
    if (single) end = r.max;
  } else if (rangeAndStep.length > 2) {
    throw new CronError(`too many slashes: ${expr}`);
  }
  if (start < r.min) throw new CronError(`beginning of range (${start}) below minimum (${r.min}): ${expr}`);
  if (end > r.max) throw new CronError(`end of range (${end}) above maximum (${r.max}): ${expr}`);
  if (start > end) throw new CronError(`beginning of range (${start}) beyond end of range (${end}): ${expr}`);
  if (step === 0) throw new CronError(`step of range should be a positive number: ${expr}`);
}

function checkField(field: string, r: Bounds): void {
  for (const expr of field.split(',').filter((e) => e !== '')) checkRange(expr, r);
}

/** Go's time.ParseDuration, checked only: a sequence of <number><unit>. */
function checkDuration(s: string): void {
  const ok = s === '0' || /^[+-]?(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$/.test(s);
  if (!ok) throw new CronError(`time: invalid duration ${JSON.stringify(s)}`);
}

function isKnownTimeZone(name: string): boolean {
  if (name === 'UTC' || name === 'Local') return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The parser's complaint about `spec`, or undefined when it is a valid schedule. */
export function cronScheduleError(spec: string): string | undefined {
  try {
    if (spec.length === 0) throw new CronError('empty spec string');
    if (spec.startsWith('TZ=') || spec.startsWith('CRON_TZ=')) {
      const space = spec.indexOf(' ');
      const eq = spec.indexOf('=');
      const zone = space < 0 ? spec.slice(eq + 1) : spec.slice(eq + 1, space);
      if (!isKnownTimeZone(zone)) throw new CronError(`provided bad location ${zone}: unknown time zone ${zone}`);
      spec = space < 0 ? '' : spec.slice(space).trim();
    }
    if (spec.startsWith('@')) {
      if (DESCRIPTORS.includes(spec)) return undefined;
      if (spec.startsWith('@every ')) {
        try {
          checkDuration(spec.slice('@every '.length));
        } catch (e) {
          throw new CronError(`failed to parse duration ${spec}: ${(e as Error).message}`);
        }
        return undefined;
      }
      throw new CronError(`unrecognized descriptor: ${spec}`);
    }
    const fields = spec.split(/\s+/).filter((f) => f !== '');
    if (fields.length !== 5) throw new CronError(`expected exactly 5 fields, found ${fields.length}: [${fields.join(' ')}]`);
    const bounds = [MINUTES, HOURS, DOM, MONTHS, DOW];
    fields.forEach((f, i) => checkField(f, bounds[i]!));
    return undefined;
  } catch (e) {
    if (e instanceof CronError) return e.message;
    throw e;
  }
}

export { isKnownTimeZone };
