/**
 * Priority: the original's plugin/pkg/admission/priority (v1.25).
 *
 * Pods, on create: the priority comes from the named PriorityClass
 * (`no PriorityClass with name x was found`, 403), else from the global
 * default class (its name is written into the pod), else 0 with
 * PreemptLowerPriority; a pod that sets a different integer priority or
 * preemptionPolicy than the class gives is refused with the original's
 * messages. On update the old priority and policy are kept when the new body
 * leaves them out (validation forbids changing them).
 *
 * PriorityClasses, on create and update: only one may be the global default
 * (`PriorityClass x is already marked as default. Only one default can
 * exist`). When a race leaves two, the one with the lowest value is used.
 *
 * Classes are read from the thread's mirror of them (lookup.ts: watch-fed,
 * a miss read from the watch cache): a pod create costs no store read and,
 * once the mirror is in, no thread hop. The two system classes are known by
 * value even before anything stores them.
 */
import { apiGroup } from '../../naming/index.ts';
import type { KObject } from '../../registry/object.ts';
import { SYSTEM_PRIORITY_CLASSES } from '../../registry/strategies/priorityclasses.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden, isPods, podSpec, str } from './pod-util.ts';

/** The priority of pods when no class is named and no default class exists. */
export const DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS = 0;

export interface PriorityClassSource {
  /** One class, or null. */
  get(name: string): Promise<KObject | null>;
  /** Every class. */
  list(): Promise<readonly KObject[]>;
}

interface Resolved {
  readonly name: string;
  readonly value: number;
  readonly preemptionPolicy: string | undefined;
}

function resolved(pc: KObject): Resolved {
  const value = typeof pc['value'] === 'number' ? pc['value'] : 0;
  const policy = typeof pc['preemptionPolicy'] === 'string' ? pc['preemptionPolicy'] : undefined;
  return { name: pc.metadata.name ?? '', value, preemptionPolicy: policy };
}

/** getDefaultPriorityClass: the global default with the lowest value, if any. */
async function defaultClass(classes: PriorityClassSource): Promise<KObject | undefined> {
  let found: KObject | undefined;
  for (const pc of await classes.list()) {
    if (pc['globalDefault'] !== true) continue;
    if (found === undefined || (resolved(found).value > resolved(pc).value)) found = pc;
  }
  return found;
}

async function lookupClass(classes: PriorityClassSource, name: string): Promise<Resolved | undefined> {
  const pc = await classes.get(name);
  if (pc !== null) return resolved(pc);
  const system = SYSTEM_PRIORITY_CLASSES[name];
  return system === undefined ? undefined : { name, value: system, preemptionPolicy: 'PreemptLowerPriority' };
}

export function priorityPlugin(classes: PriorityClassSource, isPriorityClasses: (attrs: AdmissionAttributes) => boolean): AdmissionPlugin {
  async function admitPod(attrs: AdmissionAttributes): Promise<void> {
    const spec = podSpec(attrs.object);
    if (spec === undefined) return;
    if (attrs.operation === 'UPDATE') {
      const old = attrs.oldObject?.['spec'];
      if (typeof old !== 'object' || old === null) return;
      const o = old as Record<string, unknown>;
      if ((spec['priority'] === undefined || spec['priority'] === null) && o['priority'] !== undefined && o['priority'] !== null) spec['priority'] = o['priority'];
      if ((spec['preemptionPolicy'] === undefined || spec['preemptionPolicy'] === null) && o['preemptionPolicy'] !== undefined && o['preemptionPolicy'] !== null) {
        spec['preemptionPolicy'] = o['preemptionPolicy'];
      }
      return;
    }
    let pc: Resolved;
    const className = str(spec['priorityClassName']);
    if (className === '') {
      const d = await defaultClass(classes);
      pc = d === undefined ? { name: '', value: DEFAULT_PRIORITY_WHEN_NO_DEFAULT_CLASS, preemptionPolicy: 'PreemptLowerPriority' } : resolved(d);
      // Written even when empty, as the original does.
      if (pc.name !== '' || spec['priorityClassName'] !== undefined) spec['priorityClassName'] = pc.name;
    } else {
      const found = await lookupClass(classes, className);
      if (found === undefined) throw admissionForbidden(attrs, `no PriorityClass with name ${className} was found`);
      pc = found;
    }
    const given = spec['priority'];
    if (typeof given === 'number' && given !== pc.value) {
      throw admissionForbidden(
        attrs,
        `the integer value of priority (${given}) must not be provided in pod spec; priority admission controller computed ${pc.value} from the given PriorityClass name`,
      );
    }
    if (given === undefined || given === null || typeof given === 'number') spec['priority'] = pc.value;
    if (pc.preemptionPolicy !== undefined) {
      const policy = spec['preemptionPolicy'];
      if (typeof policy === 'string' && policy !== pc.preemptionPolicy) {
        throw admissionForbidden(
          attrs,
          `the string value of PreemptionPolicy (${policy}) must not be provided in pod spec; priority admission controller computed ${pc.preemptionPolicy} from the given PriorityClass name`,
        );
      }
      if (policy === undefined || policy === null || typeof policy === 'string') spec['preemptionPolicy'] = pc.preemptionPolicy;
    }
  }

  async function validatePriorityClass(attrs: AdmissionAttributes): Promise<void> {
    const pc = attrs.object;
    if (pc === null || pc['globalDefault'] !== true) return;
    const d = await defaultClass(classes);
    if (d === undefined) return;
    const name = d.metadata.name ?? '';
    if (attrs.operation === 'CREATE' || (attrs.operation === 'UPDATE' && name !== pc.metadata.name)) {
      throw admissionForbidden(attrs, `PriorityClass ${name} is already marked as default. Only one default can exist`);
    }
  }

  return {
    name: 'Priority',
    handles: (rt, sub, op) => sub === '' && (op === 'CREATE' || op === 'UPDATE') && (isPods(rt) || (rt.resource === 'priorityclasses' && rt.group === apiGroup('scheduling'))),
    admit(attrs) {
      if (!isPods(attrs.resourceType)) return;
      return admitPod(attrs);
    },
    validate(attrs) {
      if (!isPriorityClasses(attrs)) return;
      return validatePriorityClass(attrs);
    },
  };
}

export const priorityFactory: AdmissionPluginFactory = {
  name: 'Priority',
  create(deps) {
    const group = apiGroup('scheduling');
    const rt = deps.lookup.type(group, 'v1', 'priorityclasses');
    const source: PriorityClassSource = {
      get: async (name) => (rt === undefined ? null : deps.lookup.get(rt, '', name)),
      list: async () => (rt === undefined ? [] : deps.lookup.list(rt)),
    };
    return priorityPlugin(source, (attrs) => attrs.resourceType.resource === 'priorityclasses' && attrs.resourceType.group === group);
  },
};
