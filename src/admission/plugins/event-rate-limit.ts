/**
 * EventRateLimit: token-bucket limits on writes of core Events, as the
 * original's plugin (plugin/pkg/admission/eventratelimit). Its
 * configuration (`Configuration` of eventratelimit.admission.<suffix>/v1alpha1,
 * from the admission configuration file) lists limits of four types:
 *
 * - Server: one bucket for every event write to this server;
 * - Namespace, User, SourceAndObject: one bucket per namespace, user name,
 *   or event source + involved object, in an LRU cache of `cacheSize`
 *   buckets (default 4096);
 *
 * each with `qps` and `burst`. Every limit draws a token for each create or
 * update of an Event (dry runs excepted); when any has none the write gets
 * 429 `Too many requests: limit reached on type <type> for key <key>`.
 * Buckets are shared by every serving thread of the process (one set per
 * server, as the original's are per API server process).
 */
import { isMainThread, getEnvironmentData, setEnvironmentData } from 'node:worker_threads';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { StatusError } from '../../api/status.ts';
import { names } from '../../naming/index.ts';
import { admissionPluginConfig } from '../admission-config.ts';
import { record, str } from './admission-errors.ts';
import { SharedTokenBuckets, type BucketTableSpec } from './shared-token-buckets.ts';

export const LIMIT_TYPES = ['Server', 'Namespace', 'User', 'SourceAndObject'] as const;
export type LimitType = (typeof LIMIT_TYPES)[number];

export interface EventRateLimitConfig {
  readonly limits: ReadonlyArray<{ type: LimitType; qps: number; burst: number; cacheSize: number }>;
}

const DEFAULT_CACHE_SIZE = 4096;
/** Buckets allocated for one limit at most (its table is shared memory, allocated up front). */
const MAX_SLOTS = 1 << 20;

function goValue(v: unknown): string {
  return v === undefined || v === null ? 'null' : typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v);
}

/** Decodes and validates the plugin's configuration (the original's LoadConfiguration and ValidateConfiguration). */
export function loadEventRateLimitConfig(raw: unknown): EventRateLimitConfig {
  const doc = record(raw);
  if (raw !== undefined && raw !== null) {
    const apiVersion = str(doc['apiVersion']) ?? '';
    const [group = '', version = ''] = apiVersion.split('/');
    if (doc['kind'] !== 'Configuration' || !names.admissionNames.eventRateLimitConfigGroups.includes(group) || version !== 'v1alpha1') {
      throw new Error(`EventRateLimit: no kind ${JSON.stringify(doc['kind'] ?? '')} is registered for version ${JSON.stringify(apiVersion)}; want Configuration in ${names.admissionNames.eventRateLimitConfigGroups[0]}/v1alpha1`);
    }
  }
  const problems: string[] = [];
  const rawLimits = Array.isArray(doc['limits']) ? doc['limits'] : [];
  if (rawLimits.length === 0) problems.push(`limits: Invalid value: ${goValue(doc['limits'])}: must not be empty`);
  const limits = rawLimits.map((l, i) => {
    const limit = record(l);
    const type = limit['type'];
    const num = (k: string): number => (typeof limit[k] === 'number' && Number.isInteger(limit[k]) ? (limit[k] as number) : 0);
    if (!(LIMIT_TYPES as readonly unknown[]).includes(type)) {
      problems.push(`limits[${i}].type: Unsupported value: ${goValue(type)}: supported values: ${[...LIMIT_TYPES].sort().map((t) => JSON.stringify(t)).join(', ')}`);
    }
    if (num('burst') <= 0) problems.push(`limits[${i}].burst: Invalid value: ${goValue(limit['burst'] ?? 0)}: must be positive`);
    if (num('qps') <= 0) problems.push(`limits[${i}].qps: Invalid value: ${goValue(limit['qps'] ?? 0)}: must be positive`);
    if (type !== 'Server' && num('cacheSize') < 0) problems.push(`limits[${i}].cacheSize: Invalid value: ${goValue(limit['cacheSize'])}: must not be negative`);
    return { type: type as LimitType, qps: num('qps'), burst: num('burst'), cacheSize: num('cacheSize') };
  });
  if (problems.length > 0) throw new Error(`EventRateLimit: ${problems.length === 1 ? problems[0] : `[${problems.join(', ')}]`}`);
  return { limits };
}

