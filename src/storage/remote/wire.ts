/**
 * The store connection's byte lanes (shards/byte-lane.ts): the messages every
 * write makes — its call (create, update, delete), the watch events it
 * causes and a routed write's answer — as bytes; the rest (reads, watch
 * control, errors) stay objects.
 *
 * Values read back are views into the run, which stays alive while any is
 * held: the store copies what it keeps (handed-over.ts: a view is not handed
 * over) and the watch cache splices its own copy of an event's value. The
 * value a delete's answer brings goes on to the writer's thread, so it is
 * read as a copy (a view would carry the whole run through the clone).
 */
import type { ByteLane, ByteReader, ByteWriter } from '../../../shards/byte-lane.ts';
import { CorruptLaneError } from '../../../shards/byte-lane.ts';
import type { StoreEvent } from '../interface.ts';
import type { StoreCall, StoreReply, StoreVia, WrittenKey, WrittenVia } from './protocol.ts';

const CREATE = 1;
const UPDATE = 2;
const DELETE = 3;
const EVENTS = 16;
const WRITTEN = 17;

const PUT = 0;
const DEL = 1;

const STALE = 1;
const HAS_VALUE = 2;
const HAS_PREV = 4;

function writeVia(w: ByteWriter, via: StoreVia | undefined): void {
  if (via === undefined) {
    w.u8(0);
    return;
  }
  w.u8(1);
  w.str(via.conn);
  w.f64(via.client);
  w.f64(via.shard);
  w.f64(via.tag);
  w.str(via.resource);
}

function readVia(r: ByteReader): StoreVia | undefined {
  if (r.u8() === 0) return undefined;
  return { conn: r.str(), client: r.f64(), shard: r.f64(), tag: r.f64(), resource: r.str() };
}

/** A write's answer: its key and revisions, and a delete's value. Shared with the shard channel's lane (shards/wire.ts). */
export function writeAnswer(w: ByteWriter, value: WrittenKey | undefined, prev: Uint8Array | undefined): void {
  w.u8((value !== undefined ? HAS_VALUE : 0) | (prev !== undefined ? HAS_PREV : 0));
  if (value !== undefined) {
    w.str(value.key);
    w.f64(value.createRevision);
    w.f64(value.modRevision);
  }
  if (prev !== undefined) w.bytes(prev);
}

/** What writeAnswer wrote; the deleted value as a copy, since it goes on to the writer's thread. */
export function readAnswer(r: ByteReader): { value: WrittenKey | undefined; prev: Uint8Array | undefined } {
  const flags = r.u8();
  const value: WrittenKey | undefined = (flags & HAS_VALUE) !== 0 ? { key: r.str(), createRevision: r.f64(), modRevision: r.f64() } : undefined;
  return { value, prev: (flags & HAS_PREV) !== 0 ? r.copy() : undefined };
}

function encodeCall(m: StoreCall, w: ByteWriter): boolean {
  switch (m.op) {
    case 'create':
      w.u8(CREATE);
      w.f64(m.id);
      w.str(m.key);
      w.bytes(m.value);
      writeVia(w, m.via);
      return true;
    case 'update':
      w.u8(UPDATE);
      w.f64(m.id);
      w.str(m.key);
      w.bytes(m.value);
      w.f64(m.expected);
      writeVia(w, m.via);
      return true;
    case 'delete':
      w.u8(DELETE);
      w.f64(m.id);
      w.str(m.key);
      if (m.expected === undefined) w.u8(0);
      else {
        w.u8(1);
        w.f64(m.expected);
      }
      writeVia(w, m.via);
      return true;
    default:
      return false;
  }
}

