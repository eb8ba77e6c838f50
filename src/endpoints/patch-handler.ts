/**
 * PATCH: JSON patch, merge patch and strategic merge patch applied to the
 * current object inside the store's read-modify-write loop, so a patch that
 * races another write is re-applied to the newer object. Server-side apply
 * (`application/apply-patch+yaml`) is answered by the patch package (415
 * until field ownership lands).
 */
import { goBool } from './query-params.ts';
import type { RequestContext, RequestInfo } from '../server/context.ts';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { APPLY_PATCH_TYPE, applyPatch, MAX_PATCH_BODY_BYTES, schemaLookupFor, type SchemaLookup } from '../patch/index.ts';
import type { ServedSchemas } from '../openapi/index.ts';
import { errors, StatusError } from './status.ts';
import { mediaType } from './body.ts';
import type { FieldManager } from '../apply/field-manager.ts';
import { decodeApplyBody } from '../apply/index.ts';
import { getScale, updateScale } from './scale.ts';
import { names } from '../naming/index.ts';

/** Patch schemas per resource type, resolved once per type. */
export class PatchSchemas {
  readonly #schemas: ServedSchemas;
  readonly #cache = new Map<string, SchemaLookup | undefined>();
  constructor(schemas: ServedSchemas) {
    this.#schemas = schemas;
  }
  /** The strategic-merge metadata of a kind; built-in kinds all have one. */
  forKind(group: string, version: string, kind: string): SchemaLookup | undefined {
    const key = `${group}/${version}/${kind}`;
    if (!this.#cache.has(key)) {
      this.#cache.set(key, schemaLookupFor(this.#schemas.set, this.#schemas.kindSchema({ group, version, kind })));
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
  if (mediaType(contentType) === APPLY_PATCH_TYPE) {
    return serveApply(store, fieldManager, rt, info, patchBytes, opts, forceParam);
  }
  if (forceParam !== null) {
    throw invalidPatchOptions('force', 'Forbidden: may not be specified for non-apply patch');
  }
  if (info.subresource === 'scale') {
    const scale = await getScale(store, rt, info.namespace, info.name, { kind: 'latest' });
    const patched = applyPatch({ contentType, original: scale, patchBytes, schema: schemas.forKind('autoscaling', 'v1', 'Scale') }) as KObject;
    const res = await updateScale(store, rt, info.namespace, info.name, patched, opts);
    return { status: 200, body: new TextEncoder().encode(JSON.stringify(res)) };
  }
  const schema = schemas.forKind(rt.group, rt.version, rt.kind);
  return store.guaranteedUpdate(rt, info.namespace, info.name, opts, info.subresource, (current) => {
    if (current === null) throw errors.notFound(rt.group, rt.resource, info.name);
    const patched = applyPatch({ contentType, original: current, patchBytes, schema }) as KObject;
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
): Promise<{ status: number; body: Uint8Array }> {
  if (!opts.fieldManager) throw invalidPatchOptions('fieldManager', 'Required value: is required for apply patch');
  // A *bool as the original reads it: present and not "0"/"false" is true.
  const force = forceParam !== null && goBool(forceParam);
  if (patchBytes.byteLength > MAX_PATCH_BODY_BYTES) throw errors.tooLarge(`Request entity too large: limit is ${MAX_PATCH_BODY_BYTES}`);
  // YAML 1.1 as the original reads apply bodies (`yes` is true, timestamps stay strings); 400 when malformed.
  const applied = decodeApplyBody(patchBytes);
  const manager = opts.fieldManager;
  const apply = (live: KObject | null): KObject =>
    fieldManager.apply({
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
    });
  return store.guaranteedUpdate(rt, info.namespace, info.name, { ...opts, fieldsTracked: true }, info.subresource, (current) => {
    if (current === null) {
      if (info.subresource !== '') throw errors.notFound(rt.group, rt.resource, info.name);
      return { create: apply(null) };
    }
    return { update: apply(current) };
  });
}
