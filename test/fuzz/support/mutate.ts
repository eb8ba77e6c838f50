/**
 * Mutators: turn a seed object into hostile input. A mutation is plain data
 * (a kind and some numbers) so fast-check can generate, print and shrink it;
 * `applyMutations` interprets it on a copy of the seed.
 *
 * Values JSON.stringify cannot produce (numbers past 2^53, `1e400`, deep
 * nesting built as text, duplicate keys) are carried as `RawJson` and
 * `DuplicateKeys` nodes and written by `toJsonText`.
 */
import fc from 'fast-check';
import type { Json } from './schema-values.ts';

/** JSON text inserted verbatim. */
export class RawJson {
  constructor(readonly text: string) {}
}

/** An object whose entries may repeat a key (the last one wins in JSON.parse). */
export class DuplicateKeys {
  constructor(readonly entries: readonly (readonly [string, Fuzzed])[]) {}
}

export type Fuzzed = Json | RawJson | DuplicateKeys | Fuzzed[] | { [key: string]: Fuzzed };

/** Number literals at the int32/int64/double edges, as text. */
export const NUMBER_EDGES = [
  '2147483647', '2147483648', '-2147483648', '-2147483649', '4294967296',
  '9007199254740991', '9007199254740993', '9223372036854775807', '9223372036854775808', '-9223372036854775809',
  '18446744073709551616', '123456789012345678901234567890', '1e400', '-1e400', '1e-400', '-0', '0.5', '1.0', '1e3', '-1',
] as const;

export const UNICODE_STRINGS = [
  '\u0000', '\ud800', '\udfff\ud800', 'é', '\u00e9\u0301', '😀'.repeat(300), '\u202eevil', 'a\nb\r\nc', '\u200b', '\ufeff',
  'Ω'.repeat(5000), '\\', '"', '</script>', '${x}', '%00', '..', '/', 'a/b', '\u0085',
] as const;

export const INVALID_BASE64 = ['!!!', 'YQ', 'YQ=', '=', 'a b', '\u00ff\u00fe', '====', 'YWJj\n', 'Y-_', '*'.repeat(100)] as const;

export const HOSTILE_KEYS = ['__proto__', 'constructor', 'prototype', '$patch', '$retainKeys', '', 'a.b', '/', '~', 'x'.repeat(10_000), '\ud800', 'toString', 'hasOwnProperty'] as const;

/** String sizes around the limits: annotations (256 KiB), an object (1.5 MiB), a body (3 MiB + headroom). */
export const HUGE_SIZES = [65_536, 262_145, 1_100_000, 1_600_000, 3_700_000] as const;

/** Nesting depths, up to past any recursion limit. */
export const DEPTHS = [64, 1_000, 10_001, 100_000] as const;

export type Mutation =
  | { readonly kind: 'typeChange'; readonly at: number; readonly to: number }
  | { readonly kind: 'number'; readonly at: number; readonly edge: number }
  | { readonly kind: 'huge'; readonly at: number; readonly size: number }
  | { readonly kind: 'unicode'; readonly at: number; readonly which: number }
  | { readonly kind: 'base64'; readonly at: number; readonly which: number }
  | { readonly kind: 'deep'; readonly at: number; readonly depth: number; readonly arrays: boolean }
  | { readonly kind: 'addKey'; readonly at: number; readonly key: number }
  | { readonly kind: 'duplicateKey'; readonly at: number; readonly to: number }
  | { readonly kind: 'deleteKey'; readonly at: number }
  | { readonly kind: 'wide'; readonly at: number; readonly items: number }
  | { readonly kind: 'root'; readonly to: number };

const TYPE_CHANGES: readonly Fuzzed[] = [null, true, false, 0, -1, 'str', [], {}, [1, 'a', null], { a: 1 }, 1.5, ''];

const at = fc.nat({ max: 10_000 });
// Weights: the heavy mutations (huge strings, deep nesting, wide arrays) are about 1 in 80: they
// cost far more per case than the rest, and a few hundred per run find what they can find.
export const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  { weight: 60, arbitrary: fc.record({ kind: fc.constant('typeChange' as const), at, to: fc.nat({ max: TYPE_CHANGES.length - 1 }) }) },
  { weight: 40, arbitrary: fc.record({ kind: fc.constant('number' as const), at, edge: fc.nat({ max: NUMBER_EDGES.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('huge' as const), at, size: fc.nat({ max: HUGE_SIZES.length - 1 }) }) },
  { weight: 30, arbitrary: fc.record({ kind: fc.constant('unicode' as const), at, which: fc.nat({ max: UNICODE_STRINGS.length - 1 }) }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('base64' as const), at, which: fc.nat({ max: INVALID_BASE64.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('deep' as const), at, depth: fc.nat({ max: DEPTHS.length - 1 }), arrays: fc.boolean() }) },
  { weight: 30, arbitrary: fc.record({ kind: fc.constant('addKey' as const), at, key: fc.nat({ max: HOSTILE_KEYS.length - 1 }) }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('duplicateKey' as const), at, to: fc.nat({ max: TYPE_CHANGES.length - 1 }) }) },
  { weight: 20, arbitrary: fc.record({ kind: fc.constant('deleteKey' as const), at }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('wide' as const), at, items: fc.constantFrom(1_000, 50_000) }) },
  { weight: 10, arbitrary: fc.record({ kind: fc.constant('root' as const), to: fc.nat({ max: TYPE_CHANGES.length - 1 }) }) },
);