function decodeCall(r: ByteReader): StoreCall {
  const tag = r.u8();
  switch (tag) {
    case CREATE: {
      const id = r.f64();
      const key = r.str();
      const value = r.view();
      const via = readVia(r);
      return via === undefined ? { op: 'create', id, key, value } : { op: 'create', id, key, value, via };
    }
    case UPDATE: {
      const id = r.f64();
      const key = r.str();
      const value = r.view();
      const expected = r.f64();
      const via = readVia(r);
      return via === undefined ? { op: 'update', id, key, value, expected } : { op: 'update', id, key, value, expected, via };
    }
    case DELETE: {
      const id = r.f64();
      const key = r.str();
      const expected = r.u8() === 0 ? undefined : r.f64();
      const via = readVia(r);
      return via === undefined ? { op: 'delete', id, key, expected } : { op: 'delete', id, key, expected, via };
    }
    default:
      throw new CorruptLaneError(`store call tag ${tag}`);
  }
}

function writeEvent(w: ByteWriter, e: StoreEvent): void {
  w.u8(e.type === 'put' ? PUT : DEL);
  w.u8((e.stale === true ? STALE : 0) | (e.value !== null ? HAS_VALUE : 0) | (e.prevValue !== null ? HAS_PREV : 0));
  w.str(e.key);
  w.f64(e.revision);
  w.f64(e.createRevision);
  w.f64(e.prevModRevision);
  if (e.value !== null) w.bytes(e.value);
  if (e.prevValue !== null) w.bytes(e.prevValue);
}

function readEvent(r: ByteReader): StoreEvent {
  const kind = r.u8();
  if (kind !== PUT && kind !== DEL) throw new CorruptLaneError(`event type ${kind}`);
  const type = kind === PUT ? 'put' : 'delete';
  const flags = r.u8();
  const key = r.str();
  const revision = r.f64();
  const createRevision = r.f64();
  const prevModRevision = r.f64();
  const value = (flags & HAS_VALUE) !== 0 ? r.view() : null;
  const prevValue = (flags & HAS_PREV) !== 0 ? r.view() : null;
  // `stale` only when set, as the store makes its events (a member set to undefined is another shape to deepEqual).
  return (flags & STALE) !== 0
    ? { type, key, revision, value, createRevision, prevValue, prevModRevision, stale: true }
    : { type, key, revision, value, createRevision, prevValue, prevModRevision };
}

function encodeReply(m: StoreReply, w: ByteWriter): boolean {
  switch (m.t) {
    case 'events':
      w.u8(EVENTS);
      w.f64(m.wid);
      w.f64(m.events.length);
      for (const e of m.events) writeEvent(w, e);
      return true;
    case 'written':
      // An error's fields vary by kind (errors.ts): it goes as an object.
      if (m.error !== undefined) return false;
      w.u8(WRITTEN);
      writeVia(w, m.via);
      w.f64(m.id);
      writeAnswer(w, m.value, m.prev);
      return true;
    default:
      return false;
  }
}

function decodeReply(r: ByteReader): StoreReply {
  const tag = r.u8();
  switch (tag) {
    case EVENTS: {
      const wid = r.f64();
      const n = r.f64();
      const events: StoreEvent[] = [];
      for (let i = 0; i < n; i++) events.push(readEvent(r));
      return { t: 'events', wid, events };
    }
    case WRITTEN: {
      const via = readVia(r);
      if (via === undefined) throw new CorruptLaneError('written answer without its route');
      const id = r.f64();
      const { value, prev } = readAnswer(r);
      const m: WrittenVia = prev === undefined ? { t: 'written', via, id, value } : { t: 'written', via, id, value, prev };
      return m;
    }
    default:
      throw new CorruptLaneError(`store reply tag ${tag}`);
  }
}

function each<T>(r: ByteReader, read: (r: ByteReader) => T, out: (m: T) => void): void {
  while (!r.done) out(read(r));
}

/** The lane of a store client (a shard's RemoteStore, a serving thread's DirectWrites): writes calls, reads replies. */
export const storeClientLane: ByteLane<StoreCall, StoreReply> = {
  encode: encodeCall,
  decode: (r, out) => each(r, decodeReply, out),
};

/** The lane of the StoreServer's end of each connection: writes replies, reads calls. */
export const storeServerLane: ByteLane<StoreReply, StoreCall> = {
  encode: encodeReply,
  decode: (r, out) => each(r, decodeCall, out),
};
