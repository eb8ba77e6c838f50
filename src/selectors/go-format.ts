/**
 * Small helpers that reproduce Go's formatting and ordering, so our error
 * messages and canonical strings are byte-for-byte those of the Kubernetes API
 * server. Only used when parsing or failing, never per object.
 */

/**
 * Go compares strings bytewise (UTF-8). JS compares UTF-16 code units, which
 * orders astral characters (surrogates, 0xD800-0xDFFF) below 0xE000-0xFFFF.
 * Remapping the differing unit fixes that: code point order == UTF-8 order.
 */
export function compareGo(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i);
    let cb = b.charCodeAt(i);
    if (ca === cb) continue;
    if (ca >= 0xd800) ca += ca >= 0xe000 ? -0x800 : 0x2000;
    if (cb >= 0xd800) cb += cb >= 0xe000 ? -0x800 : 0x2000;
    return ca - cb;
  }
  return a.length - b.length;
}

/** Go's len(string): the UTF-8 byte length, which is what Kubernetes limits. */
export function goLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

// unicode.IsPrint: letters, marks, numbers, punctuation, symbols and ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}

/** strconv.Quote (what `%q` prints for a string). */
export function goQuote(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (cp < 0x20 || cp === 0x7f) out += '\\x' + hex(cp, 2);
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\\ufffd'; // lone surrogate: not valid UTF-8
    else if (printable.test(ch)) out += ch;
    else if (cp < 0x10000) out += '\\u' + hex(cp, 4);
    else out += '\\U' + hex(cp, 8);
  }
  return out + '"';
}

/** encoding/json.Marshal of a []string (nil -> null); Go escapes <, >, & and U+2028/9. */
export function goJSONStrings(values: readonly string[] | null): string {
  if (values === null) return 'null';
  return JSON.stringify(values).replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + hex(c.charCodeAt(0), 4));
}
