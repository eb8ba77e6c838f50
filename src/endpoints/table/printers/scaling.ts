/**
 * Scaling and scheduling policy: horizontal pod autoscalers, the scale
 * subresource, pod disruption budgets and priority classes.
 */
import { AGE, NAME, column, text } from '../columns.ts';
import { intOrString, quantity } from '../format.ts';
import { int, metadataOf, obj, objs, optInt, optStr, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';
import { apiGroup } from '../../../naming/index.ts';

/** One metric's `current/target` text (formatHPAMetrics, autoscaling/v2 shape). */
function metricText(spec: JsonObject, status: JsonObject | undefined): string {
  const type = str(spec['type']);
  switch (type) {
    case 'External':
    case 'Object': {
      const key = type === 'External' ? 'external' : 'object';
      const target = obj(obj(spec[key])['target']);
      const current = status === undefined ? undefined : status[key];
      const cur = current === undefined || current === null ? undefined : obj(obj(current)['current']);
      if (target['averageValue'] !== undefined) {
        const c = cur !== undefined && cur['averageValue'] !== undefined ? quantity(cur['averageValue']) : '<unknown>';
        return `${c}/${quantity(target['averageValue'])} (avg)`;
      }
      const c = cur !== undefined ? quantity(cur['value']) : '<unknown>';
      return `${c}/${quantity(target['value'])}`;
    }
    case 'Pods': {
      const current = status === undefined ? undefined : status['pods'];
      const c = current === undefined || current === null ? '<unknown>' : quantity(obj(obj(current)['current'])['averageValue']);
      return `${c}/${quantity(obj(obj(spec['pods'])['target'])['averageValue'])}`;
    }
    case 'Resource':
    case 'ContainerResource': {
      const key = type === 'Resource' ? 'resource' : 'containerResource';
      const source = obj(spec[key]);
      const target = obj(source['target']);
      const current = status === undefined ? undefined : status[key];
      const cur = current === undefined || current === null ? undefined : obj(obj(current)['current']);
      const name = str(source['name']);
      if (target['averageValue'] !== undefined) {
        const c = cur !== undefined ? quantity(cur['averageValue']) : '<unknown>';
        return `${name}: ${c}/${quantity(target['averageValue'])}`;
      }
      const utilisation = cur === undefined ? undefined : optInt(cur['averageUtilization']);
      const c = utilisation === undefined ? '<unknown>' : `${utilisation}%`;
      const t = optInt(target['averageUtilization']);
      return `${name}: ${c}/${t === undefined ? '<auto>' : `${t}%`}`;
    }
    default:
      return '<unknown type>';
  }
}

/** At most two metrics, then "+ N more...". */
function formatMetrics(specs: JsonObject[], statuses: JsonObject[]): string {
  if (specs.length === 0) return '<none>';
  const list = specs.map((s, i) => metricText(s, statuses[i]));
  const max = 2;
  return list.length > max ? `${list.slice(0, max).join(', ')} + ${list.length - max} more...` : list.join(', ');
}

export const horizontalPodAutoscalerPrinter: Printer = {
  columns: [
    NAME,
    column('Reference', 'string', 'HorizontalPodAutoscalerSpec.scaleTargetRef'),
    column('Targets', 'string', 'HorizontalPodAutoscalerSpec.metrics'),
    column('MinPods', 'string', 'HorizontalPodAutoscalerSpec.minReplicas'),
    column('MaxPods', 'string', 'HorizontalPodAutoscalerSpec.maxReplicas'),
    column('Replicas', 'string', 'HorizontalPodAutoscalerStatus.currentReplicas'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const ref = obj(spec['scaleTargetRef']);
    const min = optInt(spec['minReplicas']);
    return [
      str(meta['name']),
      `${str(ref['kind'])}/${str(ref['name'])}`,
      formatMetrics(objs(spec['metrics']), objs(status['currentMetrics'])),
      min === undefined ? '<unset>' : String(min),
      int(spec['maxReplicas']),
      int(status['currentReplicas']),
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const scalePrinter: Printer = {
  // The original's Scale name column has no `name` format.
  columns: [
    { ...NAME, format: '' },
    column('Desired', 'integer', 'ScaleSpec.replicas'),
    column('Available', 'integer', 'ScaleStatus.replicas'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), int(obj(o['spec'])['replicas']), int(obj(o['status'])['replicas']), clock.since(meta['creationTimestamp'])];
  },
};

export const podDisruptionBudgetPrinter: Printer = {
  columns: [
    NAME,
    column('Min Available', 'string', text('The minimum number of pods that must be available.')),
    column('Max Unavailable', 'string', text('The maximum number of pods that may be unavailable.')),
    column('Allowed Disruptions', 'integer', text('Calculated number of pods that may be disrupted at this time.')),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const min = spec['minAvailable'];
    const max = spec['maxUnavailable'];
    return [
      str(meta['name']),
      min === undefined || min === null ? 'N/A' : intOrString(min),
      max === undefined || max === null ? 'N/A' : intOrString(max),
      int(obj(o['status'])['disruptionsAllowed']),
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const priorityClassPrinter: Printer = {
  columns: [
    NAME,
    column('Value', 'integer', 'PriorityClass.value'),
    column('Global-Default', 'boolean', 'PriorityClass.globalDefault'),
    AGE,
    column('PreemptionPolicy', 'string', 'PriorityClass.preemptionPolicy'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), int(o['value']), o['globalDefault'] === true, clock.since(meta['creationTimestamp']), optStr(o['preemptionPolicy']) ?? ''];
  },
};

export const registrations: readonly Registration[] = [
  { group: 'autoscaling', kind: 'HorizontalPodAutoscaler', printer: horizontalPodAutoscalerPrinter },
  { group: 'autoscaling', kind: 'Scale', printer: scalePrinter },
  { group: 'policy', kind: 'PodDisruptionBudget', printer: podDisruptionBudgetPrinter },
  { group: apiGroup('scheduling'), kind: 'PriorityClass', printer: priorityClassPrinter },
];
