/**
 * GenericStore: the one code path for create, get, list, update, delete and
 * deletecollection of every stored resource type, in the manner of the
 * original's registry/generic/registry/store.go. Type behaviour comes from
 * the type's Strategy; storage and caching from the shards (via the router).
 *
 * Objects are serialized once, here, when they are written; what the shard
 * returns (the stored bytes with their resourceVersion spliced in) is what
 * the client receives.
 */
import { randomUUID } from 'node:crypto';
import type { ListPage, ShardAccess } from '../../shards/shard-access.ts';
import { ShardCallError } from '../../shards/shard-handle.ts';
import type { Filter, ListEncoding, ListReply, ObjectBytes, ReadMode } from '../../shards/protocol.ts';
import { serializeForStorage } from '../watchcache/json-codec.ts';
import { errors, StatusError } from '../api/status.ts';
import type { Admission, AdmissionRecorder, Operation } from '../admission/types.ts';
import type { UserInfo } from '../server/context.ts';
import type { ResourceType } from './resource-type.ts';
import type { FieldError, StrategyContext } from './strategy.ts';
import { NO_TRANSACTION, type WriteHooks, type WriteTransaction } from './write-hooks.ts';
import { cloneJson, isPlainObject, jsonEqual, nowRfc3339, type KObject } from './object.ts';
import { validateObjectMeta, validateObjectMetaUpdate } from './validation/object-meta.ts';
import { bareRelabel, relabelItems, relabelObject } from './conversions/relabel.ts';
import { copyWith } from '../api/object-copy.ts';

export interface WriteOptions {
  user: UserInfo | undefined;
  dryRun: boolean;
  fieldManager?: string | undefined;
  /** The request's User-Agent: the field manager of an update without `fieldManager`. */
  userAgent?: string | undefined;
  /** The object's managedFields were already computed (server-side apply): do not track again. */
  fieldsTracked?: boolean | undefined;
  /**
   * The request was admitted as a whole (a pod action: binding, eviction), so
   * the writes it makes skip admission, as the original's BindingREST and
   * EvictionREST write the pod with admission already done.
   */
  admitted?: boolean | undefined;
  /** Where admission leaves warnings and audit annotations (the request's context); dropped when absent. */
  recorder?: AdmissionRecorder | undefined;
  /** The request's options object as admission webhooks see it (CreateOptions, UpdateOptions...). */
  requestOptions?: Readonly<Record<string, unknown>> | undefined;
  /**
   * The caller hands the body over (a request's freshly decoded object, used for nothing else): a create
   * changes it in place instead of copying it first.
   */
  bodyOwned?: boolean | undefined;
}

const NO_RECORDER: AdmissionRecorder = { warn: () => undefined, annotate: () => undefined };

/** Records field ownership of every write (src/apply); optional so that storage tests need no schemas. */
export interface FieldTracker {
  update(req: { live: KObject | null; next: KObject; manager: string; subresource: string; apiVersion: string; kind: string; statusSubresource: boolean }): KObject;
  /** Keeps managedFields times of entries whose fields did not change, so a no-op write stays a no-op. */
  keepTimesIfUnchanged(next: KObject, old: KObject): KObject;
}

export interface DeleteOptions extends WriteOptions {
  gracePeriodSeconds?: number | undefined;
  propagationPolicy?: 'Foreground' | 'Background' | 'Orphan' | undefined;
  orphanDependents?: boolean | undefined;
  preconditions?: { uid?: string | undefined; resourceVersion?: string | undefined } | undefined;
}

/** A write's answer: the HTTP status and the object's JSON bytes. */
export interface WriteResult {
  status: number;
  body: Uint8Array;
}

const MAX_GENERATE_NAME_ATTEMPTS = 8;
const GENERATE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const MODIFIED_MESSAGE = 'the object has been modified; please apply your changes to the latest version and try again';

export function objectKey(rt: ResourceType, namespace: string, name: string): string {
  return rt.namespaced ? `${rt.keyPrefix}${namespace}/${name}` : `${rt.keyPrefix}${name}`;
}

const textEncoder = new TextEncoder();

/** Stored JSON bytes as the type serves them (converted for types that share another's storage). */
export function servedBytes(rt: ResourceType, bytes: Uint8Array): Uint8Array {
  if (rt.conversion === undefined) return bytes;
  const relabeled = rt.conversion.relabel && relabelObject(bytes, rt.conversion.relabel);
  if (relabeled) return relabeled;
  return textEncoder.encode(JSON.stringify(rt.conversion.fromStorage(parseObject(bytes))));
}

