/**
 * What a served custom resource type carries beyond a ResourceType: how its
 * bodies are decoded (pruned, defaulted), its table columns, its apply
 * schema and its scale paths. Kept beside the type (a WeakMap keyed by the
 * ResourceType object) so the registry and the built-in types know nothing of
 * it, and a request for a built-in type pays one failed map lookup at most,
 * only where a custom type could differ.
 */
import type { ResourceType } from '../registry/resource-type.ts';
import type { KindDecoder } from '../typed/index.ts';
import type { Printer } from '../endpoints/table/printer.ts';
import type { SchemaType } from '../apply/schema.ts';
import type { KObject } from '../registry/object.ts';

export interface ScalePaths {
  readonly specReplicasPath: string;
  readonly statusReplicasPath: string;
  readonly labelSelectorPath: string | undefined;
}

export interface CustomResourceHooks {
  /** `<plural>.<group>`: the definition this type comes from. */
  readonly crdName: string;
  readonly decoder: KindDecoder;
  /** Name and the version's `additionalPrinterColumns` (Age when it has none). */
  readonly printer: Printer;
  /** The apply schema, built on first use (it needs ObjectMeta's type from the field manager). */
  applyType(objectMeta: SchemaType): SchemaType;
  readonly scale: ScalePaths | undefined;
  /** The version's OpenAPI v3 schema as the definition holds it (explain, documents). */
  readonly schema: Record<string, unknown> | undefined;
  /** Applies the version's defaults to an object read from storage (in place). */
  defaultObject(obj: KObject): void;
}

const hooks = new WeakMap<ResourceType, CustomResourceHooks>();

export function setCustomResourceHooks(rt: ResourceType, h: CustomResourceHooks): void {
  hooks.set(rt, h);
}

/** The hooks of a custom resource type, or undefined for a built-in type. */
export function customResourceOf(rt: ResourceType): CustomResourceHooks | undefined {
  return hooks.get(rt);
}
