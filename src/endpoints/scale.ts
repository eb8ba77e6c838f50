/**
 * The `scale` subresource: an autoscaling/v1 Scale view of a workload's
 * spec.replicas, status.replicas and selector, as the original serves it for
 * deployments, replicasets, statefulsets and replicationcontrollers.
 */
import type { ReadMode } from '../../shards/protocol.ts';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import { parseObject } from '../registry/generic-store.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { errors } from '../api/status.ts';

/** A metav1.LabelSelector (or an RC's map selector) as selector text. */
export function selectorText(selector: unknown): string {
  if (!isPlainObject(selector)) return '';
  const matchLabels = isPlainObject(selector['matchLabels']) ? selector['matchLabels'] : selector['matchExpressions'] === undefined ? selector : {};
  const parts = Object.keys(matchLabels)
    .sort()
    .map((k) => `${k}=${String(matchLabels[k])}`);
  const exprs = Array.isArray(selector['matchExpressions']) ? selector['matchExpressions'] : [];
  for (const e of exprs) {
    if (!isPlainObject(e)) continue;
    const key = String(e['key']);
    const values = Array.isArray(e['values']) ? (e['values'] as unknown[]).map(String).sort() : [];
    switch (e['operator']) {
      case 'In':
        parts.push(`${key} in (${values.join(',')})`);
        break;
      case 'NotIn':
        parts.push(`${key} notin (${values.join(',')})`);
        break;
      case 'Exists':
        parts.push(key);
        break;
      case 'DoesNotExist':
        parts.push(`!${key}`);
        break;
    }
  }
  return parts.join(',');
}

function toScale(obj: KObject): KObject {
  const spec = isPlainObject(obj['spec']) ? obj['spec'] : {};
  const status = isPlainObject(obj['status']) ? obj['status'] : {};
  const m = obj.metadata;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: m.name,
      namespace: m.namespace,
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof spec['replicas'] === 'number' ? spec['replicas'] : 0 },
    status: { replicas: typeof status['replicas'] === 'number' ? status['replicas'] : 0, selector: selectorText(spec['selector']) },
  };
}

export async function getScale(store: GenericStore, rt: ResourceType, ns: string, name: string, read: ReadMode): Promise<KObject> {
  return toScale(parseObject((await store.get(rt, ns, name, read)).json));
}

export async function updateScale(store: GenericStore, rt: ResourceType, ns: string, name: string, body: KObject, opts: WriteOptions): Promise<KObject> {
  const spec = isPlainObject(body['spec']) ? body['spec'] : {};
  const replicas = spec['replicas'];
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw errors.invalid('autoscaling', 'Scale', name, [{ field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, reason: 'FieldValueInvalid' }]);
  }
  const precondition = body.metadata?.resourceVersion;
  const res = await store.guaranteedUpdate(rt, ns, name, opts, '', (cur) => {
    if (cur === null) throw errors.notFound(rt.group, rt.resource, name);
    if (precondition && precondition !== cur.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    const next = { ...cur, spec: { ...(isPlainObject(cur['spec']) ? cur['spec'] : {}), replicas } };
    return { update: next };
  });
  return toScale(parseObject(res.body));
}
