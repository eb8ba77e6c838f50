/**
 * Conversions between a served version and the version its objects are
 * stored in, as the original's generated and hand-written conversion
 * functions do them. Each keeps what the other version cannot say (in
 * another field, or in an annotation of the original's), so an object
 * written through one version reads back the same through every other
 * (spec 9.2 rule 2). They never mutate their input.
 */
import type { Conversion } from '../resource-type.ts';
import { cloneJson, type KObject } from '../object.ts';
import { INTERNAL_SCHEMA_PREFIX, names } from '../../naming/index.ts';
import { TypedDecodeError, TypedDecoders, type KindDecoder } from '../../typed/index.ts';
import { SchemaSet } from '../../openapi/schema-set.ts';
import { ALL_TYPES } from '../../openapi/types/index.ts';
import { isPlainObject } from '../object.ts';
import { eventFromV1, eventToV1 } from '../strategies/event-conversion.ts';
import { pushAll } from '../../api/push-all.ts';
import { relabelFor } from './relabel.ts';

type JsonObject = Record<string, unknown>;

function withApiVersion(obj: KObject, apiVersion: string): KObject {
  const out = cloneJson(obj);
  out.apiVersion = apiVersion;
  return out;
}

/** Versions with the same fields: only apiVersion differs (reads splice it into the stored bytes). */
export function sameShape(served: string, stored: string, kind?: string): Conversion {
  return {
    toStorage: (o) => withApiVersion(o, stored),
    fromStorage: (o) => withApiVersion(o, served),
    ...(kind === undefined ? {} : { relabel: relabelFor(kind, stored, served) }),
  };
}

/** Chains two conversions: served -> middle -> stored. */
function chain(outer: Conversion, inner: Conversion): Conversion {
  return { toStorage: (o) => inner.toStorage(outer.toStorage(o)), fromStorage: (o) => outer.fromStorage(inner.fromStorage(o)) };
}

/** events.<suffix>/v1beta1: the events/v1 shape, stored as core v1 Events. */
export function eventsBeta(served: string, eventsV1: string): Conversion {
  return chain(sameShape(served, eventsV1), { toStorage: eventFromV1, fromStorage: eventToV1 });
}

// ---- policy/v1beta1 PodDisruptionBudget ----

function isEmptySelector(sel: unknown): boolean {
  if (!isPlainObject(sel)) return false;
  const labels = sel['matchLabels'];
  const exprs = sel['matchExpressions'];
  const emptyLabels = labels === undefined || labels === null || (isPlainObject(labels) && Object.keys(labels).length === 0);
  const emptyExprs = exprs === undefined || exprs === null || (Array.isArray(exprs) && exprs.length === 0);
  return emptyLabels && emptyExprs && Object.keys(sel).every((k) => k === 'matchLabels' || k === 'matchExpressions');
}

function isMarkerSelector(sel: unknown, operator: 'Exists' | 'DoesNotExist'): boolean {
  if (!isPlainObject(sel)) return false;
  const labels = sel['matchLabels'];
  if (labels !== undefined && labels !== null && !(isPlainObject(labels) && Object.keys(labels).length === 0)) return false;
  const exprs = sel['matchExpressions'];
  if (!Array.isArray(exprs) || exprs.length !== 1 || !isPlainObject(exprs[0])) return false;
  const e = exprs[0];
  const values = e['values'];
  return e['key'] === names.labels.pdbV1beta1EmptySelectorMatch && e['operator'] === operator && (values === undefined || values === null || (Array.isArray(values) && values.length === 0));
}

function marker(operator: 'Exists' | 'DoesNotExist'): JsonObject {
  return { matchExpressions: [{ key: names.labels.pdbV1beta1EmptySelectorMatch, operator }] };
}

/**
 * In v1beta1 an empty selector (`{}`) selects no pods, in v1 every pod. The
 * original stores v1beta1's `{}` as a selector that matches nothing
 * (`<key> Exists`) and shows v1's `{}` to v1beta1 clients as one that matches
 * everything (`<key> DoesNotExist`), mapping each back on the way in.
 */