function bucketSpecs(config: EventRateLimitConfig): BucketTableSpec[] {
  return config.limits.map((l) => ({
    qps: l.qps,
    burst: l.burst,
    slots: l.type === 'Server' ? 1 : Math.min(MAX_SLOTS, l.cacheSize === 0 ? DEFAULT_CACHE_SIZE : l.cacheSize),
  }));
}

/** The bucket key of an event write for a limit type (the original's key functions). */
export function limitKey(type: LimitType, attrs: AdmissionAttributes): string {
  switch (type) {
    case 'Server':
      return '';
    case 'Namespace':
      return attrs.namespace;
    case 'User':
      return attrs.user?.name ?? '';
    case 'SourceAndObject': {
      const ev: KObject | null = attrs.object;
      if (ev === null) return '';
      const source = record(ev['source']);
      const involved = record(ev['involvedObject']);
      return [source['component'], source['host'], involved['kind'], involved['namespace'], involved['name'], involved['uid'], involved['apiVersion']]
        .map((v) => str(v) ?? '')
        .join('');
    }
  }
}

export function eventRateLimit(config: EventRateLimitConfig, buckets: SharedTokenBuckets): AdmissionPlugin {
  return {
    name: 'EventRateLimit',
    handles: (rt, _sub, op) => rt.group === '' && rt.resource === 'events' && (op === 'CREATE' || op === 'UPDATE'),
    validate(attrs: AdmissionAttributes): void {
      // A dry run writes nothing, so it spends nothing.
      if (attrs.dryRun) return;
      const rejected: string[] = [];
      // Every limit draws, even after one has refused (as the original).
      config.limits.forEach((limit, i) => {
        const key = limitKey(limit.type, attrs);
        if (!buckets.tryAccept(i, key)) rejected.push(`limit reached on type ${limit.type} for key ${key}`);
      });
      if (rejected.length === 0) return;
      const message = rejected.length === 1 ? rejected[0]! : `[${rejected.join(', ')}]`;
      throw new StatusError(429, 'TooManyRequests', `Too many requests: ${message}`);
    },
  };
}

/**
 * The buckets' memory for this server: made by the main thread, which
 * builds its pipeline before it starts the front-end workers, and handed to
 * them through the environment data workers inherit.
 */
function sharedBuffer(key: string, bytes: number, onClose: (c: () => void) => void, warn: (msg: string) => void): SharedArrayBuffer {
  if (!isMainThread) {
    const inherited = getEnvironmentData(key);
    if (inherited instanceof SharedArrayBuffer && inherited.byteLength === bytes) return inherited;
    warn('EventRateLimit: no shared buckets from the main thread; this thread limits on its own');
    return new SharedArrayBuffer(bytes);
  }
  const buffer = new SharedArrayBuffer(bytes);
  setEnvironmentData(key, buffer);
  onClose(() => setEnvironmentData(key, undefined));
  return buffer;
}

export const eventRateLimitFactory: AdmissionPluginFactory = {
  name: 'EventRateLimit',
  create(deps) {
    const config = loadEventRateLimitConfig(admissionPluginConfig(deps.opts.admissionControlConfigFile, 'EventRateLimit'));
    const specs = bucketSpecs(config);
    const key = `orch-apiserver/EventRateLimit/${deps.opts.dataDir}/${deps.opts.securePort}`;
    const buffer = sharedBuffer(key, SharedTokenBuckets.bytesFor(specs), deps.onClose, (m) => deps.logger.warn(m));
    return eventRateLimit(config, new SharedTokenBuckets(buffer, specs));
  },
};
