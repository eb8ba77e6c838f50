/**
 * HPACK (RFC 7541) for the server side of our HTTP/2 front end.
 *
 * Decoding is complete and hardened: every representation, Huffman strings,
 * the dynamic table with eviction, and bounded work. A block's cost is linear
 * in its length, and the strings it yields are either cut from the block or
 * already held by the dynamic table; once the header list passes
 * maxHeaderListSize no more fields are handed out (indexed references to a
 * large entry cannot amplify output), though the block is still parsed to
 * the end so the dynamic table stays in step with the peer's.
 *
 * Encoding is deliberately minimal, for CPU: it never inserts into the
 * dynamic table and never Huffman-codes. A field is one static-table byte
 * when name and value match an entry (`:status: 200`), else a literal without
 * indexing (never-indexed when sensitive) naming a static entry or spelling a
 * new name, its prefix bytes computed once per name; a value that repeats
 * (content-type, a flow schema's uid) is kept encoded, whole field. The one
 * thing the encoder owes the peer's table is a size update after the peer
 * changes SETTINGS_HEADER_TABLE_SIZE (peerTableSizeChanged).
 */
import { HpackError, huffmanDecode } from './huffman.ts';

export { HpackError };

/** Per-entry overhead counted in table and header-list sizes (RFC 7541 §4.1, RFC 9113 §6.5.2). */
const ENTRY_OVERHEAD = 32;
/** Larger integers are refused: no table, string or index needs them, and they would cost a peer nothing to send. */
const MAX_INTEGER = 2 ** 28;
/** Continuation octets allowed after an integer's prefix: 5 × 7 bits covers MAX_INTEGER with room for a zero pad. */
const MAX_CONTINUATION_OCTETS = 5;

// ---------------------------------------------------------------------------
// Static table (RFC 7541 Appendix A), 1-based.

const STATIC_ENTRIES: readonly (readonly [string, string])[] = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'], [':path', '/index.html'],
  [':scheme', 'http'], [':scheme', 'https'], [':status', '200'], [':status', '204'], [':status', '206'],
  [':status', '304'], [':status', '400'], [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''], ['accept', ''],
  ['access-control-allow-origin', ''], ['age', ''], ['allow', ''], ['authorization', ''], ['cache-control', ''],
  ['content-disposition', ''], ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''], ['date', ''],
  ['etag', ''], ['expect', ''], ['expires', ''], ['from', ''], ['host', ''], ['if-match', ''],
  ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''], ['if-unmodified-since', ''],
  ['last-modified', ''], ['link', ''], ['location', ''], ['max-forwards', ''], ['proxy-authenticate', ''],
  ['proxy-authorization', ''], ['range', ''], ['referer', ''], ['refresh', ''], ['retry-after', ''],
  ['server', ''], ['set-cookie', ''], ['strict-transport-security', ''], ['transfer-encoding', ''],
  ['user-agent', ''], ['vary', ''], ['via', ''], ['www-authenticate', ''],
];

export const STATIC_TABLE_LENGTH = STATIC_ENTRIES.length;
const STATIC_NAMES = ['', ...STATIC_ENTRIES.map((e) => e[0])];
const STATIC_VALUES = ['', ...STATIC_ENTRIES.map((e) => e[1])];
/** Name → lowest static index with that name. */
const STATIC_NAME_INDEX = new Map<string, number>();
/** Name → value → static index, for the entries that carry a value. */
const STATIC_FIELD_INDEX = new Map<string, Map<string, number>>();
for (let i = STATIC_TABLE_LENGTH; i >= 1; i--) {
  const name = STATIC_NAMES[i]!;
  STATIC_NAME_INDEX.set(name, i);
  if (STATIC_VALUES[i] === '') continue;
  let values = STATIC_FIELD_INDEX.get(name);
  if (values === undefined) STATIC_FIELD_INDEX.set(name, (values = new Map()));
  values.set(STATIC_VALUES[i]!, i);
}

/** staticNameIndex: the static-table index of an entry named `name`, or 0. */
export function staticNameIndex(name: string): number {
  return STATIC_NAME_INDEX.get(name) ?? 0;
}

/** staticFieldIndex: the static-table index of the entry `name: value`, or 0. */
export function staticFieldIndex(name: string, value: string): number {
  return STATIC_FIELD_INDEX.get(name)?.get(value) ?? 0;
}

// ---------------------------------------------------------------------------
// Dynamic table (RFC 7541 §2.3.2, §4): a ring of names and values, newest at `#head`.

