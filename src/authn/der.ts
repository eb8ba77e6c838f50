/**
 * A minimal, bounds-checked DER reader: just enough ASN.1 to read the few
 * certificate fields client-certificate authentication needs (names,
 * validity, basic constraints, key usages). node:crypto's X509Certificate
 * exposes some of these only as display strings (subjects with escaping,
 * dates in a locale-ish format) and others not at all (path length, key
 * usage bits, critical flags), so we read the bytes ourselves.
 *
 * Every read is checked against the enclosing element; malformed input
 * throws DerError, never reads past the buffer.
 */

export class DerError extends Error {}

export const TAG = {
  BOOLEAN: 0x01,
  INTEGER: 0x02,
  BIT_STRING: 0x03,
  OCTET_STRING: 0x04,
  NULL: 0x05,
  OID: 0x06,
  UTF8_STRING: 0x0c,
  NUMERIC_STRING: 0x12,
  PRINTABLE_STRING: 0x13,
  T61_STRING: 0x14,
  IA5_STRING: 0x16,
  UTC_TIME: 0x17,
  GENERALIZED_TIME: 0x18,
  BMP_STRING: 0x1e,
  SEQUENCE: 0x30,
  SET: 0x31,
} as const;

/** One element: its identifier octet and where its header and content lie. */
export interface DerElement {
  /** The whole identifier octet (class, constructed bit and tag number). */
  readonly tag: number;
  /** Offset of the identifier octet. */
  readonly start: number;
  /** Offset of the first content octet. */
  readonly contentStart: number;
  /** Offset just past the content. */
  readonly end: number;
}

export class DerReader {
  private pos: number;

  constructor(
    readonly buf: Uint8Array,
    start = 0,
    private readonly limit = buf.length,
  ) {
    this.pos = start;
  }

  /** A reader over the content of a constructed element. */
  static within(buf: Uint8Array, el: DerElement): DerReader {
    return new DerReader(buf, el.contentStart, el.end);
  }

  get done(): boolean {
    return this.pos >= this.limit;
  }

  /** The identifier octet of the next element, or undefined at the end. */
  peekTag(): number | undefined {
    return this.done ? undefined : this.buf[this.pos];
  }

  next(): DerElement {
    const start = this.pos;
    if (start >= this.limit) throw new DerError('unexpected end of data');
    const tag = this.buf[start]!;
    // Certificates use only low tag numbers; the high-tag form never occurs.
    if ((tag & 0x1f) === 0x1f) throw new DerError('high tag numbers are not supported');
    let p = start + 1;
    if (p >= this.limit) throw new DerError('truncated length');
    const first = this.buf[p++]!;
    let length: number;
    if (first < 0x80) {
      length = first;
    } else {
      const octets = first & 0x7f;
      // 0x80 is BER's indefinite length, which DER forbids; more than four
      // length octets would describe a certificate far beyond any real one.
      if (octets === 0 || octets > 4) throw new DerError('unsupported length encoding');
      if (p + octets > this.limit) throw new DerError('truncated length');
      length = 0;
      for (let i = 0; i < octets; i++) length = length * 256 + this.buf[p++]!;
    }
    const end = p + length;
    if (end > this.limit) throw new DerError('element runs past its container');
    this.pos = end;
    return { tag, start, contentStart: p, end };
  }

  /** Reads the next element, requiring a given identifier octet. */
  expect(tag: number, what: string): DerElement {
    const el = this.next();
    if (el.tag !== tag) throw new DerError(`${what}: unexpected tag 0x${el.tag.toString(16)}`);
    return el;
  }

  /** Reads the next element only if it carries `tag`. */
  optional(tag: number): DerElement | undefined {
    return this.peekTag() === tag ? this.next() : undefined;
  }
}

export function content(buf: Uint8Array, el: DerElement): Uint8Array {
  return buf.subarray(el.contentStart, el.end);
}

export function whole(buf: Uint8Array, el: DerElement): Uint8Array {
  return buf.subarray(el.start, el.end);
}

