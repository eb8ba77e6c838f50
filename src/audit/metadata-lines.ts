/**
 * Metadata-level events written straight into encoded log lines (lines.ts):
 * the same bytes as `eventJson(...)` plus a newline, for the cost of auditing
 * every request with the log alone.
 *
 * Most of a line repeats. The keys are constants, encoded once here. What
 * both stages of a request share (URI, verb, user, source IPs, user agent,
 * object reference: serialize.ts `shared`) is the same for every request with
 * the same inputs, so its bytes are kept (found by path, then compared input
 * by input) and copied; so are the authorizer's annotations, by its decision
 * and reason. Per event only the audit ID and the two timestamps (ASCII) are
 * written.
 */
import type { UserInfo } from '../server/context.ts';
import { microTime, type AuditRecord } from './event.ts';
import type { LineWriter } from './lines.ts';
import { HEAD, PANIC_STATUS, annotations, shared, statusOf } from './serialize.ts';
import type { Stage } from './types.ts';

const bytes = (s: string): Buffer => Buffer.from(s, 'utf8');

// A line is HEAD id STAGE shared MIDDLE received-time STAGE_TIME stage-time TAIL; the parts between the
// per-event values are joined ahead, so a line is six copies and three short ASCII writes.
const HEAD_BYTES = bytes(`${HEAD}"`);
const STAGE_BYTES: Record<Stage, Buffer> = {
  RequestReceived: bytes('","stage":"RequestReceived"'),
  ResponseStarted: bytes('","stage":"ResponseStarted"'),
  ResponseComplete: bytes('","stage":"ResponseComplete"'),
  Panic: bytes('","stage":"Panic"'),
};
const RECEIVED_KEY = ',"requestReceivedTimestamp":"';
/** MIDDLE of RequestReceived (no status yet) and of Panic. */
const RECEIVED_MIDDLE = bytes(RECEIVED_KEY);
const PANIC_MIDDLE = bytes(`,"responseStatus":${PANIC_STATUS}${RECEIVED_KEY}`);
const STAGE_TIME_KEY = bytes('","stageTimestamp":"');
/** TAIL without annotations. */
const PLAIN_TAIL = bytes('"}');
/** The longest audit ID (context.ts keeps a client's only when it is 1-64 of [A-Za-z0-9._:-]; else a UUID), a stage, a timestamp. */
const ID_BYTES = 64;
const STAGE_MAX_BYTES = Math.max(...Object.values(STAGE_BYTES).map((b) => b.length));
const TIME_BYTES = 32;
const FIXED_BYTES = HEAD_BYTES.length + ID_BYTES + STAGE_MAX_BYTES + STAGE_TIME_KEY.length + 2 * TIME_BYTES;

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

/** TAILs with the authorizer's annotations, by its reason, one memo per decision. */
const allowTails = new PartCache(512, 512 * 1024, 4096);
const denyTails = new PartCache(512, 512 * 1024, 4096);

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

/** Everything `shared(rec, ...)` reads, and the bytes it gave. */
interface SharedEntry {
  readonly user: number;
  readonly actingAs: number;
  readonly verb: string;
  readonly method: string;
  readonly remote: string;
  readonly userAgent: string | undefined;
  readonly forwardedFor: string | undefined;
  readonly realIP: string | undefined;
  readonly query: string;
  readonly bytes: Uint8Array;
}

/**
 * Shared parts kept between requests, by path, then compared field by field
 * (no key string is built per request). Bounded: emptied at SHARED_ENTRIES
 * entries or SHARED_BYTES bytes, at most PER_PATH per path.
 */
const sharedByPath = new Map<string, SharedEntry[]>();
let sharedEntries = 0;
let sharedBytesKept = 0;
const SHARED_ENTRIES = 4096;
const SHARED_BYTES = 4 * 1024 * 1024;
const PER_PATH = 8;
/** A part longer than this is built each time (a huge user agent would crowd out the rest). */
const SHARED_PART_MAX = 4096;

/**
 * The shared part's bytes for a view: `user` is named as `user`, `actingAs`
 * (none in the plain view) as `impersonatedUser`.
 */
function sharedPart(rec: AuditRecord, user: UserInfo | undefined, actingAs: UserInfo | undefined, received: boolean): Uint8Array {
  const ctx = rec.ctx;
  const req = ctx.req;
  const userN = userId(user);
  const actingN = userId(actingAs);
  const verb = ctx.info?.verb ?? '';
  const ua = req.header('user-agent');
  const xff = req.header('x-forwarded-for');
  const xri = req.header('x-real-ip');
  // The object reference comes from the request info, which comes from the method, path and query.
  const list = sharedByPath.get(req.path);
  if (list !== undefined) {
    for (const e of list) {
      if (e.user === userN && e.actingAs === actingN && e.verb === verb && e.method === req.method && e.remote === rec.remoteAddress && e.userAgent === ua && e.forwardedFor === xff && e.realIP === xri && e.query === req.rawQuery) return e.bytes;
    }
  }
  const b = bytes(shared(rec, received));
  if (b.length > SHARED_PART_MAX) return b;
  if (sharedEntries >= SHARED_ENTRIES || sharedBytesKept + b.length > SHARED_BYTES) {
    sharedByPath.clear();
    sharedEntries = 0;
    sharedBytesKept = 0;
  }
  const entry: SharedEntry = { user: userN, actingAs: actingN, verb, method: req.method, remote: rec.remoteAddress, userAgent: ua, forwardedFor: xff, realIP: xri, query: req.rawQuery, bytes: b };
  const kept = sharedByPath.get(req.path);
  if (kept === undefined) sharedByPath.set(req.path, [entry]);
  else if (kept.length < PER_PATH) kept.push(entry);
  else kept[userN % PER_PATH] = entry;
  sharedEntries++;
  sharedBytesKept += b.length + req.path.length + (ua?.length ?? 0) + req.rawQuery.length;
  return b;
}

