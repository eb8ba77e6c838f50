/**
 * Serves resource requests (/api/v1/..., /apis/<g>/<v>/...): picks the
 * resource type from the request info and runs the verb against the generic
 * store. Query parameters are checked here, before any effect.
 */
import type { RequestContext, RequestInfo } from '../server/context.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { DeleteOptions, GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { Filter, ListReply } from '../../shards/protocol.ts';
import type { Negotiated } from './negotiate.ts';
import { compileFilter } from '../watchcache/filter.ts';
import { SelectorError } from '../selectors/index.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import { mediaType, readBodyBytes, readJsonObject, readObject } from './body.ts';
import { isProtobufMediaType } from '../protobuf/index.ts';
import { servePatch, type PatchSchemas } from './patch-handler.ts';
import type { FieldManager } from '../apply/field-manager.ts';
import { listEncodingFor, negotiateFor, renderList, renderObject, watchEncodingFor, type Rendered } from './representation.ts';
import { ContinueTokens } from './continue-token.ts';
import { planGet, planList } from './read-options.ts';
import { listBodyParts, writeBytes, writeParts, writeStreamedList } from './respond.ts';
import { errors, StatusError } from '../api/status.ts';
import { serveWatch, type WatchLimits } from './watch-handler.ts';
import { checkDryRun, checkFieldManager, checkGracePeriod, decodeListIntegers, invalidOptions, checkPropagationPolicy, parseGoInt64, queryOptionalBool } from '../api/query-params.ts';
import { getScale, updateScale } from './scale.ts';
import { customResourceOf } from '../apiextensions/hooks.ts';
import { getCustomScale, updateCustomScale } from '../apiextensions/scale.ts';
import { podActionBodyKind, podActionFor, type PodAction } from '../registry/pod-actions/index.ts';
import { checkFieldSelector, EVENTS_V1_FIELD_TO_CORE } from '../registry/selectable-fields.ts';
import { parseFieldSelector } from '../selectors/index.ts';
import { apiGroup, names } from '../naming/index.ts';
import { parseFieldValidation, type DecodeTarget, type WriteOptionsKind } from '../typed/index.ts';
import { createToken, type TokenRequestEnv } from '../registry/token-request/token-request.ts';

export interface ResourceHandlerDeps {
  registry: ResourceRegistry;
  store: GenericStore;
  patchSchemas: PatchSchemas;
  fieldManager: FieldManager;
  continueTokens: ContinueTokens;
  watch: WatchLimits;
  /** serviceaccounts/token (TokenRequest): the token issuer and its settings; absent, the subresource answers 405. */
  tokenRequest?: Omit<TokenRequestEnv, 'store' | 'registry'> | undefined;
  /** A request to a deprecated version (after its Warning): the audit annotations and the metric (spec 6.2, 6.4). */
  onDeprecatedRequest?: ((ctx: RequestContext, rt: ResourceType, info: RequestInfo) => void) | undefined;
  /** Optional behaviours behind feature gates (src/versions/feature-gates.ts); all on when absent. */
  features?: { readonly listChunking: boolean; readonly remainingItemCount: boolean } | undefined;
}

const encoder = new TextEncoder();

