/**
 * The fuzz case: one HTTP request (method, path, query, headers, body) aimed
 * at a served resource type, plus what the driver needs to check it (the
 * object it should be able to read back, whether it is a watch). Cases are
 * drawn from plans that are plain data, so fast-check can print and shrink
 * them; `toString` gives a repro a human can paste.
 */
import fc from 'fast-check';
import { KUBERNETES_PROTOBUF_MEDIA_TYPE, META_GROUPS } from '../../../src/endpoints/negotiate.ts';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import {
  APPLY_PATCH, JSON_TYPE, MERGE_PATCH, YAML_TYPE,
  jsonBody, jsonPatchBody, jsonPatchChoiceArb, mutatedArb, protobufBody, strategicBody, strategicChoiceArb, yamlBody, yamlChoiceArb,
  type Body,
} from './bodies.ts';
import { fixtureFor } from './fixtures.ts';
import { metadataArb, nameArb, SeedSchemas, type JsonObject } from './schema-values.ts';

/** Namespaces that exist (the harness creates `FUZZ_NAMESPACE`). */
export const FUZZ_NAMESPACE = 'fuzz';

export interface FuzzCase {
  readonly op: string;
  readonly method: string;
  /** Path and query. */
  readonly url: string;
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Body | null;
  /** The item a successful write should leave readable, when the path names one type and namespace. */
  readonly target: { readonly rt: ResourceType; readonly namespace: string } | null;
  /** A watch (or maybe one): the driver disconnects once it has started answering. */
  readonly watch: boolean;
  readonly dryRun: boolean;
}

/** A short, pasteable description of a case (bodies cut at 300 characters). */
export function describeCase(c: FuzzCase): string {
  const body = c.body === null ? '' : Buffer.from(c.body.bytes).toString('utf8');
  const shown = body.length > 300 ? `${body.slice(0, 300)}... (${c.body!.bytes.length} bytes)` : body;
  return [
    `${c.op}: ${c.method} ${c.url.length > 400 ? c.url.slice(0, 400) + '...' : c.url}`,
    ...c.headers.filter(([k]) => k !== 'authorization').map(([k, v]) => `  ${k}: ${v.length > 200 ? v.slice(0, 200) + '...' : v}`),
    ...(c.body === null ? [] : [`  body (${c.body.label}): ${JSON.stringify(shown)}`]),
  ].join('\n');
}

function withDescription(c: FuzzCase): FuzzCase {
  return Object.assign(c, { [fc.toStringMethod]: () => describeCase(c) });
}

// ---- paths ----

export function groupVersionPath(rt: ResourceType): string {
  return rt.group === '' ? `/api/${rt.version}` : `/apis/${rt.group}/${rt.version}`;
}

export function collectionPath(rt: ResourceType, namespace: string, watchPrefix = false): string {
  const ns = rt.namespaced ? `/namespaces/${namespace}` : '';
  return `${groupVersionPath(rt)}${watchPrefix ? '/watch' : ''}${ns}/${rt.resource}`;
}

export function itemPath(rt: ResourceType, namespace: string, name: string): string {
  return `${collectionPath(rt, namespace)}/${encodeURIComponent(name)}`;
}

const namespaceArb = fc.oneof(
  { weight: 10, arbitrary: fc.constantFrom('default', FUZZ_NAMESPACE) },
  { weight: 1, arbitrary: fc.constantFrom('missing-ns', 'UPPER', 'a'.repeat(300), '..', '%2e%2e', '%00', 'ns%2Fx', '', ' ', '\u00e9') },
);

type PathDamage = { readonly kind: 'none' } | { readonly kind: 'damage'; readonly how: number; readonly at: number };
const PATH_DAMAGE = ['//', '/../', '/./', '%2F', '%00', '%', '%zz', '/' + 'a'.repeat(5_000), '/\u00e9', '/%C0%AF', '\\', '/;x', '/?', '#frag', '/ /', '/.', '/..'] as const;
const pathDamageArb: fc.Arbitrary<PathDamage> = fc.oneof(
  { weight: 9, arbitrary: fc.constant({ kind: 'none' as const }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('damage' as const), how: fc.nat({ max: PATH_DAMAGE.length - 1 }), at: fc.nat() }) },
);

