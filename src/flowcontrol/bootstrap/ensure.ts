/**
 * One pass of the original's APF bootstrap ensurer (pkg/registry/flowcontrol
 * ensurer/ and rest/storage_flowcontrol.go `ensure`): suggested objects,
 * then mandatory ones, then the removal of objects the server once created
 * that the bootstrap set no longer has.
 *
 * - A missing object, mandatory or suggested, is created.
 * - A mandatory object's spec is always put back (and its autoupdate-spec
 *   annotation set to "true"): the classifier depends on it.
 * - A suggested object's spec is put back only when its annotation says
 *   "true" (Go's ParseBool spellings); with no readable annotation, only when
 *   its generation is 1 (nobody edited it). The annotation is then written
 *   with that decision, so a later edit is not overwritten.
 * - An object not in the bootstrap set with the annotation "true" is deleted;
 *   with "false", a malformed value or none, it stays.
 *
 * Every write is a compare-and-swap on the revision just read (a conflict
 * reads again), so servers starting together converge.
 */
import type { GenericStore, WriteOptions } from '../../registry/generic-store.ts';
import type { ResourceRegistry } from '../../registry/registry.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import { cloneJson, jsonEqual, type KObject } from '../../registry/object.ts';
import { StatusError } from '../../api/status.ts';
import { names } from '../../naming/index.ts';
import { APISERVER_USER } from '../../authz/rbac/reconcile.ts';
import {
  FLOWCONTROL_GROUP,
  FLOWCONTROL_VERSION,
  bootstrapFlowSchemaNames,
  bootstrapPriorityLevelNames,
  mandatoryFlowSchemas,
  mandatoryPriorityLevels,
  suggestedFlowSchemas,
  suggestedPriorityLevels,
} from './objects.ts';

/** The original's field manager of these writes. */
export const PRODUCER_FIELD_MANAGER = 'api-priority-and-fairness-config-producer-v1';

const MAX_ATTEMPTS = 5;

export interface EnsureReport {
  created: string[];
  updated: string[];
  deleted: string[];
}

/** Go's strconv.ParseBool, which the original reads the annotation with; undefined when not a boolean. */
export function parseGoBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(v)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(v)) return false;
  return undefined;
}

function annotation(obj: KObject): string | undefined {
  return obj.metadata.annotations?.[names.annotations.apfAutoUpdateSpec];
}

/** Whether the server may put the bootstrap spec on `current` (shouldUpdateSpec). */
export function autoUpdateSpec(current: KObject, mandatory: boolean): boolean {
  if (mandatory) return true;
  const parsed = parseGoBool(annotation(current));
  if (parsed !== undefined) return parsed;
  // No (readable) annotation: an object nobody edited since it was created may be brought up to date.
  return current.metadata.generation === 1;
}

/**
 * The object to write so that `current` follows `bootstrap` (already
 * defaulted as stored), or null when it already does (ShouldUpdate).
 */
export function ensuredObject(current: KObject, bootstrap: KObject, mandatory: boolean): KObject | null {
  const auto = autoUpdateSpec(current, mandatory);
  const updateAnnotation = parseGoBool(annotation(current)) !== auto;
  const specChanged = auto && !jsonEqual(current['spec'], bootstrap['spec']);
  if (!updateAnnotation && !specChanged) return null;
  const next = cloneJson(current);
  if (updateAnnotation) next.metadata.annotations = { ...(next.metadata.annotations ?? {}), [names.annotations.apfAutoUpdateSpec]: String(auto) };
  if (specChanged) next['spec'] = cloneJson(bootstrap['spec']);
  return next;
}

/** The names a removal pass may delete: annotated objects outside the bootstrap set (getRemoveCandidate). */
export function removalCandidates(current: readonly KObject[], bootstrap: ReadonlySet<string>): string[] {
  return current.filter((o) => annotation(o) !== undefined && !bootstrap.has(o.metadata.name ?? '')).map((o) => o.metadata.name ?? '');
}

const isRetryable = (err: unknown): boolean => err instanceof StatusError && (err.code === 409 || err.code === 404);

const writeOptions: WriteOptions = { user: APISERVER_USER, dryRun: false, fieldManager: PRODUCER_FIELD_MANAGER };

