/**
 * Resource quantities ("100m", "1Gi", "2.5", "1e3") parsed to exact values in
 * nano-units, enough to compare requests with limits and to compute a pod's
 * QoS class as the original does (resource.Quantity.Cmp). Values finer than
 * a nano-unit round up, as the original rounds them.
 */

const QUANTITY_RE = /^([+-]?[0-9.]+)(([eE][+-]?[0-9]+)|([a-zA-Z]*))$/;

const DECIMAL_SUFFIX: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };

const NANO = 9;
/** The original's largest quantity, 2^63-1 units, in nano-units. */
const MAX_NANO = (2n ** 63n - 1n) * 10n ** 9n;
/** More digits than any value below MAX_NANO has (28). */
const MAX_DIGITS = 40;

/** Parses a quantity to nano-units; undefined when it is not a quantity. */
export function parseQuantity(text: unknown): bigint | undefined {
  if (typeof text === 'number') text = String(text);
  if (typeof text !== 'string') return undefined;
  // The same few texts ("100m", "64Mi") come again and again: remember them (bounded).
  const hit = PARSED.get(text);
  if (hit !== undefined || PARSED.has(text)) return hit;
  const v = parse(text);
  if (PARSED.size >= PARSED_MAX) PARSED.clear();
  PARSED.set(text, v);
  return v;
}

const PARSED = new Map<string, bigint | undefined>();
const PARSED_MAX = 4096;

function parse(text: string): bigint | undefined {
  const m = QUANTITY_RE.exec(text.trim());
  if (!m) return undefined;
  const num = m[1]!;
  if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(num)) return undefined;
  const negative = num.startsWith('-');
  const digits = num.replace(/^[+-]/, '');
  const [rawInt, rawFrac = ''] = digits.split('.');
  const intPart = (rawInt ?? '').replace(/^0+/, '');
  // Digits far below a nano-unit only decide the rounding up: keep a bounded number of them.
  let fracPart = rawFrac.replace(/0+$/, '');
  let sticky = false;
  if (fracPart.length > MAX_DIGITS) {
    sticky = /[1-9]/.test(fracPart.slice(MAX_DIGITS));
    fracPart = fracPart.slice(0, MAX_DIGITS);
  }
  let exp10 = -fracPart.length;
  let shift2 = 0;
  if (m[3] !== undefined) {
    const e = Number(m[3].slice(1));
    if (!Number.isSafeInteger(e)) return undefined;
    exp10 += e;
  } else {
    const suffix = m[4] ?? '';
    if (suffix in BINARY_SUFFIX) shift2 = BINARY_SUFFIX[suffix]!;
    else if (suffix in DECIMAL_SUFFIX) exp10 += DECIMAL_SUFFIX[suffix]!;
    else return undefined;
  }
  let mantissa = BigInt(`${intPart || '0'}${fracPart}` || '0');
  if (mantissa === 0n && !sticky) return 0n;
  const sign = (v: bigint): bigint => (negative ? -v : v);
  // The original caps every quantity at 2^63-1 units and rounds anything non-zero below a nano-unit up to one:
  // neither a huge exponent nor a tiny one is ever expanded.
  if (intPart.length + exp10 + NANO > MAX_DIGITS) return sign(MAX_NANO);
  mantissa <<= BigInt(shift2);
  exp10 += NANO;
  let value: bigint;
  if (exp10 >= 0) {
    value = mantissa * 10n ** BigInt(exp10);
  } else if (-exp10 > mantissa.toString().length) {
    value = 1n;
  } else {
    const div = 10n ** BigInt(-exp10);
    value = mantissa / div + (mantissa % div === 0n && !sticky ? 0n : 1n);
  }
  if (value > MAX_NANO) value = MAX_NANO;
  return sign(value);
}

/** -1, 0 or 1; undefined when either side is not a quantity. */
export function compareQuantities(a: unknown, b: unknown): number | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}
