/**
 * The operations each served resource type offers, as plain data that the v2
 * and v3 documents both render: paths (namespaced, cluster-wide, per object,
 * per subresource), methods, the action (`x-<product>-action`), the kind each
 * operation is about, parameters and bodies. Follows the verbs in the
 * registry, so a type that cannot be listed gets no list operation.
 */
import type { ResourceType, Verb } from '../registry/resource-type.ts';
import type { GroupVersionKind } from './schema-dsl.ts';
import { META_DELETE_OPTIONS, META_PATCH, META_STATUS } from './meta-names.ts';
import { capitalize, groupVersionPath, operationGroupVersion } from './gvk.ts';
import { ACTION_PARAMS, type Action, type ParamName } from './parameters.ts';
import type { ServedSchemas } from './served-schemas.ts';
import { streamingKind, subresourceGvk } from './subresources.ts';
import { names } from '../naming/index.ts';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

export const PATCH_TYPES = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
  apply: 'application/apply-patch+yaml',
} as const;

export interface OperationPlan {
  readonly method: Method;
  readonly action: Action;
  readonly operationId: string;
  readonly description: string;
  readonly gvk: GroupVersionKind;
  readonly query: readonly ParamName[];
  /** Schema of the body; absent when the operation takes none. */
  readonly request?: { readonly schema: string; readonly required: boolean; readonly contentTypes?: readonly string[] };
  /** Response body schema; absent for byte streams (logs, exec), which are plain text. */
  readonly response: { readonly schema?: string; readonly codes: readonly string[] };
  /** Responses are watch streams too (list with `watch=true`). */
  readonly streams: boolean;
}

export interface PathPlan {
  readonly path: string;
  readonly pathParams: readonly ('name' | 'namespace')[];
  readonly operations: OperationPlan[];
}

/** Paths of every group/version, keyed by `api/v1` / `apis/<group>/<version>`. */
export function planOperations(types: readonly ResourceType[], schemas: ServedSchemas): Map<string, PathPlan[]> {
  const byGv = new Map<string, Map<string, PathPlan>>();
  const pathIn = (rt: ResourceType, path: string, pathParams: PathPlan['pathParams']): PathPlan => {
    const gv = groupVersionPath(rt.group, rt.version);
    let paths = byGv.get(gv);
    if (paths === undefined) byGv.set(gv, (paths = new Map()));
    let plan = paths.get(path);
    if (plan === undefined) paths.set(path, (plan = { path, pathParams, operations: [] }));
    return plan;
  };
  for (const rt of types) {
    const prefix = `/${groupVersionPath(rt.group, rt.version)}`;
    const scope = rt.namespaced ? `${prefix}/namespaces/{namespace}` : prefix;
    const collection = `${scope}/${rt.resource}`;
    const item = `${collection}/{name}`;
    const ns: PathPlan['pathParams'] = rt.namespaced ? ['namespace'] : [];
    const ops = resourceOps(rt, schemas);
    if (ops.collection.length > 0) pathIn(rt, collection, ns).operations.push(...ops.collection);
    if (ops.item.length > 0) pathIn(rt, item, ['name', ...ns]).operations.push(...ops.item);
    if (rt.namespaced && ops.allNamespaces !== undefined) pathIn(rt, `${prefix}/${rt.resource}`, []).operations.push(ops.allNamespaces);
    for (const sub of rt.subresources) {
      const subOps = subresourceOps(rt, sub, schemas);
      if (subOps.length > 0) pathIn(rt, `${item}/${sub.name}`, ['name', ...ns]).operations.push(...subOps);
    }
  }
  const out = new Map<string, PathPlan[]>();
  for (const [gv, paths] of byGv) out.set(gv, [...paths.values()].sort((a, b) => (a.path < b.path ? -1 : 1)));
  return out;
}

interface ResourceOps {
  collection: OperationPlan[];
  item: OperationPlan[];
  allNamespaces: OperationPlan | undefined;
}