type Slot = { readonly parent: Fuzzed[] | { [key: string]: Fuzzed }; readonly key: string | number };

function isPlain(v: Fuzzed): v is { [key: string]: Fuzzed } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RawJson) && !(v instanceof DuplicateKeys);
}

/** Every slot (object field or array item) of `root`, breadth first. */
function slots(root: Fuzzed): Slot[] {
  const out: Slot[] = [];
  const queue: Fuzzed[] = [root];
  while (queue.length > 0 && out.length < 2_000) {
    const node = queue.shift()!;
    if (Array.isArray(node)) node.forEach((v, i) => (out.push({ parent: node, key: i }), queue.push(v)));
    else if (isPlain(node)) for (const k of Object.keys(node)) out.push({ parent: node, key: k }), queue.push(node[k]!);
  }
  return out;
}

function objects(root: Fuzzed): { [key: string]: Fuzzed }[] {
  const out: { [key: string]: Fuzzed }[] = [];
  if (isPlain(root)) out.push(root);
  for (const s of slots(root)) {
    const v = (s.parent as Record<string | number, Fuzzed>)[s.key]!;
    if (isPlain(v)) out.push(v);
  }
  return out;
}

function set(s: Slot, v: Fuzzed): void {
  (s.parent as Record<string | number, Fuzzed>)[s.key] = v;
}

export function deepText(depth: number, arrays: boolean): RawJson {
  return arrays ? new RawJson('['.repeat(depth) + '1' + ']'.repeat(depth)) : new RawJson('{"a":'.repeat(depth) + '1' + '}'.repeat(depth));
}

function wide(items: number): RawJson {
  return new RawJson('[' + Array.from({ length: items }, (_, i) => `{"k${i % 7}":${i}}`).join(',') + ']');
}

/** Applies `mutations` to a copy of `seed`. */
export function applyMutations(seed: Json, mutations: readonly Mutation[]): Fuzzed {
  let root: Fuzzed = structuredClone(seed);
  for (const m of mutations) {
    if (m.kind === 'root') {
      root = structuredClone(TYPE_CHANGES[m.to]!);
      continue;
    }
    if (m.kind === 'addKey' || m.kind === 'duplicateKey' || m.kind === 'deleteKey') {
      const objs = objects(root);
      if (objs.length === 0) continue;
      const obj = objs[m.at % objs.length]!;
      if (m.kind === 'addKey') {
        const key = HOSTILE_KEYS[m.key]!;
        // JSON.parse makes `__proto__` an own key; a plain assignment would set the prototype instead.
        Object.defineProperty(obj, key, { value: { polluted: true }, enumerable: true, writable: true, configurable: true });
      } else if (m.kind === 'deleteKey') {
        const keys = Object.keys(obj);
        if (keys.length > 0) delete obj[keys[m.at % keys.length]!];
      } else {
        const keys = Object.keys(obj);
        if (keys.length === 0) continue;
        const key = keys[m.at % keys.length]!;
        const entries: [string, Fuzzed][] = Object.entries(obj);
        entries.push([key, structuredClone(TYPE_CHANGES[m.to]!)]);
        for (const k of keys) delete obj[k];
        // The parent slot now holds the duplicate-key form; find it and swap.
        const dup = new DuplicateKeys(entries);
        if (obj === root) root = dup;
        else for (const s of slots(root)) if ((s.parent as Record<string | number, Fuzzed>)[s.key] === obj) set(s, dup);
      }
      continue;
    }
    const all = slots(root);
    if (all.length === 0) continue;
    const slot = all[m.at % all.length]!;
    switch (m.kind) {
      case 'typeChange':
        set(slot, structuredClone(TYPE_CHANGES[m.to]!));
        break;
      case 'number':
        set(slot, new RawJson(NUMBER_EDGES[m.edge]!));
        break;
      case 'huge':
        set(slot, 'x'.repeat(HUGE_SIZES[m.size]!));
        break;
      case 'unicode':
        set(slot, UNICODE_STRINGS[m.which]!);
        break;
      case 'base64':
        set(slot, INVALID_BASE64[m.which]!);
        break;
      case 'deep':
        set(slot, deepText(DEPTHS[m.depth]!, m.arrays));
        break;
      case 'wide':
        set(slot, wide(m.items));
        break;
    }
  }
  return root;
}

/** JSON text of a fuzzed value (recursive: seeds are shallow, deep nesting comes as RawJson text). */
export function toJsonText(v: Fuzzed): string {
  if (v instanceof RawJson) return v.text;
  if (v instanceof DuplicateKeys) return '{' + v.entries.map(([k, x]) => JSON.stringify(k) + ':' + toJsonText(x)).join(',') + '}';
  if (Array.isArray(v)) return '[' + v.map(toJsonText).join(',') + ']';
  if (isPlain(v)) return '{' + Object.keys(v).map((k) => JSON.stringify(k) + ':' + toJsonText(v[k]!)).join(',') + '}';
  return JSON.stringify(v);
}

/** The value as JSON.parse would see it, for encoders that need plain values (YAML, Protobuf). */
export function toPlain(v: Fuzzed): Json {
  try {
    return JSON.parse(toJsonText(v)) as Json;
  } catch {
    return null;
  }
}
