/**
 * The fast path of a conversion that only changes `apiVersion` (the older
 * versions with the same fields as their stored one): the stored JSON bytes
 * get the served apiVersion spliced in, without parsing. Stored objects begin
 * `{"kind":"<Kind>","apiVersion":"<stored>",` (serializeForStorage writes
 * kind and apiVersion first), so only that head changes; a nested object that
 * happens to look the same is never touched, as only objects at the top of an
 * object, a list's items or a watch frame's `object` are looked at. Anything
 * else answers undefined and the caller converts the slow way.
 */

const encoder = new TextEncoder();

export interface Relabel {
  /** `{"kind":"<Kind>","apiVersion":"<stored>",` */
  readonly from: Uint8Array;
  /** `{"kind":"<Kind>","apiVersion":"<served>",` */
  readonly to: Uint8Array;
}

export function relabelFor(kind: string, stored: string, served: string): Relabel {
  const head = (apiVersion: string): Uint8Array => encoder.encode(`{"kind":${JSON.stringify(kind)},"apiVersion":${JSON.stringify(apiVersion)},`);
  return { from: head(stored), to: head(served) };
}

const BARE_HEAD = encoder.encode('{');
/** One per Relabel, made on first use: every list of the type asks for the same. */
const bareOf = new WeakMap<Relabel, Relabel>();

/** The same conversion for the items of a list that goes without each item's kind and apiVersion: the stored head becomes `{`. */
export function bareRelabel(r: Relabel): Relabel {
  let bare = bareOf.get(r);
  if (bare === undefined) bareOf.set(r, (bare = { from: r.from, to: BARE_HEAD }));
  return bare;
}

function startsWithAt(bytes: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > bytes.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const COMMA = 0x2c;
const NEWLINE = 0x0a;

/** Index of the quote closing the string whose opening quote is at `open` (native indexOf, then odd backslash runs skipped), or -1. */
function endOfString(bytes: Uint8Array, open: number): number {
  let at = open;
  for (;;) {
    at = bytes.indexOf(QUOTE, at + 1);
    if (at < 0) return -1;
    let slashes = 0;
    while (bytes[at - 1 - slashes] === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return at;
  }
}

/** Index just past the JSON value (object or array) starting at `at`, or -1 when it does not close. */
function endOfValue(bytes: Uint8Array, at: number): number {
  let depth = 0;
  for (let i = at; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === QUOTE) {
      i = endOfString(bytes, i);
      if (i < 0) return -1;
    } else if (b === OPEN_BRACE || b === OPEN_BRACKET) {
      depth++;
    } else if (b === CLOSE_BRACE || b === CLOSE_BRACKET) {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** Splices the head of each object starting at `starts`; every one must carry `from`. */
function splice(bytes: Uint8Array, starts: readonly number[], r: Relabel): Uint8Array | undefined {
  for (const s of starts) if (!startsWithAt(bytes, s, r.from)) return undefined;
  const out = new Uint8Array(bytes.length + starts.length * (r.to.length - r.from.length));
  let read = 0;
  let write = 0;
  for (const s of starts) {
    out.set(bytes.subarray(read, s), write);
    write += s - read;
    out.set(r.to, write);
    write += r.to.length;
    read = s + r.from.length;
  }
  out.set(bytes.subarray(read), write);
  return out;
}

/** One stored object. */
export function relabelObject(bytes: Uint8Array, r: Relabel): Uint8Array | undefined {
  return splice(bytes, [0], r);
}

/** A list's items joined by commas (`count` of them). */
export function relabelItems(items: Uint8Array, count: number, r: Relabel): Uint8Array | undefined {
  const starts: number[] = [];
  let at = 0;
  while (at < items.length) {
    if (items[at] !== OPEN_BRACE) return undefined;
    starts.push(at);
    const end = endOfValue(items, at);
    if (end < 0) return undefined;
    at = end;
    if (at < items.length) {
      if (items[at] !== COMMA) return undefined;
      at++;
    }
  }
  return starts.length === count ? splice(items, starts, r) : undefined;
}

const OBJECT_KEY = encoder.encode('"object":');
const ERROR_HEAD = encoder.encode('{"type":"ERROR",');

/** Watch frames, one JSON event a line: `{"type":"...","object":{...}}`; ERROR events (a Status) are left alone. */
export function relabelFrames(frames: Uint8Array, r: Relabel): Uint8Array | undefined {
  const starts: number[] = [];
  let line = 0;
  while (line < frames.length) {
    let end = frames.indexOf(NEWLINE, line);
    if (end < 0) end = frames.length;
    // `{"type":"<T>",` then `"object":`: the type is a short plain word.
    const typeEnd = frames.indexOf(COMMA, line);
    if (typeEnd < 0 || typeEnd > end || !startsWithAt(frames, typeEnd + 1, OBJECT_KEY)) return undefined;
    const obj = typeEnd + 1 + OBJECT_KEY.length;
    if (startsWithAt(frames, obj, r.from)) starts.push(obj);
    else if (!startsWithAt(frames, line, ERROR_HEAD)) return undefined;
    line = end + 1;
  }
  return splice(frames, starts, r);
}
