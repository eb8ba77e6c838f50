/**
 * The audit API's shapes (`audit.<suffix>/v1`): levels, stages, the policy
 * as read from `--audit-policy-file` and the Event the backends write, with
 * the original's field names (staging/src/k8s.io/apiserver/pkg/apis/audit).
 */
import { names } from '../naming/index.ts';

export const LEVELS = ['None', 'Metadata', 'Request', 'RequestResponse'] as const;
export type Level = (typeof LEVELS)[number];

export const STAGES = ['RequestReceived', 'ResponseStarted', 'ResponseComplete', 'Panic'] as const;
export type Stage = (typeof STAGES)[number];

/** `audit.<suffix>/v1`: the apiVersion of events, event lists and policies. */
export const AUDIT_API_VERSION = `audit.${names.apiGroupSuffix}/v1`;

/** Annotation keys the authorization step leaves on every event (the original's authorization.k8s.io/...). */
export const DECISION_ANNOTATION = `authorization.${names.apiGroupSuffix}/decision`;
export const REASON_ANNOTATION = `authorization.${names.apiGroupSuffix}/reason`;

/** Levels ordered: a level "at least" another compares by index. */
export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

export interface GroupResources {
  readonly group?: string;
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
}

export interface PolicyRule {
  readonly level: Level;
  readonly users?: readonly string[];
  readonly userGroups?: readonly string[];
  readonly verbs?: readonly string[];
  readonly resources?: readonly GroupResources[];
  readonly namespaces?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface Policy {
  readonly rules: readonly PolicyRule[];
  readonly omitStages?: readonly Stage[];
  readonly omitManagedFields?: boolean;
}

export interface AuditUser {
  username: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface ObjectReference {
  resource?: string;
  namespace?: string;
  name?: string;
  apiGroup?: string;
  apiVersion?: string;
  subresource?: string;
}

/** One audit event as written (JSON) by the backends. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: string;
  level: Level;
  auditID: string;
  stage: Stage;
  requestURI: string;
  verb: string;
  user: AuditUser;
  impersonatedUser?: AuditUser;
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: ObjectReference;
  responseStatus?: { metadata: Record<string, never>; code: number; status?: string; message?: string };
  requestObject?: unknown;
  responseObject?: unknown;
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  annotations?: Record<string, string>;
}

/** Where audit counts go (the server's metrics: src/server/audit-metrics.ts). */
export interface AuditMetrics {
  /** One event handed to the backends (apiserver_audit_event_total). */
  event(): void;
  /** The level the policy gave one request (apiserver_audit_level_total). */
  level(level: Level): void;
  /** Events a plugin lost (apiserver_audit_error_total{plugin}). */
  error(plugin: string, events: number): void;
  /** A request refused because its event could not be stored (apiserver_audit_requests_rejected_total). */
  rejected(): void;
}
