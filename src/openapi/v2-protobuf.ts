/**
 * `/openapi/v2` as Protobuf: the gnostic `openapi.v2.Document` message
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`), which is
 * what client-go's discovery asks for (`OpenAPISchema()` unmarshals the
 * bytes as that message and accepts nothing else). kubectl falls back to it
 * to validate what OpenAPI v3 has no operation for (a `List` of objects
 * piped into `kubectl replace -f -`, create-only kinds such as TokenReview).
 *
 * The JSON document is turned into the message once, on first request.
 * Field numbers are those of gnostic's OpenAPIv2.proto. Free-form values
 * (defaults, enums, examples, vendor extensions) travel as gnostic does, in
 * `Any.yaml`; JSON text is valid YAML, so they are written as JSON.
 */
import protobuf from 'protobufjs';

/** What clients ask for (client-go's Accept header spells it with `@`)... */
export const OPENAPI_V2_PROTOBUF = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
/** ...and what the answer says it is: `@` is not allowed in a media type, and Go's mime parser refuses it in a Content-Type. */
export const OPENAPI_V2_PROTOBUF_CONTENT_TYPE = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Obj = { [k: string]: Json };

const s = (id: number): protobuf.IField => ({ type: 'string', id });
const b = (id: number): protobuf.IField => ({ type: 'bool', id });
const d = (id: number): protobuf.IField => ({ type: 'double', id });
const i64 = (id: number): protobuf.IField => ({ type: 'int64', id });
const m = (type: string, id: number): protobuf.IField => ({ type, id });
const rs = (id: number): protobuf.IField => ({ type: 'string', id, rule: 'repeated' });
const rm = (type: string, id: number): protobuf.IField => ({ type, id, rule: 'repeated' });

/** The parameter sub-schemas share one layout after their first fields. */
function primitiveFields(start: number): Record<string, protobuf.IField> {
  const names = ['type', 'format', 'items', 'collectionFormat', 'default', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'enum', 'multipleOf', 'vendorExtension'];
  const types: Record<string, (id: number) => protobuf.IField> = {
    type: s, format: s, items: (id) => m('PrimitivesItems', id), collectionFormat: s, default: (id) => m('Any', id), maximum: d, exclusiveMaximum: b, minimum: d, exclusiveMinimum: b,
    maxLength: i64, minLength: i64, pattern: s, maxItems: i64, minItems: i64, uniqueItems: b, enum: (id) => rm('Any', id), multipleOf: d, vendorExtension: (id) => rm('NamedAny', id),
  };
  const out: Record<string, protobuf.IField> = {};
  names.forEach((n, k) => (out[n] = types[n]!(start + k)));
  return out;
}

