/**
 * Custom resources in one serving thread (pipeline.ts calls this in every
 * thread): the decoders and apply schemas of custom kinds behind the typed
 * decoding and the field manager, and the definitions' watch that serves
 * them (serving.ts), rebuilding the thread's discovery and OpenAPI.
 */
import type { ShardAccess } from '../../shards/shard-access.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import type { FieldManager } from '../apply/field-manager.ts';
import type { PatchSchemas } from '../endpoints/patch-handler.ts';
import type { OpenApiDocuments } from '../openapi/index.ts';
import { customResourceOf, type CustomResourceHooks } from './hooks.ts';
import { CustomResourceServing } from './serving.ts';
import { buildOpenApiWithCustomResources } from './openapi.ts';

export interface CustomResourceInstallDeps {
  readonly registry: ResourceRegistry;
  readonly router: ShardAccess;
  readonly patchSchemas: PatchSchemas;
  readonly fieldManager: FieldManager;
  /** Replaces the thread's discovery documents and OpenAPI (built by the function given). */
  readonly rebuild: (buildOpenApi: () => OpenApiDocuments) => void;
  readonly onError?: ((err: unknown, what: string) => void) | undefined;
}

export async function installCustomResources(deps: CustomResourceInstallDeps): Promise<{ close(): void; serving: CustomResourceServing }> {
  const { registry } = deps;
  /** Custom types by group/version/kind, refreshed with the registry. */
  let byKind = new Map<string, ResourceType>();
  const refresh = (): void => {
    const next = new Map<string, ResourceType>();
    for (const rt of registry.types) if (customResourceOf(rt) !== undefined) next.set(`${rt.group}/${rt.version}/${rt.kind}`, rt);
    byKind = next;
  };
  // Reached only for kinds the start-up schemas do not declare; a kind served since the last refresh refreshes once.
  const hooksOf = (group: string, version: string, kind: string): CustomResourceHooks | undefined => {
    const key = `${group}/${version}/${kind}`;
    let rt = byKind.get(key);
    if (rt === undefined) {
      refresh();
      rt = byKind.get(key);
    }
    return rt === undefined ? undefined : customResourceOf(rt);
  };
  deps.patchSchemas.custom = (g, v, k) => hooksOf(g, v, k)?.decoder;
  deps.fieldManager.customType = (gvk, objectMeta) => hooksOf(gvk.group, gvk.version, gvk.kind)?.applyType(objectMeta);
  const serving = new CustomResourceServing({
    registry,
    router: deps.router,
    rebuild: () => {
      refresh();
      deps.rebuild(() => buildOpenApiWithCustomResources(registry));
    },
    onError: deps.onError,
  });
  await serving.start();
  return { close: () => serving.close(), serving };
}
