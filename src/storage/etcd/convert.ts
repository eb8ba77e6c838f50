/**
 * Conversions from etcd's wire messages to the store's types. etcd sends
 * int64 revisions as decimal strings (the client loads protos with
 * `longs: String`); they are far below 2^53, see interface.ts.
 */
import type { IEvent, IKeyValue } from 'etcd3';
import type { KeyValue, StoreEvent } from '../interface.ts';
import type { KeyCodec } from './keys.ts';

export function toKeyValue(codec: KeyCodec, kv: IKeyValue): KeyValue {
  return {
    key: codec.decode(kv.key),
    value: bytes(kv.value),
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
  };
}

/**
 * A watch event, or null when etcd could not attach the previous value.
 * etcd reads prev_kv at revision-1 when it sends the event and silently omits
 * it if that revision was compacted meanwhile; the caller must treat null as
 * lost history (see watch.ts).
 */
export function toStoreEvent(codec: KeyCodec, ev: IEvent): StoreEvent | null {
  const kv = ev.kv;
  const prev = ev.prev_kv ?? null;
  const key = codec.decode(kv.key);
  const revision = Number(kv.mod_revision);
  if (ev.type === 'Delete') {
    if (!prev) return null;
    return {
      type: 'delete',
      key,
      revision,
      value: null,
      createRevision: Number(prev.create_revision),
      prevValue: bytes(prev.value),
      prevModRevision: Number(prev.mod_revision),
    };
  }
  // version 1: this put created the key, so there is no previous value to miss.
  if (!prev && kv.version !== '1') return null;
  return {
    type: 'put',
    key,
    revision,
    value: bytes(kv.value),
    createRevision: Number(kv.create_revision),
    prevValue: prev ? bytes(prev.value) : null,
    prevModRevision: prev ? Number(prev.mod_revision) : 0,
  };
}

// The client hands out Buffers; callers get plain-typed Uint8Array views
// without copying. An absent value (empty bytes on the wire) decodes as null
// under `defaults: true` in some paths, hence the fallback.
function bytes(b: Buffer | null | undefined): Uint8Array {
  return b ?? new Uint8Array(0);
}
