/**
 * Metadata-level events written straight into encoded log lines (lines.ts):
 * the same bytes as `eventJson(...)` plus a newline, for the cost of auditing
 * every request with the log alone.
 *
 * Most of a line repeats. The keys are constants, encoded once here. What
 * both stages of a request share (URI, verb, user, source IPs, user agent,
 * object reference: serialize.ts `shared`) is the same for every request with
 * the same inputs, so its bytes are kept, keyed by those inputs, and copied;
 * so are the authorizer's annotations, keyed by its decision and reason.
 * Per event only the audit ID and the two timestamps (ASCII) are written.
 */
import type { UserInfo } from '../server/context.ts';
import { microTime, type AuditRecord } from './event.ts';
import type { LineWriter } from './lines.ts';
import { HEAD, PANIC_STATUS, annotations, shared, statusOf } from './serialize.ts';
import type { Stage } from './types.ts';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

const HEAD_BYTES = bytes(`${HEAD}"`);
const STAGE_BYTES: Record<Stage, Buffer> = {
  RequestReceived: bytes('","stage":"RequestReceived"'),
  ResponseStarted: bytes('","stage":"ResponseStarted"'),
  ResponseComplete: bytes('","stage":"ResponseComplete"'),
  Panic: bytes('","stage":"Panic"'),
};
const STATUS_KEY = bytes(',"responseStatus":');
const PANIC_BYTES = bytes(PANIC_STATUS);
const RECEIVED_KEY = bytes(',"requestReceivedTimestamp":"');
const STAGE_TIME_KEY = bytes('","stageTimestamp":"');
const QUOTE = bytes('"');
const END = bytes('}');
/** The longest audit ID (context.ts keeps a client's only when it is 1-64 of [A-Za-z0-9._:-]; else a UUID) and a timestamp. */
const ID_BYTES = 64;
const TIME_BYTES = 32;
const FIXED_BYTES = HEAD_BYTES.length + ID_BYTES + 32 + STATUS_KEY.length + PANIC_BYTES.length + RECEIVED_KEY.length + STAGE_TIME_KEY.length + 2 * TIME_BYTES + 8;

/** A bounded memo of encoded parts: emptied when it holds too many entries or bytes (inputs seldom repeat then anyway). */
class PartCache {
  readonly #map = new Map<string, Buffer>();
  #bytes = 0;

  constructor(
    readonly maxEntries: number,
    readonly maxBytes: number,
    /** Parts larger than this are encoded each time, not kept. */
    readonly maxPart: number,
  ) {}

  get(key: string, make: () => string): Buffer {
    const hit = this.#map.get(key);
    if (hit !== undefined) return hit;
    const b = bytes(make());
    if (b.length > this.maxPart) return b;
    if (this.#map.size >= this.maxEntries || this.#bytes + b.length > this.maxBytes) {
      this.#map.clear();
      this.#bytes = 0;
    }
    this.#map.set(key, b);
    this.#bytes += b.length + key.length;
    return b;
  }
}

/** Per serving thread: a few MB at most. */
const sharedParts = new PartCache(4096, 4 * 1024 * 1024, 4096);
const annotationParts = new PartCache(1024, 1024 * 1024, 4096);

/**
 * A number per user object, for the key (the authenticators' caches hand out
 * the same object for the same credential, so equal users mostly share one).
 */
const userIds = new WeakMap<UserInfo, number>();
let nextUserId = 1;
function userId(u: UserInfo | undefined): number {
  if (u === undefined) return 0;
  let id = userIds.get(u);
  if (id === undefined) {
    id = nextUserId++;
    userIds.set(u, id);
  }
  return id;
}

/** Length-prefixed, so no value can run into the next one. */
const part = (s: string | undefined): string => (s === undefined ? '-' : `${s.length}:${s}`);

/** The key of everything `shared(rec)` reads. */
function sharedKey(rec: AuditRecord): string {
  const ctx = rec.ctx;
  const req = ctx.req;
  return (
    `${userId(ctx.user)},${userId(ctx.impersonator)},${ctx.info?.verb ?? ''},${req.method},` +
    part(rec.remoteAddress) +
    part(req.header('user-agent')) +
    part(req.header('x-forwarded-for')) +
    part(req.header('x-real-ip')) +
    // The object reference comes from the request info, which comes from the method, path and query.
    part(req.path) +
    req.rawQuery
  );
}

/** The shared part's bytes, once per request (both stages; again only if impersonation changed the user since). */
function sharedBytesOf(rec: AuditRecord): Uint8Array {
  const memo = rec.sharedBytes;
  if (memo !== undefined && memo.impersonator === rec.ctx.impersonator) return memo.bytes;
  const b = sharedParts.get(sharedKey(rec), () => shared(rec));
  rec.sharedBytes = { bytes: b, impersonator: rec.ctx.impersonator };
  return b;
}

function annotationBytes(rec: AuditRecord): Buffer | undefined {
  const ctx = rec.ctx;
  if (ctx.auditAnnotations.size > 0) return bytes(annotations(rec));
  const authz = ctx.authorization;
  if (authz === undefined) return undefined;
  return annotationParts.get(`${authz.decision}:${authz.reason}`, () => annotations(rec));
}

/** Writes the Metadata-level event of `stage` as one line (rec.level must be Metadata). */
export function writeMetadataLine(w: LineWriter, rec: AuditRecord, stage: Stage, now: number): void {
  const sharedBytes = sharedBytesOf(rec);
  const notes = stage === 'RequestReceived' ? undefined : annotationBytes(rec);
  const status = stage === 'RequestReceived' ? undefined : stage === 'Panic' ? PANIC_BYTES : statusBytesOf(rec.ctx.status);
  const id = rec.ctx.auditID;
  const received = microTime(rec.receivedAt);
  const stageTime = microTime(now);
  // Everything that could fail is done: from here on only bytes are copied, so no line is left half written.
  w.reserve(FIXED_BYTES + sharedBytes.length + (notes?.length ?? 0) + (status?.length ?? 0));
  w.bytes(HEAD_BYTES);
  w.ascii(id);
  w.bytes(STAGE_BYTES[stage]);
  w.bytes(sharedBytes);
  if (status !== undefined) {
    w.bytes(STATUS_KEY);
    w.bytes(status);
  }
  w.bytes(RECEIVED_KEY);
  w.ascii(received);
  w.bytes(STAGE_TIME_KEY);
  w.ascii(stageTime);
  w.bytes(QUOTE);
  if (notes !== undefined) w.bytes(notes);
  w.bytes(END);
  w.endLine();
}

/** `{"metadata":{},"code":...}` per code, encoded once. */
const statusBytes = new Map<number, Buffer>();
function statusBytesOf(code: number): Buffer {
  let b = statusBytes.get(code);
  if (b === undefined) {
    b = bytes(statusOf(code));
    if (statusBytes.size < 1000) statusBytes.set(code, b);
  }
  return b;
}
