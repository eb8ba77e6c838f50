/** CRD status conditions: set one by type, keeping lastTransitionTime when the status does not change. */

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown';
  reason: string;
  message: string;
  lastTransitionTime?: string;
}

export function conditionsOf(status: Record<string, unknown>): Condition[] {
  return Array.isArray(status['conditions']) ? (status['conditions'] as Condition[]) : [];
}

export function findCondition(status: Record<string, unknown>, type: string): Condition | undefined {
  return conditionsOf(status).find((c) => c.type === type);
}

/** Sets `c` in `status.conditions` (replacing the one of its type); the transition time moves only on a status change. */
export function setCondition(status: Record<string, unknown>, c: Condition, now: string): void {
  const list = conditionsOf(status).slice();
  const at = list.findIndex((x) => x.type === c.type);
  const old = at >= 0 ? list[at] : undefined;
  const next: Condition = { type: c.type, status: c.status, lastTransitionTime: old !== undefined && old.status === c.status && old.lastTransitionTime ? old.lastTransitionTime : now, reason: c.reason, message: c.message };
  if (at >= 0) list[at] = next;
  else list.push(next);
  status['conditions'] = list;
}
