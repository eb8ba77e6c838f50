/**
 * The `--audit-*` flags as one value, with the original's defaults (spec 8:
 * buffer 10000; log batch max size 1; webhook batch max size 400, max wait
 * 30s, throttle burst 15, qps 10). Kept apart from the backends so options
 * parsing opens no file and no connection. Auditing is on when a policy file
 * and at least one backend are given, as in the original.
 */
import { parseGoDuration } from '../server/filters/go-duration.ts';
import { LOG_FORMATS, type LogFormat } from './log-backend.ts';
import { AUDIT_MODES, type AuditMode, type BatchOptions } from './sink.ts';
import { defaultTruncateOptions, type TruncateOptions } from './truncate-backend.ts';
import { AUDIT_API_VERSION } from './types.ts';

export interface AuditOptions {
  policyFile: string | undefined;
  log: {
    path: string | undefined;
    maxAgeDays: number;
    maxBackups: number;
    maxSizeMB: number;
    /** gzip rotated files (lumberjack's Compress). */
    compress: boolean;
    format: LogFormat;
    mode: AuditMode;
    batch: BatchOptions;
    truncate: TruncateOptions;
  };
  webhook: {
    configFile: string | undefined;
    mode: AuditMode;
    initialBackoffMs: number;
    batch: BatchOptions;
    truncate: TruncateOptions;
  };
}

export class AuditConfigError extends Error {}

export function defaultAuditOptions(): AuditOptions {
  return {
    policyFile: undefined,
    log: {
      path: undefined,
      maxAgeDays: 0,
      maxBackups: 0,
      maxSizeMB: 0,
      compress: false,
      format: 'json',
      // The original's default: a log write is cheap, so requests wait for it.
      mode: 'blocking',
      batch: { bufferSize: 10_000, maxSize: 1, maxWaitMs: 0, throttleEnable: false, throttleQps: 0, throttleBurst: 0 },
      truncate: defaultTruncateOptions(),
    },
    webhook: {
      configFile: undefined,
      mode: 'batch',
      initialBackoffMs: 10_000,
      batch: { bufferSize: 10_000, maxSize: 400, maxWaitMs: 30_000, throttleEnable: true, throttleQps: 10, throttleBurst: 15 },
      truncate: defaultTruncateOptions(),
    },
  };
}

/** Whether events are produced at all. */
export function auditEnabled(a: AuditOptions): boolean {
  return a.policyFile !== undefined && (a.log.path !== undefined || a.webhook.configFile !== undefined);
}

function int(name: string, min: number): (v: string) => number {
  return (v) => {
    if (!/^[0-9]+$/.test(v) || Number(v) < min || !Number.isSafeInteger(Number(v))) throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: must be an integer of at least ${min}`);
    return Number(v);
  };
}

function num(name: string): (v: string) => number {
  return (v) => {
    const n = Number(v);
    if (v.trim() === '' || !Number.isFinite(n) || n < 0) throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: must be a number of at least 0`);
    return n;
  };
}

