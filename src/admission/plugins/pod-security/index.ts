/**
 * The PodSecurity admission plugin (validating, default on): wires the
 * decisions of admission.ts to this thread's watch-cache reads and to the
 * configuration file. It handles CREATE and UPDATE of pods (and their
 * spec-changing subresources), namespaces, and the workload kinds with pod
 * templates; nothing else compiles it in.
 */
import type { AdmissionPlugin, Operation } from '../../types.ts';
import type { AdmissionPluginFactory } from '../../plugin-table.ts';
import type { ResourceType } from '../../../registry/resource-type.ts';
import { PodSecurityAdmission, IGNORED_POD_SUBRESOURCES, type PodSecurityLimits, type PodSecuritySources } from './admission.ts';
import { DEFAULT_CHECKS } from './checks.ts';
import { loadPodSecurityConfig, PLUGIN_NAME, type PodSecurityConfig } from './config.ts';
import { Evaluator } from './evaluator.ts';
import { POD_CONTROLLER_RESOURCES } from './pod-spec.ts';

/** One evaluator per process: the check table is immutable. */
let sharedEvaluator: Evaluator | undefined;
export function defaultEvaluator(): Evaluator {
  sharedEvaluator ??= new Evaluator(DEFAULT_CHECKS);
  return sharedEvaluator;
}

/** Whether PodSecurity has anything to do for this write (asked once per combination by the chain). */
export function podSecurityHandles(rt: ResourceType, subresource: string, op: Operation): boolean {
  if (op !== 'CREATE' && op !== 'UPDATE') return false;
  if (rt.group === '' && rt.resource === 'pods') return !IGNORED_POD_SUBRESOURCES.has(subresource);
  if (subresource !== '') return false;
  if (rt.group === '' && rt.resource === 'namespaces') return true;
  return POD_CONTROLLER_RESOURCES.has(`${rt.group}/${rt.resource}`);
}

export function podSecurity(config: PodSecurityConfig, sources: PodSecuritySources, limits?: PodSecurityLimits): AdmissionPlugin {
  const admission = new PodSecurityAdmission(config, defaultEvaluator(), sources, limits);
  return {
    name: PLUGIN_NAME,
    handles: podSecurityHandles,
    validate: (attrs) => admission.validate(attrs),
  };
}

export const podSecurityFactory: AdmissionPluginFactory = {
  name: PLUGIN_NAME,
  create(deps) {
    const config = loadPodSecurityConfig(deps.opts.admissionControlConfigFile);
    const namespaces = deps.lookup.type('', 'v1', 'namespaces')!;
    const pods = deps.lookup.type('', 'v1', 'pods')!;
    return podSecurity(config, {
      // The thread's namespace mirror (a miss reads the watch cache), as the original reads its namespace lister.
      async namespaceLabels(name) {
        const ns = await deps.lookup.get(namespaces, '', name);
        return ns === null ? null : (ns.metadata.labels ?? {});
      },
      listPods: (namespace) => deps.lookup.list(pods, namespace),
    });
  },
};
