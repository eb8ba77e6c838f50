/**
 * Replicated workloads: deployments, replica sets, stateful sets, daemon
 * sets, replication controllers and controller revisions (printDeployment,
 * printReplicaSet, ...). Counts are integers in the cells even where the
 * column says `string`, as in the original.
 */
import { AGE, CONTAINERS, IMAGES, NAME, column, text, wide } from '../columns.ts';
import { containerCells, formatLabelSelector, formatLabels, labelSelectorText } from '../format.ts';
import { int, metadataOf, obj, objs, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';

function podSpec(o: JsonObject): JsonObject {
  return obj(obj(obj(o['spec'])['template'])['spec']);
}

export const deploymentPrinter: Printer = {
  columns: [
    NAME,
    column('Ready', 'string', text('Number of the pod with ready state')),
    column('Up-to-date', 'string', 'DeploymentStatus.updatedReplicas'),
    column('Available', 'string', 'DeploymentStatus.availableReplicas'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'DeploymentSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const [names, images] = containerCells(podSpec(o)['containers']);
    return [
      str(meta['name']),
      `${int(status['readyReplicas'])}/${int(spec['replicas'])}`,
      int(status['updatedReplicas']),
      int(status['availableReplicas']),
      clock.since(meta['creationTimestamp']),
      names,
      images,
      labelSelectorText(spec['selector']),
    ];
  },
};

export const replicaSetPrinter: Printer = {
  columns: [
    NAME,
    column('Desired', 'integer', 'ReplicaSetSpec.replicas'),
    column('Current', 'integer', 'ReplicaSetStatus.replicas'),
    column('Ready', 'integer', 'ReplicaSetStatus.readyReplicas'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'ReplicaSetSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const [names, images] = containerCells(podSpec(o)['containers']);
    return [
      str(meta['name']),
      int(spec['replicas']),
      int(status['replicas']),
      int(status['readyReplicas']),
      clock.since(meta['creationTimestamp']),
      names,
      images,
      formatLabelSelector(spec['selector']),
    ];
  },
};

export const replicationControllerPrinter: Printer = {
  columns: [
    NAME,
    column('Desired', 'integer', 'ReplicationControllerSpec.replicas'),
    column('Current', 'integer', 'ReplicationControllerStatus.replicas'),
    column('Ready', 'integer', 'ReplicationControllerStatus.readyReplicas'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'ReplicationControllerSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const [names, images] = containerCells(podSpec(o)['containers']);
    return [
      str(meta['name']),
      int(spec['replicas']),
      int(status['replicas']),
      int(status['readyReplicas']),
      clock.since(meta['creationTimestamp']),
      names,
      images,
      formatLabels(spec['selector']),
    ];
  },
};

export const statefulSetPrinter: Printer = {
  columns: [NAME, column('Ready', 'string', text('Number of the pod with ready state')), AGE, CONTAINERS, IMAGES],
  cells(o, clock) {
    const meta = metadataOf(o);
    const [names, images] = containerCells(podSpec(o)['containers']);
    return [
      str(meta['name']),
      `${int(obj(o['status'])['readyReplicas'])}/${int(obj(o['spec'])['replicas'])}`,
      clock.since(meta['creationTimestamp']),
      names,
      images,
    ];
  },
};

export const daemonSetPrinter: Printer = {
  columns: [
    NAME,
    column('Desired', 'integer', 'DaemonSetStatus.desiredNumberScheduled'),
    column('Current', 'integer', 'DaemonSetStatus.currentNumberScheduled'),
    column('Ready', 'integer', 'DaemonSetStatus.numberReady'),
    column('Up-to-date', 'integer', 'DaemonSetStatus.updatedNumberScheduled'),
    column('Available', 'integer', 'DaemonSetStatus.numberAvailable'),
    column('Node Selector', 'string', 'PodSpec.nodeSelector'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'DaemonSetSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const status = obj(o['status']);
    const pod = podSpec(o);
    const [names, images] = containerCells(pod['containers']);
    return [
      str(meta['name']),
      int(status['desiredNumberScheduled']),
      int(status['currentNumberScheduled']),
      int(status['numberReady']),
      int(status['updatedNumberScheduled']),
      int(status['numberAvailable']),
      formatLabels(pod['nodeSelector']),
      clock.since(meta['creationTimestamp']),
      names,
      images,
      formatLabelSelector(obj(o['spec'])['selector']),
    ];
  },
};

/** `statefulset.apps/web`: formatResourceName of the controlling owner. */
function controllerOf(meta: JsonObject): string {
  const owner = objs(meta['ownerReferences']).find((r) => r['controller'] === true);
  if (owner === undefined) return '<none>';
  const apiVersion = str(owner['apiVersion']);
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const kind = str(owner['kind']);
  const name = str(owner['name']);
  if (kind === '' && group === '') return name;
  return `${(group === '' ? kind : `${kind}.${group}`).toLowerCase()}/${name}`;
}

export const controllerRevisionPrinter: Printer = {
  columns: [NAME, column('Controller', 'string', text('Controller of the object')), column('Revision', 'string', 'ControllerRevision.revision'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), controllerOf(meta), int(o['revision']), clock.since(meta['creationTimestamp'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: 'apps', kind: 'Deployment', printer: deploymentPrinter },
  { group: 'apps', kind: 'ReplicaSet', printer: replicaSetPrinter },
  { group: 'apps', kind: 'StatefulSet', printer: statefulSetPrinter },
  { group: 'apps', kind: 'DaemonSet', printer: daemonSetPrinter },
  { group: 'apps', kind: 'ControllerRevision', printer: controllerRevisionPrinter },
  { group: '', kind: 'ReplicationController', printer: replicationControllerPrinter },
];
