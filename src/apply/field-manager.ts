/**
 * FieldManager: server-side apply and field ownership for the API server,
 * the original's FieldManager with its default layers:
 *
 * - update(): records what a create, update or non-apply patch changed
 *   (spec 2.5 rules 1 and 5); never conflicts. `metadata.managedFields` in
 *   the request may replace the recorded ones; `[{}]` wipes them first and
 *   the requester then owns what it changed; `[]` (or none) keeps the live
 *   ones (spec 4.8). Subresource writes always keep the live ones.
 * - apply(): merges an applied configuration into the live object
 *   (rules 2 to 5), throwing the original's 409 for conflicts unless forced.
 *
 * Around the merge, as the original: fields present before the first apply
 * are owned by `before-first-apply`; `apiVersion`, `kind` and server-set
 * metadata are never owned; updaters beyond 10 are folded into
 * `ancient-changes`; times change only with the object; fields the
 * strategy resets are not owned (status on the main resource of a type with
 * a status subresource, everything but status on `/status`).
 *
 * @example
 * const fm = new FieldManager(servedSchemas(registry.types));
 * const stored = fm.update({ live: old, next, manager: 'kubectl', subresource: '', apiVersion: 'apps/v1' });
 * const merged = fm.apply({ live: old, applied: body, manager: 'kubectl', force: false, subresource: '', apiVersion: 'apps/v1', kind: 'Deployment' });
 */
import { StatusError } from '../endpoints/status.ts';
import type { KObject, ManagedFieldsEntry } from '../registry/object.ts';
import type { ServedSchemas } from '../openapi/served-schemas.ts';
import { OBJECT_META } from '../openapi/schema-dsl.ts';
import { ConflictError, conflictsMessage } from './conflict.ts';
import { IGNORE_STATUS, ONLY_STATUS, type FieldFilter } from './field-filter.ts';
import { FieldSet } from './field-set.ts';
import {
  decodeManagedFields,
  emptyManaged,
  encodeManagedFields,
  formatTime,
  isWipe,
  ManagedFieldsError,
  managerKey,
  parseManagerKey,
  type Managed,
} from './managed-fields.ts';
import { versionedSet, type ManagedFields } from './managers.ts';
import { apply as applyConfig, update as updateManagers } from './merge.ts';
import { fieldElement, pathString } from './path.ts';
import { DEDUCED, mapType, type SchemaType } from './schema.ts';
import { schemaFromDsl } from './schema-from-dsl.ts';
import { validate, validationMessage } from './validate.ts';
import { goQuote, isMap, setKey, type Json, type JsonMap } from './value.ts';

/** The original keeps at most this many updaters before folding the oldest. */
export const DEFAULT_MAX_UPDATE_MANAGERS = 10;

export interface FieldManagerOptions {
  readonly maxUpdateManagers?: number;
}

interface Common {
  /** The field manager; callers default it for updates (managerFromUserAgent). */
  readonly manager: string;
  /** '' for the main resource, else `status`, `scale`, ... */
  readonly subresource?: string;
  /** The served API version (`apps/v1`): what the recorded paths refer to. */
  readonly apiVersion?: string;
  /** The served kind; defaults to the live object's. */
  readonly kind?: string;
  /** Whether the type has a status subresource; default: its schema declares `status`. */
  readonly statusSubresource?: boolean;
  /** Time recorded for the manager's change; default now. */
  readonly now?: Date;
}

export interface UpdateRequest extends Common {
  /** The stored object; null on create. */
  readonly live: KObject | null;
  /** The object about to be stored. */
  readonly next: KObject;
}

export interface ApplyRequest extends Common {
  /** The stored object; null when apply creates it. */
  readonly live: KObject | null;
  /** The request body, parsed (JSON or YAML). */
  readonly applied: unknown;
  readonly force?: boolean;
  /** Name and namespace from the URL, checked against the body's. */
  readonly name?: string;
  readonly namespace?: string;
}

interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** The `manager` of a request without `fieldManager`: the User-Agent up to the first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0]!;
}

const CURRENT_OPERATION = 'current-operation';
const BEFORE_FIRST_APPLY = 'before-first-apply';
const ANCIENT_CHANGES = 'ancient-changes';

/** Paths nobody owns: set by the server or identifying the object (the original's strip set). */
const STRIPPED = FieldSet.of(
  [fieldElement('apiVersion')],
  [fieldElement('kind')],
  [fieldElement('metadata')],
  ...['name', 'namespace', 'creationTimestamp', 'selfLink', 'uid', 'clusterName', 'generation', 'managedFields', 'resourceVersion'].map((f) => [
    fieldElement('metadata'),
    fieldElement(f),
  ]),
);

export class FieldManager {
  readonly #schemas: ServedSchemas;
  readonly #maxUpdateManagers: number;
  readonly #types = new Map<string, SchemaType>();

  constructor(schemas: ServedSchemas, opts: FieldManagerOptions = {}) {
    this.#schemas = schemas;
    this.#maxUpdateManagers = opts.maxUpdateManagers ?? DEFAULT_MAX_UPDATE_MANAGERS;
  }

  /**
   * `next` with `metadata.managedFields` brought up to date for a write by
   * `manager`. Never throws for ownership reasons: when the object cannot be
   * read through its schema, the live entries are kept (as the original).
   */
  update(req: UpdateRequest): KObject {
    const { live, next } = req;
    const sub = req.subresource ?? '';
    const requested = next.metadata?.managedFields as unknown;
    const stripped = withoutManagedFields(next);
    const liveEntries = live?.metadata?.managedFields;
    const liveManaged = (): Managed => decodeOrEmpty(liveEntries);
    let managed: Managed;
    let wiped = false;
    if (sub !== '') managed = liveManaged();
    else if (isWipe(requested)) {
      managed = emptyManaged();
      wiped = true;
    } else {
      managed = decodeOrEmpty(requested as ManagedFieldsEntry[] | undefined);
      if (managed.fields.size === 0) managed = liveManaged();
    }
    // An existing object nobody owns stays untracked until someone applies
    // (the original's skip of non-applied objects), unless this write wiped it.
    if (managed.fields.size === 0 && !wiped && live !== null && isNonEmptyString(live.metadata?.uid)) {
      return withManagedFields(stripped, undefined);
    }
    try {
      const gvk = this.#gvk(req, live, next);
      const type = this.#type(gvk);
      const apiVersion = gvString(gvk);
      const key = managerKey({ manager: req.manager === '' ? 'unknown' : req.manager, operation: 'Update', apiVersion, subresource: sub });
      const result = this.#recordUpdate({
        live: live === null ? emptyObject(type) : asJson(withoutManagedFields(live)),
        next: asJson(stripped),
        managed,
        key,
        apiVersion,
        type,
        ignore: this.#ignore(sub, type, req.statusSubresource),
        now: req.now ?? new Date(),
      });
      return withManagedFields(stripped, encodeManagedFields(result));
    } catch (err) {
      if (err instanceof StatusError) throw err;
      return withManagedFields(stripped, liveEntries);
    }
  }

  /**
   * The live object with `applied` merged in for `manager`, its
   * managedFields updated; the live object itself (with new managedFields)
   * when nothing changed. Throws StatusError: 409 for conflicts, 400 for
   * a body that is not a valid configuration, 422 without a manager.
   */
  apply(req: ApplyRequest): KObject {
    if (req.manager === '') {
      throw new StatusError(422, 'Invalid', 'PatchOptions.meta.orch.io "" is invalid: fieldManager: Required value: is required for apply patch', {
        group: 'meta.orch.io',
        kind: 'PatchOptions',
        name: '',
        causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
      });
    }
    const { live } = req;
    const applied = req.applied;
    if (!isMap(applied as Json)) throw badRequest('error decoding patch: the applied configuration must be an object');
    const config = applied as JsonMap;
    const meta = config['metadata'];
    if (meta !== undefined && meta !== null && !isMap(meta)) throw badRequest('metadata must be an object');
    if (isMap(meta) && meta['managedFields'] !== undefined && meta['managedFields'] !== null) {
      throw badRequest('metadata.managedFields must be nil');
    }
    // Without a kind from the caller or the live object, the body's stands (create by apply).
    const expected = this.#gvk(req, live, config as unknown as KObject);
    const got = parseGvk(config['apiVersion'], config['kind']);
    if (got.group !== expected.group || got.version !== expected.version || got.kind !== expected.kind) {
      throw badRequest(`invalid object type: ${gvkString(got)}`);
    }
    checkIdentity(config, req, live);

    let managed: Managed;
    try {
      managed = decodeManagedFields(live?.metadata?.managedFields);
    } catch (err) {
      throw new StatusError(500, '', `failed to decode managed fields: ${err instanceof Error ? err.message : String(err)}`);
    }
    const type = this.#type(expected);
    const apiVersion = gvString(expected);
    const sub = req.subresource ?? '';
    const ignore = this.#ignore(sub, type, req.statusSubresource);
    const now = req.now ?? new Date();
    const liveJson: Json = live === null ? emptyObject(type) : asJson(withoutManagedFields(live));
    if (managed.fields.size === 0 && live !== null) {
      // Whatever the object holds before its first apply belongs to someone,
      // so that an applier cannot remove fields it never applied.
      managed = this.#recordUpdate({
        live: emptyObject(type),
        next: liveJson,
        managed,
        key: managerKey({ manager: BEFORE_FIRST_APPLY, operation: 'Update', apiVersion }),
        apiVersion,
        type,
        ignore,
        now,
      });
    }

    const errs = validate(config, type);
    if (errs.length > 0) {
      throw badRequest(`failed to create typed patch object (${objectName(config)}; ${gvkString(expected)}): ${validationMessage(errs)}`);
    }
    const key = managerKey({ manager: req.manager, operation: 'Apply', subresource: sub });
    let result;
    try {
      result = applyConfig({ live: liveJson, config, type, version: apiVersion, managers: managed.fields, manager: key, force: req.force === true, ignore });
    } catch (err) {
      if (err instanceof ConflictError) throw conflictError(err);
      throw err;
    }
    const fields = strip(result.managers, key);
    const times = new Map(managed.times);
    let object: Json;
    if (result.object !== undefined) {
      times.set(key, formatTime(now));
      // A fresh copy: the merge shares subtrees with the live object and the body.
      object = dropNulls(result.object);
    } else {
      object = structuredClone(liveJson ?? {});
      // The original leaves a manager that changed nothing without a time; give it one.
      if (fields.has(key) && times.get(key) === undefined) times.set(key, formatTime(now));
    }
    if (!isMap(object)) throw new StatusError(500, '', 'apply removed the whole object');
    return withManagedFields(object as unknown as KObject, encodeManagedFields({ fields, times }));
  }

  /**
   * An update by `key`, as the original's layers record it: the changes go
   * to a temporary manager, lose the stripped paths, join the manager's
   * earlier set (stamped `now`), and old updaters are folded when too many.
   */
  #recordUpdate(args: {
    live: Json;
    next: Json;
    managed: Managed;
    key: string;
    apiVersion: string;
    type: SchemaType;
    ignore: FieldFilter | undefined;
    now: Date;
  }): Managed {
    const { key } = args;
    const fields = strip(
      updateManagers({
        live: args.live,
        next: args.next,
        type: args.type,
        version: args.apiVersion,
        managers: args.managed.fields,
        manager: CURRENT_OPERATION,
        ignore: args.ignore,
      }),
      CURRENT_OPERATION,
    );
    const times = new Map(args.managed.times);
    const current = fields.get(CURRENT_OPERATION);
    if (current !== undefined) {
      fields.delete(CURRENT_OPERATION);
      const previous = fields.get(key);
      fields.set(key, previous === undefined ? current : versionedSet(current.set.union(previous.set), current.apiVersion, current.applied));
      times.set(key, formatTime(args.now));
    }
    capUpdateManagers(fields, times, this.#maxUpdateManagers);
    return { fields, times };
  }

  #gvk(req: Common, live: KObject | null, next: KObject | undefined): Gvk {
    const apiVersion = req.apiVersion ?? live?.apiVersion ?? next?.apiVersion;
    const kind = req.kind ?? live?.kind ?? next?.kind;
    return parseGvk(apiVersion, kind);
  }

  #type(gvk: Gvk): SchemaType {
    const k = `${gvk.group}/${gvk.version}/${gvk.kind}`;
    let t = this.#types.get(k);
    if (t === undefined) {
      const set = this.#schemas.set;
      let name: string | undefined;
      try {
        name = this.#schemas.kindSchema(gvk);
      } catch {
        name = undefined;
      }
      t = name !== undefined ? schemaFromDsl(set, name) : unstructuredObject(set.get(OBJECT_META) !== undefined ? schemaFromDsl(set, OBJECT_META) : DEDUCED);
      this.#types.set(k, t);
    }
    return t;
  }

  #ignore(sub: string, type: SchemaType, statusSubresource: boolean | undefined): FieldFilter | undefined {
    if (sub === 'status') return ONLY_STATUS;
    if (sub !== '') return undefined;
    const hasStatus = statusSubresource ?? type.map?.field('status') !== undefined;
    return hasStatus ? IGNORE_STATUS : undefined;
  }
}