const root = protobuf.Root.fromJSON({
  nested: {
    Any: { fields: { yaml: s(2) } },
    NamedAny: { fields: { name: s(1), value: m('Any', 2) } },
    Info: { fields: { title: s(1), version: s(2), description: s(3), termsOfService: s(4), vendorExtension: rm('NamedAny', 7) } },
    Document: {
      fields: {
        swagger: s(1), info: m('Info', 2), host: s(3), basePath: s(4), schemes: rs(5), consumes: rs(6), produces: rs(7), paths: m('Paths', 8), definitions: m('Definitions', 9),
        parameters: m('ParameterDefinitions', 10), responses: m('ResponseDefinitions', 11), security: rm('SecurityRequirement', 12), securityDefinitions: m('SecurityDefinitions', 13), vendorExtension: rm('NamedAny', 16),
      },
    },
    Paths: { fields: { vendorExtension: rm('NamedAny', 1), path: rm('NamedPathItem', 2) } },
    NamedPathItem: { fields: { name: s(1), value: m('PathItem', 2) } },
    PathItem: {
      fields: { _ref: s(1), get: m('Operation', 2), put: m('Operation', 3), post: m('Operation', 4), delete: m('Operation', 5), options: m('Operation', 6), head: m('Operation', 7), patch: m('Operation', 8), parameters: rm('ParametersItem', 9), vendorExtension: rm('NamedAny', 10) },
    },
    Operation: {
      fields: {
        tags: rs(1), summary: s(2), description: s(3), operationId: s(5), produces: rs(6), consumes: rs(7), parameters: rm('ParametersItem', 8), responses: m('Responses', 9), schemes: rs(10), deprecated: b(11),
        security: rm('SecurityRequirement', 12), vendorExtension: rm('NamedAny', 13),
      },
    },
    ParametersItem: { oneofs: { oneof: { oneof: ['parameter', 'jsonReference'] } }, fields: { parameter: m('Parameter', 1), jsonReference: m('JsonReference', 2) } },
    JsonReference: { fields: { _ref: s(1), description: s(2) } },
    Parameter: { oneofs: { oneof: { oneof: ['bodyParameter', 'nonBodyParameter'] } }, fields: { bodyParameter: m('BodyParameter', 1), nonBodyParameter: m('NonBodyParameter', 2) } },
    BodyParameter: { fields: { description: s(1), name: s(2), in: s(3), required: b(4), schema: m('Schema', 5), vendorExtension: rm('NamedAny', 6) } },
    NonBodyParameter: {
      oneofs: { oneof: { oneof: ['headerParameterSubSchema', 'formDataParameterSubSchema', 'queryParameterSubSchema', 'pathParameterSubSchema'] } },
      fields: { headerParameterSubSchema: m('HeaderParameterSubSchema', 1), formDataParameterSubSchema: m('FormDataParameterSubSchema', 2), queryParameterSubSchema: m('QueryParameterSubSchema', 3), pathParameterSubSchema: m('PathParameterSubSchema', 4) },
    },
    HeaderParameterSubSchema: { fields: { required: b(1), in: s(2), description: s(3), name: s(4), ...primitiveFields(5) } },
    PathParameterSubSchema: { fields: { required: b(1), in: s(2), description: s(3), name: s(4), ...primitiveFields(5) } },
    QueryParameterSubSchema: { fields: { required: b(1), in: s(2), description: s(3), name: s(4), allowEmptyValue: b(5), ...primitiveFields(6) } },
    FormDataParameterSubSchema: { fields: { required: b(1), in: s(2), description: s(3), name: s(4), allowEmptyValue: b(5), ...primitiveFields(6) } },
    PrimitivesItems: { fields: primitiveFields(1) },
    Responses: { fields: { responseCode: rm('NamedResponseValue', 1), vendorExtension: rm('NamedAny', 2) } },
    NamedResponseValue: { fields: { name: s(1), value: m('ResponseValue', 2) } },
    ResponseValue: { oneofs: { oneof: { oneof: ['response', 'jsonReference'] } }, fields: { response: m('Response', 1), jsonReference: m('JsonReference', 2) } },
    Response: { fields: { description: s(1), schema: m('SchemaItem', 2), vendorExtension: rm('NamedAny', 5) } },
    SchemaItem: { oneofs: { oneof: { oneof: ['schema'] } }, fields: { schema: m('Schema', 1) } },
    Schema: {
      fields: {
        _ref: s(1), format: s(2), title: s(3), description: s(4), default: m('Any', 5), multipleOf: d(6), maximum: d(7), exclusiveMaximum: b(8), minimum: d(9), exclusiveMinimum: b(10),
        maxLength: i64(11), minLength: i64(12), pattern: s(13), maxItems: i64(14), minItems: i64(15), uniqueItems: b(16), maxProperties: i64(17), minProperties: i64(18), required: rs(19), enum: rm('Any', 20),
        additionalProperties: m('AdditionalPropertiesItem', 21), type: m('TypeItem', 22), items: m('ItemsItem', 23), allOf: rm('Schema', 24), properties: m('Properties', 25), discriminator: s(26), readOnly: b(27),
        example: m('Any', 30), vendorExtension: rm('NamedAny', 31),
      },
    },
    AdditionalPropertiesItem: { oneofs: { oneof: { oneof: ['schema', 'boolean'] } }, fields: { schema: m('Schema', 1), boolean: b(2) } },
    TypeItem: { fields: { value: rs(1) } },
    ItemsItem: { fields: { schema: rm('Schema', 1) } },
    Properties: { fields: { additionalProperties: rm('NamedSchema', 1) } },
    NamedSchema: { fields: { name: s(1), value: m('Schema', 2) } },
    Definitions: { fields: { additionalProperties: rm('NamedSchema', 1) } },
    ParameterDefinitions: { fields: { additionalProperties: rm('NamedParameter', 1) } },
    NamedParameter: { fields: { name: s(1), value: m('Parameter', 2) } },
    ResponseDefinitions: { fields: { additionalProperties: rm('NamedResponse', 1) } },
    NamedResponse: { fields: { name: s(1), value: m('Response', 2) } },
    SecurityRequirement: { fields: { additionalProperties: rm('NamedStringArray', 1) } },
    NamedStringArray: { fields: { name: s(1), value: m('StringArray', 2) } },
    StringArray: { fields: { value: rs(1) } },
    SecurityDefinitions: { fields: { additionalProperties: rm('NamedSecurityDefinitionsItem', 1) } },
    NamedSecurityDefinitionsItem: { fields: { name: s(1), value: m('SecurityDefinitionsItem', 2) } },
    SecurityDefinitionsItem: { oneofs: { oneof: { oneof: ['apiKeySecurity'] } }, fields: { apiKeySecurity: m('ApiKeySecurity', 2) } },
    ApiKeySecurity: { fields: { type: s(1), name: s(2), in: s(3), description: s(4), vendorExtension: rm('NamedAny', 5) } },
  },
});

