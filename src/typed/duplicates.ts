/**
 * Duplicate keys in a JSON body. JSON.parse keeps the last of a repeated key
 * silently; the original's strict decoder (sigs.k8s.io/json) reports each
 * as `duplicate field "spec.replicas"` for `fieldValidation` Strict and
 * Warn (Warn is the default, so most writes pay for this scan).
 *
 * One pass over the UTF-8 bytes: structural characters are ASCII and never
 * occur inside a multi-byte sequence. Keys are compared by a 32-bit FNV-1a
 * hash per object, and decoded to strings only when two hashes meet (a
 * duplicate, or rarely a collision) or a path must be printed. The scan also
 * tracks nesting, so a body too deep to check is reported instead.
 */
import { MAX_NESTING_DEPTH } from './depth.ts';

export interface JsonScan {
  /** Paths of repeated keys, in document order (`spec.containers[0].name`). */
  readonly duplicates: string[];
  /** Each repeated key and its byte offset (the opening quote), in the same order. */
  readonly duplicateKeys: { readonly key: string; readonly at: number }[];
  /** Offset where nesting passed the limit, or -1 (the scan stops there). */
  readonly tooDeepAt: number;
}

const OBJECT = 1;
const ARRAY = 2;
const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

const utf8 = new TextDecoder();

/** Keys of an object compared linearly before it gets a Map: most objects have a handful. */
const SMALL = 8;

interface Stack {
  readonly kinds: Uint8Array;
  readonly keyStart: Int32Array;
  readonly keyEnd: Int32Array;
  readonly count: Int32Array;
  readonly hashes: Int32Array;
  readonly starts: Int32Array;
  readonly maps: (Map<number, number> | undefined)[];
}

let scratch: Stack | undefined;

/** The scratch stack for `cap` open containers (at most the nesting limit: callers never pass more). */
function stack(cap: number): Stack {
  if (scratch === undefined || scratch.kinds.length < cap) {
    const size = Math.max(cap, MAX_NESTING_DEPTH + 1);
    scratch = {
      kinds: new Uint8Array(size),
      keyStart: new Int32Array(size),
      keyEnd: new Int32Array(size),
      count: new Int32Array(size),
      hashes: new Int32Array(size * SMALL),
      starts: new Int32Array(size * SMALL),
      maps: [],
    };
  }
  return scratch;
}

