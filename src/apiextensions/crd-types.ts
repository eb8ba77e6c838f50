/**
 * The CustomResourceDefinition resource itself: apiextensions.<suffix>/v1
 * (stored) and v1beta1 (served from the same storage, converted per spec
 * 9.3), cluster-scoped, with a status subresource; the strategy defaults,
 * validates, keeps status to the status subresource, and on the first
 * delete adds the cleanup finalizer and the Terminating condition, so the
 * definition stays until its instances are gone (controller.ts).
 */
import { apiGroup } from '../naming/index.ts';
import type { Conversion, ResourceTypeDef } from '../registry/resource-type.ts';
import { SUBRESOURCE_VERBS } from '../registry/resource-type.ts';
import type { Strategy, StrategyContext } from '../registry/strategy.ts';
import { cloneJson, isPlainObject, type KObject } from '../registry/object.ts';
import { validateCrd, validateCrdUpdate } from './crd-validation.ts';
import { setCondition } from './conditions.ts';

export const APIEXTENSIONS_GROUP = apiGroup('apiextensions');
/** Holds a definition being deleted until its custom resources are gone. */
export const CLEANUP_FINALIZER = `customresourcecleanup.${APIEXTENSIONS_GROUP}`;
export const CRD_RESOURCE = 'customresourcedefinitions';
export const CRD_KIND = 'CustomResourceDefinition';

function obj(v: unknown): Record<string, unknown> {
  return isPlainObject(v) ? v : {};
}

/** v1 defaults (SetDefaults_CustomResourceDefinitionSpec and friends). */
export function defaultCrdV1(crd: KObject): void {
  const spec = obj(crd['spec']);
  crd['spec'] = spec;
  const names = obj(spec['names']);
  spec['names'] = names;
  if (typeof names['kind'] === 'string' && names['kind'] !== '') {
    if (names['singular'] === undefined || names['singular'] === '') names['singular'] = names['kind'].toLowerCase();
    if (names['listKind'] === undefined || names['listKind'] === '') names['listKind'] = `${names['kind']}List`;
  }
  if (spec['conversion'] === undefined || spec['conversion'] === null) spec['conversion'] = { strategy: 'None' };
  const conv = obj(spec['conversion']);
  if (conv['strategy'] === 'Webhook' && isPlainObject(conv['webhook'])) {
    const cc = obj(conv['webhook']['clientConfig']);
    if (isPlainObject(cc['service']) && cc['service']['port'] === undefined) cc['service']['port'] = 443;
  }
}

const crdStrategy: Strategy = {
  prepareForCreate(obj: KObject): void {
    defaultCrdV1(obj);
    const spec = obj['spec'] as Record<string, unknown>;
    const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Record<string, unknown>[]) : [];
    const storage = versions.find((v) => isPlainObject(v) && v['storage'] === true);
    obj['status'] = {
      conditions: [],
      acceptedNames: { plural: '', kind: '' },
      storedVersions: storage !== undefined && typeof storage['name'] === 'string' ? [storage['name']] : [],
    };
  },
  prepareForUpdate(obj: KObject, old: KObject, ctx: StrategyContext): void {
    if (ctx.subresource === 'status') return;
    defaultCrdV1(obj);
    // A new storage version joins the stored versions (the original's strategy does this too).
    const status = cloneJson(isPlainObject(old['status']) ? old['status'] : {});
    const stored = Array.isArray(status['storedVersions']) ? (status['storedVersions'] as string[]) : [];
    const spec = obj['spec'] as Record<string, unknown>;
    const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Record<string, unknown>[]) : [];
    const storage = versions.find((v) => isPlainObject(v) && v['storage'] === true);
    if (storage !== undefined && typeof storage['name'] === 'string' && !stored.includes(storage['name'])) stored.push(storage['name']);
    status['storedVersions'] = stored;
    obj['status'] = status;
  },
  validate: (obj) => validateCrd(obj),
  validateUpdate: (obj, old) => validateCrdUpdate(obj, old),
  beforeDelete(obj: KObject, ctx: StrategyContext): void {
    if (obj.metadata.deletionTimestamp) return;
    const finalizers = obj.metadata.finalizers ?? [];
    if (!finalizers.includes(CLEANUP_FINALIZER)) obj.metadata.finalizers = [...finalizers, CLEANUP_FINALIZER];
    const status = isPlainObject(obj['status']) ? obj['status'] : {};
    setCondition(status, { type: 'Terminating', status: 'True', reason: 'InstanceDeletionPending', message: 'CustomResourceDefinition marked for deletion; CustomResource deletion will begin soon' }, ctx.now);
    obj['status'] = status;
  },
};

// ---- v1beta1 (spec 9.3) ----

