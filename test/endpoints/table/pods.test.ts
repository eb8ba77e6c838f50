/** Pod tables: the columns kubectl shows and the READY / STATUS / RESTARTS the original derives. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NOW, POD, ago, cellsOf, headers, kindOf, object, tableOf } from './helpers.ts';
import type { JsonObject } from '../../../src/endpoints/table/index.ts';

function pod(name: string, spec: JsonObject, status: JsonObject, meta: JsonObject = {}): JsonObject {
  return object(name, 600, { spec, status }, meta);
}

const oneContainer = { containers: [{ name: 'app', image: 'nginx:1.27' }], nodeName: 'node-a' };

function running(name: string, extra: JsonObject = {}): JsonObject {
  return { name, ready: true, restartCount: 0, started: true, state: { running: { startedAt: ago(500) } }, ...extra };
}

/** READY, STATUS, RESTARTS. */
function summary(p: JsonObject): [unknown, unknown, unknown] {
  const c = cellsOf(POD, p);
  return [c[1], c[2], c[3]];
}

describe('pod table', () => {
  it('has the original columns, wide ones at priority 1', () => {
    const t = tableOf(POD, []);
    assert.deepEqual(headers(t), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE']);
    assert.deepEqual(headers(t, true), ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES']);
    assert.deepEqual(
      t.columnDefinitions.map((c) => [c.name, c.type, c.format, c.priority]),
      [
        ['Name', 'string', 'name', 0],
        ['Ready', 'string', '', 0],
        ['Status', 'string', '', 0],
        ['Restarts', 'string', '', 0],
        ['Age', 'string', '', 0],
        ['IP', 'string', '', 1],
        ['Node', 'string', '', 1],
        ['Nominated Node', 'string', '', 1],
        ['Readiness Gates', 'string', '', 1],
      ],
    );
    assert.match(t.columnDefinitions[0]!.description, /^Name must be unique within a namespace/);
    assert.match(t.columnDefinitions[4]!.description, /^CreationTimestamp is a timestamp/);
    assert.equal(t.columnDefinitions[3]!.description, 'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.');
  });

  it('prints a running pod', () => {
    const p = pod('web-0', oneContainer, {
      phase: 'Running',
      podIP: '10.1.0.5',
      podIPs: [{ ip: '10.1.0.5' }],
      conditions: [{ type: 'Ready', status: 'True' }],
      containerStatuses: [running('app')],
    });
    assert.deepEqual(cellsOf(POD, p), ['web-0', '1/1', 'Running', '0', '10m', '10.1.0.5', 'node-a', '<none>', '<none>']);
  });

  it('prints a pending, unscheduled pod', () => {
    const p = pod('web-1', { containers: [{ name: 'app' }] }, { phase: 'Pending' });
    assert.deepEqual(cellsOf(POD, p), ['web-1', '0/1', 'Pending', '0', '10m', '<none>', '<none>', '<none>', '<none>']);
  });

  it('shows restarts with the age of the last one', () => {
    const p = pod('crashy', oneContainer, {
      phase: 'Running',
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 4,
          state: { waiting: { reason: 'CrashLoopBackOff' } },
          lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: ago(95) } },
        },
      ],
    });
    assert.deepEqual(summary(p), ['0/1', 'CrashLoopBackOff', '4 (95s ago)']);
  });

  it('takes the waiting or terminated reason of the first container that has one', () => {
    const p = pod('two', { containers: [{ name: 'a' }, { name: 'b' }] }, {
      phase: 'Running',
      containerStatuses: [
        { name: 'a', ready: false, restartCount: 0, state: { waiting: { reason: 'ImagePullBackOff' } } },
        { name: 'b', ready: true, restartCount: 1, state: { running: {} } },
      ],
    });
    assert.deepEqual(summary(p), ['1/2', 'ImagePullBackOff', '1']);
  });

  it('prints terminated containers by reason, signal or exit code', () => {
    const withState = (terminated: JsonObject): JsonObject =>
      pod('t', oneContainer, { phase: 'Failed', containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated } }] });
    assert.equal(summary(withState({ exitCode: 137, reason: 'OOMKilled' }))[1], 'OOMKilled');
    assert.equal(summary(withState({ exitCode: 1, signal: 9 }))[1], 'Signal:9');
    assert.equal(summary(withState({ exitCode: 3 }))[1], 'ExitCode:3');
  });

  it('marks finished pods Completed in the row conditions', () => {
    const done = pod('job-x', oneContainer, {
      phase: 'Succeeded',
      containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }],
    });
    const t = tableOf(POD, [done]);
    assert.equal(t.rows[0]!.cells[2], 'Completed');
    assert.deepEqual(t.rows[0]!.conditions, [{ type: 'Completed', status: 'True', reason: 'Succeeded', message: 'The pod has completed successfully.' }]);
    const failed = tableOf(POD, [pod('f', oneContainer, { phase: 'Failed' })]);
    assert.deepEqual(failed.rows[0]!.conditions, [{ type: 'Completed', status: 'True', reason: 'Failed', message: 'The pod failed.' }]);
    assert.equal('conditions' in tableOf(POD, [pod('r', oneContainer, { phase: 'Running' })]).rows[0]!, false);
  });

  it('shows init container progress and failures', () => {
    const spec = { initContainers: [{ name: 'i1' }, { name: 'i2' }], containers: [{ name: 'app' }] };
    const initWith = (statuses: JsonObject[]): JsonObject => pod('init', spec, { phase: 'Pending', initContainerStatuses: statuses });
    assert.deepEqual(summary(initWith([{ name: 'i1', restartCount: 0, state: { waiting: { reason: 'PodInitializing' } } }])), ['0/1', 'Init:0/2', '0']);
    assert.deepEqual(
      summary(initWith([{ name: 'i1', restartCount: 0, state: { terminated: { exitCode: 0 } } }, { name: 'i2', restartCount: 0, state: { running: {} } }])),
      ['0/1', 'Init:1/2', '0'],
    );
    assert.deepEqual(summary(initWith([{ name: 'i1', restartCount: 0, state: { terminated: { exitCode: 1 } } }])), ['0/1', 'Init:ExitCode:1', '0']);
    assert.deepEqual(summary(initWith([{ name: 'i1', restartCount: 0, state: { terminated: { exitCode: 1, signal: 2 } } }])), ['0/1', 'Init:Signal:2', '0']);
    assert.deepEqual(
      summary(initWith([{ name: 'i1', restartCount: 3, state: { waiting: { reason: 'CrashLoopBackOff' } }, lastState: { terminated: { exitCode: 1, finishedAt: ago(30) } } }])),
      ['0/1', 'Init:CrashLoopBackOff', '3 (30s ago)'],
    );
  });

  it('counts restartable init containers (sidecars) as containers', () => {
    const spec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }] };
    const p = pod('sidecar', spec, {
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: 'True' }],
      initContainerStatuses: [running('proxy', { restartCount: 2, lastState: { terminated: { finishedAt: ago(200) } } })],
      containerStatuses: [running('app')],
    });
    assert.deepEqual(summary(p), ['2/2', 'Running', '2 (3m20s ago)']);
  });

  it('keeps a pod with a running sidecar and a completed main container Running or NotReady', () => {
    const spec = { initContainers: [{ name: 'proxy', restartPolicy: 'Always' }], containers: [{ name: 'app' }, { name: 'log' }] };
    const status = (ready: boolean): JsonObject => ({
      phase: 'Running',
      conditions: [{ type: 'Initialized', status: 'True' }, { type: 'Ready', status: ready ? 'True' : 'False' }],
      initContainerStatuses: [running('proxy')],
      containerStatuses: [{ name: 'app', restartCount: 0, state: { terminated: { exitCode: 0, reason: 'Completed' } } }, running('log')],
    });
    assert.deepEqual(summary(pod('a', spec, status(true))), ['2/3', 'Running', '0']);
    assert.deepEqual(summary(pod('b', spec, status(false))), ['2/3', 'NotReady', '0']);
  });

  it('shows Terminating, and Unknown for pods on a lost node', () => {
    const deleting = { deletionTimestamp: ago(5) };
    assert.equal(summary(pod('d', oneContainer, { phase: 'Running', containerStatuses: [running('app')] }, deleting))[1], 'Terminating');
    assert.equal(summary(pod('l', oneContainer, { phase: 'Running', reason: 'NodeLost' }, deleting))[1], 'Unknown');
    assert.equal(summary(pod('s', oneContainer, { phase: 'Succeeded' }, deleting))[1], 'Succeeded');
  });

  it('shows SchedulingGated and the pod reason', () => {
    assert.equal(summary(pod('g', oneContainer, { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'False', reason: 'SchedulingGated' }] }))[1], 'SchedulingGated');
    assert.equal(summary(pod('e', oneContainer, { phase: 'Failed', reason: 'Evicted' }))[1], 'Evicted');
  });

  it('prints wide columns: IP from podIPs, nominated node, readiness gates', () => {
    const p = pod(
      'gated',
      { ...oneContainer, readinessGates: [{ conditionType: 'example.com/lb' }, { conditionType: 'example.com/dns' }] },
      {
        phase: 'Running',
        podIPs: [{ ip: 'fd00::5' }, { ip: '10.0.0.5' }],
        nominatedNodeName: 'node-b',
        conditions: [{ type: 'example.com/lb', status: 'True' }, { type: 'example.com/dns', status: 'False' }],
      },
    );
    assert.deepEqual(cellsOf(POD, p).slice(5), ['fd00::5', 'node-a', 'node-b', '1/2']);
  });

  it('prints ages relative to the given clock', () => {
    const at = (seconds: number): unknown => cellsOf(POD, { metadata: { name: 'x', creationTimestamp: ago(seconds) } })[4];
    assert.equal(at(0), '0s');
    assert.equal(at(119), '119s');
    assert.equal(at(150), '2m30s');
    assert.equal(at(3 * 3600 + 120), '3h2m');
    assert.equal(at(26 * 3600), '26h');
    assert.equal(at(3 * 86400 + 3600), '3d1h');
    assert.equal(cellsOf(POD, { metadata: { name: 'x' } })[4], '<unknown>');
    assert.equal(NOW.toISOString(), '2025-06-01T12:00:00.000Z');
  });

  it('prints pod templates', () => {
    const kind = kindOf('', 'v1', 'PodTemplate', 'podtemplates');
    const t = tableOf(kind, [
      object('tpl', 10, {
        template: { metadata: { labels: { tier: 'web', app: 'shop' } }, spec: { containers: [{ name: 'a', image: 'img:a' }, { name: 'b', image: 'img:b' }] } },
      }),
    ]);
    assert.deepEqual(headers(t), ['NAME', 'CONTAINERS', 'IMAGES', 'POD LABELS']);
    assert.deepEqual(t.rows[0]!.cells, ['tpl', 'a,b', 'img:a,img:b', 'app=shop,tier=web']);
  });
});
