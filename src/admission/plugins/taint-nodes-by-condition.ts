/**
 * TaintNodesByCondition: a node is created with the not-ready NoSchedule
 * taint (the node lifecycle controller removes it once the node reports
 * Ready), as the original's plugin/pkg/admission/nodetaint.
 */
import { names } from '../../naming/index.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { admissionForbidden, objects, podSpec, str } from './pod-util.ts';

export function taintNodesByCondition(): AdmissionPlugin {
  const key = names.podAdmission.notReadyTaint;
  return {
    name: 'TaintNodesByCondition',
    handles: (rt, sub, op) => rt.group === '' && rt.resource === 'nodes' && sub === '' && op === 'CREATE',
    admit(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) throw admissionForbidden(attrs, `unexpected type ${typeof attrs.object?.['spec']}`);
      const taints = spec['taints'];
      if (taints !== undefined && taints !== null && !Array.isArray(taints)) return; // validation answers
      // MatchTaint: the same key and effect, whatever the value.
      if (objects(taints).some((t) => str(t['key']) === key && str(t['effect']) === 'NoSchedule')) return;
      spec['taints'] = [...((taints as unknown[] | null | undefined) ?? []), { key, effect: 'NoSchedule' }];
    },
  };
}

export const taintNodesByConditionFactory: AdmissionPluginFactory = {
  name: 'TaintNodesByCondition',
  create: () => taintNodesByCondition(),
};
