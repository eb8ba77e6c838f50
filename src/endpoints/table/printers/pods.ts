/**
 * Pods and pod templates (printPod, printPodTemplate). The pod's STATUS and
 * RESTARTS follow the original's reasoning step by step: init containers
 * first (sidecars count as containers), then app containers from last to
 * first, then deletion. Fields are read from the v1 JSON shape.
 */
import { AGE, NAME, column, text, wide } from '../columns.ts';
import { containerCells, formatLabels, type Clock } from '../format.ts';
import { int, metadataOf, obj, objs, optStr, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { Cell, JsonObject, TableRowCondition } from '../types.ts';

/** node.NodeUnreachablePodReason: the node controller's reason for pods on a lost node. */
const NODE_LOST = 'NodeLost';

const SUCCEEDED: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }];
const FAILED: TableRowCondition[] = [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }];

function hasCondition(conditions: JsonObject[], type: string): boolean {
  for (const c of conditions) if (c['type'] === type) return c['status'] === 'True';
  return false;
}

/** Terminated containers' last finish time, for "N (5m ago)". */
function lastFinished(status: JsonObject, clock: Clock): number | undefined {
  return clock.parse(obj(obj(status['lastState'])['terminated'])['finishedAt']);
}

function later(a: number | undefined, b: number | undefined): number | undefined {
  if (b === undefined) return a;
  return a === undefined || a < b ? b : a;
}

function terminatedText(t: JsonObject, prefix: string): string {
  const reason = str(t['reason']);
  if (reason !== '') return prefix + reason;
  const signal = int(t['signal']);
  return signal !== 0 ? `${prefix}Signal:${signal}` : `${prefix}ExitCode:${int(t['exitCode'])}`;
}

interface PodSummary {
  ready: string;
  status: string;
  restarts: string;
}

function summarise(pod: JsonObject, clock: Clock): PodSummary {
  const spec = obj(pod['spec']);
  const status = obj(pod['status']);
  const conditions = objs(status['conditions']);
  const initSpecs = objs(spec['initContainers']);
  // A restartable init container (restartPolicy Always) is a sidecar and counts as a container.
  const sidecars = new Set<string>();
  for (const c of initSpecs) if (c['restartPolicy'] === 'Always') sidecars.add(str(c['name']));
  const total = objs(spec['containers']).length + sidecars.size;

  const phase = str(status['phase']);
  let reason = str(status['reason']) || phase;
  for (const c of conditions) {
    if (c['type'] === 'PodScheduled' && c['reason'] === 'SchedulingGated') reason = 'SchedulingGated';
  }

  let ready = 0;
  let restarts = 0;
  let sidecarRestarts = 0;
  let lastRestart: number | undefined;
  let lastSidecarRestart: number | undefined;
  let initializing = false;
  const initStatuses = objs(status['initContainerStatuses']);
  for (let i = 0; i < initStatuses.length; i++) {
    const cs = initStatuses[i]!;
    const finished = lastFinished(cs, clock);
    restarts += int(cs['restartCount']);
    lastRestart = later(lastRestart, finished);
    const sidecar = sidecars.has(str(cs['name']));
    if (sidecar) {
      sidecarRestarts += int(cs['restartCount']);
      lastSidecarRestart = later(lastSidecarRestart, finished);
    }
    const state = obj(cs['state']);
    const terminated = state['terminated'];
    const waitingReason = str(obj(state['waiting'])['reason']);
    if (terminated !== undefined && terminated !== null && int(obj(terminated)['exitCode']) === 0) continue;
    if (sidecar && cs['started'] === true) {
      if (cs['ready'] === true) ready++;
      continue;
    }
    if (terminated !== undefined && terminated !== null) reason = terminatedText(obj(terminated), 'Init:');
    else if (waitingReason !== '' && waitingReason !== 'PodInitializing') reason = `Init:${waitingReason}`;
    else reason = `Init:${i}/${initSpecs.length}`;
    initializing = true;
    break;
  }

  if (!initializing || hasCondition(conditions, 'Initialized')) {
    restarts = sidecarRestarts;
    lastRestart = lastSidecarRestart;
    let hasRunning = false;
    const statuses = objs(status['containerStatuses']);
    for (let i = statuses.length - 1; i >= 0; i--) {
      const cs = statuses[i]!;
      restarts += int(cs['restartCount']);
      lastRestart = later(lastRestart, lastFinished(cs, clock));
      const state = obj(cs['state']);
      const waitingReason = str(obj(state['waiting'])['reason']);
      const terminated = state['terminated'];
      if (waitingReason !== '') reason = waitingReason;
      else if (terminated !== undefined && terminated !== null) reason = terminatedText(obj(terminated), '');
      else if (cs['ready'] === true && state['running'] !== undefined && state['running'] !== null) {
        hasRunning = true;
        ready++;
      }
    }
    // A pod whose main container finished while a sidecar still runs is still running.
    if (reason === 'Completed' && hasRunning) reason = hasCondition(conditions, 'Ready') ? 'Running' : 'NotReady';
  }

  const deleting = optStr(metadataOf(pod)['deletionTimestamp']) !== undefined;
  if (deleting && str(status['reason']) === NODE_LOST) reason = 'Unknown';
  else if (deleting && phase !== 'Succeeded' && phase !== 'Failed') reason = 'Terminating';

  const restartText =
    restarts !== 0 && lastRestart !== undefined ? `${restarts} (${clock.sinceMs(lastRestart)} ago)` : String(restarts);
  return { ready: `${ready}/${total}`, status: reason, restarts: restartText };
}