export function pdbBeta(served: string, stored: string): Conversion {
  const swap = (o: KObject, apiVersion: string, from: 'in' | 'out'): KObject => {
    const out = withApiVersion(o, apiVersion);
    const spec = out['spec'];
    if (!isPlainObject(spec) || !('selector' in spec)) return out;
    const sel = spec['selector'];
    if (from === 'in') {
      if (isEmptySelector(sel)) spec['selector'] = marker('Exists');
      else if (isMarkerSelector(sel, 'DoesNotExist')) spec['selector'] = {};
    } else if (isEmptySelector(sel)) spec['selector'] = marker('DoesNotExist');
    else if (isMarkerSelector(sel, 'Exists')) spec['selector'] = {};
    return out;
  };
  return { toStorage: (o) => swap(o, stored, 'in'), fromStorage: (o) => swap(o, served, 'out') };
}

// ---- discovery/v1beta1 EndpointSlice ----

function mapEndpoints(o: KObject, apiVersion: string, each: (ep: JsonObject) => void): KObject {
  const out = withApiVersion(o, apiVersion);
  const eps = out['endpoints'];
  if (Array.isArray(eps)) for (const ep of eps) if (isPlainObject(ep)) each(ep);
  return out;
}

/**
 * v1beta1 endpoints have a `topology` map; v1 moved the zone into `zone`, and
 * keeps the rest in `deprecatedTopology` (the hostname only where it differs
 * from `nodeName`); back in v1beta1 the zone and the node name are in the map.
 */
export function endpointSliceBeta(served: string, stored: string): Conversion {
  const zoneKey = names.labels.topologyZone;
  const hostKey = names.labels.hostname;
  return {
    toStorage: (o) =>
      mapEndpoints(o, stored, (ep) => {
        const topology = ep['topology'];
        delete ep['topology'];
        if (!isPlainObject(topology)) return;
        const rest: JsonObject = { ...topology };
        if (typeof rest[zoneKey] === 'string') {
          ep['zone'] = rest[zoneKey];
          delete rest[zoneKey];
        }
        if (typeof ep['nodeName'] === 'string' && rest[hostKey] === ep['nodeName']) delete rest[hostKey];
        if (Object.keys(rest).length > 0) ep['deprecatedTopology'] = rest;
      }),
    fromStorage: (o) =>
      mapEndpoints(o, served, (ep) => {
        const topology: JsonObject = isPlainObject(ep['deprecatedTopology']) ? { ...ep['deprecatedTopology'] } : {};
        const had = isPlainObject(ep['deprecatedTopology']);
        delete ep['deprecatedTopology'];
        if (typeof ep['zone'] === 'string') topology[zoneKey] = ep['zone'];
        delete ep['zone'];
        if (typeof ep['nodeName'] === 'string') topology[hostKey] = ep['nodeName'];
        if (had || Object.keys(topology).length > 0) ep['topology'] = topology;
      }),
  };
}

// ---- autoscaling/v1 HorizontalPodAutoscaler ----

/** The utilization the original's autoscaling/v1 assumes when no metric is given. */
const DEFAULT_CPU_UTILIZATION = 80;

function cpuMetric(averageUtilization: number): JsonObject {
  return { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization } } };
}

function cpuUtilization(metric: unknown, field: 'target' | 'current'): number | undefined {
  if (!isPlainObject(metric) || metric['type'] !== 'Resource' || !isPlainObject(metric['resource'])) return undefined;
  const r = metric['resource'];
  const t = r[field];
  if (r['name'] !== 'cpu' || !isPlainObject(t)) return undefined;
  const u = t['averageUtilization'];
  if (typeof u !== 'number') return undefined;
  return field === 'target' && t['type'] !== 'Utilization' ? undefined : u;
}

let hpaV2Decoder: KindDecoder | undefined;

/** The stored HPA's typed decoder (built on first use): annotation contents must fit the v2 types. */
function hpaV2(): KindDecoder {
  hpaV2Decoder ??= new TypedDecoders(new SchemaSet(ALL_TYPES)).forSchema(`${INTERNAL_SCHEMA_PREFIX}.api.autoscaling.v2.HorizontalPodAutoscaler`);
  return hpaV2Decoder;
}

/**
 * The value of an annotation as `part` of a v2 HPA (`spec.metrics`, ...),
 * decoded into the v2 types as the original unmarshals it into its Go types
 * (fields they lack dropped); taken out of the annotations when it fits. One
 * that is not JSON or does not fit is ignored and left in place, as the
 * original does: it never reaches the stored object.
 */
