/**
 * Quantities as values that keep their format, and their canonical text, as
 * the original's resource.Quantity prints them (String(): "1500m", "1k",
 * "2Gi", "1536Mi", "1e3"). Quota usage and LimitRanger messages print sums
 * and bounds this way, so the text a client sees matches the original's.
 * Values are exact, in nano-units (quantity.ts); a sum keeps the format of
 * its first operand, as Quantity.Add does.
 */
import { parseQuantity } from './quantity.ts';

export type QuantityFormat = 'DecimalSI' | 'BinarySI' | 'DecimalExponent';

export interface Quantity {
  /** The value in nano-units. */
  readonly nano: bigint;
  readonly format: QuantityFormat;
}

const NANO_PER_UNIT = 1_000_000_000n;
const DECIMAL_SUFFIXES: Record<number, string> = { [-9]: 'n', [-6]: 'u', [-3]: 'm', 0: '', 3: 'k', 6: 'M', 9: 'G', 12: 'T', 15: 'P', 18: 'E' };
const BINARY_SUFFIXES = ['', 'Ki', 'Mi', 'Gi', 'Ti', 'Pi', 'Ei'];

/** Parses a quantity with the format its suffix implies; undefined when it is not one. */
export function toQuantity(text: unknown): Quantity | undefined {
  if (typeof text === 'string') {
    const hit = CACHE.get(text);
    if (hit !== undefined) return hit;
  }
  const nano = parseQuantity(text);
  if (nano === undefined) return undefined;
  const s = String(text).trim();
  const format: QuantityFormat = /[KMGTPE]i$/.test(s) ? 'BinarySI' : /[0-9.][eE][+-]?[0-9]+$/.test(s) ? 'DecimalExponent' : 'DecimalSI';
  const q: Quantity = Object.freeze({ nano, format });
  if (typeof text === 'string') {
    if (CACHE.size >= CACHE_MAX) CACHE.clear();
    CACHE.set(text, q);
  }
  return q;
}

/** Parsed texts (quantities are immutable values; the same few texts recur). */
const CACHE = new Map<string, Quantity>();
const CACHE_MAX = 4096;

export function quantityOf(units: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nano: BigInt(units) * NANO_PER_UNIT, format };
}

export function milliQuantity(milli: bigint | number, format: QuantityFormat = 'DecimalSI'): Quantity {
  return { nano: BigInt(milli) * 1_000_000n, format };
}

/** The canonical text, as Quantity.String(). */
export function formatQuantity(q: Quantity): string {
  if (q.nano === 0n) return '0';
  const negative = q.nano < 0n;
  const abs = negative ? -q.nano : q.nano;
  let format = q.format;
  if (format === 'BinarySI' && (abs < 1024n * NANO_PER_UNIT || abs % NANO_PER_UNIT !== 0n)) format = 'DecimalSI';
  let text: string;
  if (format === 'BinarySI') {
    let units = abs / NANO_PER_UNIT;
    let i = 0;
    while (i < BINARY_SUFFIXES.length - 1 && units % 1024n === 0n) {
      units /= 1024n;
      i++;
    }
    text = `${units}${BINARY_SUFFIXES[i]}`;
  } else {
    // The largest exponent (a multiple of 3) that keeps the mantissa whole.
    let mantissa = abs;
    let exp = -9;
    while (exp < 18 && mantissa % 1000n === 0n) {
      mantissa /= 1000n;
      exp += 3;
    }
    text = format === 'DecimalExponent' ? (exp === 0 ? `${mantissa}` : `${mantissa}e${exp}`) : `${mantissa}${DECIMAL_SUFFIXES[exp]}`;
  }
  return negative ? `-${text}` : text;
}

export function addQuantities(a: Quantity, b: Quantity): Quantity {
  // A zero takes the format of what is added to it (Quantity.Add).
  return { nano: a.nano + b.nano, format: a.nano === 0n ? b.format : a.format };
}

export function subtractQuantities(a: Quantity, b: Quantity): Quantity {
  return { nano: a.nano - b.nano, format: a.format };
}

/** Value() as the original: whole units, rounded up. */
export function quantityValue(q: Quantity): bigint {
  return ceilDiv(q.nano, NANO_PER_UNIT);
}

/** MilliValue() as the original: milli-units, rounded up. */
export function quantityMilliValue(q: Quantity): bigint {
  return ceilDiv(q.nano, 1_000_000n);
}

function ceilDiv(a: bigint, b: bigint): bigint {
  const q = a / b;
  return a % b !== 0n && a > 0n ? q + 1n : q;
}
