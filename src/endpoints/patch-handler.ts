/**
 * PATCH: JSON patch, merge patch and strategic merge patch applied to the
 * current object inside the store's read-modify-write loop, so a patch that
 * races another write is re-applied to the newer object. The result (of
 * every patch and apply) is decoded into the kind (src/typed) before the
 * strategy sees it, under the request's `fieldValidation`. Server-side apply
 * (`application/apply-patch+yaml`) is answered by the patch package (415
 * until field ownership lands).
 */
import { goBool } from '../api/query-params.ts';
import type { RequestContext, RequestInfo } from '../server/context.ts';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { APPLY_PATCH_TYPE, applyPatch, JSON_PATCH_TYPE, MAX_PATCH_BODY_BYTES, schemaLookupFor, type SchemaLookup } from '../patch/index.ts';
import type { ServedSchemas } from '../openapi/index.ts';
import { errors, StatusError } from '../api/status.ts';
import { mediaType } from './body.ts';
import type { FieldManager } from '../apply/field-manager.ts';
import { decodeApplyBodyChecked } from '../apply/apply-body.ts';
import { getScale, updateScale } from './scale.ts';
import { customResourceOf } from '../apiextensions/hooks.ts';
import { getCustomScale, updateCustomScale } from '../apiextensions/scale.ts';
import { names } from '../naming/index.ts';
import { decodePatchedObject, duplicateFields, parseFieldValidation, TypedDecodeError, TypedDecoders, type DecodeTarget, type KindDecoder } from '../typed/index.ts';
import { pushAll } from '../api/push-all.ts';

/**
 * Patch schemas per resource type, resolved once per type, and the typed
 * decoder of every kind (compiled once, here, at start) that request bodies
 * and patch results are decoded with.
 */
export class PatchSchemas {
  readonly #schemas: ServedSchemas;
  readonly #cache = new Map<string, SchemaLookup | undefined>();
  readonly #decoders: TypedDecoders;
  constructor(schemas: ServedSchemas) {
    this.#schemas = schemas;
    this.#decoders = new TypedDecoders(schemas.set);
    const kinds: string[] = [];
    for (const name of schemas.set.names()) if (schemas.set.get(name)?.gvk !== undefined) kinds.push(name);
    this.#decoders.compileAll(kinds);
  }
  /**
   * Decoders of kinds served after start (custom resources): asked only for
   * kinds the start-up schemas do not declare, so built-in kinds never reach it.
   */
  custom: ((group: string, version: string, kind: string) => KindDecoder | undefined) | undefined;

  /** The typed decoder of a kind. */
  decoderFor(group: string, version: string, kind: string): KindDecoder {
    let name: string;
    try {
      name = this.#schemas.kindSchema({ group, version, kind });
    } catch (err) {
      const custom = this.custom?.(group, version, kind);
      if (custom !== undefined) return custom;
      throw err;
    }
    return this.#decoders.forSchema(name);
  }
  /** The strategic-merge metadata of a kind; built-in kinds all have one, custom resources none (415, as the original). */
  forKind(group: string, version: string, kind: string): SchemaLookup | undefined {
    const key = `${group}/${version}/${kind}`;
    if (!this.#cache.has(key)) {
      let name: string;
      try {
        name = this.#schemas.kindSchema({ group, version, kind });
      } catch (err) {
        if (this.custom?.(group, version, kind) !== undefined) return undefined;
        throw err;
      }
      this.#cache.set(key, schemaLookupFor(this.#schemas.set, name));
    }
    return this.#cache.get(key);
  }
}