/**
 * What the original compares a new object against: its Go type's zero
 * value, where the top-level structs (metadata, spec, status) exist and are
 * empty. So a creator owns `spec.replicas` but not `spec` itself, as there.
 * Deeper value structs are not known to our declarations and count as new.
 */
function emptyObject(type: SchemaType): Json {
  const out: Record<string, Json> = {};
  for (const name of ['metadata', 'spec', 'status']) {
    const ft = type.map?.field(name);
    if (ft?.map !== undefined && ft.map.element === undefined) out[name] = {};
  }
  return out;
}

/** A kind nobody declared: metadata as usual, every other key untyped (spec 2.5). */
function unstructuredObject(objectMeta: SchemaType): SchemaType {
  return mapType({ fields: (name) => (name === 'metadata' ? objectMeta : undefined), element: DEDUCED });
}

/** `key`'s set without the stripped paths; the manager goes when nothing is left. */
function strip(fields: ManagedFields, key: string): ManagedFields {
  const vs = fields.get(key);
  if (vs === undefined) return fields;
  const set = vs.set.difference(STRIPPED);
  if (set.empty()) fields.delete(key);
  else fields.set(key, versionedSet(set, vs.apiVersion, vs.applied));
  return fields;
}

/**
 * Folds the oldest updaters into one `ancient-changes` manager per API
 * version until at most `max` updaters are left (the original's cap).
 */