export function createResourceHandler(deps: ResourceHandlerDeps): (ctx: RequestContext) => Promise<void> {
  const { registry, store } = deps;
  return async (ctx) => {
    const info = ctx.info!;
    const rt = registry.lookup(info.apiGroup, info.apiVersion, info.resource);
    if (rt === undefined) throw errors.notFoundMessage();
    if (rt.deprecationWarning !== undefined) {
      ctx.warnings.push(rt.deprecationWarning);
      deps.onDeprecatedRequest?.(ctx, rt, info);
    }
    if (info.subresource !== '') return serveSubresource(ctx, deps, rt, info);
    if (!rt.namespaced && info.namespace !== '' && !(rt.group === '' && rt.resource === 'namespaces')) {
      throw errors.notFoundMessage();
    }
    if (!(rt.verbs as readonly string[]).includes(info.verb)) throw errors.methodNotAllowed(info.verb);
    switch (info.verb) {
      case 'get': {
        const n = negotiateFor(ctx, { read: true, watch: false, list: false, rt });
        const obj = await store.get(rt, info.namespace, info.name, planGet(ctx.req.query));
        return writeRendered(ctx, 200, renderObject(rt, n, obj.json));
      }
      case 'list':
        return serveList(ctx, deps, rt, info);
      case 'watch': {
        // A HEAD asks for the answer's head only: a watch has no end to wait for (and the uWS listener
        // cannot send a head without a body), so it is answered as the list's head, at once.
        if (ctx.req.method === 'HEAD') return serveList(ctx, deps, rt, info);
        const n = negotiateFor(ctx, { read: true, watch: true, list: true, rt });
        return serveWatch(ctx, store.router, rt, filterFor(ctx, rt, info), deps.watch, watchEncodingFor(rt, n));
      }
      case 'create': {
        if (info.name !== '') throw errors.methodNotAllowed('create');
        const action = podActionFor(rt.group, rt.resource, '');
        if (action !== undefined) return serveAction(ctx, deps, action, rt, info);
        const n = negotiateFor(ctx, { read: false, watch: false, list: false, rt });
        const body = await readObject(ctx, decodeTarget(ctx, deps, 'CreateOptions', rt));
        // The decoded body is this request's alone: the store need not copy it.
        const res = await store.create(rt, info.namespace, body, writeOptions(ctx, true));
        return writeRendered(ctx, res.status, renderObject(rt, n, res.body));
      }
      case 'update': {
        const n = negotiateFor(ctx, { read: false, watch: false, list: false, rt });
        const body = await readObject(ctx, decodeTarget(ctx, deps, 'UpdateOptions', rt));
        const res = await store.update(rt, info.namespace, info.name, body, writeOptions(ctx));
        return writeRendered(ctx, res.status, renderObject(rt, n, res.body));
      }
      case 'delete': {
        const n = negotiateFor(ctx, { read: false, watch: false, list: false, rt });
        const res = await store.delete(rt, info.namespace, info.name, await deleteOptions(ctx));
        return writeRendered(ctx, res.status, renderObject(rt, n, res.body));
      }
      case 'deletecollection': {
        // The original decodes ListOptions here too: a malformed limit or timeoutSeconds is a 400 before anything is deleted.
        decodeListIntegers(ctx.req.query);
        const filter = filterFor(ctx, rt, info);
        const deleted = await store.deleteCollection(rt, info.namespace, filter, await deleteOptions(ctx));
        const items = joinItems(deleted);
        const revision = '';
        return writeParts(ctx, 200, listBodyParts(rt, { items, count: deleted.length, revision: 0 }, { resourceVersion: revision }));
      }
      case 'patch': {
        const n = negotiateFor(ctx, { read: false, watch: false, list: false, rt });
        const res = await servePatch(ctx, store, deps.patchSchemas, deps.fieldManager, rt, info, await readBodyBytes(ctx), writeOptions(ctx));
        return writeRendered(ctx, res.status, renderObject(rt, n, res.body));
      }
      default:
        throw errors.methodNotAllowed(info.verb);
    }
  };
}

async function serveList(ctx: RequestContext, deps: ResourceHandlerDeps, rt: ResourceType, info: RequestInfo): Promise<void> {
  const n = negotiateFor(ctx, { read: true, watch: false, list: true, rt });
  // APIListChunking off: limit and continue are ignored, as the original drops them from the options.
  let query = ctx.req.query;
  if (deps.features?.listChunking === false && (query.has('limit') || query.has('continue'))) {
    query = new URLSearchParams(query);
    query.delete('limit');
    query.delete('continue');
  }
  const plan = planList(query, deps.continueTokens);
  const filter = filterFor(ctx, rt, info);
  const startKey = plan.resume ? rt.keyPrefix + plan.resume.start : undefined;
  // What the previous page counted as remaining, if it counted under this same filter.
  const filterKey = JSON.stringify([filter.namespace ?? '', filter.labelSelector ?? '', filter.fieldSelector ?? '']);
  const known = plan.resume?.remaining?.filter === filterKey ? plan.resume.remaining.count : undefined;
  // A large JSON answer may come in pieces, written as they arrive (writeStreamedList); other representations parse it whole.
  const stream = n.kind === 'json';
  const reply = await deps.store.list(rt, plan.read, filter, { startKey, limit: plan.limit, encoding: listEncodingFor(rt, n), remainingFromStart: known, stream });
  try {
    return answerList(ctx, deps, rt, n, reply, filterKey);
  } catch (err) {
    // An answer in pieces that is never written: the shard counts its reader out (and never reuses them).
    reply.pieces?.release();
    throw err;
  }
}

