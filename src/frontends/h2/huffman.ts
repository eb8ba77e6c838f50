/**
 * The HPACK Huffman code (RFC 7541 §5.2, Appendix B): a decoder driven by a
 * 4-bit state machine built once at module load (nghttp2's design), and an
 * encoder. Strings are latin1: one char per octet, as HTTP/2 field values are
 * octet strings.
 */

/**
 * HpackError: a header block that cannot be decoded. The caller treats it as
 * a connection error of type COMPRESSION_ERROR (RFC 9113 §4.3): the peer's
 * and our dynamic tables can no longer be trusted to agree. Defined here, at
 * the bottom of the dependency order, so hpack.ts re-exports it without an
 * import cycle.
 */
export class HpackError extends Error {
  override name = 'HpackError';
}

/**
 * Code length in bits of symbols 0..255 and EOS (256), RFC 7541 Appendix B.
 * The code is canonical (codes ascend with (length, symbol)), so the lengths
 * alone determine every code; test/frontends/h2/hpack.test.ts checks codes
 * against the appendix.
 */
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28,
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28,
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6,
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10,
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7,
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6,
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5,
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28,
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23,
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24,
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23,
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23,
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25,
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27,
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23,
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26,
  30,
];

const EOS = 256;
const SYMBOLS = 257;

/** The code of each symbol (right-aligned in `HUFFMAN_LENGTHS[s]` bits). */
export const HUFFMAN_CODES = new Uint32Array(SYMBOLS);
/** The length in bits of each symbol's code. */
export const HUFFMAN_LENGTHS = Uint8Array.from(CODE_LENGTHS);

function assignCanonicalCodes(): void {
  const order = Array.from({ length: SYMBOLS }, (_, s) => s).sort((a, b) => CODE_LENGTHS[a]! - CODE_LENGTHS[b]! || a - b);
  let code = 0;
  let length = CODE_LENGTHS[order[0]!]!;
  for (const s of order) {
    code *= 2 ** (CODE_LENGTHS[s]! - length);
    length = CODE_LENGTHS[s]!;
    HUFFMAN_CODES[s] = code++;
  }
  // A complete code ends exactly at 2^30: every bit string decodes to something.
  if (code !== 2 ** 30) throw new Error('HPACK Huffman table is not a complete prefix code');
}
assignCanonicalCodes();

/*
 * The decoding state machine. States are the internal nodes of the code tree
 * (256 of them for 257 leaves; state 0 is the root) plus DEAD, entered on
 * reaching EOS and never left. For each state and each nibble of input,
 * TRANSITIONS holds the next state, and the symbol emitted on the way if a
 * leaf was reached: at most one per nibble, as the shortest code is 5 bits.
 * Entry layout: next state in bits 0-8, symbol in bits 9-16, "emits" in bit 17.
 */
const DEAD = 256;
const SYMBOL_SHIFT = 9;
const EMITS_SHIFT = 17;
const TRANSITIONS = new Uint32Array((DEAD + 1) * 16);
/** States whose path from the root is at most 7 one-bits: valid padding at the end of a string. */
const ACCEPTING = new Uint8Array(DEAD + 1);

