/**
 * Micro-benchmark of priority and fairness's per-request work in one thread:
 * classify (the mandatory schemas plus 10 others that do not match), hash
 * the flow, take and give back a seat of a queued level, count it.
 *
 *   node --import tsx loadtest/flowcontrol/dispatch.ts
 */
import { Registry } from 'prom-client';
import { Classifier, flowDistinguisher, flowHash } from '../../src/flowcontrol/classifier.ts';
import { QueueSet } from '../../src/flowcontrol/queueset.ts';
import { FlowcontrolMetrics } from '../../src/flowcontrol/metrics.ts';
import { MANDATORY_FS_CATCH_ALL, MANDATORY_FS_EXEMPT } from '../../src/flowcontrol/mandatory.ts';
import type { FlowSchemaConfig } from '../../src/flowcontrol/types.ts';
import type { RequestInfo, UserInfo } from '../../src/server/context.ts';

const others: FlowSchemaConfig[] = Array.from({ length: 10 }, (_, i) => ({
  name: `other-${i}`,
  uid: '',
  priorityLevel: 'catch-all',
  matchingPrecedence: 100 + i,
  distinguisher: 'ByUser',
  rules: [{ subjects: [{ kind: 'Group', name: `group-${i}` }], resourceRules: [{ verbs: ['*'], apiGroups: ['*'], resources: ['*'], clusterScope: true, namespaces: ['*'] }], nonResourceRules: [] }],
}));
const metrics = new FlowcontrolMetrics(new Registry());
const queues = new QueueSet({ concurrencyLimit: 100, queuing: { queues: 64, handSize: 8, queueLengthLimit: 50 } });
const classifier = new Classifier([MANDATORY_FS_EXEMPT, ...others, MANDATORY_FS_CATCH_ALL], (s) => ({ schema: s, series: metrics.series(s.name, s.priorityLevel) }));
const info: RequestInfo = { isResourceRequest: true, path: '/api/v1/namespaces/default/configmaps/x', verb: 'get', apiPrefix: 'api', apiGroup: '', apiVersion: 'v1', namespace: 'default', resource: 'configmaps', subresource: '', name: 'x', parts: [] };
const user: UserInfo = { name: 'alice', groups: ['tenants', 'system:authenticated'] };

const N = 2_000_000;
for (let round = 0; round < 3; round++) {
  const t0 = performance.now();
  for (let i = 0; i < N; i++) {
    const c = classifier.classify(info, user)!;
    const t = queues.start(flowHash(c.schema.name, flowDistinguisher(c.schema.distinguisher, info, user)));
    if (typeof t === 'string') throw new Error(t);
    c.level.series.dispatched++;
    queues.finish(t);
  }
  console.log(`${(((performance.now() - t0) * 1000) / N).toFixed(3)} µs per request (classify over 12 schemas, hash, seat of a queued level, count)`);
}