function capUpdateManagers(fields: ManagedFields, times: Map<string, string | undefined>, max: number): void {
  const updaters = [...fields].filter(([, vs]) => !vs.applied).map(([k]) => k);
  if (updaters.length <= max) return;
  const seconds = (k: string): number => {
    const t = times.get(k);
    const ms = t === undefined ? NaN : Date.parse(t);
    return Number.isNaN(ms) ? 0 : Math.floor(ms / 1000);
  };
  updaters.sort((a, b) => seconds(a) - seconds(b) || (a < b ? -1 : a > b ? 1 : 0));
  const firstOfVersion = new Map<string, string>();
  let length = updaters.length;
  for (let i = 0; i < updaters.length && length > max; i++) {
    const manager = updaters[i]!;
    const vs = fields.get(manager)!;
    const bucket = managerKey({ manager: ANCIENT_CHANGES, operation: 'Update', apiVersion: vs.apiVersion });
    const first = firstOfVersion.get(vs.apiVersion);
    if (first === undefined) {
      firstOfVersion.set(vs.apiVersion, manager);
      continue;
    }
    if (!fields.has(bucket)) {
      fields.set(bucket, fields.get(first)!);
      fields.delete(first);
    }
    fields.set(bucket, versionedSet(vs.set.union(fields.get(bucket)!.set), vs.apiVersion, vs.applied));
    fields.delete(manager);
    length--;
    times.set(bucket, times.get(manager));
  }
}