const isObj = (v: Json | undefined): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: Json | undefined): string | undefined => (typeof v === 'string' ? v : undefined);
const any = (v: Json): Obj => ({ yaml: JSON.stringify(v) });

function extensions(o: Obj): Obj[] {
  return Object.keys(o)
    .filter((k) => k.startsWith('x-'))
    .map((k) => ({ name: k, value: any(o[k]!) }));
}

function copy(o: Obj, keys: readonly string[], into: Obj): Obj {
  for (const k of keys) if (o[k] !== undefined) into[k] = o[k]!;
  return into;
}

function schema(o: Obj): Obj {
  const out: Obj = {};
  if (typeof o['$ref'] === 'string') out['_ref'] = o['$ref'];
  copy(o, ['format', 'title', 'description', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'maxProperties', 'minProperties', 'required', 'discriminator', 'readOnly'], out);
  if (o['default'] !== undefined) out['default'] = any(o['default']);
  if (o['example'] !== undefined) out['example'] = any(o['example']);
  if (Array.isArray(o['enum'])) out['enum'] = o['enum'].map(any);
  if (typeof o['type'] === 'string') out['type'] = { value: [o['type']] };
  else if (Array.isArray(o['type'])) out['type'] = { value: o['type'] };
  const items = o['items'];
  if (isObj(items)) out['items'] = { schema: [schema(items)] };
  else if (Array.isArray(items)) out['items'] = { schema: items.filter(isObj).map(schema) };
  if (Array.isArray(o['allOf'])) out['allOf'] = o['allOf'].filter(isObj).map(schema);
  const props = o['properties'];
  if (isObj(props)) out['properties'] = { additionalProperties: Object.keys(props).map((name) => ({ name, value: schema(isObj(props[name]) ? (props[name] as Obj) : {}) })) };
  const ap = o['additionalProperties'];
  if (isObj(ap)) out['additionalProperties'] = { schema: schema(ap) };
  else if (typeof ap === 'boolean') out['additionalProperties'] = { boolean: ap };
  const ext = extensions(o);
  if (ext.length > 0) out['vendorExtension'] = ext;
  return out;
}