function damagePath(path: string, d: PathDamage): string {
  if (d.kind === 'none') return path;
  const slashes = [...path.matchAll(/\//g)].map((m) => m.index!);
  const i = slashes.length === 0 ? path.length : slashes[d.at % slashes.length]!;
  return path.slice(0, i) + PATH_DAMAGE[d.how]! + path.slice(i);
}

// ---- query strings ----

const QUERY_KEYS = [
  'timeoutSeconds', 'limit', 'continue', 'resourceVersion', 'resourceVersionMatch', 'labelSelector', 'fieldSelector', 'watch',
  'allowWatchBookmarks', 'sendInitialEvents', 'dryRun', 'fieldManager', 'fieldValidation', 'force', 'pretty', 'propagationPolicy',
  'gracePeriodSeconds', 'orphanDependents', 'includeObject', 'as', 'export', 'exact', 'unknownParam',
] as const;
const QUERY_VALUES = [
  '', '0', '1', '-1', '5', '2147483647', '2147483648', '9223372036854775807', '9223372036854775808', '1e3', '0x10', '1.5', 'NaN', 'Infinity',
  'true', 'false', 'True', 'yes', 'All', 'all', 'Strict', 'Warn', 'Ignore', 'Exact', 'NotOlderThan', 'Foreground', 'Background', 'Orphan',
  'Object', 'Metadata', 'None', 'Table', 'a=b', 'a in (b,c)', 'a,,b', '!a', 'a!=', 'metadata.name=fuzz-a', 'spec.nodeName=x', 'no.such=field',
  'a=' + 'x'.repeat(70), '((((', '%', '%zz', '\u00e9', '\u0000', 'x'.repeat(10_000), 'fuzz', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MX0',
] as const;

/**
 * A resourceVersion the store has not reached makes a read wait (3 s in the
 * original) before its 504: mostly values that answer at once, now and then
 * one that waits.
 */
const RESOURCE_VERSIONS = ['', '0', '1', 'abc', '-1', '1e3', ' 1', '0x10', '01', '\u0000'] as const;

const queryValueArb = fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...QUERY_VALUES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) });
const queryPairArb: fc.Arbitrary<readonly [string, string]> = fc.oneof(
  { weight: 20, arbitrary: fc.tuple(fc.constantFrom(...QUERY_KEYS.filter((k) => k !== 'resourceVersion')), queryValueArb) },
  { weight: 2, arbitrary: fc.tuple(fc.constant('resourceVersion'), fc.constantFrom(...RESOURCE_VERSIONS)) },
  { weight: 1, arbitrary: fc.tuple(fc.constant('resourceVersion'), queryValueArb) },
);
const queryArb = fc.array(queryPairArb, { maxLength: 4 });

function queryString(pairs: readonly (readonly [string, string])[], raw: boolean): string {
  if (pairs.length === 0) return '';
  // `raw` sends values unescaped (what a careless client does); otherwise encoded.
  return '?' + pairs.map(([k, v]) => (raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)).join('&');
}

// ---- headers ----

export const TABLE_ACCEPT = `application/json;as=Table;v=v1;g=${META_GROUPS[1]}`;
const ACCEPTS = [
  JSON_TYPE, 'application/json, */*', '*/*', KUBERNETES_PROTOBUF_MEDIA_TYPE, `${KUBERNETES_PROTOBUF_MEDIA_TYPE}, application/json`, 'application/yaml',
  TABLE_ACCEPT, `${TABLE_ACCEPT}, application/json`, 'application/json;as=PartialObjectMetadata;v=v1;g=meta.k8s.io',
  'application/json;as=PartialObjectMetadataList;v=v1;g=meta.k8s.io', `${KUBERNETES_PROTOBUF_MEDIA_TYPE};as=Table;v=v1;g=meta.k8s.io`,
  'application/json;as=Table;v=v9;g=meta.k8s.io', 'application/json;as=Nope', 'text/html', 'application/json;q=0', 'application/json;q=abc',
  ';;;', ',', 'application/*;q=0.5', 'application/json;stream=watch', 'application/vnd.kubernetes.protobuf;stream=watch', 'x'.repeat(8_000),
] as const;