function buildStateMachine(): void {
  // children[2 * node + bit]: an internal node id, or ~symbol for a leaf.
  const children: number[] = [0, 0];
  let nodes = 1;
  for (let s = 0; s < SYMBOLS; s++) {
    let node = 0;
    for (let bit = HUFFMAN_LENGTHS[s]! - 1; bit >= 0; bit--) {
      const slot = 2 * node + ((HUFFMAN_CODES[s]! >>> bit) & 1);
      if (bit === 0) {
        children[slot] = ~s;
      } else {
        if (children[slot] === 0) {
          children[slot] = nodes++;
          children.push(0, 0);
        }
        node = children[slot]!;
      }
    }
  }
  if (nodes !== DEAD) throw new Error('HPACK Huffman tree has an unexpected shape');
  for (let node = 0, depth = 0; depth <= 7 && node >= 0; depth++) {
    ACCEPTING[node] = 1;
    node = children[2 * node + 1]!;
  }
  TRANSITIONS.fill(DEAD, DEAD * 16);
  for (let state = 0; state < DEAD; state++) {
    for (let nibble = 0; nibble < 16; nibble++) {
      let node = state;
      let entry = 0;
      for (let bit = 3; bit >= 0; bit--) {
        const child = children[2 * node + ((nibble >>> bit) & 1)]!;
        if (child >= 0) {
          node = child;
        } else if (~child === EOS) {
          node = DEAD;
          entry = 0;
          break;
        } else {
          entry = (~child << SYMBOL_SHIFT) | (1 << EMITS_SHIFT);
          node = 0;
        }
      }
      TRANSITIONS[state * 16 + nibble] = entry | node;
    }
  }
}
buildStateMachine();

/** Output scratch, reused: a Huffman string decodes to at most 8/5 octets per input octet. */
let scratch = Buffer.allocUnsafe(4096);

interface Latin1Slicer {
  latin1Slice(start: number, end: number): string;
}

/**
 * huffmanDecode: the latin1 string Huffman-coded in src[start, end). Throws
 * HpackError when the input holds EOS, or ends in padding that is longer than
 * 7 bits or not all ones (RFC 7541 §5.2).
 */
export function huffmanDecode(src: Uint8Array, start: number, end: number): string {
  // +2: each nibble stores a (possibly unused) octet at out[n] before n advances.
  const bound = Math.ceil(((end - start) * 8) / 5) + 2;
  if (scratch.length < bound) scratch = Buffer.allocUnsafe(Math.max(bound, scratch.length * 2));
  const out = scratch;
  let n = 0;
  let state = 0;
  for (let i = start; i < end; i++) {
    const octet = src[i]!;
    // Branch-free: the symbol is stored every time, and kept only when the entry emits.
    let t = TRANSITIONS[(state << 4) | (octet >>> 4)]!;
    out[n] = t >>> SYMBOL_SHIFT;
    n += t >>> EMITS_SHIFT;
    t = TRANSITIONS[((t & 0x1ff) << 4) | (octet & 0xf)]!;
    out[n] = t >>> SYMBOL_SHIFT;
    n += t >>> EMITS_SHIFT;
    state = t & 0x1ff;
  }
  if (ACCEPTING[state] === 0) throw new HpackError(state === DEAD ? 'Huffman string holds EOS' : 'Huffman string ends in invalid padding');
  return (out as unknown as Latin1Slicer).latin1Slice(0, n);
}

/** huffmanEncodedLength: the octets `str` (latin1) takes Huffman-coded. */
export function huffmanEncodedLength(str: string): number {
  let bits = 0;
  for (let i = 0; i < str.length; i++) bits += HUFFMAN_LENGTHS[str.charCodeAt(i) & 0xff]!;
  return (bits + 7) >>> 3;
}

/**
 * huffmanEncode: writes `str` (latin1; chars above 0xff are taken modulo
 * 256) Huffman-coded into dst at offset, padded with ones; returns the end
 * offset. dst must have huffmanEncodedLength(str) octets free.
 */
export function huffmanEncode(str: string, dst: Uint8Array, offset: number): number {
  // Pending bits (< 8) plus one code (<= 30) fit in a double's 53-bit mantissa.
  let acc = 0;
  let bits = 0;
  for (let i = 0; i < str.length; i++) {
    const s = str.charCodeAt(i) & 0xff;
    const length = HUFFMAN_LENGTHS[s]!;
    acc = acc * 2 ** length + HUFFMAN_CODES[s]!;
    bits += length;
    while (bits >= 8) {
      bits -= 8;
      const unit = 2 ** bits;
      const octet = Math.floor(acc / unit);
      dst[offset++] = octet;
      acc -= octet * unit;
    }
  }
  if (bits > 0) dst[offset++] = (acc << (8 - bits)) | (0xff >>> bits);
  return offset;
}
