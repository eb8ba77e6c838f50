/**
 * Integer comparison for the `gt` / `lt` label operators (`x>1`, `x<7`).
 * Kubernetes parses both sides with strconv.ParseInt(s, 10, 64): an optional
 * sign, decimal digits only, inside the int64 range; anything else means "no
 * match" (label side) or a parse error (selector side). int64 exceeds a
 * double's exact range, so long inputs go through BigInt; short ones (the
 * common case) stay on plain numbers and allocate nothing.
 */
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
/** 15 digits is always below 2^53, so a number accumulates them exactly. */
const FAST_DIGITS = 15;

export interface Int64Bound {
  readonly big: bigint;
  /** The same value as a number when it is exactly representable. */
  readonly num: number | undefined;
}

function isDigits(s: string, from: number): boolean {
  if (from >= s.length) return false;
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function signLength(s: string): number {
  const c = s.charCodeAt(0);
  return c === 43 /* + */ || c === 45 /* - */ ? 1 : 0;
}

/** strconv.ParseInt(s, 10, 64); undefined where Go returns an error. */
export function parseInt64(s: string): bigint | undefined {
  if (!isDigits(s, signLength(s))) return undefined;
  const v = BigInt(s); // digits with an optional sign: BigInt accepts exactly this
  return v < INT64_MIN || v > INT64_MAX ? undefined : v;
}

export function int64Bound(big: bigint): Int64Bound {
  const safe = big >= BigInt(Number.MIN_SAFE_INTEGER) && big <= BigInt(Number.MAX_SAFE_INTEGER);
  return { big, num: safe ? Number(big) : undefined };
}

/**
 * Sign of (label value - bound), or undefined when the label value is not an
 * int64 (then neither `gt` nor `lt` matches).
 */
export function compareInt64(value: string, bound: Int64Bound): number | undefined {
  const len = value.length;
  const start = len === 0 ? 0 : signLength(value);
  if (start >= len) return undefined;
  if (len - start <= FAST_DIGITS && bound.num !== undefined) {
    let n = 0;
    for (let i = start; i < len; i++) {
      const d = value.charCodeAt(i) - 48;
      if (d < 0 || d > 9) return undefined;
      n = n * 10 + d;
    }
    if (start === 1 && value.charCodeAt(0) === 45) n = -n;
    return n < bound.num ? -1 : n > bound.num ? 1 : 0;
  }
  const v = parseInt64(value);
  if (v === undefined) return undefined;
  return v < bound.big ? -1 : v > bound.big ? 1 : 0;
}
