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
import { StatusError } from '../api/status.ts';
import type { KObject, ManagedFieldsEntry } from '../registry/object.ts';
import type { ServedSchemas } from '../openapi/served-schemas.ts';
import { OBJECT_META } from '../openapi/schema-dsl.ts';
import { badRequest, checkIdentity, conflictStatus, gvkString, gvString, missingManager, objectName, parseGvk, type Gvk } from './apply-errors.ts';
import { ConflictError } from './conflict.ts';
import { IGNORE_STATUS, ONLY_STATUS, type FieldFilter } from './field-filter.ts';
import { decodeManagedFields, emptyManaged, encodeManagedFields, formatTime, isWipe, ManagedFieldsError, managerKey, type Managed } from './managed-fields.ts';
import { apply as applyConfig } from './merge.ts';
import { asJson, dropNulls, emptyObject, withManagedFields, withoutManagedFields } from './object-parts.ts';
import { DEDUCED, mapType, type SchemaType } from './schema.ts';
import { schemaFromDsl } from './schema-from-dsl.ts';
import { recordUpdate, strip } from './update-layers.ts';
import { validate, validationMessage } from './validate.ts';
import { isMap, type Json, type JsonMap } from './value.ts';

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

/** The `manager` of a request without `fieldManager`: the User-Agent up to the first `/`. */
export function managerFromUserAgent(userAgent: string | undefined): string {
  return (userAgent ?? '').split('/')[0]!;
}

const BEFORE_FIRST_APPLY = 'before-first-apply';

/** Creates remembered per field manager (see #createKey): at most this many, each of a shape at most this long. */
const CREATE_MEMO_ENTRIES = 256;
const CREATE_MEMO_MAX_SHAPE = 8 * 1024;

/**
 * What a create recorded: its entries, frozen to the last field set (each later create gets entries of its own
 * that share the field sets), and the time they carry (replaced by each later create's).
 */
interface RememberedCreate {
  readonly entries: readonly ManagedFieldsEntry[] | undefined;
  readonly time: string;
}

/** A manager's last create of a kind: its shape's skeleton and its key in the remembered creates. */
interface LastShape {
  readonly skeleton: Skeleton;
  readonly key: string;
}

/** Without a status subresource, with one, and not said (as the key tells them apart). */
type LastShapes = [LastShape | undefined, LastShape | undefined, LastShape | undefined];

