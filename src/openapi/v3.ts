/**
 * OpenAPI v3: one document per group/version (`/openapi/v3/api/v1`,
 * `/openapi/v3/apis/apps/v1`) carrying its paths and exactly the schemas
 * they reach, plus the index at `/openapi/v3` that lists them with a content
 * hash. kubectl reads these for `explain`, for client-side apply patches and
 * to learn that the server validates fields (the `fieldValidation` parameter
 * of PATCH operations).
 */
import { setExtension, type JsonObject } from './extensions.ts';
import { gvkJson } from './gvk.ts';
import type { OperationPlan, PathPlan } from './operations.ts';
import { PARAMS, type ParamName, type ParamSpec } from './parameters.ts';
import type { SchemaRenderer } from './render-schema.ts';
import { META_DELETE_OPTIONS, META_PATCH, META_STATUS } from './meta-names.ts';
import { names } from '../naming/index.ts';

export const DOC_INFO = { title: names.openApiTitle, version: 'v1.32.0' };

const RESPONSE_TYPES = ['application/json', 'application/yaml', names.protobufMediaType];
const STREAM_TYPES = ['application/json;stream=watch', `${names.protobufMediaType};stream=watch`];

/** The document of one group/version. */
export function groupVersionDocument(paths: readonly PathPlan[], renderer: SchemaRenderer): JsonObject {
  const params = new Set<ParamName>();
  const roots = new Set<string>([META_STATUS, META_DELETE_OPTIONS, META_PATCH]);
  const outPaths: JsonObject = {};
  for (const p of paths) {
    const item: JsonObject = { parameters: [...p.pathParams, 'pretty' as const].map((n) => paramRef(n, params)) };
    for (const o of p.operations) {
      item[o.method] = operation(o, params, renderer);
      if (o.response.schema !== undefined) roots.add(o.response.schema);
      if (o.request !== undefined) roots.add(o.request.schema);
    }
    outPaths[p.path] = item;
  }
  const parameters: JsonObject = {};
  for (const n of [...params].sort()) parameters[n] = param(PARAMS[n]);
  return {
    openapi: '3.0.0',
    info: DOC_INFO,
    paths: outPaths,
    components: {
      schemas: renderer.schemasFor(roots),
      parameters,
      securitySchemes: { BearerToken: { type: 'apiKey', in: 'header', name: 'authorization', description: 'Bearer token authentication' } },
    },
    security: [{ BearerToken: [] }],
  };
}

/** `/openapi/v3`: where each group/version document lives, with its hash for caching. */
export function indexDocument(hashes: ReadonlyMap<string, string>): JsonObject {
  const paths: JsonObject = {};
  for (const [gv, hash] of [...hashes].sort(([a], [b]) => (a < b ? -1 : 1))) {
    paths[gv] = { serverRelativeURL: `/openapi/v3/${gv}?hash=${hash}` };
  }
  return { paths };
}

function operation(o: OperationPlan, used: Set<ParamName>, renderer: SchemaRenderer): JsonObject {
  const out: JsonObject = { description: o.description, operationId: o.operationId };
  if (o.query.length > 0) out['parameters'] = o.query.map((n) => (PARAMS[n] as ParamSpec).inline === true ? param(PARAMS[n]) : paramRef(n, used));
  if (o.request !== undefined) {
    const schema = renderer.refTo(o.request.schema);
    const content: JsonObject = {};
    for (const t of o.request.contentTypes ?? ['*/*']) content[t] = { schema };
    out['requestBody'] = { content, required: o.request.required };
  }
  const content: JsonObject = {};
  if (o.response.schema === undefined) content['*/*'] = { schema: { type: 'string' } };
  else {
    const responseSchema = renderer.refTo(o.response.schema);
    for (const t of o.streams ? [...RESPONSE_TYPES, ...STREAM_TYPES] : RESPONSE_TYPES) content[t] = { schema: responseSchema };
  }
  const responses: JsonObject = {};
  for (const code of o.response.codes) responses[code] = { description: STATUS_TEXT[code] ?? 'OK', content };
  responses['401'] = { description: 'Unauthorized' };
  out['responses'] = responses;
  setExtension(out, 'action', o.action);
  setExtension(out, 'group-version-kind', gvkJson(o.gvk));
  return out;
}

const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

function paramRef(name: ParamName, used: Set<ParamName>): JsonObject {
  used.add(name);
  return { $ref: `#/components/parameters/${name}` };
}

function param(p: ParamSpec): JsonObject {
  const out: JsonObject = { name: p.name, in: p.in, description: p.description, schema: { type: p.type, uniqueItems: true } };
  if (p.in === 'path') out['required'] = true;
  return out;
}
