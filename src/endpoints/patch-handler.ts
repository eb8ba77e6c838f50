/**
 * PATCH: JSON patch, merge patch and strategic merge patch applied to the
 * current object inside the store's read-modify-write loop, so a patch that
 * races another write is re-applied to the newer object. Server-side apply
 * (`application/apply-patch+yaml`) is answered by the patch package (415
 * until field ownership lands).
 */
import type { RequestContext, RequestInfo } from '../server/context.ts';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { KObject } from '../registry/object.ts';
import { applyPatch, schemaLookupFor, type SchemaLookup } from '../patch/index.ts';
import type { ServedSchemas } from '../openapi/index.ts';
import { errors } from './status.ts';
import { getScale, updateScale } from './scale.ts';

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
  rt: ResourceType,
  info: RequestInfo,
  patchBytes: Uint8Array,
  opts: WriteOptions,
): Promise<{ status: number; body: Uint8Array }> {
  const contentType = ctx.req.header('content-type');
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
