/**
 * Tells a torn write from corruption, for the bytes of a WAL segment from its
 * first invalid frame to its end.
 *
 * A torn write is the group commit that was in flight when the process or
 * machine died: never acknowledged (acknowledgement follows the fdatasync),
 * so it may be cut. It can only be at the end of the newest segment, and it
 * looks like one of:
 *   - a record cut short: its length points past the end of the file (a
 *     kill -9 between two write calls, or a file size that outran its data);
 *   - zeros: a file extension whose data never reached the disk;
 *   - a record with a zero-filled sector in it: a page that never reached the
 *     disk while the file size did (the rule etcd uses for torn entries).
 * Anything else is damage to data that may have been acknowledged: a bad
 * checksum in a complete record, a bad frame followed by intact records, a
 * length field that is damaged while the record it frames is whole, damage
 * in an older segment. Cutting there would lose acknowledged writes and hand
 * their revisions out again, so the caller refuses to start instead.
 *
 * Intact records after the bad frame are found by trying every offset, which
 * is what makes a damaged length field (that hides where the next record
 * starts) detectable. To count, a frame must pass its checksum and look like
 * a record that continues the log (a known type, a revision after the last
 * good one and no further than the bytes could hold), so bytes inside a
 * stored value are not mistaken for records by chance.
 */
import { crc32 } from 'node:zlib';
import { FRAME_HEADER_BYTES, MAX_PAYLOAD_BYTES, REC_COMPACT, REC_DELETE, REC_PUT } from './records.ts';

/** The smallest WAL record that takes a revision: header, type, rev, createRevision, empty key. */
export const MIN_REVISION_RECORD_BYTES = FRAME_HEADER_BYTES + 1 + 8 + 8 + 4;
const COMPACT_PAYLOAD_BYTES = 1 + 8;
const SECTOR_BYTES = 512;
/** An all-zero piece of a record shorter than this is not taken as a lost sector: short zero runs occur in records. */
const MIN_ZERO_EVIDENCE_BYTES = 64;

const TWO_32 = 0x1_0000_0000;

export interface IntactRecords {
  /** Intact records found. */
  readonly count: number;
  /** Offset (in the file) of the first one, or null. */
  readonly firstOffset: number | null;
  /** Highest revision among them (0: none took a revision). */
  readonly maxRevision: number;
  /** Bytes they occupy. */
  readonly bytes: number;
  /** True when the search stopped early (its checksum budget ran out); then more may exist. */
  readonly incomplete: boolean;
}

export type DamageVerdict =
  | { readonly kind: 'torn'; readonly why: string }
  | { readonly kind: 'corrupt'; readonly why: string; readonly after: IntactRecords };

function frameChecksumOk(buf: Buffer, at: number, payloadLength: number, lengthBytes?: Buffer): boolean {
  const payloadStart = at + FRAME_HEADER_BYTES;
  const expected = buf.readUInt32LE(at + 4);
  const lengthCrc = crc32(lengthBytes ?? buf.subarray(at, at + 4));
  return crc32(buf.subarray(payloadStart, payloadStart + payloadLength), lengthCrc) === expected;
}

const readU64 = (buf: Buffer, at: number): number => buf.readUInt32LE(at) + buf.readUInt32LE(at + 4) * TWO_32;

/**
 * Intact WAL records in `tail` (the file's bytes from `fileOffset` on),
 * searched from `from` on: frames are followed while they chain, and every
 * offset is tried where they do not. Records must have revisions above
 * `afterRevision` and, where found by trying offsets, no higher than the
 * bytes could hold (so that a stored value cannot fake a huge revision).
 */
export function findIntactRecords(
  tail: Buffer,
  fileOffset: number,
  from: number,
  afterRevision: number,
  /** `from` is a frame boundary (the start of a segment), so a record there is trusted like a chained one. */
  fromFrameBoundary = false,
): IntactRecords {
  const maxPlausible = afterRevision + Math.ceil(tail.length / MIN_REVISION_RECORD_BYTES) + 1;
  // Checksums are cheap, but a crafted value could make every offset look
  // like the start of a large frame; past this budget the search gives up.
  let crcBudget = 16 * tail.length + (64 << 20);
  let count = 0;
  let firstOffset: number | null = null;
  let maxRevision = 0;
  let bytes = 0;
  let p = from;
  let chained = fromFrameBoundary;
  while (p + FRAME_HEADER_BYTES < tail.length) {
    const length = tail.readUInt32LE(p);
    const fits = length >= 1 && length <= MAX_PAYLOAD_BYTES && p + FRAME_HEADER_BYTES + length <= tail.length;
    let revision = -1;
    if (fits) {
      const type = tail[p + FRAME_HEADER_BYTES]!;
      if ((type === REC_PUT || type === REC_DELETE) && length >= MIN_REVISION_RECORD_BYTES - FRAME_HEADER_BYTES) {
        const rev = readU64(tail, p + FRAME_HEADER_BYTES + 1);
        if (rev > afterRevision && (chained || rev <= maxPlausible)) revision = rev;
      } else if (type === REC_COMPACT && length === COMPACT_PAYLOAD_BYTES) {
        revision = 0;
      }
    }
    if (revision >= 0) {
      crcBudget -= length;
      if (crcBudget < 0) return { count, firstOffset, maxRevision, bytes, incomplete: true };
      if (frameChecksumOk(tail, p, length)) {
        count++;
        firstOffset ??= fileOffset + p;
        maxRevision = Math.max(maxRevision, revision);
        bytes += FRAME_HEADER_BYTES + length;
        p += FRAME_HEADER_BYTES + length;
        chained = true;
        continue;
      }
    }
    chained = false;
    p++;
  }
  return { count, firstOffset, maxRevision, bytes, incomplete: false };
}

