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

/** Parses a quantity to nano-units; undefined when it is not a quantity. */
export function parseQuantity(text: unknown): bigint | undefined {
  if (typeof text === 'number') text = String(text);
  if (typeof text !== 'string') return undefined;
  const m = QUANTITY_RE.exec(text.trim());
  if (!m) return undefined;
  const num = m[1]!;
  if (!/^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$/.test(num)) return undefined;
  const negative = num.startsWith('-');
  const digits = num.replace(/^[+-]/, '');
  const [intPart, fracPart = ''] = digits.split('.');
  let mantissa = BigInt(`${intPart || '0'}${fracPart}`);
  let exp10 = -fracPart.length;
  let shift2 = 0;
  if (m[3] !== undefined) {
    exp10 += Number(m[3].slice(1));
  } else {
    const suffix = m[4] ?? '';
    if (suffix in BINARY_SUFFIX) shift2 = BINARY_SUFFIX[suffix]!;
    else if (suffix in DECIMAL_SUFFIX) exp10 += DECIMAL_SUFFIX[suffix]!;
    else return undefined;
  }
  mantissa <<= BigInt(shift2);
  exp10 += NANO;
  let value: bigint;
  if (exp10 >= 0) {
    value = mantissa * 10n ** BigInt(exp10);
  } else {
    const div = 10n ** BigInt(-exp10);
    value = mantissa / div + (mantissa % div === 0n ? 0n : 1n);
  }
  return negative ? -value : value;
}

/** -1, 0 or 1; undefined when either side is not a quantity. */
export function compareQuantities(a: unknown, b: unknown): number | undefined {
  const x = parseQuantity(a);
  const y = parseQuantity(b);
  if (x === undefined || y === undefined) return undefined;
  return x < y ? -1 : x > y ? 1 : 0;
}