function bool(name: string): (v: string) => boolean {
  return (v) => {
    if (v === 'true' || v === '') return true;
    if (v === 'false') return false;
    throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: must be true or false`);
  };
}

function duration(name: string): (v: string) => number {
  return (v) => {
    let ms: number;
    try {
      ms = parseGoDuration(v);
    } catch (err) {
      throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: ${(err as Error).message}`);
    }
    if (ms < 0) throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: must not be negative`);
    return ms;
  };
}

function mode(name: string): (v: string) => AuditMode {
  return (v) => {
    if (!(AUDIT_MODES as readonly string[]).includes(v)) throw new AuditConfigError(`invalid audit ${name.includes('webhook') ? 'webhook' : 'log'} mode ${JSON.stringify(v)}, allowed modes are "${AUDIT_MODES.join(',')}"`);
    return v as AuditMode;
  };
}

function version(name: string): (v: string) => void {
  return (v) => {
    if (v !== AUDIT_API_VERSION) throw new AuditConfigError(`invalid value ${JSON.stringify(v)} for --${name}: only ${AUDIT_API_VERSION} is served`);
  };
}

export interface AuditFlag {
  set: (a: AuditOptions, value: string) => void;
  boolean?: boolean;
  help: string;
}

function batchFlags(prefix: 'audit-log' | 'audit-webhook', pick: (a: AuditOptions) => BatchOptions): Record<string, AuditFlag> {
  const f = (s: string): string => `${prefix}-batch-${s}`;
  return {
    [f('buffer-size')]: { set: (a, v) => (pick(a).bufferSize = int(f('buffer-size'), 1)(v)), help: 'events buffered before batching; a full buffer drops events (batch mode)' },
    [f('max-size')]: { set: (a, v) => (pick(a).maxSize = int(f('max-size'), 1)(v)), help: 'largest batch (batch mode)' },
    [f('max-wait')]: { set: (a, v) => (pick(a).maxWaitMs = duration(f('max-wait'))(v)), help: 'longest wait before a batch that is not full is sent (batch mode)' },
    [f('throttle-enable')]: { set: (a, v) => (pick(a).throttleEnable = bool(f('throttle-enable'))(v)), boolean: true, help: 'whether batches are throttled (batch mode)' },
    [f('throttle-qps')]: { set: (a, v) => (pick(a).throttleQps = num(f('throttle-qps'))(v)), help: 'batches per second at most (batch mode, throttled)' },
    [f('throttle-burst')]: { set: (a, v) => (pick(a).throttleBurst = int(f('throttle-burst'), 0)(v)), help: 'batches sent at once when the throttle has not been used (batch mode, throttled)' },
  };
}

function truncateFlags(prefix: 'audit-log' | 'audit-webhook', pick: (a: AuditOptions) => TruncateOptions): Record<string, AuditFlag> {
  const f = (s: string): string => `${prefix}-truncate-${s}`;
  return {
    [f('enabled')]: { set: (a, v) => (pick(a).enabled = bool(f('enabled'))(v)), boolean: true, help: 'whether events and batches are truncated (the truncate plugin)' },
    [f('max-batch-size')]: { set: (a, v) => (pick(a).maxBatchSize = int(f('max-batch-size'), 1)(v)), help: 'bytes of a batch sent to the backend at most; larger batches are split (default 10485760)' },
    [f('max-event-size')]: { set: (a, v) => (pick(a).maxEventSize = int(f('max-event-size'), 1)(v)), help: 'bytes of an event at most; a larger one loses its request and response objects, then is dropped if still too large (default 102400)' },
  };
}

/** Checks of several flags together (the original's AuditTruncateOptions.Validate), after all are set. */
export function validateAuditOptions(a: AuditOptions): void {
  for (const [plugin, t] of [['log', a.log.truncate], ['webhook', a.webhook.truncate]] as const) {
    if (t.maxBatchSize < t.maxEventSize) throw new AuditConfigError(`invalid audit truncate ${plugin} max batch size ${t.maxBatchSize}, must be greater than max event size (${t.maxEventSize})`);
  }
}

export const AUDIT_FLAGS: Record<string, AuditFlag> = {
  'audit-policy-file': { set: (a, v) => (a.policyFile = v), help: 'the audit Policy (YAML or JSON); with a log or webhook backend, turns auditing on' },
  'audit-log-path': { set: (a, v) => (a.log.path = v), help: 'audit log file ("-" = standard output); turns the log backend on' },
  'audit-log-maxage': { set: (a, v) => (a.log.maxAgeDays = int('audit-log-maxage', 0)(v)), help: 'days an old audit log file is kept (0 = no limit)' },
  'audit-log-maxbackup': { set: (a, v) => (a.log.maxBackups = int('audit-log-maxbackup', 0)(v)), help: 'old audit log files kept (0 = no limit)' },
  'audit-log-maxsize': { set: (a, v) => (a.log.maxSizeMB = int('audit-log-maxsize', 0)(v)), help: 'megabytes of an audit log file before it is rotated (0 = 100)' },
  'audit-log-compress': { set: (a, v) => (a.log.compress = bool('audit-log-compress')(v)), boolean: true, help: 'gzip the rotated audit log files' },
  'audit-log-format': {
    set: (a, v) => {
      if (!(LOG_FORMATS as readonly string[]).includes(v)) throw new AuditConfigError(`invalid audit log format ${JSON.stringify(v)}, allowed formats are "${LOG_FORMATS.join(',')}"`);
      a.log.format = v as LogFormat;
    },
    help: 'json (one Event per line, default) or legacy (one text line per event)',
  },
  'audit-log-mode': { set: (a, v) => (a.log.mode = mode('audit-log-mode')(v)), help: 'batch, blocking (default) or blocking-strict (a RequestReceived event that cannot be written fails the request)' },
  'audit-log-version': { set: (_a, v) => version('audit-log-version')(v), help: `API version of logged events (${AUDIT_API_VERSION})` },
  ...batchFlags('audit-log', (a) => a.log.batch),
  ...truncateFlags('audit-log', (a) => a.log.truncate),
  'audit-webhook-config-file': { set: (a, v) => (a.webhook.configFile = v), help: 'kubeconfig of the audit webhook (https); turns the webhook backend on' },
  'audit-webhook-mode': { set: (a, v) => (a.webhook.mode = mode('audit-webhook-mode')(v)), help: 'batch (default), blocking or blocking-strict' },
  'audit-webhook-initial-backoff': { set: (a, v) => (a.webhook.initialBackoffMs = duration('audit-webhook-initial-backoff')(v)), help: 'wait before the first retry of a failed webhook request (default 10s)' },
  'audit-webhook-version': { set: (_a, v) => version('audit-webhook-version')(v), help: `API version of the EventLists sent (${AUDIT_API_VERSION})` },
  ...batchFlags('audit-webhook', (a) => a.webhook.batch),
  ...truncateFlags('audit-webhook', (a) => a.webhook.truncate),
};