function decodeOrEmpty(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  try {
    return decodeManagedFields(entries);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return emptyManaged();
    throw err;
  }
}

/** How the original names a manager in conflicts: `"m"`, `"m" with subresource "status"`, `"m" using apps/v1`. */
function printManager(key: string): string {
  let id;
  try {
    id = parseManagerKey(key);
  } catch {
    return goQuote(key);
  }
  let s = goQuote(id.manager);
  if (id.subresource !== undefined && id.subresource !== '') s += ` with subresource ${goQuote(id.subresource)}`;
  if (id.operation === 'Update') s += ` using ${id.apiVersion ?? ''}`;
  return s;
}

function conflictError(err: ConflictError): StatusError {
  const n = err.conflicts.length;
  const message = `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${conflictsMessage(err.conflicts, printManager)}`;
  return new StatusError(409, 'Conflict', message, {
    causes: err.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) })),
  });
}

function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** Name and namespace in the body must match the URL's (the original's checkName). */
function checkIdentity(config: JsonMap, req: ApplyRequest, live: KObject | null): void {
  const meta = isMap(config['metadata']) ? config['metadata'] : {};
  const name = meta['name'];
  const want = req.name ?? live?.metadata?.name;
  if (typeof name === 'string' && want !== undefined && name !== want) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${want})`);
  }
  const ns = meta['namespace'];
  const wantNs = req.namespace ?? live?.metadata?.namespace;
  if (typeof ns === 'string' && ns !== '' && wantNs !== undefined && ns !== wantNs) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

function parseGvk(apiVersion: unknown, kind: unknown): Gvk {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  return {
    group: slash < 0 ? '' : av.slice(0, slash),
    version: slash < 0 ? av : av.slice(slash + 1),
    kind: typeof kind === 'string' ? kind : '',
  };
}

function gvString(gvk: Gvk): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
function gvkString(gvk: Gvk): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

function objectName(config: JsonMap): string {
  const meta = isMap(config['metadata']) ? config['metadata'] : {};
  const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
  return `${s(meta['namespace'])}/${s(meta['name'])}`;
}

function isNonEmptyString(v: unknown): boolean {
  return typeof v === 'string' && v !== '';
}

/** API objects are JSON data; this is the one place that says so to the type checker. */
function asJson(obj: KObject): Json {
  return obj as unknown as Json;
}

function withoutManagedFields(obj: KObject): KObject {
  if (obj.metadata === undefined || obj.metadata === null || !('managedFields' in obj.metadata)) return obj;
  const { managedFields: _drop, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

function withManagedFields(obj: KObject, entries: ManagedFieldsEntry[] | undefined): KObject {
  const base = withoutManagedFields(obj);
  const metadata = { ...(base.metadata ?? {}) };
  if (entries !== undefined) metadata.managedFields = entries;
  return { ...base, metadata };
}

/**
 * Map members that are null go: the original decodes the merged object into
 * its Go type, where a null pointer, map or list is simply absent.
 */
function dropNulls(v: Json): Json {
  if (Array.isArray(v)) return (v as readonly Json[]).map(dropNulls);
  if (!isMap(v)) return v;
  const out: Record<string, Json> = {};
  for (const k of Object.keys(v)) {
    const x = v[k]!;
    if (x !== null) setKey(out, k, dropNulls(x));
  }
  return out;
}
