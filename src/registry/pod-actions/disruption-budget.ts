/**
 * The PodDisruptionBudget side of an eviction: which budgets select a pod
 * (getPodDisruptionBudgets) and taking one disruption from a budget
 * (checkAndDecrement), by compare-and-swap on the budget's status.
 *
 * The status itself (disruptionsAllowed, currentHealthy, desiredHealthy,
 * expectedPods, observedGeneration) is a disruption controller's to write, as
 * in the original, where kube-controller-manager computes it from the pods
 * and their controllers' scale. This server does not: a second writer would
 * fight the real controller, and a budget the controller has not seen yet
 * (observedGeneration behind generation) refuses evictions with a 429, which
 * is what the original answers without its controller too.
 */
import { errors, type StatusError } from '../../api/status.ts';
import { isPlainObject, nowRfc3339, type KObject } from '../object.ts';
import type { ResourceType } from '../resource-type.ts';
import { isEmptySelector, selectorMatches } from '../validation/label-selector.ts';
import type { PodActionEnv } from './action.ts';

/** MaxDisruptedPodSize: past this many unconfirmed evictions the budget refuses more. */
const MAX_DISRUPTED_PODS = 2000;

function budgetsType(env: PodActionEnv): ResourceType {
  const rt = env.registry.lookup('policy', 'v1', 'poddisruptionbudgets');
  if (rt === undefined) throw errors.internal('the poddisruptionbudgets resource is not served');
  return rt;
}

/**
 * Budgets of the namespace whose selector matches the labels: an empty
 * selector matches every pod (policy/v1), an absent or broken one none.
 */
export async function budgetsSelecting(env: PodActionEnv, namespace: string, labels: Readonly<Record<string, string>>): Promise<KObject[]> {
  const reply = await env.store.list(budgetsType(env), { kind: 'latest' }, { namespace }, {});
  if (reply.count === 0) return [];
  const items = JSON.parse(`[${Buffer.from(reply.items).toString('utf8')}]`) as KObject[];
  return items.filter((pdb) => {
    const selector = isPlainObject(pdb['spec']) ? pdb['spec']['selector'] : undefined;
    if (!isPlainObject(selector)) return false;
    return isEmptySelector(selector) || selectorMatches(selector, labels) === true;
  });
}

/** createTooManyRequestsError: the budget's status has not caught up with its spec. */
export function budgetStillProcessing(budget: string): StatusError {
  // The original suggests a 10 s retry here, where a budget with no disruption left suggests none.
  const err = errors.tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10);
  err.details!.causes = [{ reason: 'DisruptionBudget', message: `The disruption budget ${budget} is still being processed by the server.` }];
  return err;
}

function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}

/**
 * Takes one disruption from the named budget for the pod, or refuses with
 * the original's errors: 429 while the budget's status lags its spec or
 * allows none, 403 when it is inconsistent. A dry run checks and writes nothing.
 */
export async function takeDisruption(env: PodActionEnv, namespace: string, budget: string, pod: string, dryRun: boolean): Promise<void> {
  const rt = budgetsType(env);
  const now = nowRfc3339((env.now ?? (() => new Date()))());
  const check = (pdb: KObject): Record<string, unknown> => {
    const status = isPlainObject(pdb['status']) ? pdb['status'] : {};
    if (int(status['observedGeneration']) < (pdb.metadata.generation ?? 0)) throw budgetStillProcessing(budget);
    const allowed = int(status['disruptionsAllowed']);
    if (allowed < 0) throw errors.forbidden('policy', 'poddisruptionbudget', budget, 'pdb disruptions allowed is negative');
    const disrupted = isPlainObject(status['disruptedPods']) ? status['disruptedPods'] : {};
    if (Object.keys(disrupted).length > MAX_DISRUPTED_PODS) {
      throw errors.forbidden('policy', 'poddisruptionbudget', budget, 'DisruptedPods map too big - too many evictions not confirmed by PDB controller');
    }
    if (allowed === 0) {
      const err = errors.tooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0);
      err.details!.causes = [{
        reason: 'DisruptionBudget',
        message: `The disruption budget ${budget} needs ${int(status['desiredHealthy'])} healthy pods and has ${int(status['currentHealthy'])} currently`,
      }];
      throw err;
    }
    return status;
  };
  if (dryRun) {
    const cur = await env.store.getObject(rt, namespace, budget, { kind: 'latest' });
    if (cur === null) throw errors.notFound('policy', 'poddisruptionbudgets', budget);
    check(cur.obj);
    return;
  }
  await env.store.guaranteedUpdate(rt, namespace, budget, { user: undefined, dryRun: false }, 'status', (pdb) => {
    if (pdb === null) throw errors.notFound('policy', 'poddisruptionbudgets', budget);
    const status = check(pdb);
    const allowed = int(status['disruptionsAllowed']) - 1;
    const next: Record<string, unknown> = { ...status, disruptionsAllowed: allowed, disruptedPods: { ...(isPlainObject(status['disruptedPods']) ? status['disruptedPods'] : {}), [pod]: now } };
    if (allowed === 0) next['conditions'] = insufficientPods(status['conditions'], int(status['observedGeneration']), now);
    pdb['status'] = next;
    return { update: pdb };
  });
}

/** UpdateDisruptionAllowedCondition with none left: DisruptionAllowed turns False for InsufficientPods. */
function insufficientPods(conditions: unknown, observedGeneration: number, now: string): unknown[] {
  const list = Array.isArray(conditions) ? [...(conditions as unknown[])] : [];
  const at = list.findIndex((c) => isPlainObject(c) && c['type'] === 'DisruptionAllowed');
  const prev = at >= 0 && isPlainObject(list[at]) ? (list[at] as Record<string, unknown>) : undefined;
  const cond = {
    type: 'DisruptionAllowed',
    status: 'False',
    observedGeneration,
    lastTransitionTime: prev !== undefined && prev['status'] === 'False' && prev['lastTransitionTime'] ? prev['lastTransitionTime'] : now,
    reason: 'InsufficientPods',
    message: '',
  };
  if (at >= 0) list[at] = cond;
  else list.push(cond);
  return list;
}