/**
 * A list's joined item bytes as the type serves them; `bare`: each item
 * without its kind and apiVersion (see listEncodingFor).
 */
export function servedItems(rt: ResourceType, items: Uint8Array, count: number, bare = false): Uint8Array {
  if (rt.conversion === undefined || count === 0) return items;
  const relabel = rt.conversion.relabel;
  const relabeled = relabel && relabelItems(items, count, bare ? bareRelabel(relabel) : relabel);
  if (relabeled) return relabeled;
  const parsed = JSON.parse(`[${Buffer.from(items.buffer, items.byteOffset, items.byteLength).toString('utf8')}]`) as KObject[];
  const json = JSON.stringify(parsed.map((o) => withoutTypeMetaIf(bare, rt.conversion!.fromStorage(o))));
  return textEncoder.encode(json.slice(1, -1));
}

/** A converted object (a fresh copy: conversions never return their input) without kind and apiVersion when `bare`. */
function withoutTypeMetaIf(bare: boolean, obj: KObject): KObject {
  if (bare) {
    delete (obj as Partial<KObject>).kind;
    delete (obj as Partial<KObject>).apiVersion;
  }
  return obj;
}

/** The object in its stored shape, serialized for storage. */
function storedBytes(rt: ResourceType, obj: KObject): Uint8Array {
  return serializeForStorage(rt.conversion === undefined ? obj : rt.conversion.toStorage(obj));
}

/*
 * The same three for conversions that call out (toStorageMany/fromStorageMany):
 * awaited only for such types, so every other type keeps the synchronous path.
 */
async function storedBytesAsync(rt: ResourceType, obj: KObject): Promise<Uint8Array> {
  const many = rt.conversion?.toStorageMany;
  return many === undefined ? storedBytes(rt, obj) : serializeForStorage((await many([obj]))[0]!);
}

async function servedBytesAsync(rt: ResourceType, bytes: Uint8Array): Promise<Uint8Array> {
  const many = rt.conversion?.fromStorageMany;
  return many === undefined ? servedBytes(rt, bytes) : textEncoder.encode(JSON.stringify((await many([parseObject(bytes)]))[0]));
}

async function servedItemsAsync(rt: ResourceType, items: Uint8Array, count: number, bare: boolean): Promise<Uint8Array> {
  const many = rt.conversion?.fromStorageMany;
  if (many === undefined || count === 0) return servedItems(rt, items, count, bare);
  const parsed = JSON.parse(`[${Buffer.from(items.buffer, items.byteOffset, items.byteLength).toString('utf8')}]`) as KObject[];
  return textEncoder.encode(JSON.stringify(await many(parsed)).slice(1, -1));
}

export function parseObject(bytes: Uint8Array): KObject {
  return JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as KObject;
}

/** Maps a shard/storage error onto the Status a client sees. */
export function statusFromShardError(err: unknown, rt: ResourceType, name: string): unknown {
  if (!(err instanceof ShardCallError)) return err;
  const e = err.error;
  switch (e.code) {
    case 'NotFound':
      return errors.notFound(rt.group, rt.resource, name);
    case 'AlreadyExists':
      return errors.alreadyExists(rt.group, rt.resource, name);
    case 'Conflict':
      return errors.conflict(rt.group, rt.resource, name, MODIFIED_MESSAGE);
    case 'Compacted':
      return errors.gone(`too old resource version: ${e.requestedRevision ?? ''} (${e.compactRevision ?? ''})`);
    case 'FutureRevision':
      return errors.timeout(`Too large resource version: ${e.requestedRevision ?? ''}, current: ${e.currentRevision ?? ''}`, 1);
    case 'BadRequest':
      return errors.badRequest(e.message);
    case 'Unavailable':
    case 'Closed':
      return errors.serviceUnavailable(`storage is unavailable: ${e.message}`);
    default:
      return errors.internal(e.message);
  }
}

export class GenericStore {
  readonly #router: ShardAccess;
  readonly #admission: Admission;
  readonly #now: () => Date;

  readonly #fields: FieldTracker | undefined;
  /** Per storage resource: work around writes that needs the running server (service allocation). */
  readonly #hooks = new Map<string, WriteHooks>();

  constructor(router: ShardAccess, admission: Admission, now: () => Date = () => new Date(), fields?: FieldTracker) {
    this.#router = router;
    this.#admission = admission;
    this.#now = now;
    this.#fields = fields;
  }

