/**
 * Audit (spec 6.2): what the server and the serving threads build from the
 * options. The main thread opens the backends once (openAuditSink); every
 * serving thread compiles the policy and puts the filter in its chain
 * (auditFilter), with the main thread's sink or a channel to it.
 */
import type { Filter } from '../server/context.ts';
import type { Logger } from '../server/logging.ts';
import { auditEnabled, type AuditOptions } from './config.ts';
import { withAudit, withFailedAuthenticationAudit } from './filter.ts';
import { LogBackend } from './log-backend.ts';
import { loadPolicy } from './policy.ts';
import { LocalAuditSink, batchesGoAtOnce, type AuditSink, type ModedBackend } from './sink.ts';
import { WebhookBackend } from './webhook-backend.ts';
import type { AuditMetrics } from './types.ts';

export { RemoteAuditSink, serveRemoteAuditSink } from './remote-sink.ts';
export { LocalAuditSink, type AuditSink } from './sink.ts';
export { auditEnabled } from './config.ts';

/** Batch mode: the log's lines gather this long before a write (nobody waits for them). */
const LOG_BATCH_COALESCE_MS = 5;

/** Whether requests wait for their events (a blocking backend is configured). */
export function auditBlocking(a: AuditOptions): boolean {
  return (a.log.path !== undefined && a.log.mode !== 'batch') || (a.webhook.configFile !== undefined && a.webhook.mode !== 'batch');
}

/**
 * Whether the backends take a turn's events as encoded lines (sink.ts,
 * acceptsLines): the log alone, in batch mode, JSON, without the truncate
 * plugin, its batches sent at once (the defaults). Front-end threads read it from the options; the
 * main thread's sink decides from its backends, and the two agree.
 */
export function auditAcceptsLines(a: AuditOptions): boolean {
  return a.log.path !== undefined && a.log.mode === 'batch' && a.log.format === 'json' && a.log.truncate?.enabled !== true && batchesGoAtOnce(a.log.batch) && a.webhook.configFile === undefined;
}

/** The backends the options name, behind their modes; null when auditing is off. */
export async function openAuditSink(a: AuditOptions, logger: Logger): Promise<LocalAuditSink | null> {
  if (!auditEnabled(a)) return null;
  const backends: ModedBackend[] = [];
  try {
    if (a.log.path !== undefined) {
      backends.push({
        backend: await LogBackend.open({ path: a.log.path, format: a.log.format, maxSizeMB: a.log.maxSizeMB, maxBackups: a.log.maxBackups, maxAgeDays: a.log.maxAgeDays, compress: a.log.compress, coalesceMs: a.log.mode === 'batch' ? LOG_BATCH_COALESCE_MS : 0, onError: (err) => logger.error({ err: err instanceof Error ? err.message : String(err) }, 'audit log backups') }),
        mode: a.log.mode,
        batch: a.log.batch,
        truncate: a.log.truncate,
      });
    }
    if (a.webhook.configFile !== undefined) {
      let backend: WebhookBackend;
      try {
        backend = await WebhookBackend.open({ configFile: a.webhook.configFile, initialBackoffMs: a.webhook.initialBackoffMs });
      } catch (err) {
        // The kubeconfig reader names the token webhook's flag; this file came from another.
        throw new Error(String((err as Error).message).replace('--authentication-token-webhook-config-file', '--audit-webhook-config-file'));
      }
      backends.push({ backend, mode: a.webhook.mode, batch: a.webhook.batch, truncate: a.webhook.truncate });
    }
  } catch (err) {
    await Promise.all(backends.map((b) => b.backend.close()));
    throw err;
  }
  return new LocalAuditSink(backends, (err, what) => logger.error({ err: err instanceof Error ? err.message : String(err) }, what));
}

export interface AuditFilters {
  /** Just inside authentication: every authenticated request. */
  readonly audit: Filter;
  /** Just outside authentication: the requests it refused (401). */
  readonly failedAuthentication: Filter;
  /** Waits (bounded) for the audited requests to end, then hands the sink every event still waiting to be built (at shutdown, before the sink is closed). */
  flush(): Promise<void>;
}

/** The chain's audit filters, or undefined when auditing is off or the policy audits nothing. */
export async function auditFilters(a: AuditOptions, sink: AuditSink | undefined, logger: Logger, metrics?: AuditMetrics): Promise<AuditFilters | undefined> {
  if (sink === undefined || !auditEnabled(a)) return undefined;
  const checker = await loadPolicy(a.policyFile!);
  if (checker.auditsNothing) return undefined;
  const deps = { checker, sink, logger, metrics };
  const audit = withAudit(deps);
  return { audit: audit.filter, failedAuthentication: withFailedAuthenticationAudit(deps), flush: audit.flush };
}