function parseAnnotation(annotations: JsonObject, key: string, part: 'spec' | 'status', field: string, shape: 'array' | 'object'): unknown {
  const text = annotations[key];
  if (typeof text !== 'string') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (shape === 'array' ? !Array.isArray(value) : !isPlainObject(value)) return undefined;
  const holder: Record<string, unknown> = { [part]: { [field]: value } };
  try {
    hpaV2().decode(holder);
  } catch (err) {
    if (err instanceof TypedDecodeError) return undefined;
    throw err;
  }
  delete annotations[key];
  return (holder[part] as JsonObject)[field];
}

/**
 * autoscaling/v1 shows a v2 HPA's CPU utilization target and keeps its other
 * metrics, current metrics, conditions and behavior in annotations (the
 * original's `autoscaling.alpha.<domain>/...`), read back on the way in. As
 * in the original, the annotations hold the stored version's shapes (v2
 * here) and a v1 HPA without a target gets the 80% CPU default.
 */
export function hpaV1(served: string, stored: string): Conversion {
  const keys = names.annotations.hpaV1;
  return {
    fromStorage(o) {
      const out = withApiVersion(o, served);
      const spec = isPlainObject(out['spec']) ? out['spec'] : {};
      const status = isPlainObject(out['status']) ? out['status'] : undefined;
      const annotations: JsonObject = { ...(isPlainObject(out.metadata.annotations) ? out.metadata.annotations : {}) };
      const metrics = Array.isArray(spec['metrics']) ? spec['metrics'] : [];
      const others = metrics.filter((m) => cpuUtilization(m, 'target') === undefined);
      const cpu = metrics.map((m) => cpuUtilization(m, 'target')).find((u) => u !== undefined);
      delete spec['metrics'];
      if (cpu !== undefined) spec['targetCPUUtilizationPercentage'] = cpu;
      if (others.length > 0) annotations[keys.metrics] = JSON.stringify(others);
      if (spec['behavior'] !== undefined && spec['behavior'] !== null) annotations[keys.behavior] = JSON.stringify(spec['behavior']);
      delete spec['behavior'];
      if (status !== undefined) {
        const current = Array.isArray(status['currentMetrics']) ? status['currentMetrics'] : [];
        const cpuNow = current.map((m) => cpuUtilization(m, 'current')).find((u) => u !== undefined);
        if (current.length > 0) annotations[keys.currentMetrics] = JSON.stringify(current);
        if (cpuNow !== undefined) status['currentCPUUtilizationPercentage'] = cpuNow;
        const conditions = status['conditions'];
        if (Array.isArray(conditions) && conditions.length > 0) annotations[keys.conditions] = JSON.stringify(conditions);
        delete status['currentMetrics'];
        delete status['conditions'];
      }
      if (Object.keys(annotations).length > 0) out.metadata.annotations = annotations as Record<string, string>;
      return out;
    },
    toStorage(o) {
      const out = withApiVersion(o, stored);
      const spec = isPlainObject(out['spec']) ? out['spec'] : (out['spec'] = {});
      const annotations: JsonObject = { ...(isPlainObject(out.metadata.annotations) ? out.metadata.annotations : {}) };
      const target = spec['targetCPUUtilizationPercentage'];
      delete spec['targetCPUUtilizationPercentage'];
      const metrics: unknown[] = [];
      const others = parseAnnotation(annotations, keys.metrics, 'spec', 'metrics', 'array');
      if (Array.isArray(others)) pushAll(metrics, others as unknown[]);
      if (typeof target === 'number') metrics.push(cpuMetric(target));
      spec['metrics'] = metrics.length > 0 ? metrics : [cpuMetric(DEFAULT_CPU_UTILIZATION)];
      const behavior = parseAnnotation(annotations, keys.behavior, 'spec', 'behavior', 'object');
      if (isPlainObject(behavior)) spec['behavior'] = behavior;
      const status = isPlainObject(out['status']) ? out['status'] : undefined;
      const current = parseAnnotation(annotations, keys.currentMetrics, 'status', 'currentMetrics', 'array');
      const conditions = parseAnnotation(annotations, keys.conditions, 'status', 'conditions', 'array');
      if (status !== undefined) {
        const cpuNow = status['currentCPUUtilizationPercentage'];
        delete status['currentCPUUtilizationPercentage'];
        if (Array.isArray(current)) status['currentMetrics'] = current;
        else if (typeof cpuNow === 'number') status['currentMetrics'] = [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: cpuNow } } }];
        if (Array.isArray(conditions)) status['conditions'] = conditions;
      }
      if (Object.keys(annotations).length > 0) out.metadata.annotations = annotations as Record<string, string>;
      else delete out.metadata.annotations;
      return out;
    },
  };
}