const EXTRA_HEADERS: readonly (readonly [string, string])[] = [
  ['impersonate-user', 'someone'], ['impersonate-group', 'system:masters'], ['impersonate-uid', 'u'], ['impersonate-extra-scopes', 'x'],
  ['content-encoding', 'gzip'], ['content-encoding', 'br'], ['accept-encoding', 'gzip'], ['x-forwarded-for', '1.2.3.4, ::1'],
  ['user-agent', 'x'.repeat(5_000)], ['user-agent', '\u00e9\u00e8'], ['audit-id', 'x'.repeat(1_000)], ['x-remote-user', 'admin'],
  ['if-none-match', '"x"'], ['if-match', '*'], ['expect', '100-continue'], ['content-type', 'application/json'], ['content-type', 'text/plain'],
  ['authorization', 'Basic YTpi'], ['authorization', 'Bearer '], ['warning', '299 - "x"'], ['transfer-encoding', 'chunked'],
];

const CONTENT_TYPE_DAMAGE = [
  (t: string) => t,
  (t: string) => `${t}; charset=utf-8`,
  (t: string) => `${t}; charset=utf-16`,
  (t: string) => t.toUpperCase(),
  (t: string) => `${t};;;x=`,
  () => 'text/plain',
  () => '',
  () => 'application/x-www-form-urlencoded',
  () => 'multipart/form-data; boundary=x',
] as const;

interface HeaderPlan {
  readonly accept: number | null;
  readonly contentType: number;
  readonly extras: readonly number[];
  readonly auth: 'token' | 'none' | 'garbage';
}

const headerPlanArb: fc.Arbitrary<HeaderPlan> = fc.record({
  accept: fc.option(fc.nat({ max: ACCEPTS.length - 1 }), { freq: 3 }),
  contentType: fc.oneof({ weight: 12, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.nat({ max: CONTENT_TYPE_DAMAGE.length - 1 }) }),
  extras: fc.oneof({ weight: 6, arbitrary: fc.constant([] as number[]) }, { weight: 1, arbitrary: fc.array(fc.nat({ max: EXTRA_HEADERS.length - 1 }), { maxLength: 3 }) }),
  auth: fc.oneof({ weight: 40, arbitrary: fc.constant('token' as const) }, { weight: 1, arbitrary: fc.constantFrom('none' as const, 'garbage' as const) }),
});

function headersFor(plan: HeaderPlan, body: Body | null): [string, string][] {
  const h: [string, string][] = [];
  if (plan.auth === 'token') h.push(['authorization', `Bearer ${TOKEN_PLACEHOLDER}`]);
  else if (plan.auth === 'garbage') h.push(['authorization', 'Bearer not-a-token']);
  if (plan.accept !== null) h.push(['accept', ACCEPTS[plan.accept]!]);
  if (body !== null) h.push(['content-type', CONTENT_TYPE_DAMAGE[plan.contentType]!(body.contentType)]);
  for (const i of plan.extras) h.push([EXTRA_HEADERS[i]![0], EXTRA_HEADERS[i]![1]]);
  return h;
}

// ---- the case ----

export interface CaseContext {
  readonly types: readonly ResourceType[];
  readonly seeds: SeedSchemas;
}

/** Stands for the admin bearer token in generated headers; the driver puts in the running server's token. */
export const TOKEN_PLACEHOLDER = '<admin-token>';

type Shape = 'create' | 'createProtobuf' | 'createYaml' | 'update' | 'mergePatch' | 'jsonPatch' | 'strategicPatch' | 'apply' | 'get' | 'list' | 'watch' | 'delete' | 'deleteCollection' | 'subresource' | 'oddMethod' | 'nonResource';

