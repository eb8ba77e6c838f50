/**
 * The resource types an established CustomResourceDefinition serves: one per
 * served version, all in one storage (`/<group>/<plural>/`); the storage
 * version owns it, the others are converted on the way (`None` conversion:
 * the apiVersion changes, nothing else, as in the original). Each type's
 * strategy validates against its version's schema; its decoder prunes and
 * defaults; hooks.ts carries its columns, apply schema and scale paths.
 */
import { resolveResourceType } from '../registry/registry.ts';
import { SUBRESOURCE_VERBS, type Conversion, type ResourceType, type ResourceTypeDef, type SubresourceType } from '../registry/resource-type.ts';
import type { FieldError, Strategy } from '../registry/strategy.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import { MAX_NESTING_DEPTH, TypedDecodeError, valueDepthExceeded, type KindDecoder } from '../typed/index.ts';
import { setCustomResourceHooks, type CustomResourceHooks, type ScalePaths } from './hooks.ts';
import { applyDefaults, hasDefaults, prune, schemaOf, validateValue, type JSONSchemaProps } from './schema.ts';
import { printerFor, type PrinterColumn } from './printer.ts';
import { applyTypeOf } from './apply-schema.ts';
import type { SchemaType } from '../apply/schema.ts';
import type { ShardAccess } from '../../shards/shard-access.ts';
import { convertViaWebhook, webhookConfigOf } from './conversion-webhook.ts';

