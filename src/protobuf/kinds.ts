/**
 * Which message a group/version/kind is encoded as: the declared built-in
 * kinds, their `<Kind>List`s, and the meta kinds every group version carries
 * (Status, DeleteOptions, WatchEvent). Anything else, notably extension-
 * defined kinds, has no Protobuf form.
 */
import type { GroupVersionKind } from '../openapi/schema-dsl.ts';
import { gvkKey } from '../openapi/schema-set.ts';
import { ALL_TYPES } from '../openapi/types/index.ts';
import type { MessagePlan } from './plan.ts';
import { META_V1, WATCH_EVENT } from './well-known.ts';
import { fromOriginalGroup } from '../naming/index.ts';

/** Registered in every group version by the original (metav1.AddToGroupVersion). */
const META_KINDS: Readonly<Record<string, string>> = {
  Status: `${META_V1}.Status`,
  DeleteOptions: `${META_V1}.DeleteOptions`,
  WatchEvent: WATCH_EVENT,
};

const declaredKinds = new Map<string, string>();
for (const d of ALL_TYPES) if (d.gvk !== undefined) declaredKinds.set(gvkKey(d.gvk), d.name);

export interface ResolvedKind {
  readonly plan: MessagePlan;
  /** The kind is a `<Kind>List` (its decoded items never carry apiVersion/kind). */
  readonly isList: boolean;
}

/**
 * The original's group names (`rbac.authorization.k8s.io`) name the same
 * types as ours (`rbac.authorization.<suffix>`): the typed clients compiled into
 * kubectl put them in the envelope, and the wire form does not differ.
 */
export function ourGroup(group: string): string {
  return fromOriginalGroup(group);
}

export function resolveKind(plans: ReadonlyMap<string, MessagePlan>, original: GroupVersionKind): ResolvedKind | undefined {
  const gvk = { ...original, group: ourGroup(original.group) };
  const declared = declaredKinds.get(gvkKey(gvk));
  if (declared !== undefined) {
    const plan = plans.get(declared);
    return plan === undefined ? undefined : { plan, isList: false };
  }
  if (gvk.kind.endsWith('List')) {
    const item = declaredKinds.get(gvkKey({ ...gvk, kind: gvk.kind.slice(0, -4) }));
    const plan = item === undefined ? undefined : plans.get(`${item}List`);
    if (plan !== undefined) return { plan, isList: true };
  }
  const meta = META_KINDS[gvk.kind];
  if (meta !== undefined) {
    const plan = plans.get(meta);
    if (plan !== undefined) return { plan, isList: false };
  }
  return undefined;
}

/** `v1` or `<group>/<version>`. */
export function apiVersionOf(gvk: GroupVersionKind): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

export function parseApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.lastIndexOf('/');
  return slash === -1 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}