/** Creates or brings up to date one object; returns what it did. */
async function ensureOne(store: GenericStore, rt: ResourceType, wanted: KObject, mandatory: boolean): Promise<'created' | 'updated' | null> {
  const name = wanted.metadata.name!;
  // What the store would keep of the bootstrap spec: the comparison must not see defaults as edits.
  const defaulted = cloneJson(wanted);
  rt.strategy.defaults?.(defaulted);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const cur = await store.getObject(rt, '', name, { kind: 'latest' });
    try {
      if (cur === null) {
        await store.create(rt, '', cloneJson(wanted), writeOptions);
        return 'created';
      }
      const next = ensuredObject(cur.obj, defaulted, mandatory);
      if (next === null) return null;
      next.metadata.resourceVersion = cur.obj.metadata.resourceVersion;
      await store.update(rt, '', name, next, writeOptions);
      return 'updated';
    } catch (err) {
      if (isRetryable(err)) continue;
      throw err;
    }
  }
  throw new Error(`${rt.resource}/${name} kept changing while it was ensured`);
}

/** Deletes one removal candidate if it still says autoupdate "true" (removeConfiguration). */
async function removeOne(store: GenericStore, rt: ResourceType, name: string): Promise<boolean> {
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const cur = await store.getObject(rt, '', name, { kind: 'latest' });
    // Malformed or "false": an operator's object, or one to look at by hand; never deleted.
    if (cur === null || parseGoBool(annotation(cur.obj)) !== true) return false;
    try {
      await store.delete(rt, '', name, { ...writeOptions, preconditions: { uid: cur.obj.metadata.uid, resourceVersion: cur.obj.metadata.resourceVersion } });
      return true;
    } catch (err) {
      if (err instanceof StatusError && err.code === 404) return false;
      if (isRetryable(err)) continue;
      throw err;
    }
  }
  throw new Error(`${rt.resource}/${name} kept changing while it was removed`);
}

async function listAll(store: GenericStore, rt: ResourceType): Promise<KObject[]> {
  const reply = await store.list(rt, { kind: 'latest' }, {}, {});
  const text = new TextDecoder().decode(reply.items);
  return text === '' ? [] : (JSON.parse(`[${text}]`) as KObject[]);
}

export interface FlowcontrolTypes {
  flowSchemas: ResourceType;
  priorityLevels: ResourceType;
}

/** The stored version's types, or null when --runtime-config turned it off. */
export function flowcontrolTypes(registry: ResourceRegistry): FlowcontrolTypes | null {
  const flowSchemas = registry.lookup(FLOWCONTROL_GROUP, FLOWCONTROL_VERSION, 'flowschemas');
  const priorityLevels = registry.lookup(FLOWCONTROL_GROUP, FLOWCONTROL_VERSION, 'prioritylevelconfigurations');
  return flowSchemas === undefined || priorityLevels === undefined ? null : { flowSchemas, priorityLevels };
}

/**
 * One full pass, in the original's order. Throws on the first failure (the
 * caller retries the whole pass); what was done before stays done.
 */
export async function ensureBootstrapConfiguration(store: GenericStore, types: FlowcontrolTypes): Promise<EnsureReport> {
  const report: EnsureReport = { created: [], updated: [], deleted: [] };
  const steps: Array<[ResourceType, KObject[], boolean]> = [
    // The original's order: suggested before mandatory, priority levels before the schemas that name them.
    [types.priorityLevels, suggestedPriorityLevels(), false],
    [types.flowSchemas, suggestedFlowSchemas(), false],
    [types.priorityLevels, mandatoryPriorityLevels(), true],
    [types.flowSchemas, mandatoryFlowSchemas(), true],
  ];
  for (const [rt, objects, mandatory] of steps) {
    for (const wanted of objects) {
      const done = await ensureOne(store, rt, wanted, mandatory);
      if (done !== null) report[done].push(`${rt.resource}/${wanted.metadata.name!}`);
    }
  }
  const removals: Array<[ResourceType, ReadonlySet<string>]> = [
    [types.flowSchemas, bootstrapFlowSchemaNames()],
    [types.priorityLevels, bootstrapPriorityLevelNames()],
  ];
  for (const [rt, keep] of removals) {
    for (const name of removalCandidates(await listAll(store, rt), keep)) {
      if (await removeOne(store, rt, name)) report.deleted.push(`${rt.resource}/${name}`);
    }
  }
  return report;
}