export function scanJson(b: Uint8Array, limit = MAX_NESTING_DEPTH): JsonScan {
  limit = Math.min(limit, MAX_NESTING_DEPTH);
  const duplicates: string[] = [];
  const duplicateKeys: { key: string; at: number }[] = [];
  // The stack of open containers, preallocated (the limit bounds it): kind, the
  // current key's offsets (objects) or item index (arrays, in keyEnd), how many
  // keys so far with the first SMALL hashes and starts inline, then a Map.
  // The scan never yields: one scratch stack serves every call.
  const st = stack(Math.min(limit, MAX_NESTING_DEPTH, b.length) + 1);
  const { kinds, keyStart, keyEnd, count, hashes, starts, maps } = st;
  let sp = -1;
  let expectKey = false;
  const n = b.length;
  for (let i = 0; i < n; i++) {
    const c = b[i]!;
    if (c === 0x22 /* " */) {
      if (!expectKey) {
        // A value: skipped, not hashed.
        i = closingQuote(b, i + 1);
        continue;
      }
      const start = i + 1;
      let h = FNV_OFFSET;
      let escaped = false;
      for (i++; i < n; i++) {
        const d = b[i]!;
        if (d === 0x22) break;
        if (d === 0x5c) {
          escaped = true;
          i++;
        }
        h = Math.imul(h ^ d, FNV_PRIME);
      }
      expectKey = false;
      if (escaped) h = hashOf(keyText(b, start, i));
      const first = remember(sp, h, start);
      if (first >= 0 && keyText(b, first, closingQuote(b, first)) === keyText(b, start, i)) {
        const key = keyText(b, start, i);
        duplicates.push(pathOf(b, kinds, keyStart, keyEnd, sp, key));
        duplicateKeys.push({ key, at: start - 1 });
      }
      keyStart[sp] = start;
      keyEnd[sp] = i;
    } else if (c === 0x7b /* { */ || c === 0x5b /* [ */) {
      if (sp + 1 >= limit) {
        maps.fill(undefined);
        return { duplicates, duplicateKeys, tooDeepAt: i };
      }
      sp++;
      kinds[sp] = c === 0x7b ? OBJECT : ARRAY;
      keyStart[sp] = -1;
      keyEnd[sp] = 0;
      count[sp] = 0;
      maps[sp] = undefined;
      expectKey = c === 0x7b;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      if (sp >= 0) sp--;
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      if (sp < 0) continue;
      if (kinds[sp] === OBJECT) expectKey = true;
      else keyEnd[sp]!++;
    }
  }
  maps.fill(undefined);
  return { duplicates, duplicateKeys, tooDeepAt: -1 };

  /** Records a key hash in frame `f`; returns the start of an earlier key with the same hash, or -1. */
  function remember(f: number, h: number, start: number): number {
    const k = count[f]!;
    count[f] = k + 1;
    if (k < SMALL) {
      const base = f * SMALL;
      for (let j = 0; j < k; j++) if (hashes[base + j] === h) return starts[base + j]!;
      hashes[base + k] = h;
      starts[base + k] = start;
      return -1;
    }
    let m = maps[f];
    if (m === undefined) {
      m = new Map();
      const base = f * SMALL;
      for (let j = 0; j < SMALL; j++) m.set(hashes[base + j]!, starts[base + j]!);
      maps[f] = m;
    }
    const earlier = m.get(h);
    if (earlier !== undefined) return earlier;
    m.set(h, start);
    return -1;
  }
}

function closingQuote(b: Uint8Array, start: number): number {
  const n = b.length;
  let i = start;
  // Short strings (most keys and values) byte by byte; the rest of a long one through the native search for a
  // quote, which is escaped when an odd run of backslashes ends right before it.
  const byHand = Math.min(n, start + 32);
  while (i < byHand) {
    const d = b[i]!;
    if (d === 0x22) return i;
    i += d === 0x5c ? 2 : 1;
  }
  // Node's Buffer#indexOf is a memchr (a 1 KiB value: ~50 ns); a plain Uint8Array's is a loop ten times slower.
  const search = Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  while (i < n) {
    const quote = search.indexOf(0x22, i);
    if (quote < 0) return n;
    let run = 0;
    while (quote - run - 1 >= i && b[quote - run - 1] === 0x5c) run++;
    if ((run & 1) === 0) return quote;
    i = quote + 1;
  }
  return i;
}

/** A key as a string: escapes decoded. */
function keyText(b: Uint8Array, start: number, end: number): string {
  const raw = utf8.decode(b.subarray(start, end));
  if (!raw.includes('\\')) return raw;
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    return raw;
  }
}

function hashOf(s: string): number {
  let h = FNV_OFFSET;
  for (const byte of Buffer.from(s, 'utf8')) h = Math.imul(h ^ byte, FNV_PRIME);
  return h;
}

function pathOf(b: Uint8Array, kinds: Uint8Array, keyStart: Int32Array, keyEnd: Int32Array, top: number, key: string): string {
  let p = '';
  for (let i = 0; i < top; i++) {
    if (kinds[i] === ARRAY) p += `[${keyEnd[i]}]`;
    else {
      const k = keyText(b, keyStart[i]!, keyEnd[i]!);
      p = p === '' ? k : `${p}.${k}`;
    }
  }
  return p === '' ? key : `${p}.${key}`;
}

/**
 * Paths of repeated keys in JSON text (see scanJson), within the nesting
 * limit (deeper text is refused by whoever parses it).
 */
export function duplicateFields(text: string | Uint8Array): string[] {
  return scanJson(typeof text === 'string' ? Buffer.from(text, 'utf8') : text).duplicates;
}
