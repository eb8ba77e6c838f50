/**
 * The JSON watch stream format: one `{"type":...,"object":...}` document per
 * line. A frame is built once per event and shared by all watchers.
 */
import type { Revision } from '../storage/interface.ts';
import type { CachedObject, ObjectCodec } from './cached-object.ts';
import type { CacheEventType } from './event-window.ts';
import type { FrameEncoder } from './watchers.ts';

const heads: Record<CacheEventType | 'BOOKMARK', Buffer> = {
  ADDED: Buffer.from('{"type":"ADDED","object":'),
  MODIFIED: Buffer.from('{"type":"MODIFIED","object":'),
  DELETED: Buffer.from('{"type":"DELETED","object":'),
  BOOKMARK: Buffer.from('{"type":"BOOKMARK","object":'),
};
const tail = Buffer.from('}\n');

function frame(head: Buffer, body: Uint8Array): Uint8Array {
  const out = Buffer.allocUnsafeSlow(head.length + body.length + tail.length);
  head.copy(out, 0);
  out.set(body, head.length);
  tail.copy(out, head.length + body.length);
  return out;
}

export const jsonFrames: FrameEncoder = {
  event(type: CacheEventType, obj: CachedObject): Uint8Array {
    return frame(heads[type], obj.json);
  },
  bookmark(codec: ObjectCodec, revision: Revision, initialEventsEnd: boolean): Uint8Array {
    return frame(heads.BOOKMARK, codec.bookmark(revision, initialEventsEnd));
  },
};
