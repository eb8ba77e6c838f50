/**
 * The shard channel's byte lanes (byte-lane.ts): a direct write's answer,
 * which the shard forwards to its writer for every create, update and delete
 * (direct-writes.ts), goes as bytes; every other message stays an object
 * (reads' answers and watch frames already move their bytes).
 */
import { CorruptLaneError, type ByteLane, type ByteReader, type ByteWriter } from './byte-lane.ts';
import type { ShardMessage, ShardRequest } from './protocol.ts';
import { readAnswer, writeAnswer } from '../src/storage/remote/wire.ts';

const WRITTEN = 1;

function encodeMessage(m: ShardMessage, w: ByteWriter): boolean {
  // An error's fields vary by kind: it goes as an object.
  if (m.t !== 'written' || m.error !== undefined) return false;
  w.u8(WRITTEN);
  w.f64(m.tag);
  w.f64(m.id);
  writeAnswer(w, m.value, m.prev);
  return true;
}

function decodeMessage(r: ByteReader): ShardMessage {
  const tag = r.u8();
  if (tag !== WRITTEN) throw new CorruptLaneError(`shard message tag ${tag}`);
  const t = 'written';
  const writeTag = r.f64();
  const id = r.f64();
  // A deleted value is the writer's answer body: its own bytes, not a view that keeps the run alive.
  const { value, prev } = readAnswer(r);
  return prev !== undefined ? { t, tag: writeTag, id, value, prev } : { t, tag: writeTag, id, value };
}

/** The shard's end of a client's channel: writes answers (requests all travel as objects). */
export const shardRuntimeLane: ByteLane<ShardMessage, ShardRequest> = { encode: encodeMessage };

/** A serving thread's end (ShardClient): reads answers (its requests all travel as objects). */
export const shardClientLane: ByteLane<ShardRequest, ShardMessage> = {
  decode: (r, each) => {
    while (!r.done) each(decodeMessage(r));
  },
};