function obj(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strs(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

export interface CrdVersion {
  name: string;
  served: boolean;
  storage: boolean;
  deprecated: boolean;
  deprecationWarning: string | undefined;
  schema: JSONSchemaProps | undefined;
  statusSubresource: boolean;
  scale: ScalePaths | undefined;
  columns: PrinterColumn[];
}

/** The parts of a (v1) definition the serving side reads. */
export interface CrdInfo {
  name: string;
  uid: string;
  group: string;
  plural: string;
  singular: string;
  kind: string;
  listKind: string;
  shortNames: string[];
  categories: string[];
  namespaced: boolean;
  versions: CrdVersion[];
  conversion: { strategy: 'None' | 'Webhook'; webhook: Record<string, unknown> | undefined };
}

export function crdInfo(crd: KObject): CrdInfo {
  const spec = obj(crd['spec']);
  // Served names are the accepted ones (status), as the original serves them.
  const accepted = obj(obj(crd['status'])['acceptedNames']);
  const names = str(accepted['plural']) !== '' ? accepted : obj(spec['names']);
  const kind = str(names['kind']);
  const conv = obj(spec['conversion']);
  return {
    name: crd.metadata.name ?? '',
    uid: crd.metadata.uid ?? '',
    group: str(spec['group']),
    plural: str(names['plural']),
    singular: str(names['singular']) || kind.toLowerCase(),
    kind,
    listKind: str(names['listKind']) || `${kind}List`,
    shortNames: strs(names['shortNames']),
    categories: strs(names['categories']),
    namespaced: spec['scope'] !== 'Cluster',
    versions: (Array.isArray(spec['versions']) ? (spec['versions'] as unknown[]) : []).map((raw) => {
      const v = obj(raw);
      const subs = obj(v['subresources']);
      const scale = isPlainObject(subs['scale']) ? subs['scale'] : undefined;
      const open = obj(v['schema'])['openAPIV3Schema'];
      return {
        name: str(v['name']),
        served: v['served'] === true,
        storage: v['storage'] === true,
        deprecated: v['deprecated'] === true,
        deprecationWarning: typeof v['deprecationWarning'] === 'string' ? v['deprecationWarning'] : undefined,
        schema: isPlainObject(open) ? open : undefined,
        statusSubresource: isPlainObject(subs['status']),
        scale:
          scale === undefined
            ? undefined
            : { specReplicasPath: str(scale['specReplicasPath']), statusReplicasPath: str(scale['statusReplicasPath']), labelSelectorPath: typeof scale['labelSelectorPath'] === 'string' ? scale['labelSelectorPath'] : undefined },
        columns: (Array.isArray(v['additionalPrinterColumns']) ? (v['additionalPrinterColumns'] as unknown[]) : []).map((c) => {
          const col = obj(c);
          return {
            name: str(col['name']),
            type: str(col['type']),
            format: str(col['format']),
            description: str(col['description']),
            priority: typeof col['priority'] === 'number' ? col['priority'] : 0,
            jsonPath: str(col['jsonPath']),
          };
        }),
      };
    }),
    conversion: { strategy: conv['strategy'] === 'Webhook' ? 'Webhook' : 'None', webhook: isPlainObject(conv['webhook']) ? conv['webhook'] : undefined },
  };
}

/** A version's decoder: metadata must be an object; unknown fields pruned (and reported), then defaults applied. */
function decoderFor(schema: JSONSchemaProps | undefined): KindDecoder {
  return {
    decode(o: Record<string, unknown>): string[] {
      const meta = o['metadata'];
      if (meta !== undefined && meta !== null && !isPlainObject(meta)) {
        throw new TypedDecodeError(`json: cannot unmarshal ${Array.isArray(meta) ? 'array' : typeof meta} into Go struct field Object.metadata of type map[string]interface {}`);
      }
      // What is kept must stay within the nesting limit every decoded body has (serializing deeper overflows).
      if (valueDepthExceeded(o, 0)) throw new TypedDecodeError(`json: the object is nested more than ${MAX_NESTING_DEPTH} levels deep`);
      const pruned: string[] = [];
      if (schema !== undefined) {
        prune(o, schema, true, '', pruned);
        applyDefaults(o, schema);
      }
      return pruned;
    },
  };
}

/** Validation against the version's schema: the object without its metadata, apiVersion and kind (checked elsewhere). */
function schemaErrors(schema: JSONSchemaProps | undefined, o: KObject): FieldError[] {
  if (schema === undefined) return [];
  const errs: FieldError[] = [];
  const { metadata: _m, apiVersion: _a, kind: _k, ...rest } = o;
  const props = schemaOf.properties(schema) ?? {};
  const { metadata: _pm, apiVersion: _pa, kind: _pk, ...restProps } = props;
  const rootSchema: JSONSchemaProps = { ...schema, properties: restProps, required: (Array.isArray(schema['required']) ? (schema['required'] as string[]) : []).filter((r) => r !== 'metadata' && r !== 'apiVersion' && r !== 'kind') };
  validateValue(rootSchema, rest, '', errs);
  const meta = o.metadata as Record<string, unknown>;
  const nameSchema = schemaOf.properties(obj(props['metadata']))?.['name'];
  if (nameSchema !== undefined && typeof meta['name'] === 'string') validateValue(nameSchema, meta['name'], 'metadata.name', errs);
  return errs;
}

function strategyFor(v: CrdVersion): Strategy {
  return {
    prepareForCreate(o: KObject): void {
      // With a status subresource, status is written there only.
      if (v.statusSubresource) delete o['status'];
    },
    validate: (o) => schemaErrors(v.schema, o),
    validateUpdate: (o) => schemaErrors(v.schema, o),
  };
}

/** None conversion: the object is the same in every version but for its apiVersion; defaults of the target version applied on read. */
function noneConversion(group: string, served: CrdVersion, storageVersion: string): Conversion {
  const servedApiVersion = `${group}/${served.name}`;
  const storedApiVersion = `${group}/${storageVersion}`;
  const withDefaults = hasDefaults(served.schema);
  return {
    toStorage: (o) => ({ ...o, apiVersion: storedApiVersion }),
    fromStorage: (o) => {
      const out = { ...o, apiVersion: servedApiVersion };
      if (withDefaults) applyDefaults(out, served.schema);
      return out;
    },
  };
}

/**
 * The served types of a definition (one per served version), with their hooks
 * set; the storage version first when it is served. `conversionFor` may
 * replace the None conversion of non-storage versions (webhook conversion).
 */
/** Webhook conversion (conversion-webhook.ts): batches through the definition's webhook; defaults of the served version on read. */
function webhookConversion(info: CrdInfo, served: CrdVersion, storageVersion: string, router: ShardAccess): Conversion | undefined {
  const cfg = webhookConfigOf(info.conversion.webhook);
  if (cfg === undefined) return undefined;
  const none = noneConversion(info.group, served, storageVersion);
  const storedApiVersion = `${info.group}/${storageVersion}`;
  const servedApiVersion = `${info.group}/${served.name}`;
  const withDefaults = hasDefaults(served.schema);
  return {
    ...none,
    toStorageMany: (objs) => convertViaWebhook(cfg, router, info.kind, storedApiVersion, objs),
    fromStorageMany: async (objs) => {
      const out = await convertViaWebhook(cfg, router, info.kind, servedApiVersion, objs);
      if (withDefaults) for (const o of out) applyDefaults(o, served.schema);
      return out;
    },
  };
}

export function customResourceTypes(info: CrdInfo, router?: ShardAccess): ResourceType[] {
  const storage = info.versions.find((v) => v.storage);
  if (storage === undefined) return [];
  const out: ResourceType[] = [];
  const served = info.versions.filter((v) => v.served);
  served.sort((a, b) => (a === storage ? -1 : b === storage ? 1 : 0));
  for (const v of served) {
    const subresources: SubresourceType[] = [];
    if (v.statusSubresource) subresources.push({ name: 'status', kind: info.kind, verbs: SUBRESOURCE_VERBS });
    if (v.scale !== undefined) subresources.push({ name: 'scale', kind: 'Scale', group: 'autoscaling', version: 'v1', verbs: SUBRESOURCE_VERBS });
    const isStorage = v === storage;
    const conversion = isStorage
      ? hasDefaults(v.schema)
        ? noneConversion(info.group, v, storage.name)
        : undefined
      : info.conversion.strategy === 'Webhook' && router !== undefined
        ? (webhookConversion(info, v, storage.name, router) ?? noneConversion(info.group, v, storage.name))
        : noneConversion(info.group, v, storage.name);
    const def: ResourceTypeDef = {
      group: info.group,
      version: v.name,
      resource: info.plural,
      kind: info.kind,
      singularName: info.singular,
      namespaced: info.namespaced,
      shortNames: info.shortNames,
      categories: info.categories,
      subresources,
      tracksGeneration: true,
      strategy: strategyFor(v),
      ...(isStorage ? {} : { storageOf: { group: info.group, resource: info.plural } }),
      ...(conversion !== undefined ? { conversion } : {}),
      ...(v.deprecated ? { deprecationWarning: v.deprecationWarning ?? `${info.group}/${v.name} ${info.kind} is deprecated` } : {}),
    };
    const rt = { ...resolveResourceType(def), listKind: info.listKind };
    let applyType: SchemaType | undefined;
    const hooks: CustomResourceHooks = {
      crdName: info.name,
      decoder: decoderFor(v.schema),
      printer: printerFor(v.columns),
      applyType: (objectMeta) => (applyType ??= applyTypeOf(v.schema, objectMeta)),
      scale: v.scale,
      schema: v.schema,
      defaultObject: (o) => applyDefaults(o, v.schema),
    };
    setCustomResourceHooks(rt, hooks);
    out.push(rt);
  }
  return out;
}
