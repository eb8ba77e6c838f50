/**
 * The scale subresource of a custom resource: an autoscaling/v1 Scale read
 * from and written to the paths its definition names (specReplicasPath,
 * statusReplicasPath, labelSelectorPath), as the original's
 * customresource/etcd.go scale REST does.
 */
import type { ReadMode } from '../../shards/protocol.ts';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import { parseObject } from '../registry/generic-store.ts';
import { isPlainObject, type KObject } from '../registry/object.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { errors } from '../api/status.ts';
import type { ScalePaths } from './hooks.ts';

function segments(path: string): string[] {
  return path.split('.').filter((s) => s !== '');
}

function read(o: KObject, path: string): unknown {
  let cur: unknown = o;
  for (const s of segments(path)) cur = isPlainObject(cur) ? cur[s] : undefined;
  return cur;
}

function write(o: KObject, path: string, value: unknown): void {
  const segs = segments(path);
  let cur: Record<string, unknown> = o;
  for (const s of segs.slice(0, -1)) {
    if (!isPlainObject(cur[s])) cur[s] = {};
    cur = cur[s] as Record<string, unknown>;
  }
  cur[segs.at(-1)!] = value;
}

export function toCustomScale(o: KObject, paths: ScalePaths): KObject {
  const m = o.metadata;
  const spec = read(o, paths.specReplicasPath);
  const status = read(o, paths.statusReplicasPath);
  const selector = paths.labelSelectorPath === undefined ? undefined : read(o, paths.labelSelectorPath);
  const st: Record<string, unknown> = { replicas: typeof status === 'number' ? status : 0 };
  if (typeof selector === 'string' && selector !== '') st['selector'] = selector;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: { name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp },
    spec: typeof spec === 'number' ? { replicas: spec } : {},
    status: st,
  };
}

export async function getCustomScale(store: GenericStore, rt: ResourceType, paths: ScalePaths, ns: string, name: string, mode: ReadMode): Promise<KObject> {
  return toCustomScale(parseObject((await store.get(rt, ns, name, mode)).json), paths);
}

export async function updateCustomScale(store: GenericStore, rt: ResourceType, paths: ScalePaths, ns: string, name: string, body: KObject, opts: WriteOptions): Promise<KObject> {
  const spec = isPlainObject(body['spec']) ? body['spec'] : {};
  const replicas = spec['replicas'] ?? 0;
  if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) {
    throw errors.invalid('autoscaling', 'Scale', name, [{ field: 'spec.replicas', message: `Invalid value: ${JSON.stringify(replicas)}: must be greater than or equal to 0`, reason: 'FieldValueInvalid' }]);
  }
  const precondition = body.metadata?.resourceVersion;
  const res = await store.guaranteedUpdate(rt, ns, name, opts, 'scale', (cur) => {
    if (cur === null) throw errors.notFound(rt.group, rt.resource, name);
    if (precondition && precondition !== cur.metadata.resourceVersion) {
      throw errors.conflict(rt.group, rt.resource, name, 'the object has been modified; please apply your changes to the latest version and try again');
    }
    write(cur, paths.specReplicasPath, replicas);
    return { update: cur };
  });
  return toCustomScale(parseObject(res.body), paths);
}