function primitive(o: Obj): Obj {
  const out = copy(o, ['type', 'format', 'collectionFormat', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength', 'pattern', 'maxItems', 'minItems', 'uniqueItems', 'multipleOf'], {});
  if (o['default'] !== undefined) out['default'] = any(o['default']);
  if (Array.isArray(o['enum'])) out['enum'] = o['enum'].map(any);
  if (isObj(o['items'])) out['items'] = primitive(o['items']);
  const ext = extensions(o);
  if (ext.length > 0) out['vendorExtension'] = ext;
  return out;
}

function parameter(o: Obj): Obj {
  if (o['in'] === 'body') {
    const out = copy(o, ['description', 'name', 'in', 'required'], {});
    if (isObj(o['schema'])) out['schema'] = schema(o['schema']);
    const ext = extensions(o);
    if (ext.length > 0) out['vendorExtension'] = ext;
    return { bodyParameter: out };
  }
  const sub = { ...copy(o, ['required', 'in', 'description', 'name', ...(o['in'] === 'query' || o['in'] === 'formData' ? ['allowEmptyValue'] : [])], {}), ...primitive(o) };
  const which = o['in'] === 'header' ? 'headerParameterSubSchema' : o['in'] === 'formData' ? 'formDataParameterSubSchema' : o['in'] === 'path' ? 'pathParameterSubSchema' : 'queryParameterSubSchema';
  return { nonBodyParameter: { [which]: sub } };
}

function parametersItem(o: Json): Obj {
  if (isObj(o) && typeof o['$ref'] === 'string') return { jsonReference: { _ref: o['$ref'] } };
  return { parameter: parameter(isObj(o) ? o : {}) };
}

function response(o: Obj): Obj {
  const out: Obj = { description: str(o['description']) ?? '' };
  if (isObj(o['schema'])) out['schema'] = { schema: schema(o['schema']) };
  const ext = extensions(o);
  if (ext.length > 0) out['vendorExtension'] = ext;
  return out;
}

function operation(o: Obj): Obj {
  const out = copy(o, ['tags', 'summary', 'description', 'operationId', 'produces', 'consumes', 'schemes', 'deprecated'], {});
  if (Array.isArray(o['parameters'])) out['parameters'] = o['parameters'].map(parametersItem);
  const res = o['responses'];
  if (isObj(res)) {
    out['responses'] = {
      responseCode: Object.keys(res).map((code) => {
        const r = res[code];
        const value: Obj = isObj(r) && typeof r['$ref'] === 'string' ? { jsonReference: { _ref: r['$ref'] } } : { response: response(isObj(r) ? r : {}) };
        return { name: code, value };
      }),
    };
  }
  if (Array.isArray(o['security'])) out['security'] = o['security'].filter(isObj).map(securityRequirement);
  const ext = extensions(o);
  if (ext.length > 0) out['vendorExtension'] = ext;
  return out;
}

function securityRequirement(o: Obj): Obj {
  return { additionalProperties: Object.keys(o).map((name) => ({ name, value: { value: Array.isArray(o[name]) ? o[name] : [] } })) };
}

/** The gnostic Document message of an OpenAPI v2 JSON document. */
export function openApiV2Protobuf(json: Uint8Array): Uint8Array {
  const doc = JSON.parse(Buffer.from(json).toString('utf8')) as Obj;
  const out: Obj = copy(doc, ['swagger', 'host', 'basePath', 'schemes', 'consumes', 'produces'], {});
  if (isObj(doc['info'])) out['info'] = copy(doc['info'], ['title', 'version', 'description', 'termsOfService'], {});
  const paths = doc['paths'];
  if (isObj(paths)) {
    out['paths'] = {
      path: Object.keys(paths).map((name) => {
        const item = isObj(paths[name]) ? (paths[name] as Obj) : {};
        const value: Obj = {};
        for (const verb of ['get', 'put', 'post', 'delete', 'options', 'head', 'patch']) if (isObj(item[verb])) value[verb] = operation(item[verb]);
        if (Array.isArray(item['parameters'])) value['parameters'] = item['parameters'].map(parametersItem);
        if (typeof item['$ref'] === 'string') value['_ref'] = item['$ref'];
        const ext = extensions(item);
        if (ext.length > 0) value['vendorExtension'] = ext;
        return { name, value };
      }),
    };
  }
  const defs = doc['definitions'];
  if (isObj(defs)) out['definitions'] = { additionalProperties: Object.keys(defs).map((name) => ({ name, value: schema(isObj(defs[name]) ? (defs[name] as Obj) : {}) })) };
  const params = doc['parameters'];
  if (isObj(params)) out['parameters'] = { additionalProperties: Object.keys(params).map((name) => ({ name, value: parameter(isObj(params[name]) ? (params[name] as Obj) : {}) })) };
  const sec = doc['securityDefinitions'];
  if (isObj(sec)) {
    out['securityDefinitions'] = {
      additionalProperties: Object.keys(sec).map((name) => ({ name, value: { apiKeySecurity: copy(isObj(sec[name]) ? (sec[name] as Obj) : {}, ['type', 'name', 'in', 'description'], {}) } })),
    };
  }
  if (Array.isArray(doc['security'])) out['security'] = doc['security'].filter(isObj).map(securityRequirement);
  const ext = extensions(doc);
  if (ext.length > 0) out['vendorExtension'] = ext;
  const type = root.lookupType('Document');
  return type.encode(type.fromObject(out)).finish();
}

/** Decodes a Document (tests, and a check that what we send parses as gnostic's message). */
export function decodeOpenApiV2Protobuf(bytes: Uint8Array): Record<string, unknown> {
  const type = root.lookupType('Document');
  return type.toObject(type.decode(bytes), { defaults: false }) as Record<string, unknown>;
}
