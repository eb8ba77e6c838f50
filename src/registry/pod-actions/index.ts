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

/** The action a create on `group/resource[/subresource]` runs, if it is one. */
export function podActionFor(group: string, resource: string, subresource: string): PodAction | undefined {
  return ACTIONS.get(`${group}/${resource}/${subresource}`);
}