/** READINESS GATES: how many of the pod's gates have a True condition. */
function readinessGates(spec: JsonObject, status: JsonObject): string {
  const gates = objs(spec['readinessGates']);
  if (gates.length === 0) return '<none>';
  const conditions = objs(status['conditions']);
  let satisfied = 0;
  for (const gate of gates) {
    const match = conditions.find((c) => c['type'] === gate['conditionType']);
    if (match !== undefined && match['status'] === 'True') satisfied++;
  }
  return `${satisfied}/${gates.length}`;
}

function podIP(status: JsonObject): string {
  // v1 keeps podIP and podIPs; the original reads podIPs[0], which conversion fills from podIP.
  const first = objs(status['podIPs'])[0];
  return str(first?.['ip']) || str(status['podIP']) || '<none>';
}

export const podPrinter: Printer = {
  columns: [
    NAME,
    column('Ready', 'string', text('The aggregate readiness state of this pod for accepting traffic.')),
    column('Status', 'string', text('The aggregate status of the containers in this pod.')),
    column('Restarts', 'string', text('The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.')),
    AGE,
    wide('IP', 'string', 'PodStatus.podIP'),
    wide('Node', 'string', 'PodSpec.nodeName'),
    wide('Nominated Node', 'string', 'PodStatus.nominatedNodeName'),
    wide('Readiness Gates', 'string', 'PodSpec.readinessGates'),
  ],
  cells(pod, clock): Cell[] {
    const meta = metadataOf(pod);
    const spec = obj(pod['spec']);
    const status = obj(pod['status']);
    const s = summarise(pod, clock);
    return [
      str(meta['name']),
      s.ready,
      s.status,
      s.restarts,
      clock.since(meta['creationTimestamp']),
      podIP(status),
      str(spec['nodeName']) || '<none>',
      str(status['nominatedNodeName']) || '<none>',
      readinessGates(spec, status),
    ];
  },
  conditions(pod) {
    const phase = obj(pod['status'])['phase'];
    return phase === 'Succeeded' ? SUCCEEDED : phase === 'Failed' ? FAILED : undefined;
  },
};

export const podTemplatePrinter: Printer = {
  columns: [
    NAME,
    column('Containers', 'string', text('Names of each container in the template.')),
    column('Images', 'string', text('Images referenced by each container in the template.')),
    column('Pod Labels', 'string', text('The labels for the pod template.')),
  ],
  cells(o) {
    const template = obj(o['template']);
    const [names, images] = containerCells(obj(template['spec'])['containers']);
    return [str(metadataOf(o)['name']), names, images, formatLabels(obj(template['metadata'])['labels'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'Pod', printer: podPrinter },
  { group: '', kind: 'PodTemplate', printer: podTemplatePrinter },
];