function answerList(ctx: RequestContext, deps: ResourceHandlerDeps, rt: ResourceType, n: Negotiated, reply: ListReply, filterKey: string): Promise<void> | void {
  let cont: string | undefined;
  if (reply.lastKey !== undefined) {
    cont = deps.continueTokens.encode({
      revision: reply.revision,
      start: reply.lastKey.slice(rt.keyPrefix.length) + '\x00',
      remaining: reply.remaining !== undefined ? { count: reply.remaining, filter: filterKey } : undefined,
    });
  }
  const remainingItemCount = deps.features?.remainingItemCount === false ? undefined : reply.remaining;
  const meta = { resourceVersion: String(reply.revision), continue: cont, remainingItemCount };
  if (reply.pieces !== undefined) {
    const [head, , tail] = listBodyParts(rt, reply, meta);
    return writeStreamedList(ctx, head!, reply.pieces, tail!);
  }
  const rendered = renderList(rt, n, reply, meta);
  writeParts(ctx, 200, rendered.parts, rendered.contentType);
}

function writeRendered(ctx: RequestContext, status: number, r: Rendered): void {
  writeBytes(ctx, status, r.body, r.contentType);
}

/** The list/watch filter of a request; selector syntax errors are 400 before anything starts. */
function filterFor(ctx: RequestContext, rt: ResourceType, info: RequestInfo): Filter {
  const q = ctx.req.query;
  const filter: Filter = {
    namespace: rt.namespaced && info.namespace !== '' ? info.namespace : undefined,
    labelSelector: q.get('labelSelector') ?? undefined,
    fieldSelector: q.get('fieldSelector') ?? undefined,
  };
  if (info.name !== '' && info.verb === 'watch') filter.name = info.name;
  try {
    checkFieldSelector(rt.group, rt.resource, filter.fieldSelector);
    // events.<suffix> Events are stored as core Events: their field names are the core ones there.
    if (rt.storageOf?.group === '' && rt.storageOf.resource === 'events' && filter.fieldSelector) filter.fieldSelector = toStoredFieldNames(filter.fieldSelector);
    compileFilter(filter);
  } catch (err) {
    if (err instanceof SelectorError) throw errors.badRequest(err.message);
    throw err;
  }
  return filter;
}

/** A field selector of a converted type (events.<suffix>) in the stored type's field names. */
function toStoredFieldNames(selector: string): string {
  return parseFieldSelector(selector)
    .requirements.map((r) => `${EVENTS_V1_FIELD_TO_CORE[r.field] ?? r.field}${r.operator === '!=' ? '!=' : '='}${r.value.replace(/[\\,=]/g, (c) => '\\' + c)}`)
    .join(',');
}

/** The options kind a verb's query decodes into, named in its 422s. */
type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** The kind a scale subresource reads and writes. */
const SCALE_GVK = { group: 'autoscaling', version: 'v1', kind: 'Scale' } as const;

/** What a POST or PUT body decodes into: the kind served at the URL, under the request's `fieldValidation`. */
function decodeTarget(ctx: RequestContext, deps: ResourceHandlerDeps, options: WriteOptionsKind, gvk: { group: string; version: string; kind: string }): DecodeTarget {
  // Custom resources have no Protobuf form: a Protobuf body is 415, as the original answers (looked up only for Protobuf bodies).
  const contentType = ctx.req.header('content-type');
  if (contentType !== undefined && contentType.includes('protobuf') && 'resource' in gvk && customResourceOf(gvk as ResourceType) !== undefined) {
    const type = mediaType(contentType);
    if (isProtobufMediaType(type)) throw errors.unsupportedMediaType(type, ['application/json', 'application/yaml']);
  }
  return {
    kind: gvk.kind,
    version: gvk.version,
    decoder: deps.patchSchemas.decoderFor(gvk.group, gvk.version, gvk.kind),
    fieldValidation: parseFieldValidation(ctx.req.query.get('fieldValidation'), options),
  };
}

const OPTIONS_KIND: Readonly<Record<string, OptionsKind>> = { create: 'CreateOptions', update: 'UpdateOptions', patch: 'PatchOptions', delete: 'DeleteOptions', deletecollection: 'DeleteOptions' };