class DynamicTable {
  #names: string[] = new Array<string>(16).fill('');
  #values: string[] = new Array<string>(16).fill('');
  #mask = 15;
  #head = 15;
  #count = 0;
  #size = 0;
  #limit: number;

  constructor(limit: number) {
    this.#limit = limit;
  }

  get count(): number {
    return this.#count;
  }

  /** Octets held, counting ENTRY_OVERHEAD per entry. */
  get size(): number {
    return this.#size;
  }

  get limit(): number {
    return this.#limit;
  }

  /** Name of dynamic entry `index` (1 = newest); index must be in 1..count. */
  name(index: number): string {
    return this.#names[(this.#head - index + 1) & this.#mask]!;
  }

  value(index: number): string {
    return this.#values[(this.#head - index + 1) & this.#mask]!;
  }

  /** Adds an entry, first evicting the oldest until it fits; an entry larger than the limit just empties the table (§4.4). */
  insert(name: string, value: string): void {
    const entrySize = name.length + value.length + ENTRY_OVERHEAD;
    this.#evictTo(this.#limit - entrySize);
    if (entrySize > this.#limit) return;
    if (this.#count === this.#names.length) this.#grow();
    this.#head = (this.#head + 1) & this.#mask;
    this.#names[this.#head] = name;
    this.#values[this.#head] = value;
    this.#count++;
    this.#size += entrySize;
  }

  setLimit(limit: number): void {
    this.#limit = limit;
    this.#evictTo(limit);
  }

  #evictTo(target: number): void {
    while (this.#size > target && this.#count > 0) {
      const oldest = (this.#head - this.#count + 1) & this.#mask;
      this.#size -= this.#names[oldest]!.length + this.#values[oldest]!.length + ENTRY_OVERHEAD;
      this.#names[oldest] = '';
      this.#values[oldest] = '';
      this.#count--;
    }
  }

  /** Doubles the ring, oldest entry first; entries are at least 32 octets, so it stays within limit / 32 slots. */
  #grow(): void {
    const names: string[] = [];
    const values: string[] = [];
    for (let i = this.#count; i >= 1; i--) {
      names.push(this.name(i));
      values.push(this.value(i));
    }
    const capacity = this.#names.length * 2;
    for (let i = names.length; i < capacity; i++) {
      names.push('');
      values.push('');
    }
    this.#names = names;
    this.#values = values;
    this.#mask = capacity - 1;
    this.#head = this.#count - 1;
  }
}

// ---------------------------------------------------------------------------
// Decoder.

export interface HpackDecoderOptions {
  /** Our SETTINGS_HEADER_TABLE_SIZE: the largest dynamic table size update the peer may send. */
  maxTableSize: number;
  /** Our SETTINGS_MAX_HEADER_LIST_SIZE: sum of name + value + 32 over the fields handed out. */
  maxHeaderListSize: number;
}

export interface DecodedBlock {
  /** Flattened [name0, value0, name1, value1, ...] in block order; latin1 strings (one char per octet). */
  fields: string[];
  /** The header list passed maxHeaderListSize: `fields` stops at the last field that fit. */
  oversized: boolean;
}

/** The subset of Buffer used to cut strings; latin1Slice is Buffer's fast path, missing from @types/node. */
type SliceableBlock = Uint8Array & { latin1Slice(start: number, end: number): string };

const EMPTY = Buffer.alloc(0) as unknown as SliceableBlock;

/**
 * HpackDecoder: one per connection, fed every complete header block
 * (HEADERS plus CONTINUATIONs, padding and priority removed) in the order
 * received. After it throws, the tables are out of step with the peer's, so
 * every later call throws too: the connection must end with GOAWAY
 * COMPRESSION_ERROR.
 */
export class HpackDecoder {
  readonly #table: DynamicTable;
  readonly #maxTableSize: number;
  readonly #maxHeaderListSize: number;
  #src: SliceableBlock = EMPTY;
  #pos = 0;
  #failed = false;

  constructor(opts: HpackDecoderOptions) {
    this.#maxTableSize = opts.maxTableSize;
    this.#maxHeaderListSize = opts.maxHeaderListSize;
    this.#table = new DynamicTable(opts.maxTableSize);
  }

  /** Octets in the dynamic table (entries plus 32 each). */
  get tableSize(): number {
    return this.#table.size;
  }

  /** The dynamic table's current maximum size, as last set by the peer (§6.3). */
  get tableLimit(): number {
    return this.#table.limit;
  }

