/**
 * RFC 6901 JSON pointers as JSON patch uses them: the reference tokens of a
 * path, and array indices read the way the original's patch library reads
 * them (Go's strconv.Atoi, so `+1` and `01` pass, and negative indices count
 * from the end).
 */

/**
 * Tokens of a pointer: `""` is the whole document (no tokens), otherwise the
 * pointer must start with `/`; `~1` decodes to `/` and then `~0` to `~`.
 * Returns undefined for a pointer that is neither.
 */
export function pointerTokens(pointer: string): string[] | undefined {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) return undefined;
  return pointer
    .slice(1)
    .split('/')
    .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** strconv.Atoi: an optional sign and decimal digits, within the int64 range we can represent. */
export function parseIndex(token: string): number | undefined {
  if (!/^[+-]?\d+$/.test(token)) return undefined;
  const n = Number(token);
  return Number.isSafeInteger(n) ? n : undefined;
}
