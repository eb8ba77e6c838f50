/**
 * Nodes and what describes them: nodes (printNode), runtime classes and
 * leases (node heartbeats and leader election).
 */
import { AGE, NAME, column, text, wide } from '../columns.ts';
import { metadataOf, obj, objs, optStr, str, strMap } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';
import { apiGroup, names } from '../../../naming/index.ts';

/**
 * Role labels: `node-role.<domain>/<role>` (any value) and `<domain>/role=<role>`.
 * The original's domain is kubernetes.io; ours is the naming table's. Both are read so
 * nodes labelled by either convention show their roles.
 */
const ROLE_PREFIXES = names.labels.nodeRolePrefixes;
const ROLE_LABELS = names.labels.nodeRoleLabels;

function roles(labels: Record<string, string>): string {
  const found = new Set<string>();
  for (const [k, v] of Object.entries(labels)) {
    const prefix = ROLE_PREFIXES.find((p) => k.startsWith(p));
    if (prefix !== undefined) {
      if (k.length > prefix.length) found.add(k.slice(prefix.length));
    } else if (ROLE_LABELS.includes(k) && v !== '') {
      found.add(v);
    }
  }
  return found.size === 0 ? '<none>' : [...found].sort().join(',');
}

/** Ready / NotReady / Unknown from the Ready condition, plus SchedulingDisabled when cordoned. */
function nodeStatus(o: JsonObject): string {
  const status: string[] = [];
  // The original keeps the last condition of each type.
  const ready = objs(obj(o['status'])['conditions']).filter((c) => c['type'] === 'Ready').pop();
  if (ready !== undefined) status.push(ready['status'] === 'True' ? 'Ready' : 'NotReady');
  else status.push('Unknown');
  if (obj(o['spec'])['unschedulable'] === true) status.push('SchedulingDisabled');
  return status.join(',');
}

function address(o: JsonObject, type: string): string {
  const found = objs(obj(o['status'])['addresses']).find((a) => a['type'] === type);
  return found === undefined ? '<none>' : str(found['address']);
}

export const nodePrinter: Printer = {
  columns: [
    NAME,
    column('Status', 'string', text('The status of the node')),
    column('Roles', 'string', text('The roles of the node')),
    AGE,
    column('Version', 'string', 'NodeSystemInfo.kubeletVersion'),
    wide('Internal-IP', 'string', 'NodeStatus.addresses'),
    wide('External-IP', 'string', 'NodeStatus.addresses'),
    wide('OS-Image', 'string', 'NodeSystemInfo.osImage'),
    wide('Kernel-Version', 'string', 'NodeSystemInfo.kernelVersion'),
    wide('Container-Runtime', 'string', 'NodeSystemInfo.containerRuntimeVersion'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const info = obj(obj(o['status'])['nodeInfo']);
    return [
      str(meta['name']),
      nodeStatus(o),
      roles(strMap(meta['labels'])),
      clock.since(meta['creationTimestamp']),
      str(info['kubeletVersion']),
      address(o, 'InternalIP'),
      address(o, 'ExternalIP'),
      str(info['osImage']) || '<unknown>',
      str(info['kernelVersion']) || '<unknown>',
      str(info['containerRuntimeVersion']) || '<unknown>',
    ];
  },
};

export const runtimeClassPrinter: Printer = {
  // The original looks the description up under a key ObjectMeta does not have, so it is empty.
  columns: [NAME, column('Handler', 'string', text('')), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), str(o['handler']), clock.since(meta['creationTimestamp'])];
  },
};

export const leasePrinter: Printer = {
  columns: [NAME, column('Holder', 'string', 'LeaseSpec.holderIdentity'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), optStr(obj(o['spec'])['holderIdentity']) ?? '', clock.since(meta['creationTimestamp'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'Node', printer: nodePrinter },
  { group: apiGroup('node'), kind: 'RuntimeClass', printer: runtimeClassPrinter },
  { group: apiGroup('coordination'), kind: 'Lease', printer: leasePrinter },
];