/** The shared part's bytes for a stage, once per request and view (serialize.ts `shared`). */
function sharedBytesOf(rec: AuditRecord, received: boolean): Uint8Array {
  const ctx = rec.ctx;
  if (received || ctx.impersonator === undefined) {
    rec.sharedPlainBytes ??= sharedPart(rec, ctx.impersonator ?? ctx.user, undefined, true);
    return rec.sharedPlainBytes;
  }
  const memo = rec.sharedImpersonatedBytes;
  if (memo !== undefined && memo.impersonator === ctx.impersonator) return memo.bytes;
  const b = sharedPart(rec, ctx.impersonator, ctx.user, false);
  rec.sharedImpersonatedBytes = { bytes: b, impersonator: ctx.impersonator };
  return b;
}

/** TAIL: the closing quote of the stage time, the annotations, the end of the event. */
function tailBytes(rec: AuditRecord): Buffer {
  const ctx = rec.ctx;
  if (ctx.auditAnnotations.size > 0) return bytes(`"${annotations(rec)}}`);
  const authz = ctx.authorization;
  if (authz === undefined) return PLAIN_TAIL;
  // Keyed by the reason itself: the authorizers hand out the same reason strings, whose hash V8 keeps.
  return (authz.decision === 'allow' ? allowTails : denyTails).get(authz.reason, () => `"${annotations(rec)}}`);
}

/** MIDDLE after ResponseStarted and ResponseComplete, per status code. */
const middles = new Map<number, Buffer>();
function middleOf(code: number): Buffer {
  let b = middles.get(code);
  if (b === undefined) {
    b = bytes(`,"responseStatus":${statusOf(code)}${RECEIVED_KEY}`);
    if (middles.size < 1000) middles.set(code, b);
  }
  return b;
}

/**
 * microTime's text (`2026-11-28T23:43:30.441000Z`) written as bytes: the
 * second's prefix encoded once (the last two seconds kept: a request's two
 * times straddle a second now and then), then the milliseconds' digits.
 */
let timeSeconds: [number, number] = [-1, -1];
let timePrefixes: [Buffer, Buffer] = [Buffer.alloc(0), Buffer.alloc(0)];
const MICRO_END = [0x30, 0x30, 0x30, 0x5a]; // "000Z"
function writeTime(w: LineWriter, ms: number): void {
  const second = Math.floor(ms / 1000);
  let prefix: Buffer;
  if (second === timeSeconds[0]) prefix = timePrefixes[0];
  else if (second === timeSeconds[1]) prefix = timePrefixes[1];
  else {
    prefix = bytes(microTime(second * 1000).slice(0, 20));
    timeSeconds = [second, timeSeconds[0]];
    timePrefixes = [prefix, timePrefixes[0]];
  }
  const milli = Math.floor(ms) - second * 1000;
  w.bytes(prefix);
  w.byte(0x30 + Math.floor(milli / 100));
  w.byte(0x30 + (Math.floor(milli / 10) % 10));
  w.byte(0x30 + (milli % 10));
  for (const b of MICRO_END) w.byte(b);
}

/** Writes the Metadata-level event of `stage` as one line (rec.level must be Metadata). */
export function writeMetadataLine(w: LineWriter, rec: AuditRecord, stage: Stage, now: number): void {
  const received = stage === 'RequestReceived';
  const sharedBytes = sharedBytesOf(rec, received);
  const middle = received ? RECEIVED_MIDDLE : stage === 'Panic' ? PANIC_MIDDLE : middleOf(rec.ctx.status);
  const tail = received ? PLAIN_TAIL : tailBytes(rec);
  const id = rec.ctx.auditID;
  // Everything that could fail is done: from here on only bytes are copied, so no line is left half written.
  w.reserve(FIXED_BYTES + sharedBytes.length + middle.length + tail.length);
  w.bytes(HEAD_BYTES);
  w.ascii(id);
  w.bytes(STAGE_BYTES[stage]);
  w.bytes(sharedBytes);
  w.bytes(middle);
  writeTime(w, rec.receivedAt);
  w.bytes(STAGE_TIME_KEY);
  writeTime(w, now);
  w.bytes(tail);
  w.endLine();
}
