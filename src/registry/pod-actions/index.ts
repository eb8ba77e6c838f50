/**
 * The POSTs answered by a pod action rather than by storing the posted
 * object: pods/binding, pods/eviction and the deprecated namespace-level
 * `bindings` (the original serves that with the same BindingREST).
 */
import type { PodAction } from './action.ts';
import { bindPod } from './binding.ts';
import { evictPod } from './eviction.ts';

export type { PodAction, PodActionEnv, PodActionRequest, PodActionResult } from './action.ts';

const ACTIONS: ReadonlyMap<string, PodAction> = new Map([
  ['/pods/binding', bindPod],
  ['/pods/eviction', evictPod],
  ['/bindings/', bindPod],
]);

/** The kinds the actions' bodies decode into (an Eviction of policy/v1beta1 has the v1 shape). */
const BODY_KINDS: ReadonlyMap<PodAction, { group: string; version: string; kind: string }> = new Map([
  [bindPod, { group: '', version: 'v1', kind: 'Binding' }],
  [evictPod, { group: 'policy', version: 'v1', kind: 'Eviction' }],
]);

/** The kind an action's posted body is decoded into before it runs. */
export function podActionBodyKind(action: PodAction): { group: string; version: string; kind: string } {
  const gvk = BODY_KINDS.get(action);
  if (gvk === undefined) throw new Error('a pod action without a body kind');
  return gvk;
}

/** The action a create on `group/resource[/subresource]` runs, if it is one. */
export function podActionFor(group: string, resource: string, subresource: string): PodAction | undefined {
  return ACTIONS.get(`${group}/${resource}/${subresource}`);
}
