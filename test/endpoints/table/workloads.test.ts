/** Workload tables: deployments, replica sets, stateful sets, daemon sets, jobs, cron jobs, RCs, revisions. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ago, cellsOf, headers, kindOf, object, tableOf } from './helpers.ts';
import type { JsonObject } from '../../../src/endpoints/table/index.ts';

const DEPLOYMENT = kindOf('apps', 'v1', 'Deployment', 'deployments');
const REPLICA_SET = kindOf('apps', 'v1', 'ReplicaSet', 'replicasets');
const STATEFUL_SET = kindOf('apps', 'v1', 'StatefulSet', 'statefulsets');
const DAEMON_SET = kindOf('apps', 'v1', 'DaemonSet', 'daemonsets');
const REVISION = kindOf('apps', 'v1', 'ControllerRevision', 'controllerrevisions');
const RC = kindOf('', 'v1', 'ReplicationController', 'replicationcontrollers');
const JOB = kindOf('batch', 'v1', 'Job', 'jobs');
const CRON_JOB = kindOf('batch', 'v1', 'CronJob', 'cronjobs');

const template = {
  metadata: { labels: { app: 'web' } },
  spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }, { name: 'sidecar', image: 'envoy:1.30' }], nodeSelector: { disk: 'ssd' } },
};

function workload(name: string, spec: JsonObject, status: JsonObject): JsonObject {
  return object(name, 3 * 86400, { spec: { template, ...spec }, status });
}

describe('deployment table', () => {
  it('prints READY as ready/desired and counts as integers', () => {
    const d = workload('web', { replicas: 3, selector: { matchLabels: { app: 'web', tier: 'fe' } } }, { readyReplicas: 2, updatedReplicas: 3, availableReplicas: 2 });
    const t = tableOf(DEPLOYMENT, [d]);
    assert.deepEqual(headers(t), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE']);
    assert.deepEqual(headers(t, true), ['NAME', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(t.rows[0]!.cells, ['web', '2/3', 3, 2, '3d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', 'app=web,tier=fe']);
  });

  it('prints an empty selector as empty and match expressions in selector syntax', () => {
    assert.equal(cellsOf(DEPLOYMENT, workload('a', { replicas: 1, selector: {} }, {}))[7], '');
    const sel = { matchExpressions: [{ key: 'env', operator: 'In', values: ['prod', 'dev'] }, { key: 'canary', operator: 'DoesNotExist' }] };
    assert.equal(cellsOf(DEPLOYMENT, workload('b', { replicas: 1, selector: sel }, {}))[7], '!canary,env in (dev,prod)');
    assert.equal(cellsOf(DEPLOYMENT, workload('c', { replicas: 1, selector: { matchExpressions: [{ key: 'x', operator: 'Bogus' }] } }, {}))[7], '<invalid>');
    assert.deepEqual(cellsOf(DEPLOYMENT, workload('d', { replicas: 2 }, {})).slice(1, 4), ['0/2', 0, 0]);
  });
});

describe('replica set and replication controller tables', () => {
  it('prints desired, current and ready', () => {
    const rs = workload('web-5d8f', { replicas: 3, selector: { matchLabels: { app: 'web' } } }, { replicas: 3, readyReplicas: 1 });
    const t = tableOf(REPLICA_SET, [rs]);
    assert.deepEqual(headers(t, true), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'AGE', 'CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(t.rows[0]!.cells, ['web-5d8f', 3, 3, 1, '3d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', 'app=web']);
    assert.equal(cellsOf(REPLICA_SET, workload('x', { replicas: 0 }, {}))[7], '<none>');
  });

  it('prints a replication controller selector as labels', () => {
    const rc = workload('legacy', { replicas: 2, selector: { app: 'legacy' } }, { replicas: 2, readyReplicas: 2 });
    assert.deepEqual(cellsOf(RC, rc), ['legacy', 2, 2, 2, '3d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', 'app=legacy']);
  });
});

describe('stateful set and daemon set tables', () => {
  it('prints a stateful set as ready/desired', () => {
    const t = tableOf(STATEFUL_SET, [workload('db', { replicas: 3 }, { readyReplicas: 3, replicas: 3 })]);
    assert.deepEqual(headers(t, true), ['NAME', 'READY', 'AGE', 'CONTAINERS', 'IMAGES']);
    assert.deepEqual(t.rows[0]!.cells, ['db', '3/3', '3d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30']);
  });

  it('prints daemon set counters and node selector', () => {
    const ds = workload('agent', { selector: { matchLabels: { app: 'agent' } } }, {
      desiredNumberScheduled: 5,
      currentNumberScheduled: 5,
      numberReady: 4,
      updatedNumberScheduled: 5,
      numberAvailable: 4,
    });
    const t = tableOf(DAEMON_SET, [ds]);
    assert.deepEqual(headers(t), ['NAME', 'DESIRED', 'CURRENT', 'READY', 'UP-TO-DATE', 'AVAILABLE', 'NODE SELECTOR', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['agent', 5, 5, 4, 5, 4, 'disk=ssd', '3d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', 'app=agent']);
  });
});

describe('controller revision table', () => {
  it('names the controlling owner as kind.group/name', () => {
    const rev = object('db-7c9', 60, { revision: 2 }, {
      ownerReferences: [
        { apiVersion: 'v1', kind: 'Other', name: 'x' },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', controller: true },
      ],
    });
    assert.deepEqual(cellsOf(REVISION, rev), ['db-7c9', 'statefulset.apps/db', 2, '60s']);
    assert.equal(cellsOf(REVISION, object('lone', 60, { revision: 1 }))[1], '<none>');
  });
});

describe('job table', () => {
  function job(name: string, spec: JsonObject, status: JsonObject, meta: JsonObject = {}): JsonObject {
    return object(name, 3600, { spec: { template, selector: { matchLabels: { 'batch.orch.io/controller-uid': 'u1' } }, ...spec }, status }, meta);
  }

  it('prints a running and a completed job', () => {
    const t = tableOf(JOB, [
      job('pi', { completions: 3 }, { succeeded: 1, startTime: ago(125) }),
      job('done', { completions: 1 }, { succeeded: 1, startTime: ago(3000), completionTime: ago(2940), conditions: [{ type: 'Complete', status: 'True' }] }),
    ]);
    assert.deepEqual(headers(t), ['NAME', 'STATUS', 'COMPLETIONS', 'DURATION', 'AGE']);
    assert.deepEqual(headers(t, true).slice(5), ['CONTAINERS', 'IMAGES', 'SELECTOR']);
    assert.deepEqual(t.rows[0]!.cells, ['pi', 'Running', '1/3', '2m5s', '60m', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', 'batch.orch.io/controller-uid=u1']);
    assert.deepEqual(t.rows[1]!.cells.slice(0, 4), ['done', 'Complete', '1/1', '60s']);
  });

  it('prints completions for work queues and the status precedence', () => {
    assert.equal(cellsOf(JOB, job('q', { parallelism: 4 }, { succeeded: 2 }))[2], '2/1 of 4');
    assert.equal(cellsOf(JOB, job('q1', {}, {}))[2], '0/1');
    assert.equal(cellsOf(JOB, job('ns', {}, {}))[3], '');
    assert.equal(cellsOf(JOB, job('f', {}, { conditions: [{ type: 'Failed', status: 'True' }] }))[1], 'Failed');
    assert.equal(cellsOf(JOB, job('s', {}, { conditions: [{ type: 'Suspended', status: 'True' }] }))[1], 'Suspended');
    assert.equal(cellsOf(JOB, job('ft', {}, { conditions: [{ type: 'FailureTarget', status: 'True' }] }))[1], 'FailureTarget');
    assert.equal(cellsOf(JOB, job('t', {}, { conditions: [{ type: 'Suspended', status: 'True' }] }, { deletionTimestamp: ago(1) }))[1], 'Terminating');
    assert.equal(cellsOf(JOB, job('c', {}, { conditions: [{ type: 'Complete', status: 'False' }] }))[1], 'Running');
  });
});

describe('cron job table', () => {
  it('prints schedule, time zone, suspend, active jobs and last schedule', () => {
    const cj = object('nightly', 7 * 86400, {
      spec: { schedule: '0 3 * * *', timeZone: 'Europe/Paris', suspend: false, jobTemplate: { spec: { template } } },
      status: { active: [{ name: 'nightly-1' }], lastScheduleTime: ago(5 * 3600) },
    });
    const t = tableOf(CRON_JOB, [cj]);
    assert.deepEqual(headers(t), ['NAME', 'SCHEDULE', 'TIMEZONE', 'SUSPEND', 'ACTIVE', 'LAST SCHEDULE', 'AGE']);
    assert.deepEqual(t.rows[0]!.cells, ['nightly', '0 3 * * *', 'Europe/Paris', 'False', 1, '5h', '7d', 'nginx,sidecar', 'nginx:1.27,envoy:1.30', '<none>']);
    const bare = cellsOf(CRON_JOB, object('bare', 60, { spec: { schedule: '@hourly', jobTemplate: { spec: { template } } } }));
    assert.deepEqual(bare.slice(2, 6), ['<none>', '<unset>', 0, '<none>']);
  });
});
