/**
 * Nesting limits. The original refuses JSON and YAML nested deeper than
 * 10000 levels while it scans them (Go's encoding/json `maxNestingDepth`,
 * go-yaml's `max_flow_level`). This server is bound tighter by its runtime:
 * V8's JSON.stringify, structuredClone and every recursive walk (patches,
 * apply, Protobuf) overflow the stack somewhere past 4000 levels, so a
 * document is refused past MAX_NESTING_DEPTH, far above any real object.
 */

/** The original's limit, for messages that quote it. */
export const ORIGINAL_MAX_DEPTH = 10000;

/** Deepest nesting of arrays and objects this server decodes, stores or patches. */
export const MAX_NESTING_DEPTH = 1000;

/**
 * The first byte offset in JSON (UTF-8 bytes) where nesting passes `limit`,
 * or -1. Brackets inside strings do not count; the bytes need not be valid
 * JSON (a parser reports other mistakes). One pass, no allocation.
 */
export function jsonDepthExceeded(b: Uint8Array, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  const n = b.length;
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c === 0x22 /* " */) {
      // Skip the string, escapes included.
      for (i++; i < n; i++) {
        const d = b[i]!;
        if (d === 0x5c /* \ */) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
      if (++depth > limit) return i;
    } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
      depth--;
    }
  }
  return -1;
}

/**
 * Whether a decoded value nests deeper than `limit` levels below `start`
 * (the depth of `v` itself). Iterative: safe on any input.
 */
export function valueDepthExceeded(v: unknown, start: number, limit = MAX_NESTING_DEPTH): boolean {
  if (typeof v !== 'object' || v === null) return false;
  const values: unknown[] = [v];
  const depths: number[] = [start + 1];
  while (values.length > 0) {
    const cur = values.pop() as object;
    const d = depths.pop()!;
    if (d > limit) return true;
    const children = Array.isArray(cur) ? cur : Object.values(cur);
    for (const c of children) {
      if (typeof c === 'object' && c !== null) {
        values.push(c);
        depths.push(d + 1);
      }
    }
  }
  return false;
}

/** The original's scanner message for JSON nested too deeply (Go: `invalid character '[' exceeded max depth`). */
export function jsonDepthMessage(b: Uint8Array, at: number): string {
  return `invalid character '${String.fromCharCode(b[at]!)}' exceeded max depth`;
}

/**
 * The first offset in YAML text where flow collections (`[`, `{`) nest past
 * `limit`, or -1. Quoted scalars and comments do not count; a bracket inside
 * a plain scalar may, which only errs towards refusing. Block nesting needs
 * indentation or `- ` per level and is checked on the parsed value instead.
 */
export function yamlFlowDepthExceeded(text: string, limit = MAX_NESTING_DEPTH): number {
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return i;
    } else if (c === 0x5d || c === 0x7d) {
      if (depth > 0) depth--;
    } else if (c === 0x22 /* " */) {
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c) i++;
        else if (d === 0x22) break;
      }
    } else if (c === 0x27 /* ' */) {
      // '' is an escaped quote inside a single-quoted scalar: the loop sees it as close-then-open.
      for (i++; i < n && text.charCodeAt(i) !== 0x27; i++);
    } else if (c === 0x23 /* # */ && (i === 0 || text.charCodeAt(i - 1) <= 0x20)) {
      while (i < n && text.charCodeAt(i) !== 0x0a) i++;
    }
  }
  return -1;
}