const SHAPES: readonly { readonly weight: number; readonly arbitrary: fc.Arbitrary<Shape> }[] = (
  [
    ['create', 20], ['createProtobuf', 8], ['createYaml', 2], ['update', 8], ['mergePatch', 6], ['jsonPatch', 7], ['strategicPatch', 7], ['apply', 9],
    ['get', 5], ['list', 6], ['watch', 2], ['delete', 4], ['deleteCollection', 1], ['subresource', 5], ['oddMethod', 2], ['nonResource', 2],
  ] as const
).map(([s, weight]) => ({ weight, arbitrary: fc.constant(s as Shape) }));

const NON_RESOURCE = ['/version', '/api', '/apis', '/api/v1', '/openapi/v2', '/openapi/v3', '/openapi/v3/api/v1?hash=x', '/healthz', '/readyz?verbose', '/livez/ping', '/metrics', '/', '/nope', '/apis/nope/v1', '/api/v2'] as const;
const ODD_METHODS = ['HEAD', 'OPTIONS', 'TRACE', 'CONNECT', 'FOO', 'get', 'PROPFIND', 'PATCH', 'PUT', 'POST', 'DELETE'] as const;
const SUBRESOURCES = ['status', 'scale', 'finalize', 'approval', 'binding', 'eviction', 'log', 'exec', 'nope', ''] as const;

/** The case arbitrary over every served type. */
export function caseArb(ctx: CaseContext): fc.Arbitrary<FuzzCase> {
  return fc
    .record({
      rt: fc.constantFrom(...ctx.types),
      shape: fc.oneof(...SHAPES),
      namespace: namespaceArb,
      name: nameArb,
      query: queryArb,
      rawQuery: fc.boolean(),
      headers: headerPlanArb,
      pathDamage: pathDamageArb,
      pick: fc.nat(),
    })
    .chain((p) => {
      const seed = seedArb(ctx, p.rt, p.name);
      const body: fc.Arbitrary<Body | null> = bodyArb(p.shape, p.rt, seed);
      return body.map((b) => buildCase(p, b));
    });
}

function seedArb(ctx: CaseContext, rt: ResourceType, name: string): fc.Arbitrary<JsonObject> {
  const meta = metadataArb.map((m) => ({ ...m, name }));
  const fixture = fixtureFor(rt, meta);
  const generated = ctx.seeds.objectOf(rt, meta);
  return fixture === undefined ? generated : fc.oneof({ weight: 3, arbitrary: fixture }, { weight: 2, arbitrary: generated });
}

function bodyArb(shape: Shape, rt: ResourceType, seed: fc.Arbitrary<JsonObject>): fc.Arbitrary<Body | null> {
  switch (shape) {
    case 'create':
    case 'update':
      return mutatedArb(seed).map((m) => jsonBody(m));
    case 'createProtobuf':
      return mutatedArb(seed).map((m) => protobufBody(rt, m));
    case 'createYaml':
      return yamlChoiceArb(seed).map((c) => yamlBody(c, YAML_TYPE));
    case 'mergePatch':
      return mutatedArb(seed).map((m) => jsonBody(m, MERGE_PATCH, 'merge-patch'));
    case 'jsonPatch':
      return jsonPatchChoiceArb(seed).map(jsonPatchBody);
    case 'strategicPatch':
      return strategicChoiceArb(seed).map(strategicBody);
    case 'apply':
      return yamlChoiceArb(seed).map((c) => yamlBody(c, APPLY_PATCH));
    case 'delete':
    case 'deleteCollection':
      return fc.option(
        mutatedArb(fc.constantFrom<JsonObject>(
          { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' },
          { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'x' } },
          { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], orphanDependents: true },
        )).map((m) => jsonBody(m, JSON_TYPE, 'delete-options')),
        { freq: 3 },
      );
    case 'subresource':
    case 'oddMethod':
      return fc.option(mutatedArb(seed).map((m) => jsonBody(m)), { freq: 2 });
    default:
      return fc.constant(null);
  }
}