  /** `next` with managedFields updated for this write (unless apply already did it). */
  #track(rt: ResourceType, live: KObject | null, next: KObject, opts: WriteOptions, subresource: string): KObject {
    if (this.#fields === undefined || opts.fieldsTracked) return next;
    const manager = opts.fieldManager ?? (opts.userAgent ?? '').split('/')[0] ?? '';
    return this.#fields.update({
      live,
      next,
      manager: manager === '' ? 'unknown' : manager,
      subresource,
      apiVersion: rt.apiVersion,
      kind: rt.kind,
      statusSubresource: rt.hasStatus,
    });
  }

  get router(): ShardAccess {
    return this.#router;
  }

  /** Installs the write hooks of one resource type (see write-hooks.ts). */
  setWriteHooks(rt: ResourceType, hooks: WriteHooks): void {
    this.#hooks.set(rt.storageResource, hooks);
  }

  async #beginUpdate(rt: ResourceType, obj: KObject, old: KObject, ctx: StrategyContext): Promise<WriteTransaction> {
    const hooks = ctx.subresource === '' ? this.#hooks.get(rt.storageResource) : undefined;
    return hooks?.beginUpdate === undefined ? NO_TRANSACTION : hooks.beginUpdate(obj, old, ctx);
  }

  async #afterDelete(rt: ResourceType, obj: KObject, ctx: StrategyContext): Promise<void> {
    await this.#hooks.get(rt.storageResource)?.afterDelete?.(obj, ctx);
  }

  #ctx(opts: WriteOptions, subresource = ''): StrategyContext {
    return { user: opts.user, now: nowRfc3339(this.#now()), dryRun: opts.dryRun, subresource };
  }

  /** A shard's answer, its failure turned into the Status it means (no async frame: every read and write passes here). */
  #call<T>(rt: ResourceType, name: string, p: Promise<T>): Promise<T> {
    return p.catch((err: unknown) => {
      throw statusFromShardError(err, rt, name);
    });
  }

  // ---- reads ----

  /** Reads one object's bytes; 404 when absent. */
  get(rt: ResourceType, namespace: string, name: string, read: ReadMode): Promise<ObjectBytes> {
    // One promise on the shard's answer rather than frames awaiting each other: the hottest read there is.
    return this.#router.get(rt.storageResource, objectKey(rt, namespace, name), read).then(
      (res) => {
        const object = res.object;
        if (object === null) throw errors.notFound(rt.group, rt.resource, name);
        if (rt.conversion === undefined) return object;
        if (rt.conversion.fromStorageMany === undefined) return { json: servedBytes(rt, object.json), revision: object.revision };
        return servedBytesAsync(rt, object.json).then((json) => ({ json, revision: object.revision }));
      },
      (err: unknown) => {
        throw statusFromShardError(err, rt, name);
      },
    );
  }

  /** Reads and parses one object, or null when absent. */
  async getObject(rt: ResourceType, namespace: string, name: string, read: ReadMode = { kind: 'any' }): Promise<{ obj: KObject; revision: number; stale?: boolean } | null> {
    const res = await this.#call(rt, name, this.#router.get(rt.storageResource, objectKey(rt, namespace, name), read));
    if (res.object === null) return null;
    const obj = parseObject(res.object.json);
    const served = rt.conversion?.fromStorageMany !== undefined ? (await rt.conversion.fromStorageMany([obj]))[0]! : rt.conversion === undefined ? obj : rt.conversion.fromStorage(obj);
    return res.object.stale === true ? { obj: served, revision: res.object.revision, stale: true } : { obj: served, revision: res.object.revision };
  }

  /** Items as `page.encoding` asks (Protobuf only for types stored in their own shape: see listEncodingFor). */
  async list(
    rt: ResourceType,
    read: ReadMode,
    filter: Filter,
    page: ListPage,
  ): Promise<ListReply> {
    if (rt.conversion === undefined) return this.#call(rt, '', this.#router.list(rt.storageResource, read, filter, page));
    // Pieces (a large JSON answer streamed) only where the items go out as stored: a converted type re-encodes them
    // here, from whole items (a bare list's items lose their kind and apiVersion once converted).
    const bare = page.encoding === 'json-bare';
    const asked: ListPage = { ...page, stream: false, encoding: bare ? 'json' : page.encoding };
    const reply = await this.#call(rt, '', this.#router.list(rt.storageResource, read, filter, asked));
    // Protobuf items come only for relabeled types (listEncodingFor): the same messages, the served envelope.
    if (reply.encoding === 'protobuf') return reply;
    return { ...reply, encoding: page.encoding, items: await servedItemsAsync(rt, reply.items, reply.count, bare) };
  }

  // ---- create ----

  async create(rt: ResourceType, namespace: string, body: KObject, opts: WriteOptions): Promise<WriteResult> {
    const ctx = this.#ctx(opts);
    let obj = opts.bodyOwned === true ? body : cloneJson(body);
    this.#checkTypeMeta(rt, obj);
    this.#bindNamespace(rt, obj, namespace);
    // The scheme's defaulting, as the original's decode: mutating admission sees the defaulted object, before the type's create rules and validation.
    rt.strategy.defaults?.(obj);
    obj = (await this.#admitPhase('admit', 'CREATE', rt, obj, null, opts)) ?? obj;
    this.#checkTypeMeta(rt, obj);
    this.#bindNamespace(rt, obj, namespace);
    const meta = obj.metadata;
    // Fields only the server sets.
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    meta.uid = randomUUID();
    meta.creationTimestamp = ctx.now;
    if (rt.tracksGeneration) meta.generation = 1;
    else delete meta.generation;
    rt.strategy.prepareForCreate?.(obj, ctx);
    // Admission names the object as the request did: a generated name is not the request's (the original's attributes carry "").
    const requestedName = meta.name ?? '';
    const generate = (meta.name === undefined || meta.name === '') && typeof meta.generateName === 'string' && meta.generateName !== '';
    if (generate) meta.name = generatedName(meta.generateName!);
    const metaErrors = validateObjectMeta(meta, rt);
    const typeErrors = rt.strategy.validate?.(obj, ctx);
    this.#validate(rt, obj, typeErrors === undefined || typeErrors.length === 0 ? metaErrors : metaErrors.concat(typeErrors));
    const tracked = this.#track(rt, null, obj, opts, '');
    if (tracked !== obj) obj.metadata.managedFields = tracked.metadata.managedFields;
    await this.#admitPhase('validate', 'CREATE', rt, obj, null, opts, '', requestedName);
    if (rt.virtual) {
      if (!rt.strategy.answerCreate) throw errors.methodNotAllowed('create');
      const answer = await rt.strategy.answerCreate(obj, ctx);
      return { status: 201, body: new TextEncoder().encode(JSON.stringify(answer)) };
    }
    const hooks = this.#hooks.get(rt.storageResource);
    const txn = hooks?.beginCreate === undefined ? NO_TRANSACTION : await hooks.beginCreate(obj, ctx);
    let stored = false;
    try {
      return await this.#storeCreated(rt, namespace, obj, opts, generate, () => (stored = true));
    } finally {
      if (stored) await txn.commit();
      else await txn.revert();
    }
  }

  async #storeCreated(rt: ResourceType, namespace: string, obj: KObject, opts: WriteOptions, generate: boolean, onStored: () => void): Promise<WriteResult> {
    const meta = obj.metadata;
    for (let attempt = 1; ; attempt++) {
      const name = meta.name!;
      if (opts.dryRun) {
        const existing = await this.getObject(rt, namespace, name);
        if (existing !== null) throw errors.alreadyExists(rt.group, rt.resource, name);
        return { status: 201, body: serializeForStorage(obj) };
      }
      try {
        const created = await this.#router.create(rt.storageResource, objectKey(rt, namespace, name), (rt.conversion?.toStorageMany === undefined ? storedBytes(rt, obj) : await storedBytesAsync(rt, obj)));
        onStored();
        return { status: 201, body: (rt.conversion?.fromStorageMany === undefined ? servedBytes(rt, created.json) : await servedBytesAsync(rt, created.json)) };
      } catch (err) {
        // A generated name may collide: draw another, as the original retries.
        if (generate && err instanceof ShardCallError && err.error.code === 'AlreadyExists' && attempt < MAX_GENERATE_NAME_ATTEMPTS) {
          meta.name = generatedName(meta.generateName!);
          continue;
        }
        throw statusFromShardError(err, rt, name);
      }
    }
  }

  // ---- update ----

  /**
   * PUT: replaces the object (or its status, for the status subresource).
   * A resourceVersion in the body is a precondition (409 on mismatch);
   * without one the update is unconditional and retried on races.
   */
  async update(rt: ResourceType, namespace: string, name: string, body: KObject, opts: WriteOptions, subresource = ''): Promise<WriteResult> {
    this.#checkTypeMeta(rt, body);
    this.#bindNamespace(rt, body, namespace);
    if (body.metadata.name !== undefined && body.metadata.name !== name) {
      throw errors.badRequest(`the name of the object (${body.metadata.name}) does not match the name on the URL (${name})`);
    }
    body.metadata.name = name;
    const precondition = body.metadata.resourceVersion;
    if (precondition !== undefined && precondition !== '' && !/^[0-9]+$/.test(precondition)) {
      throw errors.badRequest(`invalid resourceVersion: ${JSON.stringify(precondition)}`);
    }
    return this.guaranteedUpdate(rt, namespace, name, opts, subresource, (current) => {
      if (current === null) {
        if (!rt.allowCreateOnUpdate || subresource !== '') throw errors.notFound(rt.group, rt.resource, name);
        return { create: cloneJson(body) };
      }
      if (precondition !== undefined && precondition !== '' && precondition !== current.metadata.resourceVersion) {
        throw errors.conflict(rt.group, rt.resource, name, MODIFIED_MESSAGE);
      }
      return { update: cloneJson(body) };
    });
  }

  /**
   * The read-modify-write loop every update goes through: read the current
   * object, let `decide` produce the new one, apply the strategy, validate,
   * admit, then compare-and-swap on the read revision; on a race, read again.
   */
  async guaranteedUpdate(
    rt: ResourceType,
    namespace: string,
    name: string,
    opts: WriteOptions,
    subresource: string,
    decide: (current: KObject | null) => { update: KObject } | { create: KObject } | Promise<{ update: KObject } | { create: KObject }>,
  ): Promise<WriteResult> {
    const ctx = this.#ctx(opts, subresource);
    let read: ReadMode = { kind: 'any' };
    for (let attempt = 0; ; attempt++) {
      const cur = await this.getObject(rt, namespace, name, read);
      const decision = await decide(cur === null ? null : cloneJson(cur.obj));
      if ('create' in decision) {
        const created = await this.create(rt, namespace, { ...decision.create, metadata: { ...decision.create.metadata, name } }, opts);
        return created;
      }
      const old = cur!.obj;
      // The new body defaulted (the original defaults while decoding it, or the patched object), then mutating admission sees it before the type's update rules (as the original's update transformers).
      rt.strategy.defaults?.(decision.update);
      const admitted = (await this.#admitPhase('admit', 'UPDATE', rt, decision.update, old, opts, subresource)) ?? decision.update;
      const prepared = this.#prepareUpdate(rt, admitted, old, ctx, subresource);
      const tracked = this.#track(rt, old, prepared, opts, subresource);
      const obj = this.#fields === undefined ? tracked : this.#fields.keepTimesIfUnchanged(tracked, old);
      this.#validate(rt, obj, [
        ...validateObjectMetaUpdate(obj.metadata, old.metadata, rt),
        ...(rt.strategy.validateUpdate?.(obj, old, ctx) ?? []),
      ]);
      await this.#admitPhase('validate', 'UPDATE', rt, obj, old, opts, subresource);
      // The last finalizer of an object being deleted is gone: the object goes.
      const finalize = old.metadata.deletionTimestamp && pendingFinalizers(rt, obj) === 0;
      const txn = finalize ? NO_TRANSACTION : await this.#beginUpdate(rt, obj, old, ctx);
      let stored = false;
      try {
        if (opts.dryRun) return { status: 200, body: serializeForStorage(obj) };
        if (!finalize && cur!.stale !== true && sameObject(obj, old)) {
          // Nothing changed: no write, no new resourceVersion (as the original).
          // Unless the stored bytes are sealed with an old key: then the write re-seals them (key rotation).
          return { status: 200, body: (await this.get(rt, namespace, name, { kind: 'any' })).json };
        }
        const key = objectKey(rt, namespace, name);
        if (finalize) {
          const deleted = await this.#router.delete(rt.storageResource, key, cur!.revision);
          await this.#afterDelete(rt, old, ctx);
          return { status: 200, body: (rt.conversion?.fromStorageMany === undefined ? servedBytes(rt, deleted.json) : await servedBytesAsync(rt, deleted.json)) };
        }
        const updated = await this.#router.update(rt.storageResource, key, (rt.conversion?.toStorageMany === undefined ? storedBytes(rt, obj) : await storedBytesAsync(rt, obj)), cur!.revision);
        stored = true;
        return { status: 200, body: (rt.conversion?.fromStorageMany === undefined ? servedBytes(rt, updated.json) : await servedBytesAsync(rt, updated.json)) };
      } catch (err) {
        if (err instanceof ShardCallError && (err.error.code === 'Conflict' || err.error.code === 'NotFound') && attempt < 16) {
          read = { kind: 'latest' };
          continue;
        }
        throw statusFromShardError(err, rt, name);
      } finally {
        if (stored) await txn.commit();
        else await txn.revert();
      }
    }
  }

  #prepareUpdate(rt: ResourceType, obj: KObject, old: KObject, ctx: StrategyContext, subresource: string): KObject {
    let next: KObject;
    if (subresource === 'finalize') {
      // namespaces/finalize changes spec.finalizers only.
      next = cloneJson(old);
      const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
      next['spec'] = { ...(isPlainObject(old['spec']) ? old['spec'] : {}), finalizers: Array.isArray(spec['finalizers']) ? spec['finalizers'] : [] };
    } else if (subresource === 'status') {
      // The status subresource changes status only.
      next = cloneJson(old);
      if (obj['status'] === undefined) delete next['status'];
      else next['status'] = obj['status'];
      next.metadata.resourceVersion = old.metadata.resourceVersion;
    } else {
      next = obj;
      if (rt.hasStatus && subresource === '') {
        // The main resource ignores status changes.
        if (old['status'] === undefined) delete next['status'];
        else next['status'] = old['status'];
      }
      const m = next.metadata;
      const o = old.metadata;
      // System fields cannot be changed by an update.
      m.uid = o.uid;
      m.creationTimestamp = o.creationTimestamp;
      if (o.deletionTimestamp) m.deletionTimestamp = o.deletionTimestamp;
      else delete m.deletionTimestamp;
      if (o.deletionGracePeriodSeconds !== undefined) m.deletionGracePeriodSeconds = o.deletionGracePeriodSeconds;
      else delete m.deletionGracePeriodSeconds;
      if (rt.tracksGeneration) {
        m.generation = (o.generation ?? 1) + (specChanged(next, old) ? 1 : 0);
      } else {
        delete m.generation;
      }
    }
    rt.strategy.prepareForUpdate?.(next, old, ctx);
    delete next.metadata.resourceVersion;
    next.apiVersion = rt.apiVersion;
    next.kind = rt.kind;
    return next;
  }

  // ---- delete ----

  async delete(rt: ResourceType, namespace: string, name: string, opts: DeleteOptions): Promise<WriteResult> {
    const ctx = this.#ctx(opts);
    let read: ReadMode = { kind: 'any' };
    for (let attempt = 0; ; attempt++) {
      const cur = await this.getObject(rt, namespace, name, read);
      if (cur === null) throw errors.notFound(rt.group, rt.resource, name);
      const obj = cur.obj;
      const pre = opts.preconditions;
      if (pre?.uid !== undefined && pre.uid !== obj.metadata.uid) {
        throw errors.conflict(rt.group, rt.resource, name, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${obj.metadata.uid ?? ''}`);
      }
      if (pre?.resourceVersion !== undefined && pre.resourceVersion !== obj.metadata.resourceVersion) {
        throw errors.conflict(rt.group, rt.resource, name, `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${obj.metadata.resourceVersion ?? ''}`);
      }
      await this.#admitPhase('admit', 'DELETE', rt, null, obj, opts);
      await this.#admitPhase('validate', 'DELETE', rt, null, obj, opts);
      // Deletion that must wait: finalizers (after adding the propagation
      // policy's), namespace spec finalizers, or a grace period (pods).
      const next = cloneJson(obj);
      applyPropagation(next, opts);
      rt.strategy.beforeDelete?.(next, ctx);
      const grace = rt.strategy.gracePeriod?.(next, opts.gracePeriodSeconds) ?? 0;
      const waits = pendingFinalizers(rt, next) > 0 || grace > 0;
      if (waits) {
        const m = next.metadata;
        if (!m.deletionTimestamp) {
          m.deletionTimestamp = nowRfc3339(new Date(this.#now().getTime() + grace * 1000));
          m.deletionGracePeriodSeconds = grace;
        } else if (grace > 0 && (m.deletionGracePeriodSeconds ?? Infinity) > grace) {
          // A shorter grace period may shorten a pending graceful deletion.
          m.deletionTimestamp = nowRfc3339(new Date(this.#now().getTime() + grace * 1000));
          m.deletionGracePeriodSeconds = grace;
        }
        rt.strategy.prepareForDelete?.(next, ctx);
        if (opts.dryRun) return { status: 200, body: serializeForStorage(next) };
        if (sameObject(next, obj)) return { status: 200, body: (await this.get(rt, namespace, name, { kind: 'any' })).json };
        try {
          const updated = await this.#router.update(rt.storageResource, objectKey(rt, namespace, name), (rt.conversion?.toStorageMany === undefined ? storedBytes(rt, next) : await storedBytesAsync(rt, next)), cur.revision);
          const status = opts.propagationPolicy === 'Foreground' || opts.orphanDependents === false ? 202 : 200;
          return { status, body: (rt.conversion?.fromStorageMany === undefined ? servedBytes(rt, updated.json) : await servedBytesAsync(rt, updated.json)) };
        } catch (err) {
          if (err instanceof ShardCallError && err.error.code === 'Conflict' && attempt < 16) {
            read = { kind: 'latest' };
            continue;
          }
          throw statusFromShardError(err, rt, name);
        }
      }
      if (opts.dryRun) return { status: 200, body: successStatus(rt, obj) };
      try {
        const deleted = await this.#router.delete(rt.storageResource, objectKey(rt, namespace, name), cur.revision);
        await this.#afterDelete(rt, obj, ctx);
        return { status: 200, body: rt.strategy.returnDeletedObject ? (rt.conversion?.fromStorageMany === undefined ? servedBytes(rt, deleted.json) : await servedBytesAsync(rt, deleted.json)) : successStatus(rt, obj) };
      } catch (err) {
        if (err instanceof ShardCallError && err.error.code === 'Conflict' && attempt < 16) {
          read = { kind: 'latest' };
          continue;
        }
        throw statusFromShardError(err, rt, name);
      }
    }
  }

  /** Deletes every object a list selects; answers the list of what was deleted. */
  async deleteCollection(rt: ResourceType, namespace: string, filter: Filter, opts: DeleteOptions): Promise<Uint8Array[]> {
    const list = await this.list(rt, { kind: 'latest' }, { ...filter, namespace: rt.namespaced ? namespace || undefined : undefined }, {});
    const items = list.count === 0 ? [] : (JSON.parse(`[${Buffer.from(list.items).toString('utf8')}]`) as KObject[]);
    const out: Uint8Array[] = [];
    for (const item of items) {
      try {
        const res = await this.delete(rt, item.metadata.namespace ?? '', item.metadata.name!, opts);
        out.push(res.body);
      } catch (err) {
        // Gone meanwhile: that is what we wanted.
        if (err instanceof StatusError && err.code === 404) continue;
        throw err;
      }
    }
    return out;
  }

  // ---- helpers ----

  #checkTypeMeta(rt: ResourceType, obj: KObject): void {
    if (!isPlainObject(obj)) throw errors.badRequest('the request body must be a JSON object');
    if (obj.metadata === undefined || obj.metadata === null) obj.metadata = {};
    if (!isPlainObject(obj.metadata)) throw errors.badRequest('metadata must be an object');
    if (obj.apiVersion !== undefined && obj.apiVersion !== rt.apiVersion) {
      throw errors.badRequest(`the API version in the data (${String(obj.apiVersion)}) does not match the expected API version (${rt.apiVersion})`);
    }
    if (obj.kind !== undefined && obj.kind !== rt.kind) {
      throw errors.badRequest(`the kind in the data (${String(obj.kind)}) does not match the expected kind (${rt.kind})`);
    }
    obj.apiVersion = rt.apiVersion;
    obj.kind = rt.kind;
  }

  #bindNamespace(rt: ResourceType, obj: KObject, namespace: string): void {
    const meta = obj.metadata;
    if (!rt.namespaced) {
      delete meta.namespace;
      return;
    }
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    meta.namespace = namespace;
  }

  #validate(rt: ResourceType, obj: KObject, errs: FieldError[]): void {
    if (errs.length === 0) return;
    throw errors.invalid(
      rt.group,
      rt.kind,
      obj.metadata.name ?? obj.metadata.generateName ?? '',
      errs.map((e) => ({ reason: e.type, message: e.message, field: e.field })),
    );
  }

  /**
   * Admits a CREATE on a subresource whose object is not stored as posted
   * (a Binding, an Eviction): the mutating then the validating phase.
   */
  async admitCreate(rt: ResourceType, subresource: string, obj: KObject, opts: WriteOptions): Promise<void> {
    const o = copyWith(opts, 'admitted', false);
    const admitted = (await this.#admitPhase('admit', 'CREATE', rt, obj, null, o, subresource)) ?? obj;
    await this.#admitPhase('validate', 'CREATE', rt, admitted, null, o, subresource);
  }

  /**
   * Runs one admission phase for a write, when any plugin handles it (the
   * chain knows per type, subresource and operation); answers the object as
   * the phase left it (a mutating webhook may replace it).
   */
  async #admitPhase(
    phase: 'admit' | 'validate',
    op: Operation,
    rt: ResourceType,
    obj: KObject | null,
    old: KObject | null,
    opts: WriteOptions,
    subresource = '',
    name: string = (obj ?? old)?.metadata.name ?? '',
  ): Promise<KObject | null> {
    if (opts.admitted === true || !this.#admission.has(phase, rt, subresource, op)) return obj;
    const recorder = opts.recorder ?? NO_RECORDER;
    const attrs = {
      operation: op,
      resourceType: rt,
      subresource,
      namespace: (obj ?? old)?.metadata.namespace ?? '',
      name,
      object: obj,
      oldObject: old,
      user: opts.user,
      dryRun: opts.dryRun,
      options: opts.requestOptions,
      warn: (m: string) => recorder.warn(m),
      annotate: (k: string, v: string) => recorder.annotate(k, v),
    };
    await this.#admission[phase](attrs);
    return attrs.object;
  }
}

/** `prefix` plus five random characters from the original's alphabet. */
export function generatedName(prefix: string): string {
  const base = prefix.length > 58 ? prefix.slice(0, 58) : prefix;
  let suffix = '';
  // Math.random, as the original's math/rand: a generated name is no secret (a collision is retried), and five
  // crypto.randomInt calls cost ~1,300 instructions a create (callgrind).
  for (let i = 0; i < 5; i++) suffix += GENERATE_ALPHABET[Math.floor(Math.random() * GENERATE_ALPHABET.length)];
  return base + suffix;
}

/** Everything but metadata and status counts as spec for generation purposes. */
function specChanged(a: KObject, b: KObject): boolean {
  const strip = (o: KObject): Record<string, unknown> => {
    const { metadata: _m, status: _s, apiVersion: _a, kind: _k, ...rest } = o;
    return rest;
  };
  return !jsonEqual(strip(a), strip(b));
}

/** Finalizers that hold an object being deleted (namespaces also wait on spec.finalizers). */
export function pendingFinalizers(rt: ResourceType, obj: KObject): number {
  let n = obj.metadata.finalizers?.length ?? 0;
  if (rt.group === '' && rt.resource === 'namespaces') {
    const spec = obj['spec'];
    if (isPlainObject(spec) && Array.isArray(spec['finalizers'])) n += spec['finalizers'].length;
  }
  return n;
}

function applyPropagation(obj: KObject, opts: DeleteOptions): void {
  const policy = opts.propagationPolicy ?? (opts.orphanDependents === true ? 'Orphan' : opts.orphanDependents === false ? 'Foreground' : undefined);
  if (policy === undefined || policy === 'Background') return;
  // Only objects that will really be deleted get the policy's finalizer
  // when someone (the garbage collector) acts on it; we record it as the original does.
  const finalizer = policy === 'Orphan' ? 'orphan' : 'foregroundDeletion';
  const list = obj.metadata.finalizers ?? [];
  if (!list.includes(finalizer)) obj.metadata.finalizers = [...list, finalizer];
}

/**
 * True when `next` equals `old` but for its resourceVersion: an update that
 * changes nothing (compared as objects, so the write path serializes once).
 */
function sameObject(next: KObject, old: KObject): boolean {
  const { resourceVersion: _a, ...nextMeta } = next.metadata;
  const { resourceVersion: _b, ...oldMeta } = old.metadata;
  return jsonEqual({ ...next, metadata: nextMeta }, { ...old, metadata: oldMeta });
}

function successStatus(rt: ResourceType, obj: KObject): Uint8Array {
  return new TextEncoder().encode(
    JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Success',
      details: { name: obj.metadata.name, group: rt.group, kind: rt.resource, uid: obj.metadata.uid },
    }),
  );
}
