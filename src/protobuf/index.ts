/**
 * Protobuf wire format of the built-in kinds, byte-compatible with the
 * original (see README.md in this directory for the API and its rules).
 */
export {
  decodeObject,
  decodeWatchEvent,
  encodeList,
  encodeMessageBytes,
  joinListItems,
  listEnvelopeParts,
  listItemHeader,
  watchFrameFromMessage,
  watchFrameWriter,
  encodeObject,
  encodeWatchEvent,
  preloadProtobuf,
  PROTOBUF_PREFIX,
  supportsProtobuf,
  type DecodedObject,
  type DecodedWatchEvent,
} from './codec.ts';
export { ProtobufDecodeError, ProtobufEncodeError, ProtobufUnsupportedError } from './errors.ts';
export type { JsonObject } from './json.ts';
export { parseApiVersion } from './kinds.ts';
export { isProtobufMediaType, ORCH_PROTOBUF_MEDIA_TYPE, PROTOBUF_MEDIA_TYPE, PROTOBUF_WATCH_MEDIA_TYPE } from './media-types.ts';