interface Plan {
  readonly rt: ResourceType;
  readonly shape: Shape;
  readonly namespace: string;
  readonly name: string;
  readonly query: readonly (readonly [string, string])[];
  readonly rawQuery: boolean;
  readonly headers: HeaderPlan;
  readonly pathDamage: PathDamage;
  readonly pick: number;
}

function buildCase(p: Plan, body: Body | null): FuzzCase {
  const { rt, namespace, name } = p;
  const query: (readonly [string, string])[] = [...p.query];
  let method = 'GET';
  let path = itemPath(rt, namespace, name);
  let watch = false;
  switch (p.shape) {
    case 'create':
    case 'createProtobuf':
    case 'createYaml':
      method = 'POST';
      path = collectionPath(rt, namespace);
      break;
    case 'update':
      method = 'PUT';
      break;
    case 'mergePatch':
    case 'jsonPatch':
    case 'strategicPatch':
      method = 'PATCH';
      break;
    case 'apply':
      method = 'PATCH';
      // fieldManager is required for apply; leave it out now and then.
      if (p.pick % 10 !== 0) query.unshift(['fieldManager', 'fuzz']);
      break;
    case 'get':
      break;
    case 'list':
      path = collectionPath(rt, namespace);
      break;
    case 'watch':
      watch = true;
      path = p.pick % 2 === 0 ? collectionPath(rt, namespace) : collectionPath(rt, namespace, true);
      if (p.pick % 2 === 0) query.unshift(['watch', 'true']);
      break;
    case 'delete':
      method = 'DELETE';
      break;
    case 'deleteCollection':
      method = 'DELETE';
      path = collectionPath(rt, namespace);
      break;
    case 'subresource': {
      const sub = p.pick % 3 === 0 ? SUBRESOURCES[p.pick % SUBRESOURCES.length]! : (rt.subresources[p.pick % Math.max(1, rt.subresources.length)]?.name ?? 'status');
      path = `${itemPath(rt, namespace, name)}/${sub}`;
      method = (['GET', 'PUT', 'PATCH'] as const)[p.pick % 3]!;
      break;
    }
    case 'oddMethod':
      method = ODD_METHODS[p.pick % ODD_METHODS.length]!;
      if (p.pick % 2 === 0) path = collectionPath(rt, namespace);
      break;
    case 'nonResource':
      path = NON_RESOURCE[p.pick % NON_RESOURCE.length]!;
      break;
  }
  // A watch query on a GET makes it a watch, with the original's reading of a boolean parameter
  // (Convert_Slice_string_To_bool): the first value; anything but "0" and "false" (any case) is true,
  // "f" and the empty string included (fuzz seed 6, case 52079: `watch=F` was taken for a list, and the
  // watch it is for a "hang").
  // HEAD reads as GET (the request-info filter gives both the get/list/watch verbs).
  const reads = method.toUpperCase() === 'GET' || method.toUpperCase() === 'HEAD';
  const watchParam = query.find(([k]) => k === 'watch');
  if (reads && watchParam !== undefined && !/^(0|false)$/i.test(watchParam[1])) watch = true;
  const damaged = damagePath(path, p.pathDamage);
  if (damaged.includes('/watch/')) watch = reads || watch;
  const bodyFor = method === 'GET' && p.shape !== 'subresource' && p.shape !== 'oddMethod' ? null : body;
  const dryRun = query.some(([k]) => k === 'dryRun') || (bodyFor?.label === 'delete-options');
  const url = damaged + queryString(query, p.rawQuery);
  const sameTarget = p.pathDamage.kind === 'none';
  return withDescription({
    op: `${p.shape}:${rt.resource}`,
    method,
    url,
    headers: headersFor(p.headers, bodyFor),
    body: bodyFor,
    target: sameTarget ? { rt, namespace } : null,
    watch,
    dryRun,
  });
}