/** Dotted-decimal form of an OBJECT IDENTIFIER's content. */
export function decodeOid(bytes: Uint8Array): string {
  if (bytes.length === 0) throw new DerError('empty object identifier');
  const arcs: number[] = [];
  let value = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    value = value * 128 + (b & 0x7f);
    if (value > Number.MAX_SAFE_INTEGER) throw new DerError('object identifier arc too large');
    if ((b & 0x80) === 0) {
      arcs.push(value);
      value = 0;
    } else if (i === bytes.length - 1) {
      throw new DerError('truncated object identifier');
    }
  }
  const head = arcs[0]!;
  const [a, b] = head < 40 ? [0, head] : head < 80 ? [1, head - 40] : [2, head - 80];
  return [a, b, ...arcs.slice(1)].join('.');
}

export function decodeBoolean(bytes: Uint8Array): boolean {
  if (bytes.length !== 1) throw new DerError('invalid boolean');
  return bytes[0] !== 0;
}

/** A small non-negative INTEGER (path lengths, versions). */
export function decodeSmallInt(bytes: Uint8Array): number {
  if (bytes.length === 0 || bytes.length > 4) throw new DerError('integer out of range');
  if ((bytes[0]! & 0x80) !== 0) throw new DerError('negative integer');
  let n = 0;
  for (const b of bytes) n = n * 256 + b;
  return n;
}

/** UTCTime or GeneralizedTime, as certificates must encode them (seconds, `Z`), to epoch ms. */
export function decodeTime(tag: number, bytes: Uint8Array): number {
  const s = latin1(bytes);
  let m: RegExpExecArray | null;
  let year: number;
  if (tag === TAG.UTC_TIME) {
    m = /^(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (m === null) throw new DerError('invalid UTCTime');
    const yy = Number(m[1]);
    // RFC 5280 4.1.2.5.1: two-digit years 50-99 are 19xx, 00-49 are 20xx.
    year = yy >= 50 ? 1900 + yy : 2000 + yy;
  } else if (tag === TAG.GENERALIZED_TIME) {
    m = /^(\d{4})(\d{2})(\d{2})(\d{2})(\d{2})(\d{2})Z$/.exec(s);
    if (m === null) throw new DerError('invalid GeneralizedTime');
    year = Number(m[1]);
  } else {
    throw new DerError('invalid time type');
  }
  const [month, day, hour, minute, second] = [m[2], m[3], m[4], m[5], m[6]].map(Number) as [number, number, number, number, number];
  const ms = Date.UTC(year, month - 1, day, hour, minute, second);
  const check = new Date(ms);
  // Date.UTC silently rolls 31 February over into March; DER does not.
  if (check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw new DerError('invalid time value');
  }
  return ms;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
// PrintableString, plus '*' and '&' which Go accepts from broken issuers.
const PRINTABLE = /^[A-Za-z0-9 '()+,\-./:=?*&]*$/;
const IA5 = /^[\x00-\x7f]*$/;
const NUMERIC = /^[0-9 ]*$/;

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/**
 * The directory-string types Go's x509 parser accepts in names; any other
 * type makes Go reject the certificate, so it does here too.
 */
export function decodeDirectoryString(tag: number, bytes: Uint8Array): string {
  switch (tag) {
    case TAG.UTF8_STRING:
      try {
        return utf8.decode(bytes);
      } catch {
        throw new DerError('invalid UTF-8 string');
      }
    case TAG.PRINTABLE_STRING: {
      const s = latin1(bytes);
      if (!PRINTABLE.test(s)) throw new DerError('invalid PrintableString');
      return s;
    }
    case TAG.IA5_STRING: {
      const s = latin1(bytes);
      if (!IA5.test(s)) throw new DerError('invalid IA5String');
      return s;
    }
    case TAG.NUMERIC_STRING: {
      const s = latin1(bytes);
      if (!NUMERIC.test(s)) throw new DerError('invalid NumericString');
      return s;
    }
    case TAG.T61_STRING:
      // Go takes the bytes as they are; Latin-1 is the closest JS reading.
      return latin1(bytes);
    case TAG.BMP_STRING: {
      if (bytes.length % 2 !== 0) throw new DerError('invalid BMPString');
      let out = '';
      for (let i = 0; i < bytes.length; i += 2) out += String.fromCharCode((bytes[i]! << 8) | bytes[i + 1]!);
      return out;
    }
    default:
      throw new DerError(`unsupported string type 0x${tag.toString(16)}`);
  }
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