export async function servePatch(
  ctx: RequestContext,
  store: GenericStore,
  schemas: PatchSchemas,
  fieldManager: FieldManager,
  rt: ResourceType,
  info: RequestInfo,
  patchBytes: Uint8Array,
  opts: WriteOptions,
): Promise<{ status: number; body: Uint8Array }> {
  const contentType = ctx.req.header('content-type');
  const forceParam = ctx.req.query.get('force');
  const fieldValidation = parseFieldValidation(ctx.req.query.get('fieldValidation'), 'PatchOptions');
  const target = (group: string, version: string, kind: string): DecodeTarget => ({ kind, version, decoder: schemas.decoderFor(group, version, kind), fieldValidation });
  if (mediaType(contentType) === APPLY_PATCH_TYPE) {
    const warnings: string[] = [];
    const res = await serveApply(store, fieldManager, rt, info, patchBytes, opts, forceParam, target(rt.group, rt.version, rt.kind), warnings);
    pushAll(ctx.warnings, warnings);
    return res;
  }
  if (forceParam !== null) {
    throw invalidPatchOptions('force', 'Forbidden: may not be specified for non-apply patch');
  }
  // Keys repeated in a merge patch are strict decoding errors of the patch itself.
  const patchDuplicates = fieldValidation !== 'Ignore' && mediaType(contentType) !== JSON_PATCH_TYPE ? duplicateFields(patchBytes) : [];
  // The patched object is decoded on every attempt; only the last attempt's warnings are sent.
  let warnings: string[] = [];
  const decodePatched = (patched: KObject, t: DecodeTarget): void => {
    warnings = decodePatchedObject(patched, t, patchDuplicates);
  };
  if (info.subresource === 'scale') {
    const custom = customResourceOf(rt)?.scale;
    const scale = custom === undefined ? await getScale(store, rt, info.namespace, info.name, { kind: 'latest' }) : await getCustomScale(store, rt, custom, info.namespace, info.name, { kind: 'latest' });
    const patched = applyPatch({ contentType, original: scale, patchBytes, schema: schemas.forKind('autoscaling', 'v1', 'Scale') }) as KObject;
    decodePatched(patched, target('autoscaling', 'v1', 'Scale'));
    pushAll(ctx.warnings, warnings);
    const res = custom === undefined ? await updateScale(store, rt, info.namespace, info.name, patched, opts) : await updateCustomScale(store, rt, custom, info.namespace, info.name, patched, opts);
    return { status: 200, body: new TextEncoder().encode(JSON.stringify(res)) };
  }
  const schema = schemas.forKind(rt.group, rt.version, rt.kind);
  const kindTarget = target(rt.group, rt.version, rt.kind);
  const res = await store.guaranteedUpdate(rt, info.namespace, info.name, opts, info.subresource, (current) => {
    if (current === null) throw errors.notFound(rt.group, rt.resource, info.name);
    // The original patches its typed object: fields the kind does not declare
    // are gone before the patch, so only the patch's own count as unknown.
    asTyped(current, kindTarget.decoder);
    const patched = applyPatch({ contentType, original: current, patchBytes, schema }) as KObject;
    decodePatched(patched, kindTarget);
    if (patched.metadata === undefined || patched.metadata === null || typeof patched.metadata !== 'object') {
      throw errors.badRequest('metadata must be an object');
    }
    // A resourceVersion in the patch is a precondition, as in the original.
    const rv = patched.metadata.resourceVersion;
    if (rv !== undefined && rv !== current.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.resource, info.name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    if (patched.metadata.name !== undefined && patched.metadata.name !== info.name) {
      throw errors.badRequest(`the name of the object (${String(patched.metadata.name)}) does not match the name on the URL (${info.name})`);
    }
    return { update: patched };
  });
  pushAll(ctx.warnings, warnings);
  return res;
}

/** Drops what the kind does not declare from a stored object; ill-typed stored data is left to the patched object's decode. */
function asTyped(current: KObject, decoder: KindDecoder): void {
  try {
    decoder.decode(current);
  } catch (err) {
    if (!(err instanceof TypedDecodeError)) throw err;
  }
}

function invalidPatchOptions(field: string, message: string): StatusError {
  return new StatusError(422, 'Invalid', `PatchOptions.${names.metaGroup} "" is invalid: ${field}: ${message}`, {
    group: names.metaGroup,
    kind: 'PatchOptions',
    causes: [{ reason: message.startsWith('Required') ? 'FieldValueRequired' : 'FieldValueForbidden', message, field }],
  });
}

/**
 * Server-side apply (`application/apply-patch+yaml`): the body (YAML or
 * JSON) is merged into the live object by field ownership; a field another
 * manager owns with a different value is a 409 conflict unless `force`.
 * Applying to an absent object creates it.
 */
async function serveApply(
  store: GenericStore,
  fieldManager: FieldManager,
  rt: ResourceType,
  info: RequestInfo,
  patchBytes: Uint8Array,
  opts: WriteOptions,
  forceParam: string | null,
  target: DecodeTarget,
  warnings: string[],
): Promise<{ status: number; body: Uint8Array }> {
  if (!opts.fieldManager) throw invalidPatchOptions('fieldManager', 'Required value: is required for apply patch');
  // A *bool as the original reads it: present and not "0"/"false" is true.
  const force = forceParam !== null && goBool(forceParam);
  if (patchBytes.byteLength > MAX_PATCH_BODY_BYTES) throw errors.tooLarge(`Request entity too large: limit is ${MAX_PATCH_BODY_BYTES}`);
  // YAML 1.1 as the original reads apply bodies (`yes` is true, timestamps stay strings); 400 when malformed.
  const body = decodeApplyBodyChecked(patchBytes);
  if (body.duplicates !== undefined && target.fieldValidation !== 'Ignore') {
    // yaml.UnmarshalStrict's error, as the original's apply patcher reports it.
    const message = `error converting YAML to JSON: ${body.duplicates}`;
    if (target.fieldValidation === 'Strict') throw errors.badRequest(`error strict decoding YAML: ${message}`);
    warnings.push(message);
  }
  const applied = body.value;
  const manager = opts.fieldManager;
  // The merged object is decoded into the kind like any patch result; what
  // the applied configuration itself may hold is the field manager's check.
  const apply = (live: KObject | null): KObject =>
    decodeApplied(fieldManager.apply({
      live,
      applied,
      manager,
      force,
      subresource: info.subresource,
      apiVersion: rt.apiVersion,
      kind: rt.kind,
      statusSubresource: rt.hasStatus,
      name: info.name,
      namespace: info.namespace,
    }), target);
  return store.guaranteedUpdate(rt, info.namespace, info.name, { ...opts, fieldsTracked: true }, info.subresource, (current) => {
    if (current === null) {
      if (info.subresource !== '') throw errors.notFound(rt.group, rt.resource, info.name);
      return { create: apply(null) };
    }
    return { update: apply(current) };
  });
}

/** An apply result decoded into its kind; unknown fields were refused or kept by apply itself, so none are reported. */
function decodeApplied(obj: KObject, target: DecodeTarget): KObject {
  decodePatchedObject(obj, { ...target, fieldValidation: 'Ignore' });
  return obj;
}
