/**
 * OpenAPI v2 (swagger 2.0) at `/openapi/v2`: every group/version in one
 * document, for older clients. Same paths and schemas as the v3 documents,
 * in the v2 shapes: `definitions`, body parameters, `consumes`/`produces`.
 */
import { setExtension, type JsonObject } from './extensions.ts';
import { gvkJson } from './gvk.ts';
import type { OperationPlan, PathPlan } from './operations.ts';
import { PARAMS, type ParamName, type ParamSpec } from './parameters.ts';
import type { SchemaRenderer } from './render-schema.ts';
import { META_DELETE_OPTIONS, META_PATCH, META_STATUS } from './meta-names.ts';
import { DOC_INFO } from './v3.ts';
import { names } from '../naming/index.ts';

const PRODUCES = ['application/json', 'application/yaml', names.protobufMediaType];
const STREAMS = ['application/json;stream=watch', `${names.protobufMediaType};stream=watch`];

export function swaggerDocument(groupVersions: ReadonlyMap<string, readonly PathPlan[]>, renderer: SchemaRenderer): JsonObject {
  const used = new Set<ParamName>();
  const roots = new Set<string>([META_STATUS, META_DELETE_OPTIONS, META_PATCH]);
  const paths: JsonObject = {};
  for (const gv of [...groupVersions.keys()].sort()) {
    for (const p of groupVersions.get(gv)!) {
      const item: JsonObject = { parameters: [...p.pathParams, 'pretty' as const].map((n) => paramRef(n, used)) };
      for (const o of p.operations) {
        item[o.method] = operation(o, used, renderer);
        if (o.response.schema !== undefined) roots.add(o.response.schema);
        if (o.request !== undefined) roots.add(o.request.schema);
      }
      paths[p.path] = item;
    }
  }
  const parameters: JsonObject = {};
  for (const n of [...used].sort()) parameters[n] = param(PARAMS[n]);
  return {
    swagger: '2.0',
    info: DOC_INFO,
    paths,
    definitions: renderer.schemasFor(roots),
    parameters,
    securityDefinitions: { BearerToken: { type: 'apiKey', in: 'header', name: 'authorization', description: 'Bearer token authentication' } },
    security: [{ BearerToken: [] }],
  };
}

function operation(o: OperationPlan, used: Set<ParamName>, renderer: SchemaRenderer): JsonObject {
  const out: JsonObject = {
    description: o.description,
    operationId: o.operationId,
    consumes: [...(o.request?.contentTypes ?? ['*/*'])],
    produces: o.response.schema === undefined ? ['*/*'] : o.streams ? [...PRODUCES, ...STREAMS] : PRODUCES,
    schemes: ['https'],
  };
  const parameters: JsonObject[] = [];
  if (o.request !== undefined) parameters.push({ name: 'body', in: 'body', required: o.request.required, schema: renderer.refTo(o.request.schema) });
  for (const n of o.query) parameters.push((PARAMS[n] as ParamSpec).inline === true ? param(PARAMS[n]) : paramRef(n, used));
  if (parameters.length > 0) out['parameters'] = parameters;
  const responses: JsonObject = {};
  const schema = o.response.schema === undefined ? { type: 'string' } : renderer.refTo(o.response.schema);
  for (const code of o.response.codes) responses[code] = { description: STATUS_TEXT[code] ?? 'OK', schema };
  responses['401'] = { description: 'Unauthorized' };
  out['responses'] = responses;
  setExtension(out, 'action', o.action);
  setExtension(out, 'group-version-kind', gvkJson(o.gvk));
  return out;
}

const STATUS_TEXT: Record<string, string> = { '200': 'OK', '201': 'Created', '202': 'Accepted' };

function paramRef(name: ParamName, used: Set<ParamName>): JsonObject {
  used.add(name);
  return { $ref: `#/parameters/${name}` };
}

function param(p: ParamSpec): JsonObject {
  const out: JsonObject = { name: p.name, in: p.in, description: p.description, type: p.type, uniqueItems: true };
  if (p.in === 'path') out['required'] = true;
  return out;
}
