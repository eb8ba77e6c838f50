/**
 * Where a pod spec lives in the kinds PodSecurity looks at (the original's
 * DefaultPodSpecExtractor), and which pod updates are worth evaluating
 * (isSignificantPodUpdate): a pod's spec is immutable but for images,
 * ephemeral containers and (pre-1.27) the seccomp annotations, so any other
 * update is allowed unevaluated.
 */
import { names } from '../../../naming/index.ts';
import type { KObject } from '../../../registry/object.ts';
import { asArray, asObject, asString, podView, type Json, type PodView } from './pod-view.ts';

/** group/resource of the workload kinds whose pod template is evaluated (warn and audit only). */
export const POD_CONTROLLER_RESOURCES: ReadonlySet<string> = new Set([
  '/replicationcontrollers',
  '/podtemplates',
  'apps/replicasets',
  'apps/deployments',
  'apps/statefulsets',
  'apps/daemonsets',
  'batch/jobs',
  'batch/cronjobs',
]);

/** The pod metadata and spec of a pod or a workload object; undefined when it has no template (an RC may omit it). */
export function extractPod(resource: string, obj: KObject): PodView | undefined {
  if (resource === 'pods') return podView(obj.metadata, (obj as Json)['spec']);
  const spec = asObject((obj as Json)['spec']);
  let template: Json | undefined;
  switch (resource) {
    case 'podtemplates':
      template = asObject((obj as Json)['template']);
      break;
    case 'cronjobs':
      template = asObject(asObject(asObject(spec?.['jobTemplate'])?.['spec'])?.['template']);
      break;
    default:
      template = asObject(spec?.['template']);
  }
  if (template === undefined) return undefined;
  return podView(template['metadata'], template['spec']);
}

/** Whether a pod update changes anything the checks read. */
export function isSignificantPodUpdate(pod: KObject, oldPod: KObject): boolean {
  const spec = asObject((pod as Json)['spec']) ?? {};
  const oldSpec = asObject((oldPod as Json)['spec']) ?? {};
  const ann = asObject(pod.metadata.annotations) ?? {};
  const oldAnn = asObject(oldPod.metadata.annotations) ?? {};
  for (const key of ['containers', 'initContainers']) {
    const cs = asArray(spec[key]);
    const olds = asArray(oldSpec[key]);
    if (cs.length !== olds.length) return true;
    for (let i = 0; i < cs.length; i++) if (significantContainerUpdate(asObject(cs[i]) ?? {}, asObject(olds[i]) ?? {}, ann, oldAnn)) return true;
  }
  const oldEphemeral = new Map<string, Json>();
  for (const c of asArray(oldSpec['ephemeralContainers'])) {
    const o = asObject(c);
    if (o !== undefined && !oldEphemeral.has(asString(o['name']))) oldEphemeral.set(asString(o['name']), o);
  }
  for (const c of asArray(spec['ephemeralContainers'])) {
    const o = asObject(c) ?? {};
    const old = oldEphemeral.get(asString(o['name']));
    if (old === undefined) return true; // an ephemeral container was added
    if (significantContainerUpdate(o, old, ann, oldAnn)) return true;
  }
  return false;
}

function significantContainerUpdate(c: Json, old: Json, ann: Json, oldAnn: Json): boolean {
  if (c['image'] !== old['image']) return true;
  const name = asString(c['name']);
  return names.podSecurity.seccompContainerPrefixes.some((prefix) => ann[prefix + name] !== oldAnn[prefix + name]);
}
