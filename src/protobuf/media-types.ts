/**
 * Protobuf media types. Real clients (kubectl, client-go) send and accept the
 * original's name; the spec's own name is accepted as a synonym.
 */
import { names } from '../naming/index.ts';
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
/** This flavor's own name (the same as the original's in the kubernetes flavor). */
export const ORCH_PROTOBUF_MEDIA_TYPE = names.protobufMediaType;
/** Content-Type of a protobuf watch response (frames from encodeWatchEvent). */
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

/** True for either protobuf media type, ignoring parameters and case. */
export function isProtobufMediaType(mediaType: string): boolean {
  const semi = mediaType.indexOf(';');
  const bare = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
  return bare === PROTOBUF_MEDIA_TYPE || bare === ORCH_PROTOBUF_MEDIA_TYPE;
}
