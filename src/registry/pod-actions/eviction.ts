/**
 * pods/eviction: delete a pod unless that would break its disruption budget.
 * A port of the original's EvictionREST (pkg/registry/core/pod/storage/
 * eviction.go): pods that are pending, finished or already being deleted go
 * at once; otherwise the one PodDisruptionBudget selecting the pod must allow
 * a disruption, which is taken from it by compare-and-swap (recording the pod
 * in status.disruptedPods) before the pod gets the DisruptionTarget condition
 * and is deleted with the Eviction's delete options.
 */
import type { DeleteOptions } from '../generic-store.ts';
import { errors, StatusError } from '../../api/status.ts';
import { isPlainObject, nowRfc3339, type KObject } from '../object.ts';
import type { ResourceType } from '../resource-type.ts';
import { admitAction, checkBodyNamespace, checkBodyType, successStatus, type PodAction, type PodActionEnv, type PodActionResult } from './action.ts';
import { podsType } from './binding.ts';
import { evictionDeleteOptions } from './eviction-options.ts';
import { budgetsSelecting, budgetStillProcessing, takeDisruption } from './disruption-budget.ts';
import { isPodReady, setPodCondition } from './pod-conditions.ts';

/** The eviction API's apiVersions: policy/v1 and the deprecated policy/v1beta1 carry the same body. */
const EVICTION_VERSIONS = ['policy/v1', 'policy/v1beta1'];
/** EvictionsRetry's steps: how often a conflicting pod read is retried. */
const RETRIES = 20;

/** Pods whose eviction cannot disrupt anything more (canIgnorePDB). */
function canIgnoreBudget(pod: KObject): boolean {
  const phase = isPlainObject(pod['status']) ? pod['status']['phase'] : undefined;
  return phase === 'Succeeded' || phase === 'Failed' || phase === 'Pending' || Boolean(pod.metadata.deletionTimestamp);
}

/** Terminal or deleting pods may go whatever their version (shouldEnforceResourceVersion). */
function shouldEnforceResourceVersion(pod: KObject): boolean {
  const phase = isPlainObject(pod['status']) ? pod['status']['phase'] : undefined;
  return !(phase === 'Succeeded' || phase === 'Failed' || pod.metadata.deletionTimestamp);
}

export const evictPod: PodAction = async (env, req) => {
  const { body, namespace, name } = req;
  checkBodyType(body, 'Eviction', EVICTION_VERSIONS);
  checkBodyNamespace(body, namespace);
  if (body.metadata.name !== name) throw errors.badRequest('name in URL does not match name in Eviction object');
  const original = evictionDeleteOptions(body['deleteOptions'], await admitAction(env, req));
  const pods = podsType(env.registry.lookup('', 'v1', 'pods'));
  const rvUnset = original.preconditions?.resourceVersion === undefined || original.preconditions.resourceVersion === '';

  // Pods that may go without a budget check, retried on conflicts unless the caller pinned a version.
  let pod: KObject | undefined;
  for (let attempt = 0; ; attempt++) {
    const cur = await env.store.getObject(pods, namespace, name, attempt === 0 ? { kind: 'any' } : { kind: 'latest' });
    if (cur === null) throw errors.notFound('', 'pods', name);
    pod = cur.obj;
    if (!canIgnoreBudget(pod)) break;
    const opts: DeleteOptions = { ...original };
    if (shouldEnforceResourceVersion(pod) && rvUnset) opts.preconditions = { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion };
    try {
      await markAndDelete(env, pods, namespace, name, opts);
      return successStatus();
    } catch (err) {
      if (!(err instanceof StatusError && err.reason === 'Conflict') || !rvUnset || attempt >= RETRIES) throw err;
    }
  }

  const budgets = await budgetsSelecting(env, namespace, pod.metadata.labels ?? {});
  if (budgets.length > 1) return multipleBudgets();
  let pinToReadPod = false;
  const budget = budgets[0];
  if (budget !== undefined) {
    const status = isPlainObject(budget['status']) ? budget['status'] : {};
    const spec = isPlainObject(budget['spec']) ? budget['spec'] : {};
    const current = Number(status['currentHealthy'] ?? 0);
    const desired = Number(status['desiredHealthy'] ?? 0);
    // An unready pod does not count toward the budget: it may go when the budget allows it,
    // provided it does not become ready meanwhile (the delete is pinned to the version read).
    if (!isPodReady(pod) && (spec['unhealthyPodEvictionPolicy'] === 'AlwaysAllow' || (current >= desired && desired > 0))) {
      pinToReadPod = true;
    } else {
      await takeDisruption(env, namespace, budget.metadata.name ?? '', name, original.dryRun);
    }
  }

  const opts: DeleteOptions = { ...original };
  if (pinToReadPod) opts.preconditions = { ...original.preconditions, resourceVersion: pod.metadata.resourceVersion };
  try {
    await markAndDelete(env, pods, namespace, name, opts);
  } catch (err) {
    // The unready pod changed since it was read: ask the client to come back (TooManyRequests).
    if (err instanceof StatusError && err.reason === 'Conflict' && pinToReadPod && rvUnset) {
      throw budgetStillProcessing(budget?.metadata.name ?? '');
    }
    throw err;
  }
  return successStatus();
};

/** The original answers a Status with code 500 rather than an error. */
function multipleBudgets(): PodActionResult {
  return {
    status: 500,
    body: {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', code: 500,
      message: 'This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.',
    },
  };
}

/**
 * addConditionAndDeletePod: outside a dry run the pod first gets the
 * DisruptionTarget condition (honouring the preconditions, then moving the
 * pinned version to the one this write made), then it is deleted.
 */
async function markAndDelete(env: PodActionEnv, pods: ResourceType, namespace: string, name: string, opts: DeleteOptions): Promise<void> {
  let options = opts;
  if (!opts.dryRun) {
    const now = nowRfc3339((env.now ?? (() => new Date()))());
    const pre = opts.preconditions;
    const res = await env.store.guaranteedUpdate(pods, namespace, name, { user: opts.user, dryRun: false, fieldManager: opts.fieldManager, userAgent: opts.userAgent, admitted: opts.admitted, fieldsTracked: true }, 'status', (cur) => {
      if (cur === null) throw errors.notFound('', 'pods', name);
      if (pre?.uid && pre.uid !== cur.metadata.uid) {
        throw errors.conflict('', 'Pod', name, `the UID in the precondition (${pre.uid}) does not match the UID in record (${cur.metadata.uid ?? ''}). The object might have been deleted and then recreated`);
      }
      if (pre?.resourceVersion && pre.resourceVersion !== cur.metadata.resourceVersion) {
        throw errors.conflict('', 'Pod', name, `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${cur.metadata.resourceVersion ?? ''}). The object might have been modified`);
      }
      setPodCondition(cur, { type: 'DisruptionTarget', status: 'True', reason: 'EvictionByEvictionAPI', message: 'Eviction API: evicting' }, now);
      return { update: cur };
    });
    if (pre?.resourceVersion) {
      const written = JSON.parse(Buffer.from(res.body).toString('utf8')) as KObject;
      options = { ...opts, preconditions: { ...pre, resourceVersion: written.metadata.resourceVersion } };
    }
  }
  await env.store.delete(pods, namespace, name, options);
}
