/**
 * pods/binding and the deprecated namespace-level `bindings`: the scheduler
 * assigns a pod to a node. A port of the original's BindingREST
 * (pkg/registry/core/pod/storage/storage.go: Create, assignPod,
 * setPodNodeAndMetadata): one guaranteed update of the pod that sets
 * spec.nodeName, merges the binding's annotations and marks PodScheduled.
 */
import { errors, StatusError } from '../../api/status.ts';
import { isPlainObject, nowRfc3339, type KObject } from '../object.ts';
import type { ResourceType } from '../resource-type.ts';
import { admitAction, checkBodyNamespace, checkBodyType, successStatus, type PodAction } from './action.ts';
import { setPodCondition } from './pod-conditions.ts';

/** ValidatePodBinding: a target node is named; its kind, if any, is Node. */
function validateBinding(body: KObject, name: string): void {
  const target = body['target'];
  if (target !== undefined && target !== null && !isPlainObject(target)) throw errors.badRequest('target: must be an object');
  const t = isPlainObject(target) ? target : {};
  const causes = [];
  if (t['kind'] !== undefined && t['kind'] !== '' && t['kind'] !== 'Node') {
    causes.push({ field: 'target.kind', reason: 'FieldValueNotSupported', message: `Unsupported value: ${JSON.stringify(t['kind'])}: supported values: "Node", "<empty>"` });
  }
  if (typeof t['name'] !== 'string' || t['name'] === '') causes.push({ field: 'target.name', reason: 'FieldValueRequired', message: 'Required value' });
  // The original answers these as an aggregate (a 500); a 422 on the Binding says the same without blaming the server.
  if (causes.length > 0) throw errors.invalid('', 'Binding', name, causes);
}

function stringMap(v: unknown, path: string): Record<string, string> {
  if (v === undefined || v === null) return {};
  if (!isPlainObject(v) || Object.values(v).some((x) => typeof x !== 'string')) throw errors.badRequest(`${path}: must be a map of strings`);
  return v as Record<string, string>;
}

/** Pod-level failures are Conflicts on pods/binding, as assignPod wraps every non-Status error. */
function bindConflict(name: string, why: string): StatusError {
  return errors.conflict('', 'pods/binding', name, why);
}

export const bindPod: PodAction = async (env, req) => {
  const { body, namespace } = req;
  checkBodyType(body, 'Binding', ['v1']);
  checkBodyNamespace(body, namespace);
  const bindingName = typeof body.metadata.name === 'string' ? body.metadata.name : '';
  // The deprecated `bindings` POST names the pod only in the body.
  const name = req.name === '' ? bindingName : req.name;
  if (name !== bindingName) throw errors.badRequest('name in URL does not match name in Binding object');
  validateBinding(body, name);
  const node = String((body['target'] as Record<string, unknown>)['name']);
  const annotations = stringMap(body.metadata.annotations, 'metadata.annotations');
  const uid = body.metadata.uid;
  const resourceVersion = body.metadata.resourceVersion;
  const opts = await admitAction(env, req);
  const pods = podsType(env.registry.lookup('', 'v1', 'pods'));
  const now = nowRfc3339((env.now ?? (() => new Date()))());
  // A storage-level update in the original: no field manager records it.
  await env.store.guaranteedUpdate(pods, namespace, name, { ...opts, fieldsTracked: true }, 'binding', (pod) => {
    if (pod === null) throw errors.notFound('', 'pods', name);
    // The binding's uid and resourceVersion are preconditions on the pod (storage.Preconditions).
    if (uid && uid !== pod.metadata.uid) {
      throw errors.conflict('', 'pods', name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${pod.metadata.uid ?? ''}`);
    }
    if (resourceVersion && resourceVersion !== pod.metadata.resourceVersion) {
      throw errors.conflict('', 'pods', name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${pod.metadata.resourceVersion ?? ''}`);
    }
    if (pod.metadata.deletionTimestamp) throw bindConflict(name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = isPlainObject(pod['spec']) ? pod['spec'] : (pod['spec'] = {});
    if (typeof spec['nodeName'] === 'string' && spec['nodeName'] !== '') {
      throw bindConflict(name, `pod ${name} is already assigned to node ${JSON.stringify(spec['nodeName'])}`);
    }
    if (Array.isArray(spec['schedulingGates']) && spec['schedulingGates'].length > 0) {
      throw bindConflict(name, `pod ${name} has non-empty .spec.schedulingGates`);
    }
    spec['nodeName'] = node;
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), ...annotations };
    setPodCondition(pod, { type: 'PodScheduled', status: 'True' }, now);
    return { update: pod };
  });
  return successStatus();
};

export function podsType(rt: ResourceType | undefined): ResourceType {
  if (rt === undefined) throw errors.internal('the pods resource is not served');
  return rt;
}