export class FieldManager {
  readonly #schemas: ServedSchemas;
  readonly #maxUpdateManagers: number;
  readonly #types = new Map<string, SchemaType>();
  /**
   * The managedFields of recent creates, by everything that decides them. A
   * create is compared with an empty object, so its entries depend only on
   * the type, the manager and the object's shape (shapeOf), plus the time:
   * clients creating many objects of one shape (a controller's pods, a load
   * test's ConfigMaps) get them without the typed comparison, the heaviest
   * JavaScript step of a create on its serving thread (57 of ~270 µs here).
   */
  readonly #creates = new Map<string, RememberedCreate>();
  /** The last create's shape and key by manager, apiVersion, kind and status subresource (#createKey). */
  readonly #lastShapes = new Map<string, Map<string, Map<string, LastShapes>>>();
  /** Kinds in #lastShapes: at most CREATE_MEMO_ENTRIES. */
  #lastShapeCount = 0;

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
    if (managed.fields.size === 0 && !wiped && live !== null && typeof live.metadata?.uid === 'string' && live.metadata.uid !== '') {
      return withManagedFields(stripped, undefined);
    }
    const now = req.now ?? new Date();
    // A create remembered or to remember: only of kinds whose schema cannot change (a custom resource's may),
    // which are those #type keeps; their first create is compared, and remembered once the schema is kept.
    const create = live === null && sub === '' && requested === undefined;
    try {
      const gvk = this.#gvk(req, live, next);
      let createKey = create && this.#types.has(typeKey(gvk)) ? this.#createKey(req, stripped) : undefined;
      if (createKey !== undefined) {
        const remembered = this.#creates.get(createKey);
        if (remembered !== undefined) return withManagedFields(stripped, restamped(remembered, formatTime(now)));
      }
      const type = this.#type(gvk);
      const apiVersion = gvString(gvk);
      const key = managerKey({ manager: req.manager === '' ? 'unknown' : req.manager, operation: 'Update', apiVersion, subresource: sub });
      const result = recordUpdate({
        maxUpdateManagers: this.#maxUpdateManagers,
        live: live === null ? emptyObject(type) : asJson(withoutManagedFields(live)),
        next: asJson(stripped),
        managed,
        key,
        apiVersion,
        type,
        ignore: this.#ignore(sub, type, req.statusSubresource),
        now,
      });
      const entries = encodeManagedFields(result);
      if (create && this.#types.has(typeKey(gvk))) createKey ??= this.#createKey(req, stripped);
      if (createKey !== undefined) this.#rememberCreate(createKey, entries, formatTime(now));
      return withManagedFields(stripped, entries);
    } catch (err) {
      // As the original's UpdateNoErrors: ownership bookkeeping never fails a write.
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
    if (req.manager === '') throw missingManager();
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
    if (live !== null) checkLive(liveJson, type, expected);
    if (managed.fields.size === 0 && live !== null) {
      // Whatever the object holds before its first apply belongs to someone,
      // so that an applier cannot remove fields it never applied.
      managed = recordUpdate({
        maxUpdateManagers: this.#maxUpdateManagers,
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
      if (err instanceof ConflictError) throw conflictStatus(err);
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
      object = structuredClone(liveJson);
      // The original leaves a manager that changed nothing without a time; give it one.
      if (fields.has(key) && times.get(key) === undefined) times.set(key, formatTime(now));
    }
    if (!isMap(object)) throw new StatusError(500, '', 'apply removed the whole object');
    return withManagedFields(object as unknown as KObject, encodeManagedFields({ fields, times }));
  }

  /**
   * What decides a create's entries besides the time: the served kind, the
   * manager, whether the type has a status subresource (what is ignored), and
   * the object's shape (shapeOf). Undefined for a shape too large to be worth
   * remembering.
   */
  #createKey(req: UpdateRequest, next: KObject): string | undefined {
    // A manager's creates of a kind mostly repeat one shape: compared with the last one's skeleton, the key
    // (and its hash) is that one's, without building the shape's string (~14,000 instructions a ConfigMap).
    // Found through maps by the parts as they come (the kind's strings are the registry's own, their hashes
    // kept), not by a key joined from them.
    const apiVersion = req.apiVersion ?? '';
    const kind = req.kind ?? '';
    const status = req.statusSubresource === undefined ? 2 : req.statusSubresource ? 1 : 0;
    const byKind = this.#lastShapes.get(req.manager)?.get(apiVersion)?.get(kind);
    const last = byKind?.[status];
    if (last !== undefined && sameShape(next, last.skeleton)) return last.key;
    const shape = shapeOf(next, CREATE_MEMO_MAX_SHAPE);
    if (shape === undefined) return undefined;
    const key = `${apiVersion}\u0000${kind}\u0000${req.manager}\u0000${String(req.statusSubresource)}\u0000${shape}`;
    this.#rememberShape(req.manager, apiVersion, kind, status, byKind, { skeleton: skeletonOf(next), key });
    return key;
  }

  #rememberShape(manager: string, apiVersion: string, kind: string, status: 0 | 1 | 2, byKind: LastShapes | undefined, last: LastShape): void {
    if (byKind !== undefined) {
      byKind[status] = last;
      return;
    }
    // Bounded by clearing: managers are named by clients, and a lost entry costs one shape string.
    if (++this.#lastShapeCount > CREATE_MEMO_ENTRIES) {
      this.#lastShapes.clear();
      this.#lastShapeCount = 1;
    }
    let byVersion = this.#lastShapes.get(manager);
    if (byVersion === undefined) this.#lastShapes.set(manager, (byVersion = new Map()));
    let kinds = byVersion.get(apiVersion);
    if (kinds === undefined) byVersion.set(apiVersion, (kinds = new Map()));
    const fresh: LastShapes = [undefined, undefined, undefined];
    fresh[status] = last;
    kinds.set(kind, fresh);
  }

  #rememberCreate(key: string, entries: ManagedFieldsEntry[] | undefined, time: string): void {
    this.#creates.set(key, { entries: entries === undefined ? undefined : deepFreeze(structuredClone(entries)), time });
    if (this.#creates.size > CREATE_MEMO_ENTRIES) this.#creates.delete(this.#creates.keys().next().value!);
  }

  #gvk(req: Common, live: KObject | null, next: KObject | undefined): Gvk {
    const apiVersion = req.apiVersion ?? live?.apiVersion ?? next?.apiVersion;
    const kind = req.kind ?? live?.kind ?? next?.kind;
    return parseGvk(apiVersion, kind);
  }