function resourceOps(rt: ResourceType, schemas: ServedSchemas): ResourceOps {
  const gvk = { group: rt.group, version: rt.version, kind: rt.kind };
  const kind = schemas.kindSchema(gvk);
  const has = (v: Verb): boolean => rt.verbs.includes(v);
  const id = (verb: string, suffix = ''): string =>
    `${verb}${operationGroupVersion(rt.group, rt.version)}${rt.namespaced ? 'Namespaced' : ''}${rt.kind}${suffix}`;
  const write = [200, 201, 202].map(String);
  const collection: OperationPlan[] = [];
  const item: OperationPlan[] = [];
  let allNamespaces: OperationPlan | undefined;
  if (has('list')) {
    const list = schemas.listSchema(gvk);
    collection.push(op('get', 'list', id('list'), `List or watch objects of kind ${rt.kind}.`, gvk, undefined, list, ['200'], true));
    if (rt.namespaced) {
      const gv = operationGroupVersion(rt.group, rt.version);
      allNamespaces = op('get', 'list', `list${gv}${rt.kind}ForAllNamespaces`, `List or watch objects of kind ${rt.kind} in all namespaces.`, gvk, undefined, list, ['200'], true);
    }
  }
  if (has('create')) collection.push(op('post', 'post', id('create'), `Create a ${rt.kind}.`, gvk, body(kind), kind, write, false));
  if (has('deletecollection')) {
    const gv = operationGroupVersion(rt.group, rt.version);
    collection.push(
      op('delete', 'deletecollection', `delete${gv}Collection${rt.namespaced ? 'Namespaced' : ''}${rt.kind}`, `Delete a collection of ${rt.kind} objects.`, gvk, body(META_DELETE_OPTIONS, false), META_STATUS, ['200'], false),
    );
  }
  if (has('get')) item.push(op('get', 'get', id('read'), `Read the specified ${rt.kind}.`, gvk, undefined, kind, ['200'], false));
  if (has('update')) item.push(op('put', 'put', id('replace'), `Replace the specified ${rt.kind}.`, gvk, body(kind), kind, ['200', '201'], false));
  if (has('patch')) item.push(op('patch', 'patch', id('patch'), `Partially update the specified ${rt.kind}.`, gvk, patchBody(schemas.isDescribed(gvk)), kind, ['200', '201'], false));
  if (has('delete')) {
    const deleted = rt.strategy.returnDeletedObject === true ? kind : META_STATUS;
    item.push(op('delete', 'delete', id('delete'), `Delete the specified ${rt.kind}.`, gvk, body(META_DELETE_OPTIONS, false), deleted, ['200', '202'], false));
  }
  return { collection, item, allNamespaces };
}

function subresourceOps(rt: ResourceType, sub: ResourceType['subresources'][number], schemas: ServedSchemas): OperationPlan[] {
  const gvk = subresourceGvk(rt, sub);
  const what = `${sub.name} of the specified ${rt.kind}`;
  const id = (verb: string): string =>
    `${verb}${operationGroupVersion(rt.group, rt.version)}${rt.namespaced ? 'Namespaced' : ''}${rt.kind}${capitalize(sub.name)}`;
  const streaming = streamingKind(sub);
  if (streaming !== undefined) return streamingOps(sub, gvk, streaming, what, id);
  const kind = schemas.kindSchema(gvk);
  const out: OperationPlan[] = [];
  for (const verb of sub.verbs) {
    switch (verb) {
      case 'get':
        out.push(op('get', 'get', id('read'), `Read ${what}.`, gvk, undefined, kind, ['200'], false));
        break;
      case 'update':
        out.push(op('put', 'put', id('replace'), `Replace ${what}.`, gvk, body(kind), kind, ['200', '201'], false));
        break;
      case 'patch':
        out.push(op('patch', 'patch', id('patch'), `Partially update ${what}.`, gvk, patchBody(schemas.isDescribed(gvk)), kind, ['200', '201'], false));
        break;
      case 'create':
        out.push(op('post', 'post', id('create'), `Create ${sub.name} of a ${rt.kind}.`, gvk, body(kind), kind, ['200', '201', '202'], false));
        break;
      default:
        // Subresources are read, replaced, patched or created; other verbs have no operation of their own.
        break;
    }
  }
  return out;
}

/** Logs are read; exec, attach, port forwarding and proxy are connections (GET upgrades, POST). */
function streamingOps(sub: ResourceType['subresources'][number], gvk: GroupVersionKind, streaming: 'read' | 'connect', what: string, id: (verb: string) => string): OperationPlan[] {
  const out: OperationPlan[] = [];
  for (const verb of sub.verbs) {
    const method: Method | undefined = verb === 'get' ? 'get' : verb === 'create' ? 'post' : undefined;
    if (method === undefined) continue;
    const action: Action = streaming === 'read' ? 'get' : 'connect';
    const opId = streaming === 'read' ? id('read') : id(method === 'get' ? 'connectGet' : 'connectPost');
    const description = streaming === 'read' ? `Read ${what}.` : `Connect ${method.toUpperCase()} requests to ${what}.`;
    out.push({ method, action, operationId: opId, description, gvk, query: ACTION_PARAMS[action], response: { codes: ['200'] }, streams: false });
  }
  return out;
}

function op(
  method: Method,
  action: Action,
  operationId: string,
  description: string,
  gvk: GroupVersionKind,
  request: OperationPlan['request'],
  response: string,
  codes: readonly string[],
  streams: boolean,
): OperationPlan {
  const plan: OperationPlan = { method, action, operationId, description, gvk, query: ACTION_PARAMS[action], response: { schema: response, codes }, streams };
  return request === undefined ? plan : { ...plan, request };
}

function body(schema: string, required = true): OperationPlan['request'] {
  return { schema, required };
}

/**
 * Patch formats accepted. Strategic merge is only advertised where the
 * schema describes the whole kind: kubectl computes such patches from these
 * documents and stops at fields we leave undescribed, so for shallow kinds
 * it should fall back to its built-in types or to a JSON merge patch.
 */
function patchBody(strategic: boolean): OperationPlan['request'] {
  const types: string[] = [PATCH_TYPES.apply, PATCH_TYPES.json, PATCH_TYPES.merge];
  if (strategic) types.push(PATCH_TYPES.strategic);
  return { schema: META_PATCH, required: true, contentTypes: types };
}