/**
 * dryRun and fieldManager, validated as the original's meta/v1 validation
 * does (422 Invalid on the options kind). An empty fieldManager is "not
 * set", as in the original.
 */
/** The write's options from the request; `bodyOwned`: the body goes to the store, which may change it in place. */
function writeOptions(ctx: RequestContext, bodyOwned = false): WriteOptions {
  const kind = OPTIONS_KIND[ctx.info?.verb ?? ''] ?? 'UpdateOptions';
  const q = ctx.req.query;
  const dryRun = checkDryRun(kind, q.getAll('dryRun'));
  const manager = q.get('fieldManager') ?? '';
  checkFieldManager(kind, manager);
  // fieldValidation is checked where the body is decoded (decodeTarget, the patch handler).
  return {
    user: ctx.user,
    dryRun,
    fieldManager: manager === '' ? undefined : manager,
    userAgent: ctx.req.header('user-agent'),
    recorder: ctx,
    requestOptions: requestOptions(kind, dryRun, manager),
    bodyOwned,
  };
}

/** The options object admission webhooks see (AdmissionRequest.options), as the original fills it. */
function requestOptions(kind: OptionsKind, dryRun: boolean, fieldManager: string): Record<string, unknown> {
  const o: Record<string, unknown> = { kind, apiVersion: `${names.metaGroup}/v1` };
  if (dryRun) o['dryRun'] = ['All'];
  if (fieldManager !== '') o['fieldManager'] = fieldManager;
  return o;
}

async function deleteOptions(ctx: RequestContext): Promise<DeleteOptions> {
  const q = ctx.req.query;
  const body = (await readJsonObject(ctx, { required: false })) ?? {};
  const opts: DeleteOptions = { ...writeOptions(ctx) };
  // Query integers as Go's ParseInt reads them (400 with strconv's message); a body value must be an integer too.
  const queryGrace = q.get('gracePeriodSeconds') !== null ? parseGoInt64(q.get('gracePeriodSeconds')!) : undefined;
  const grace = body['gracePeriodSeconds'] ?? queryGrace;
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) throw errors.badRequest('gracePeriodSeconds: must be an integer');
    // Negative values go on as given: the pod strategy reads them as 1 s, as the original does.
    opts.gracePeriodSeconds = checkGracePeriod(grace);
  }
  const policy = body['propagationPolicy'] ?? q.get('propagationPolicy') ?? undefined;
  if (policy !== undefined && policy !== null) opts.propagationPolicy = checkPropagationPolicy(policy);
  const orphan = body['orphanDependents'] ?? queryOptionalBool(q, 'orphanDependents');
  if (typeof orphan === 'boolean') {
    if (opts.propagationPolicy !== undefined) {
      throw invalidOptions('DeleteOptions', 'propagationPolicy', 'FieldValueInvalid', `Invalid value: ${JSON.stringify(opts.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`);
    }
    opts.orphanDependents = orphan;
  }
  const pre = body['preconditions'];
  if (isPlainObject(pre)) {
    opts.preconditions = {
      uid: typeof pre['uid'] === 'string' ? pre['uid'] : undefined,
      resourceVersion: typeof pre['resourceVersion'] === 'string' ? pre['resourceVersion'] : undefined,
    };
  }
  const dry = body['dryRun'];
  if (Array.isArray(dry)) {
    if (dry.some((v) => typeof v !== 'string')) throw errors.badRequest('dryRun: must be a list of strings');
    if (checkDryRun('DeleteOptions', dry as string[])) opts.dryRun = true;
  }
  return opts;
}