  /**
   * Apply schemas of kinds served after start (custom resources), given
   * ObjectMeta's type; asked only for kinds without a declared schema, so
   * built-in kinds never reach it. Not cached here: a definition may change.
   */
  customType: ((gvk: Gvk, objectMeta: SchemaType) => SchemaType | undefined) | undefined;

  #type(gvk: Gvk): SchemaType {
    const k = typeKey(gvk);
    let t = this.#types.get(k);
    if (t === undefined) {
      const set = this.#schemas.set;
      let name: string | undefined;
      try {
        name = this.#schemas.kindSchema(gvk);
      } catch {
        name = undefined;
      }
      const objectMeta = (): SchemaType => (set.get(OBJECT_META) !== undefined ? schemaFromDsl(set, OBJECT_META) : DEDUCED);
      if (name === undefined) {
        const custom = this.customType?.(gvk, objectMeta());
        if (custom !== undefined) return custom;
      }
      t = name !== undefined ? schemaFromDsl(set, name) : unstructuredObject(objectMeta());
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
 * The live object must be readable through its schema before anything is
 * merged into it, as the original's `ObjectToTyped(live, AllowDuplicates)`.
 * Writes other than apply may store what apply cannot key: an associative
 * list item without its key (a ServiceAccount's `secrets: [{}]`, or a null
 * item decoded to `{}`), since ownership bookkeeping never fails those
 * (`update` above). Unchecked, the merge threw on such an item and the
 * request ended in the generic panic 500 (the seed-6 fuzz run's
 * ServiceAccount cases 169762 and 185620). The original answers its own 500
 * (reason unknown) naming the object and the path; so does this. Duplicated
 * keys are allowed in a live object; scalars of another type and fields the
 * schema does not declare are left to the merge, which carries them as the
 * live object's (the typed decoding of writes keeps them out of the store).
 */
function checkLive(live: Json, type: SchemaType, gvk: Gvk): void {
  const errs = validate(live, type, { allowDuplicates: true }).filter((e) => /^element \d+: /.test(e.message));
  if (errs.length === 0) return;
  const name = objectName(isMap(live) ? live : {});
  throw new StatusError(500, '', `failed to create typed live object (${name}; ${gvkString(gvk)}): ${validationMessage(errs)}`);
}

/** A kind nobody declared: metadata as usual, every other key untyped (spec 2.5). */
function unstructuredObject(objectMeta: SchemaType): SchemaType {
  return mapType({ fields: (name) => (name === 'metadata' ? objectMeta : undefined), element: DEDUCED });
}

function decodeOrEmpty(entries: readonly ManagedFieldsEntry[] | undefined): Managed {
  try {
    return decodeManagedFields(entries);
  } catch (err) {
    if (err instanceof ManagedFieldsError) return emptyManaged();
    throw err;
  }
}

/** The key of a kind's schema in FieldManager's cache. */
function typeKey(gvk: Gvk): string {
  return `${gvk.group}/${gvk.version}/${gvk.kind}`;
}

/**
 * A remembered create's entries as new entry objects, each carrying `time` where the remembered one carried its
 * own. Their field sets are shared and frozen: nothing changes an entry's fieldsV1 in place (it is read, encoded,
 * or replaced whole), and anything that tried would throw rather than change other objects' entries.
 */
function restamped(r: RememberedCreate, time: string): ManagedFieldsEntry[] | undefined {
  if (r.entries === undefined) return undefined;
  return r.entries.map((e) => (e.time === r.time ? { ...e, time } : { ...e }));
}

/** `v` with every object in it frozen. */
function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null) {
    for (const x of Object.values(v)) deepFreeze(x);
    Object.freeze(v);
  }
  return v;
}

