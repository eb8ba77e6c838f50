/**
 * The Dangling condition of FlowSchemas, as the original's config consumer
 * keeps it (apf_controller.go, v1.25): True (NotFound) when the schema's
 * priority level does not exist, False (Found) when it does. Written by one
 * serving thread per process (the main one), only when type, status, reason
 * or message change, so its own write's watch event writes nothing more.
 */
import type { KObject } from '../registry/object.ts';

export const DANGLING = 'Dangling';
/** The original's field manager for these writes. */
export const CONFIG_CONSUMER_FIELD_MANAGER = 'api-priority-and-fairness-config-consumer-v1';

interface Condition {
  type?: unknown;
  status?: unknown;
  reason?: unknown;
  message?: unknown;
  lastTransitionTime?: unknown;
}

/** The condition the schema should carry. */
export function danglingCondition(priorityLevel: string, exists: boolean): { type: string; status: string; reason: string; message: string } {
  return exists
    ? { type: DANGLING, status: 'False', reason: 'Found', message: `This FlowSchema references the PriorityLevelConfiguration object named "${priorityLevel}" and it exists` }
    : { type: DANGLING, status: 'True', reason: 'NotFound', message: `This FlowSchema references the PriorityLevelConfiguration object named "${priorityLevel}" but there is no such object` };
}

/** The schema with its Dangling condition set, or undefined when it already says so. */
export function withDanglingCondition(fs: KObject, priorityLevel: string, exists: boolean, now: Date): KObject | undefined {
  const want = danglingCondition(priorityLevel, exists);
  const status = (typeof fs['status'] === 'object' && fs['status'] !== null ? fs['status'] : {}) as { conditions?: unknown };
  const conditions = Array.isArray(status.conditions) ? (status.conditions as Condition[]) : [];
  const cur = conditions.find((c) => c?.type === DANGLING);
  if (cur !== undefined && cur.status === want.status && cur.reason === want.reason && cur.message === want.message) return undefined;
  const lastTransitionTime = cur !== undefined && cur.status === want.status && typeof cur.lastTransitionTime === 'string' ? cur.lastTransitionTime : now.toISOString().replace(/\.\d{3}Z$/, 'Z');
  const next = [...conditions.filter((c) => c?.type !== DANGLING), { ...want, lastTransitionTime }];
  return { ...fs, status: { ...status, conditions: next } };
}