async function serveSubresource(ctx: RequestContext, deps: ResourceHandlerDeps, rt: ResourceType, info: RequestInfo): Promise<void> {
  const sub = rt.subresources.find((s) => s.name === info.subresource);
  if (sub === undefined || info.name === '') throw errors.notFoundMessage();
  if (!(sub.verbs as readonly string[]).includes(info.verb)) throw errors.methodNotAllowed(info.verb);
  const { store } = deps;
  if (info.verb === 'patch') {
    const res = await servePatch(ctx, store, deps.patchSchemas, deps.fieldManager, rt, info, await readBodyBytes(ctx), writeOptions(ctx));
    return writeBytes(ctx, res.status, res.body);
  }
  if (info.verb === 'create') {
    if (rt.group === '' && rt.resource === 'serviceaccounts' && sub.name === 'token' && deps.tokenRequest !== undefined) {
      return serveTokenRequest(ctx, deps, deps.tokenRequest, rt, info);
    }
    const action = podActionFor(rt.group, rt.resource, sub.name);
    if (action === undefined) throw errors.methodNotAllowed(info.verb);
    return serveAction(ctx, deps, action, rt, info);
  }
  if (sub.name === 'scale') {
    const custom = customResourceOf(rt)?.scale;
    if (custom !== undefined) {
      if (info.verb === 'get') return writeJson200(ctx, await getCustomScale(store, rt, custom, info.namespace, info.name, planGet(ctx.req.query)));
      if (info.verb === 'update') return writeJson200(ctx, await updateCustomScale(store, rt, custom, info.namespace, info.name, await readObject(ctx, decodeTarget(ctx, deps, 'UpdateOptions', SCALE_GVK)), writeOptions(ctx)));
      throw errors.methodNotAllowed(info.verb);
    }
    if (info.verb === 'get') return writeJson200(ctx, await getScale(store, rt, info.namespace, info.name, planGet(ctx.req.query)));
    if (info.verb === 'update') return writeJson200(ctx, await updateScale(store, rt, info.namespace, info.name, await readObject(ctx, decodeTarget(ctx, deps, 'UpdateOptions', SCALE_GVK)), writeOptions(ctx)));
    throw errors.methodNotAllowed(info.verb);
  }
  switch (info.verb) {
    case 'get': {
      const n = negotiateFor(ctx, { read: true, watch: false, list: false, rt });
      const obj = await store.get(rt, info.namespace, info.name, planGet(ctx.req.query));
      return writeRendered(ctx, 200, renderObject(rt, n, obj.json));
    }
    case 'update': {
      const body = await readObject(ctx, decodeTarget(ctx, deps, 'UpdateOptions', rt));
      const res = await store.update(rt, info.namespace, info.name, body, writeOptions(ctx), sub.name);
      return writeBytes(ctx, res.status, res.body);
    }
    default:
      throw errors.methodNotAllowed(info.verb);
  }
}

/** A POST answered by a pod action (binding, eviction): its body is another kind, its answer a Status. */
async function serveAction(ctx: RequestContext, deps: ResourceHandlerDeps, action: PodAction, rt: ResourceType, info: RequestInfo): Promise<void> {
  const body = await readObject(ctx, decodeTarget(ctx, deps, 'CreateOptions', podActionBodyKind(action)));
  const req = { rt, subresource: info.subresource, namespace: info.namespace, name: info.name, body, opts: writeOptions(ctx) };
  const res = await action({ store: deps.store, registry: deps.registry }, req);
  writeBytes(ctx, res.status, encoder.encode(JSON.stringify(res.body)));
}

/** A TokenRequest POST: its body and answer are authentication/v1 TokenRequests. */
async function serveTokenRequest(ctx: RequestContext, deps: ResourceHandlerDeps, env: Omit<TokenRequestEnv, 'store' | 'registry'>, rt: ResourceType, info: RequestInfo): Promise<void> {
  // A namespaced subresource has no cluster-wide path.
  if (info.namespace === '') throw errors.notFoundMessage();
  const gvk = { group: apiGroup('authentication'), version: 'v1', kind: 'TokenRequest' };
  const body = await readObject(ctx, decodeTarget(ctx, deps, 'CreateOptions', gvk));
  const call = { rt, namespace: info.namespace, name: info.name, body, opts: writeOptions(ctx), warn: (m: string) => ctx.warnings.push(m) };
  const res = await createToken({ ...env, store: deps.store, registry: deps.registry }, call);
  writeBytes(ctx, res.status, encoder.encode(JSON.stringify(res.body)));
}

function writeJson200(ctx: RequestContext, value: KObject): void {
  writeBytes(ctx, 200, encoder.encode(JSON.stringify(value)));
}

function joinItems(items: readonly Uint8Array[]): Uint8Array {
  const total = items.reduce((n, b) => n + b.byteLength, 0) + Math.max(0, items.length - 1);
  const out = new Uint8Array(total);
  let at = 0;
  items.forEach((b, i) => {
    if (i > 0) out[at++] = 0x2c;
    out.set(b, at);
    at += b.byteLength;
  });
  return out;
}

export { StatusError };
