/**
 * The shard channel's byte lanes (byte-lane.ts): a direct write's answer,
 * which the shard forwards to its writer for every create, update and delete
 * (direct-writes.ts), goes as bytes; every other message stays an object
 * (reads' answers and watch frames already move their bytes).
 */
import { ByteReader, ByteWriter, CorruptLaneError, type ByteLane } from './byte-lane.ts';
import type { ShardMessage, ShardRequest } from './protocol.ts';
import type { WrittenKey } from '../src/storage/remote/protocol.ts';

const WRITTEN = 1;
const HAS_VALUE = 1;
const HAS_PREV = 2;

function encodeMessage(m: ShardMessage, w: ByteWriter): boolean {
  // An error's fields vary by kind: it goes as an object.
  if (m.t !== 'written' || m.error !== undefined) return false;
  w.u8(WRITTEN);
  w.f64(m.tag);
  w.f64(m.id);
  w.u8((m.value !== undefined ? HAS_VALUE : 0) | (m.prev !== undefined ? HAS_PREV : 0));
  if (m.value !== undefined) {
    w.str(m.value.key);
    w.f64(m.value.createRevision);
    w.f64(m.value.modRevision);
  }
  if (m.prev !== undefined) w.bytes(m.prev);
  return true;
}

function decodeMessage(r: ByteReader): ShardMessage {
  const tag = r.u8();
  if (tag !== WRITTEN) throw new CorruptLaneError(`shard message tag ${tag}`);
  const t = 'written';
  const writeTag = r.f64();
  const id = r.f64();
  const flags = r.u8();
  const value: WrittenKey | undefined = (flags & HAS_VALUE) !== 0 ? { key: r.str(), createRevision: r.f64(), modRevision: r.f64() } : undefined;
  // A deleted value is the writer's answer body: its own bytes, not a view that keeps the run alive.
  return (flags & HAS_PREV) !== 0 ? { t, tag: writeTag, id, value, prev: r.copy() } : { t, tag: writeTag, id, value };
}

/** The shard's end of a client's channel: writes answers, reads requests (which all travel as objects). */
export const shardRuntimeLane: ByteLane<ShardMessage, ShardRequest> = {
  encode: encodeMessage,
  decode: () => {
    throw new CorruptLaneError('a shard takes no requests as bytes');
  },
};

/** A serving thread's end (ShardClient): writes requests as objects, reads answers. */
export const shardClientLane: ByteLane<ShardRequest, ShardMessage> = {
  encode: () => false,
  decode: (r, each) => {
    while (!r.done) each(decodeMessage(r));
  },
};
