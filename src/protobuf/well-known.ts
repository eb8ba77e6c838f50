/**
 * The messages whose JSON form is not "an object with the same fields": times,
 * quantities, int-or-string, FieldsV1, RawExtension and the string-list
 * wrappers. Their names, and their fixed definitions (which the schema DSL
 * expresses as scalars, not structs), live here so the generator and the codec
 * agree on them.
 */
import type { ProtoMessage } from './model.ts';
import { INTERNAL_SCHEMA_PREFIX } from '../naming/index.ts';

export const META_V1 = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1`;
export const RUNTIME = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.runtime`;
export const INTSTR = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.util.intstr`;
export const RESOURCE = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.api.resource`;

export const TIME = `${META_V1}.Time`;
export const MICRO_TIME = `${META_V1}.MicroTime`;
export const FIELDS_V1 = `${META_V1}.FieldsV1`;
export const LIST_META = `${META_V1}.ListMeta`;
export const WATCH_EVENT = `${META_V1}.WatchEvent`;
export const RAW_EXTENSION = `${RUNTIME}.RawExtension`;
export const INT_OR_STRING = `${INTSTR}.IntOrString`;
export const QUANTITY = `${RESOURCE}.Quantity`;

/** Supplement/DSL spelling of a well-known type -> its message. */
export const WELL_KNOWN_BY_ALIAS: Readonly<Record<string, string>> = {
  quantity: QUANTITY,
  'int-or-string': INT_OR_STRING,
  time: TIME,
  'micro-time': MICRO_TIME,
  'fields-v1': FIELDS_V1,
  'raw-extension': RAW_EXTENSION,
};

/**
 * Go named slice types (`ExtraValue []string`) travel as a message with one
 * `repeated items = 1` field but are a plain JSON array; the original has one
 * such type per package that needs it, always called ExtraValue.
 */
export const STRING_LIST_WRAPPER = 'ExtraValue';

export function isStringListWrapper(fullName: string): boolean {
  return fullName.endsWith(`.${STRING_LIST_WRAPPER}`);
}

const opt = (name: string, number: number, type: string) => ({ name, number, cardinality: 'optional' as const, type, inline: false });

/** Definitions of the well-known messages, as in the original's generated.proto files. */
export const WELL_KNOWN_MESSAGES: readonly ProtoMessage[] = [
  {
    name: TIME,
    comment: 'A point in time with second precision; JSON: RFC 3339 string. nanos is always 0 on the wire.',
    fields: [opt('seconds', 1, 'int64'), opt('nanos', 2, 'int32')],
  },
  {
    name: MICRO_TIME,
    comment: 'A point in time with microsecond precision; JSON: RFC 3339 string with six fractional digits.',
    fields: [opt('seconds', 1, 'int64'), opt('nanos', 2, 'int32')],
  },
  {
    name: FIELDS_V1,
    comment: 'A managed-fields set; JSON: the object itself, wire: the bytes of its JSON text.',
    fields: [opt('Raw', 1, 'bytes')],
  },
  {
    name: WATCH_EVENT,
    comment: 'One event of a watch stream; object holds the enveloped (prefixed) encoding of the object.',
    fields: [opt('type', 1, 'string'), opt('object', 2, RAW_EXTENSION)],
  },
  {
    name: `${RUNTIME}.TypeMeta`,
    comment: 'apiVersion and kind of an enveloped object.',
    fields: [opt('apiVersion', 1, 'string'), opt('kind', 2, 'string')],
  },
  {
    name: `${RUNTIME}.Unknown`,
    comment: 'The envelope after the 4-byte prefix 0x6b 0x38 0x73 0x00: type, serialized object, encoding, content type.',
    fields: [opt('typeMeta', 1, `${RUNTIME}.TypeMeta`), opt('raw', 2, 'bytes'), opt('contentEncoding', 3, 'string'), opt('contentType', 4, 'string')],
  },
  {
    name: RAW_EXTENSION,
    comment: 'An embedded object; JSON: the object itself, wire: its serialized bytes (JSON text, or an enveloped Protobuf object).',
    fields: [opt('raw', 1, 'bytes')],
  },
  {
    name: INT_OR_STRING,
    comment: 'JSON: a number or a string. type 0 = intVal, 1 = strVal; all three fields are always written.',
    fields: [opt('type', 1, 'int64'), opt('intVal', 2, 'int32'), opt('strVal', 3, 'string')],
  },
  {
    name: QUANTITY,
    comment: 'JSON: the quantity string (such as 100m or 1Gi); wire: the same string.',
    fields: [opt('string', 1, 'string')],
  },
];