/** A v1beta1 CRD in the v1 shape: scope defaulted, top-level version fields moved under versions[*]. */
export function crdV1beta1ToV1(input: KObject): KObject {
  const out = cloneJson(input);
  out.apiVersion = `${APIEXTENSIONS_GROUP}/v1`;
  const spec = obj(out['spec']);
  out['spec'] = spec;
  if (spec['scope'] === undefined || spec['scope'] === '') spec['scope'] = 'Namespaced';
  let versions = Array.isArray(spec['versions']) ? (spec['versions'] as Record<string, unknown>[]) : [];
  if (versions.length === 0 && typeof spec['version'] === 'string') versions = [{ name: spec['version'], served: true, storage: true }];
  const validation = spec['validation'];
  const subresources = spec['subresources'];
  const columns = spec['additionalPrinterColumns'];
  versions = versions.map((v) => {
    const nv: Record<string, unknown> = { ...v };
    if (nv['schema'] === undefined && validation !== undefined) nv['schema'] = cloneJson(validation);
    if (nv['subresources'] === undefined && subresources !== undefined) nv['subresources'] = cloneJson(subresources);
    const cols = nv['additionalPrinterColumns'] ?? columns;
    if (Array.isArray(cols)) nv['additionalPrinterColumns'] = cols.map((c) => columnV1(obj(c)));
    return nv;
  });
  spec['versions'] = versions;
  delete spec['version'];
  delete spec['validation'];
  delete spec['subresources'];
  delete spec['additionalPrinterColumns'];
  // v1beta1 defaults preserveUnknownFields to true; v1 refuses true, so a v1beta1 object that left it unset is not pruned-free.
  if (spec['preserveUnknownFields'] === false || spec['preserveUnknownFields'] === undefined) delete spec['preserveUnknownFields'];
  const conv = obj(spec['conversion']);
  if (spec['conversion'] !== undefined && conv['webhook'] === undefined) {
    const webhook: Record<string, unknown> = {};
    if (conv['webhookClientConfig'] !== undefined) webhook['clientConfig'] = conv['webhookClientConfig'];
    webhook['conversionReviewVersions'] = conv['conversionReviewVersions'] ?? ['v1beta1'];
    spec['conversion'] = conv['strategy'] === 'Webhook' ? { strategy: 'Webhook', webhook } : { strategy: conv['strategy'] ?? 'None' };
  }
  return out;
}

function columnV1(c: Record<string, unknown>): Record<string, unknown> {
  const { JSONPath, ...rest } = c;
  return JSONPath !== undefined && rest['jsonPath'] === undefined ? { ...rest, jsonPath: JSONPath } : rest;
}

/** A v1 CRD in the v1beta1 shape. */
export function crdV1ToV1beta1(input: KObject): KObject {
  const out = cloneJson(input);
  out.apiVersion = `${APIEXTENSIONS_GROUP}/v1beta1`;
  const spec = obj(out['spec']);
  const versions = Array.isArray(spec['versions']) ? (spec['versions'] as Record<string, unknown>[]) : [];
  if (versions.length > 0) spec['version'] = versions[0]!['name'];
  spec['versions'] = versions.map((v) => {
    const nv: Record<string, unknown> = { ...v };
    if (Array.isArray(nv['additionalPrinterColumns'])) {
      nv['additionalPrinterColumns'] = (nv['additionalPrinterColumns'] as unknown[]).map((c) => {
        const { jsonPath, ...rest } = obj(c);
        return { ...rest, JSONPath: jsonPath };
      });
    }
    if (nv['schema'] !== undefined) {
      nv['validation'] = nv['schema'];
      delete nv['schema'];
    }
    return nv;
  });
  const conv = obj(spec['conversion']);
  if (conv['strategy'] === 'Webhook') {
    const webhook = obj(conv['webhook']);
    spec['conversion'] = { strategy: 'Webhook', webhookClientConfig: webhook['clientConfig'], conversionReviewVersions: webhook['conversionReviewVersions'] };
  }
  if (spec['preserveUnknownFields'] === undefined) spec['preserveUnknownFields'] = false;
  return out;
}

const v1beta1Conversion: Conversion = { toStorage: crdV1beta1ToV1, fromStorage: crdV1ToV1beta1 };

/** Replaces `o`'s content with its v1 shape (the strategy works on v1; storage converts it again, idempotently). */
function asV1InPlace(o: KObject): void {
  if (o.apiVersion === `${APIEXTENSIONS_GROUP}/v1`) return;
  const v1 = crdV1beta1ToV1(o);
  for (const k of Object.keys(o)) delete o[k];
  Object.assign(o, v1);
}

/** The v1beta1 type's strategy: the v1 one, on the objects in their v1 shape. */
const crdV1beta1Strategy: Strategy = {
  ...crdStrategy,
  prepareForCreate(o, ctx): void {
    asV1InPlace(o);
    crdStrategy.prepareForCreate!(o, ctx);
  },
  prepareForUpdate(o, old, ctx): void {
    asV1InPlace(o);
    asV1InPlace(old);
    crdStrategy.prepareForUpdate!(o, old, ctx);
  },
};

const base = {
  group: APIEXTENSIONS_GROUP,
  resource: CRD_RESOURCE,
  kind: CRD_KIND,
  singularName: 'customresourcedefinition',
  namespaced: false,
  shortNames: ['crd', 'crds'],
  categories: ['api-extensions'],
  tracksGeneration: true,
  strategy: crdStrategy,
  subresources: [{ name: 'status', kind: CRD_KIND, verbs: SUBRESOURCE_VERBS }],
} as const;

/** The CRD types: v1 (storage) and v1beta1 (deprecated, converted). */
export const crdResourceTypes: ResourceTypeDef[] = [
  { ...base, version: 'v1', shortNames: [...base.shortNames], categories: [...base.categories], subresources: [...base.subresources] },
  {
    ...base,
    version: 'v1beta1',
    shortNames: [...base.shortNames],
    categories: [...base.categories],
    subresources: [...base.subresources],
    storageOf: { group: APIEXTENSIONS_GROUP, resource: CRD_RESOURCE },
    conversion: v1beta1Conversion,
    strategy: crdV1beta1Strategy,
    deprecationWarning: `${APIEXTENSIONS_GROUP}/v1beta1 CustomResourceDefinition is deprecated in v1.16+, unavailable in v1.22+; use ${APIEXTENSIONS_GROUP}/v1 CustomResourceDefinition`,
  },
];
