/**
 * UpdatePodCondition as the original's podutil has it: replace the condition
 * of the same type, moving lastTransitionTime only when the status changes.
 */
import { isPlainObject, type KObject } from '../object.ts';

export interface PodCondition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export function setPodCondition(pod: KObject, cond: PodCondition, now: string): void {
  const status = isPlainObject(pod['status']) ? pod['status'] : (pod['status'] = {});
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  const at = list.findIndex((c) => isPlainObject(c) && c['type'] === cond.type);
  const prev = at >= 0 && isPlainObject(list[at]) ? (list[at] as Record<string, unknown>) : undefined;
  const next: Record<string, unknown> = { type: cond.type, status: cond.status };
  if (prev?.['lastProbeTime'] !== undefined) next['lastProbeTime'] = prev['lastProbeTime'];
  next['lastTransitionTime'] = prev !== undefined && prev['status'] === cond.status && prev['lastTransitionTime'] !== undefined ? prev['lastTransitionTime'] : now;
  if (cond.reason) next['reason'] = cond.reason;
  if (cond.message) next['message'] = cond.message;
  if (at >= 0) list[at] = next;
  else list.push(next);
  status['conditions'] = list;
}

/** IsPodReady: the Ready condition is True. */
export function isPodReady(pod: KObject): boolean {
  const status = isPlainObject(pod['status']) ? pod['status'] : {};
  const list = Array.isArray(status['conditions']) ? (status['conditions'] as unknown[]) : [];
  return list.some((c) => isPlainObject(c) && c['type'] === 'Ready' && c['status'] === 'True');
}
