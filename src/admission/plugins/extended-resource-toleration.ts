/**
 * ExtendedResourceToleration: a pod requesting an extended resource (a
 * domain-qualified name outside the native domain, e.g. `example.com/gpu`)
 * tolerates the `<resource>:NoSchedule` taint that nodes with that hardware
 * carry, as the original's plugin/pkg/admission/extendedresourcetoleration.
 * Pod create and update; tolerations added in sorted resource order.
 */
import { names } from '../../naming/index.ts';
import { isPlainObject } from '../../registry/object.ts';
import { isQualifiedName } from '../../registry/validation/names.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { addOrUpdateToleration, isPods, objects, podSpec } from './pod-util.ts';

const REQUESTS_PREFIX = 'requests.';

/** helper.IsExtendedResourceName. */
export function isExtendedResourceName(name: string): boolean {
  const native = !name.includes('/') || name.includes(names.nativeResourcePrefix);
  if (native || name.startsWith(REQUESTS_PREFIX)) return false;
  return isQualifiedName(`${REQUESTS_PREFIX}${name}`).length === 0;
}

export function extendedResourceToleration(): AdmissionPlugin {
  return {
    name: 'ExtendedResourceToleration',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && (op === 'CREATE' || op === 'UPDATE'),
    admit(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      const resources = new Set<string>();
      for (const key of ['containers', 'initContainers']) {
        for (const c of objects(spec[key])) {
          const requests = isPlainObject(c['resources']) ? c['resources']['requests'] : undefined;
          if (!isPlainObject(requests)) continue;
          for (const r of Object.keys(requests)) if (isExtendedResourceName(r)) resources.add(r);
        }
      }
      if (resources.size === 0) return;
      if (spec['tolerations'] !== undefined && spec['tolerations'] !== null && !Array.isArray(spec['tolerations'])) return;
      for (const r of [...resources].sort()) addOrUpdateToleration(spec, { key: r, operator: 'Exists', effect: 'NoSchedule' });
    },
  };
}

export const extendedResourceTolerationFactory: AdmissionPluginFactory = {
  name: 'ExtendedResourceToleration',
  create: () => extendedResourceToleration(),
};