  /** The dynamic table's entries, newest first (diagnostics and tests). */
  tableEntries(): [string, string][] {
    const entries: [string, string][] = [];
    for (let i = 1; i <= this.#table.count; i++) entries.push([this.#table.name(i), this.#table.value(i)]);
    return entries;
  }

  /** decode: the fields of one complete header block. Throws HpackError on any malformed input. */
  decode(block: Uint8Array): DecodedBlock {
    if (this.#failed) throw new HpackError('HPACK decoder failed on an earlier block');
    this.#failed = true;
    const buffer = block instanceof Buffer ? block : Buffer.from(block.buffer, block.byteOffset, block.byteLength);
    this.#src = buffer as unknown as SliceableBlock;
    this.#pos = 0;
    try {
      const result = this.#decodeFields();
      this.#failed = false;
      return result;
    } finally {
      this.#src = EMPTY;
    }
  }

  #decodeFields(): DecodedBlock {
    const src = this.#src;
    const end = src.length;
    const table = this.#table;
    const fields: string[] = [];
    const maxListSize = this.#maxHeaderListSize;
    let listSize = 0;
    let oversized = false;

    // §4.2: size updates may only open a block.
    while (this.#pos < end && (src[this.#pos]! & 0xe0) === 0x20) {
      const size = this.#integer(0x1f);
      if (size > this.#maxTableSize) throw new HpackError(`dynamic table size update ${size} exceeds ${this.#maxTableSize}`);
      table.setLimit(size);
    }

    while (this.#pos < end) {
      const first = src[this.#pos]!;
      let name: string;
      let value: string;
      if (first & 0x80) {
        // §6.1 indexed field.
        const index = this.#integer(0x7f);
        if (index === 0) throw new HpackError('indexed field with index 0');
        if (index <= STATIC_TABLE_LENGTH) {
          name = STATIC_NAMES[index]!;
          value = STATIC_VALUES[index]!;
        } else if (index - STATIC_TABLE_LENGTH <= table.count) {
          name = table.name(index - STATIC_TABLE_LENGTH);
          value = table.value(index - STATIC_TABLE_LENGTH);
        } else {
          throw new HpackError(`index ${index} is past the tables`);
        }
      } else if (first & 0x40) {
        // §6.2.1 literal with incremental indexing: decoded even when oversized, to keep the table in step.
        name = this.#literalName(0x3f);
        value = this.#string();
        table.insert(name, value);
      } else if (first & 0x20) {
        throw new HpackError('dynamic table size update after the start of the block');
      } else if (oversized) {
        // §6.2.2 / §6.2.3 literal, not indexed, that nobody will see: skipped, bounds still checked.
        const nameIndex = this.#integer(0x0f);
        if (nameIndex === 0) this.#skipString();
        else if (nameIndex > STATIC_TABLE_LENGTH + table.count) throw new HpackError(`name index ${nameIndex} is past the tables`);
        this.#skipString();
        continue;
      } else {
        // §6.2.2 without indexing (0000) or §6.2.3 never indexed (0001); the difference matters to proxies only.
        name = this.#literalName(0x0f);
        value = this.#string();
      }
      if (oversized) continue;
      listSize += name.length + value.length + ENTRY_OVERHEAD;
      if (listSize > maxListSize) oversized = true;
      else fields.push(name, value);
    }
    return { fields, oversized };
  }

  /** A literal's name: an indexed one (prefix `mask` bits, non-zero) or a string that follows. */
  #literalName(mask: number): string {
    const index = this.#integer(mask);
    if (index === 0) return this.#string();
    if (index <= STATIC_TABLE_LENGTH) return STATIC_NAMES[index]!;
    if (index - STATIC_TABLE_LENGTH <= this.#table.count) return this.#table.name(index - STATIC_TABLE_LENGTH);
    throw new HpackError(`name index ${index} is past the tables`);
  }

  /** §5.1 integer at the cursor, with a `mask`-bit prefix in the current octet; advances past it. */
  #integer(mask: number): number {
    const src = this.#src;
    let pos = this.#pos;
    let value = src[pos++]! & mask;
    if (value === mask) {
      let octet: number;
      let shift = 0;
      do {
        if (pos >= src.length) throw new HpackError('header block truncated inside an integer');
        if (shift === 7 * MAX_CONTINUATION_OCTETS) throw new HpackError('integer encoding too long');
        octet = src[pos++]!;
        value += (octet & 0x7f) * 2 ** shift;
        shift += 7;
      } while (octet & 0x80);
      if (value > MAX_INTEGER) throw new HpackError(`integer ${value} too large`);
    }
    this.#pos = pos;
    return value;
  }

  /** §5.2 string literal at the cursor: raw octets as latin1, or Huffman-coded. */
  #string(): string {
    const src = this.#src;
    if (this.#pos >= src.length) throw new HpackError('header block truncated before a string');
    const huffman = src[this.#pos]! & 0x80;
    const length = this.#integer(0x7f);
    const start = this.#pos;
    const end = start + length;
    if (end > src.length) throw new HpackError('string runs past the end of the header block');
    this.#pos = end;
    if (huffman !== 0) return huffmanDecode(src, start, end);
    return src.latin1Slice(start, end);
  }

  #skipString(): void {
    if (this.#pos >= this.#src.length) throw new HpackError('header block truncated before a string');
    const length = this.#integer(0x7f);
    const end = this.#pos + length;
    if (end > this.#src.length) throw new HpackError('string runs past the end of the header block');
    this.#pos = end;
  }
}

// ---------------------------------------------------------------------------
// Encoder.

export interface EncodedField {
  /** Lower-case name. */
  name: string;
  /** latin1 value: chars above 0xff are written as their low octet. */
  value: string;
  /** Credentials and the like: sent never-indexed (§6.2.3), so no intermediary puts them in a table. */
  sensitive?: boolean;
}

/** Octets a block may spend before its first field (one dynamic table size update). */
export const BLOCK_START_MAX_LENGTH = 6;
/** Octets a `:status` field takes at most. */
export const STATUS_MAX_LENGTH = 5;

/** maxFieldLength: an upper bound on the octets writeField spends on `name: value`. */
export function maxFieldLength(name: string, value: string): number {
  // First octet + a name-length integer (up to 6) + a value-length integer (up to 6).
  return name.length + value.length + 13;
}

/** maxEncodedLength: an upper bound on the octets encodeInto spends on `fields`. */
export function maxEncodedLength(fields: readonly EncodedField[]): number {
  let length = BLOCK_START_MAX_LENGTH;
  for (const field of fields) length += maxFieldLength(field.name, field.value);
  return length;
}

type WritableBlock = Buffer & { latin1Write(value: string, offset: number, length: number): number };

/** How to start a literal field for one name: the octets up to its value, in each form. */
interface NamePlan {
  plain: Uint8Array;
  neverIndexed: Uint8Array;
  /** Static entries with this name and a value, which encode in one octet. */
  indexedValues: Map<string, number> | undefined;
  /** The value last written in plain form, and once it came twice in a row, the whole field's octets. */
  lastValue: string;
  lastField: Uint8Array | undefined;
}

/** Plans by name; names are few and repeat on every response, but handlers may make them, so bounded. */
const namePlans = new Map<string, NamePlan>();
const NAME_PLANS_MAX = 1024;

function planName(name: string): NamePlan {
  const index = STATIC_NAME_INDEX.get(name) ?? 0;
  const form = (flags: number): Uint8Array => {
    const bytes = Buffer.alloc(name.length + 12);
    let n = writeInteger(bytes, 0, flags, 0x0f, index);
    if (index === 0) {
      n = writeInteger(bytes, n, 0x00, 0x7f, name.length);
      n += bytes.write(name, n, 'latin1');
    }
    return new Uint8Array(bytes.subarray(0, n));
  };
  return { plain: form(0x00), neverIndexed: form(0x10), indexedValues: STATIC_FIELD_INDEX.get(name), lastValue: '', lastField: undefined };
}

/** §5.1 integer `value` with a prefix of `mask` bits, `flags` in the first octet's high bits; returns the end offset. */
function writeInteger(dst: Uint8Array, offset: number, flags: number, mask: number, value: number): number {
  if (value < mask) {
    dst[offset++] = flags | value;
    return offset;
  }
  dst[offset++] = flags | mask;
  value -= mask;
  while (value >= 0x80) {
    dst[offset++] = (value & 0x7f) | 0x80;
    value = Math.floor(value / 0x80);
  }
  dst[offset++] = value;
  return offset;
}

/** `:status` codes with a static entry of their own, as the one octet that encodes them. */
const INDEXED_STATUS = new Map<number, number>();
for (const [value, index] of STATIC_FIELD_INDEX.get(':status')!) INDEXED_STATUS.set(Number(value), 0x80 | index);
const STATUS_NAME_INDEX = STATIC_NAME_INDEX.get(':status')!;

/** Up to this length a name's prefix is copied octet by octet; above, by TypedArray#set. */
const PREFIX_LOOP_MAX = 8;

/**
 * Values up to this length that repeat (content-type, cache-control, a flow
 * schema's uid) are kept encoded, whole field, once seen twice in a row.
 */
const REPEATED_VALUE_MAX = 128;

/** Below this length a value is copied char by char; above, by Buffer's native latin1Write. */
const NATIVE_WRITE_MIN = 24;

/**
 * HpackEncoder: one per connection. Writes blocks into a caller's Buffer,
 * which must have room for maxEncodedLength(fields) (or, field by field,
 * BLOCK_START_MAX_LENGTH + STATUS_MAX_LENGTH + maxFieldLength each).
 */
export class HpackEncoder {
  /** Size update owed at the next block's start, or -1. */
  #pendingTableSize = -1;

  /**
   * peerTableSizeChanged: call for every SETTINGS_HEADER_TABLE_SIZE the peer
   * sends. We never use the table, but nghttp2 (curl, h2load, node) treats a
   * block that does not open with a size update after such a setting as a
   * COMPRESSION_ERROR, so the next block opens with one: the smallest size
   * seen since the last block, capped at the 4096 we start from (§4.2).
   */
  peerTableSizeChanged(size: number): void {
    const capped = Math.min(size, 4096);
    this.#pendingTableSize = this.#pendingTableSize < 0 ? capped : Math.min(this.#pendingTableSize, capped);
  }

  /** beginBlock: opens a block (a size update when one is owed); returns the end offset. */
  beginBlock(dst: Buffer, offset: number): number {
    if (this.#pendingTableSize < 0) return offset;
    offset = writeInteger(dst, offset, 0x20, 0x1f, this.#pendingTableSize);
    this.#pendingTableSize = -1;
    return offset;
  }

  /** writeStatus: the `:status` field for a three-digit `status`; returns the end offset. */
  writeStatus(status: number, dst: Buffer, offset: number): number {
    const indexed = INDEXED_STATUS.get(status);
    if (indexed !== undefined) {
      dst[offset] = indexed;
      return offset + 1;
    }
    if (!Number.isInteger(status) || status < 100 || status > 999) throw new RangeError(`invalid HTTP status ${status}`);
    dst[offset] = STATUS_NAME_INDEX; // literal without indexing, static name
    dst[offset + 1] = 3;
    dst[offset + 2] = 0x30 + Math.floor(status / 100);
    dst[offset + 3] = 0x30 + (Math.floor(status / 10) % 10);
    dst[offset + 4] = 0x30 + (status % 10);
    return offset + 5;
  }

  /** writeField: one field, never added to the dynamic table; returns the end offset. */
  writeField(name: string, value: string, sensitive: boolean, dst: Buffer, offset: number): number {
    let plan = namePlans.get(name);
    if (plan === undefined) {
      plan = planName(name);
      if (namePlans.size >= NAME_PLANS_MAX) namePlans.clear();
      namePlans.set(name, plan);
    }
    if (!sensitive && plan.indexedValues !== undefined) {
      const index = plan.indexedValues.get(value);
      if (index !== undefined) {
        dst[offset] = 0x80 | index;
        return offset + 1;
      }
    }
    if (!sensitive && value === plan.lastValue && plan.lastField !== undefined) {
      dst.set(plan.lastField, offset);
      return offset + plan.lastField.length;
    }
    const start = offset;
    const prefix = sensitive ? plan.neverIndexed : plan.plain;
    if (prefix.length > PREFIX_LOOP_MAX) {
      dst.set(prefix, offset);
      offset += prefix.length;
    } else {
      for (let i = 0; i < prefix.length; i++) dst[offset++] = prefix[i]!;
    }
    const length = value.length;
    offset = writeInteger(dst, offset, 0x00, 0x7f, length);
    if (length >= NATIVE_WRITE_MIN) {
      offset += (dst as WritableBlock).latin1Write(value, offset, length);
    } else {
      for (let i = 0; i < length; i++) dst[offset++] = value.charCodeAt(i);
    }
    if (!sensitive && length <= REPEATED_VALUE_MAX) {
      if (value !== plan.lastValue) {
        plan.lastValue = value;
        plan.lastField = undefined;
      } else {
        plan.lastField = new Uint8Array(dst.subarray(start, offset)); // a copy: dst is the caller's
      }
    }
    return offset;
  }

  /** encodeInto: a whole block for `fields`, written at dst[offset]; returns the end offset. */
  encodeInto(fields: readonly EncodedField[], dst: Buffer, offset: number): number {
    offset = this.beginBlock(dst, offset);
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i]!;
      offset = this.writeField(field.name, field.value, field.sensitive === true, dst, offset);
    }
    return offset;
  }

  /** encode: a whole block for `fields` in a Buffer of its own. */
  encode(fields: readonly EncodedField[]): Buffer {
    const dst = Buffer.allocUnsafe(maxEncodedLength(fields));
    return dst.subarray(0, this.encodeInto(fields, dst, 0));
  }
}