/**
 * Whether some piece of [start, end) between sector boundaries (file offsets) is all zeros and large enough
 * to count. A record's last piece counts however short when its whole sector is zeros, the bytes after the
 * record included: in a preallocated segment (wal.ts) a sector that never reached the disk is all zeros.
 */
function hasZeroSector(tail: Buffer, fileOffset: number, start: number, end: number): boolean {
  let pieceStart = start;
  while (pieceStart < end) {
    const fileBoundary = (Math.floor((fileOffset + pieceStart) / SECTOR_BYTES) + 1) * SECTOR_BYTES;
    const sectorEnd = fileBoundary - fileOffset;
    const pieceEnd = Math.min(end, sectorEnd);
    const piece = tail.subarray(pieceStart, pieceEnd);
    if (isAllZero(piece)) {
      if (piece.length >= MIN_ZERO_EVIDENCE_BYTES || piece.length === SECTOR_BYTES) return true;
      const wholeSector = (fileOffset + pieceStart) % SECTOR_BYTES === 0 && sectorEnd <= tail.length;
      if (wholeSector && isAllZero(tail.subarray(pieceStart, sectorEnd))) return true;
    }
    pieceStart = pieceEnd;
  }
  return false;
}

export function isAllZero(b: Buffer): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/**
 * Judge the bytes of a segment from its first invalid frame (at file offset
 * `fileOffset`) to its end. `lastRevision` is the last revision replayed
 * before it.
 */
export function judgeDamage(tail: Buffer, fileOffset: number, lastRevision: number, newestSegment: boolean): DamageVerdict {
  const after = findIntactRecords(tail, fileOffset, 1, lastRevision);
  const corrupt = (why: string): DamageVerdict => ({ kind: 'corrupt', why, after });
  if (!newestSegment) return corrupt('the segment is not the newest, so no write to it was in flight');
  if (after.count > 0) {
    return corrupt(
      `${after.count} intact record(s) follow it (the first at offset ${after.firstOffset}` +
        `${after.maxRevision > 0 ? `, up to revision ${after.maxRevision}` : ''}), so it is not a torn write`,
    );
  }
  if (after.incomplete) return corrupt('the bytes after it could not all be checked, so it cannot be shown to be a torn write');
  if (isAllZero(tail)) return { kind: 'torn', why: `zero-filled tail (${tail.length} bytes)` };
  if (tail.length < FRAME_HEADER_BYTES) return { kind: 'torn', why: `partial record header (${tail.length} bytes)` };

  const length = tail.readUInt32LE(0);
  const lengthOk = length >= 1 && length <= MAX_PAYLOAD_BYTES;
  const present = tail.length - FRAME_HEADER_BYTES;
  // A record whose length field alone is wrong: the bytes that are there
  // make a valid frame once the length says how many there are.
  if (present > 0 && length !== present) {
    const actual = Buffer.alloc(4);
    actual.writeUInt32LE(present);
    if (frameChecksumOk(tail, 0, present, actual)) {
      return corrupt(`its length field says ${length} bytes, but the ${present} bytes after it are an intact record`);
    }
  }
  if (lengthOk && FRAME_HEADER_BYTES + length > tail.length) {
    return { kind: 'torn', why: `partial record (${tail.length} of ${FRAME_HEADER_BYTES + length} bytes written)` };
  }
  const recordEnd = lengthOk ? FRAME_HEADER_BYTES + length : tail.length;
  if (hasZeroSector(tail, fileOffset, 0, recordEnd)) return { kind: 'torn', why: 'record with a zero-filled sector (a page that never reached the disk)' };
  if (!lengthOk) return corrupt(`bad record length ${length}`);
  return corrupt('checksum mismatch in a complete record');
}
