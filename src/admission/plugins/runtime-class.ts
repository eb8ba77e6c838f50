/**
 * RuntimeClass: the original's plugin/pkg/admission/runtimeclass (v1.25).
 * A pod naming a RuntimeClass gets the class's overhead (a pod that sets a
 * different one is refused) and its scheduling: node selector merged (a
 * conflicting key is refused) and tolerations merged. Validation then
 * refuses an overhead that does not match the class, or any overhead without
 * a class that defines one. An unknown class is a 404, as the original's
 * lister error. Pod create only; the class is read from the watch cache, and
 * only for pods that name one.
 */
import { apiGroup } from '../../naming/index.ts';
import { errors } from '../../api/status.ts';
import { cloneJson, isPlainObject, type KObject } from '../../registry/object.ts';
import { compareQuantities } from '../../registry/validation/quantity.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden, isPods, mergeTolerations, objects, podSpec, type JsonObject } from './pod-util.ts';

export interface RuntimeClassSource {
  get(name: string): Promise<KObject | null>;
}

/** apiequality.Semantic.DeepEqual of two resource lists: the same names, quantities equal by value. */
function sameResources(a: unknown, b: unknown): boolean {
  const x = isPlainObject(a) ? a : {};
  const y = isPlainObject(b) ? b : {};
  const keys = Object.keys(x);
  if (keys.length !== Object.keys(y).length) return false;
  return keys.every((k) => Object.prototype.hasOwnProperty.call(y, k) && compareQuantities(x[k], y[k]) === 0);
}

function present(v: unknown): boolean {
  return v !== undefined && v !== null;
}

export function runtimeClassPlugin(classes: RuntimeClassSource): AdmissionPlugin {
  const group = apiGroup('node');
  // The class the mutating phase read, for the validating phase of the same request.
  const seen = new WeakMap<AdmissionAttributes, KObject | null>();

  async function classOf(attrs: AdmissionAttributes, spec: JsonObject): Promise<KObject | null> {
    const name = spec['runtimeClassName'];
    if (typeof name !== 'string') return null; // absent (or not a string: validation answers)
    const cached = seen.get(attrs);
    if (cached !== undefined && cached?.metadata.name === name) return cached;
    const rc = await classes.get(name);
    if (rc === null) throw errors.notFound(group, 'runtimeclasses', name);
    seen.set(attrs, rc);
    return rc;
  }

  return {
    name: 'RuntimeClass',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && op === 'CREATE',
    async admit(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      const rc = await classOf(attrs, spec);
      if (rc === null) return;
      const overhead = isPlainObject(rc['overhead']) ? rc['overhead']['podFixed'] : undefined;
      if (present(overhead)) {
        const own = spec['overhead'];
        if (isPlainObject(own) && Object.keys(own).length > 0 && !sameResources(overhead, own)) {
          throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
        }
        spec['overhead'] = { ...(overhead as JsonObject) };
      }
      const scheduling = rc['scheduling'];
      if (!isPlainObject(scheduling)) return;
      const runtimeSelector = isPlainObject(scheduling['nodeSelector']) ? scheduling['nodeSelector'] : {};
      const podSelector = spec['nodeSelector'];
      let selector: JsonObject;
      if (!isPlainObject(podSelector)) {
        selector = { ...runtimeSelector };
        if (present(podSelector)) return; // not a map: validation answers
      } else {
        selector = podSelector;
        for (const [key, value] of Object.entries(runtimeSelector)) {
          if (Object.prototype.hasOwnProperty.call(selector, key) && selector[key] !== value) {
            throw admissionForbidden(attrs, `conflict: runtimeClass.scheduling.nodeSelector[${key}] = ${String(value)}; pod.spec.nodeSelector[${key}] = ${String(selector[key])}`);
          }
          selector[key] = value;
        }
      }
      if (Object.keys(selector).length > 0 || present(podSelector)) spec['nodeSelector'] = selector;
      // The class is the thread's shared (frozen) copy: the pod gets copies.
      const runtimeTolerations = objects(scheduling['tolerations']).map((t) => cloneJson(t));
      if (present(spec['tolerations']) && !Array.isArray(spec['tolerations'])) return;
      const merged = mergeTolerations(objects(spec['tolerations']), runtimeTolerations);
      if (merged.length > 0 || present(spec['tolerations'])) spec['tolerations'] = merged;
    },
    async validate(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      const rc = await classOf(attrs, spec);
      const overhead = rc !== null && isPlainObject(rc['overhead']) ? rc['overhead']['podFixed'] : undefined;
      if (present(overhead)) {
        if (!sameResources(overhead, spec['overhead'])) throw admissionForbidden(attrs, "pod rejected: Pod's Overhead doesn't match RuntimeClass's defined Overhead");
      } else if (present(spec['overhead'])) {
        throw admissionForbidden(attrs, 'pod rejected: Pod Overhead set without corresponding RuntimeClass defined Overhead');
      }
    },
  };
}

export const runtimeClassFactory: AdmissionPluginFactory = {
  name: 'RuntimeClass',
  create(deps) {
    const rt = deps.lookup.type(apiGroup('node'), 'v1', 'runtimeclasses');
    return runtimeClassPlugin({ get: async (name) => (rt === undefined ? null : deps.lookup.get(rt, '', name)) });
  },
};