/**
 * What a value's field set, compared with an empty object, depends on: the
 * keys of its maps, the kind of each value (string, number, boolean, null,
 * map, list), and its lists whole (their items' keys, or the items of a set,
 * are values). A scalar's value in a map never changes which fields it sets:
 * a ConfigMap's shape is `{"apiVersion":s,"kind":s,"metadata":{...},"data":{"v":s}}`
 * whatever its data. Keys are quoted as JSON, so no key can pass for another.
 * Undefined once the shape grows past `max` characters (it stops there).
 */
export function shapeOf(v: unknown, max = Infinity): string | undefined {
  const out = { s: '' };
  return addShape(v, out, max) ? out.s : undefined;
}

/**
 * A shape (shapeOf) as a tree, to compare an object with without building
 * its string: a map's keys in order and their values' skeletons; a scalar's
 * or null's letter; a list's JSON after `[` (lists count whole).
 */
type Skeleton = string | { readonly keys: readonly string[]; readonly kids: readonly Skeleton[] };

function skeletonOf(v: unknown): Skeleton {
  if (v === null) return 'z';
  switch (typeof v) {
    case 'string':
      return 's';
    case 'number':
      return 'n';
    case 'boolean':
      return 'b';
    case 'object': {
      if (Array.isArray(v)) return `[${JSON.stringify(v)}`;
      const keys: string[] = [];
      const kids: Skeleton[] = [];
      const m = v as Record<string, unknown>;
      for (const k in m) {
        const x = m[k];
        if (x === undefined) continue;
        keys.push(k);
        kids.push(skeletonOf(x));
      }
      return { keys, kids };
    }
    default:
      return 'u';
  }
}

/** Whether `v` has the shape `s` is the skeleton of: what shapeOf(v) === the shape's string says, by the same rules. */
function sameShape(v: unknown, s: Skeleton): boolean {
  if (typeof s === 'string') {
    switch (s) {
      case 'z':
        return v === null;
      case 's':
        return typeof v === 'string';
      case 'n':
        return typeof v === 'number';
      case 'b':
        return typeof v === 'boolean';
      case 'u':
        return v !== null && typeof v !== 'object' && typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean';
      default:
        return Array.isArray(v) && s === `[${JSON.stringify(v)}`;
    }
  }
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  const m = v as Record<string, unknown>;
  const { keys, kids } = s;
  let i = 0;
  for (const k in m) {
    const x = m[k];
    if (x === undefined) continue;
    if (i === keys.length || k !== keys[i] || !sameShape(x, kids[i]!)) return false;
    i++;
  }
  return i === keys.length;
}

/** Appends `v`'s shape to `out.s`; false as soon as it is longer than `max`. */
function addShape(v: unknown, out: { s: string }, max: number): boolean {
  if (v === null) out.s += 'z';
  else {
    switch (typeof v) {
      case 'string':
        out.s += 's';
        break;
      case 'number':
        out.s += 'n';
        break;
      case 'boolean':
        out.s += 'b';
        break;
      case 'object':
        if (Array.isArray(v)) out.s += JSON.stringify(v);
        else {
          out.s += '{';
          const m = v as Record<string, unknown>;
          for (const k in m) {
            const x = m[k];
            if (x === undefined) continue;
            out.s += `${JSON.stringify(k)}:`;
            if (!addShape(x, out, max)) return false;
            out.s += ',';
          }
          out.s += '}';
        }
        break;
      default:
        // Not JSON (undefined is absent): its own mark, never equal to a JSON value's.
        out.s += 'u';
    }
  }
  return out.s.length <= max;
}
