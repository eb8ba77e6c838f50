/**
 * The differences between versions (spec 9.3) as the conversions and the
 * declared older shapes carry them: autoscaling/v1 keeps v2's metrics,
 * behavior, current metrics and conditions in the original's annotations;
 * policy/v1beta1's empty selector selects nothing (stored as a marker
 * selector); discovery v1beta1's topology map holds v1's zone and node name;
 * flowcontrol betas say assuredConcurrencyShares and authorization v1beta1
 * spec.group, with the original's Protobuf numbers.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { endpointSliceBeta, hpaV1, pdbBeta } from '../../src/registry/conversions/index.ts';
import { apiGroup, names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { loadRoot } from '../../src/protobuf/load.ts';
import { decodeObject, encodeObject, supportsProtobuf } from '../../src/protobuf/index.ts';

const obj = (o: Record<string, unknown>): KObject => ({ metadata: { name: 'x' }, ...o }) as KObject;

describe('autoscaling/v1 <-> v2', () => {
  const conv = hpaV1('autoscaling/v1', 'autoscaling/v2');
  const keys = names.annotations.hpaV1;
  const v2 = obj({
    apiVersion: 'autoscaling/v2',
    spec: {
      scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 4,
      metrics: [
        { type: 'External', external: { metric: { name: 'queue' }, target: { type: 'Value', value: '5' } } },
        { type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 50 } } },
      ],
      behavior: { scaleUp: { stabilizationWindowSeconds: 0 } },
    },
    status: {
      currentReplicas: 2, desiredReplicas: 3,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 42 } } }],
      conditions: [{ type: 'AbleToScale', status: 'True' }],
    },
  });

  it('v1 shows the CPU target and keeps the rest in the original\'s annotations', () => {
    const v1 = conv.fromStorage(v2);
    assert.equal(v1.apiVersion, 'autoscaling/v1');
    const spec = v1['spec'] as Record<string, unknown>;
    assert.equal(spec['targetCPUUtilizationPercentage'], 50);
    assert.equal(spec['metrics'], undefined);
    assert.equal(spec['behavior'], undefined);
    assert.equal((v1['status'] as Record<string, unknown>)['currentCPUUtilizationPercentage'], 42);
    const ann = v1.metadata.annotations!;
    assert.deepEqual(JSON.parse(ann[keys.metrics]!), [(v2['spec'] as { metrics: unknown[] }).metrics[0]]);
    assert.deepEqual(JSON.parse(ann[keys.behavior]!), { scaleUp: { stabilizationWindowSeconds: 0 } });
    assert.ok(ann[keys.currentMetrics] && ann[keys.conditions]);
    assert.ok(keys.metrics.startsWith('autoscaling.alpha.'));
    assert.ok(v2.metadata.annotations === undefined, 'the stored object is not touched');
  });

  it('writing the v1 view back gives the v2 object again', () => {
    assert.deepEqual(conv.toStorage(conv.fromStorage(v2)), v2);
  });

  it('a v1 HPA without a target gets the 80% CPU default', () => {
    const stored = conv.toStorage(obj({ apiVersion: 'autoscaling/v1', spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, maxReplicas: 2 } }));
    assert.deepEqual((stored['spec'] as Record<string, unknown>)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 80 } } }]);
  });

  it('an annotation that is not JSON, or does not fit the v2 types, is left where it is and never stored as a field', () => {
    const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
    for (const text of ['{not json', '[{"type":5}]', '{"type":"Pods"}', `[{"type":"Pods","pods":{"metric":{"name":${deep}}}}]`]) {
      const stored = conv.toStorage(obj({ apiVersion: 'autoscaling/v1', metadata: { name: 'x', annotations: { [keys.metrics]: text } }, spec: { maxReplicas: 2, targetCPUUtilizationPercentage: 10 } }));
      assert.equal(stored.metadata.annotations?.[keys.metrics], text);
      assert.deepEqual((stored['spec'] as Record<string, unknown>)['metrics'], [{ type: 'Resource', resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 10 } } }]);
    }
  });
  it('fields the v2 types lack are dropped from annotation contents, as Go unmarshals them', () => {
    const text = JSON.stringify([{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } }, bogus: true }]);
    const stored = conv.toStorage(obj({ apiVersion: 'autoscaling/v1', metadata: { name: 'x', annotations: { [keys.metrics]: text } }, spec: { maxReplicas: 2 } }));
    assert.deepEqual((stored['spec'] as Record<string, unknown>)['metrics'], [{ type: 'Pods', pods: { metric: { name: 'qps' }, target: { type: 'AverageValue', averageValue: '1' } } }]);
    assert.equal(stored.metadata.annotations, undefined);
  });
});

describe('policy/v1beta1 PodDisruptionBudget selectors', () => {
  const conv = pdbBeta('policy/v1beta1', 'policy/v1');
  const key = names.labels.pdbV1beta1EmptySelectorMatch;
  const sel = (o: KObject): unknown => (o['spec'] as Record<string, unknown>)['selector'];
  it('v1beta1 {} (selects nothing) is stored as `<key> Exists`, and shown as {} again', () => {
    const stored = conv.toStorage(obj({ spec: { selector: {} } }));
    assert.deepEqual(sel(stored), { matchExpressions: [{ key, operator: 'Exists' }] });
    assert.deepEqual(sel(conv.fromStorage(stored)), {});
  });
  it('v1 {} (selects all) is shown to v1beta1 as `<key> DoesNotExist`, and stored as {} again', () => {
    const shown = conv.fromStorage(obj({ spec: { selector: {} } }));
    assert.deepEqual(sel(shown), { matchExpressions: [{ key, operator: 'DoesNotExist' }] });
    assert.deepEqual(sel(conv.toStorage(shown)), {});
  });
  it('other selectors and an unset one pass unchanged', () => {
    assert.deepEqual(sel(conv.toStorage(obj({ spec: { selector: { matchLabels: { a: 'b' } } } }))), { matchLabels: { a: 'b' } });
    assert.equal('selector' in (conv.toStorage(obj({ spec: {} }))['spec'] as object), false);
  });
});

describe('discovery v1beta1 EndpointSlice topology', () => {
  const g = apiGroup('discovery');
  const conv = endpointSliceBeta(`${g}/v1beta1`, `${g}/v1`);
  const zone = names.labels.topologyZone;
  const host = names.labels.hostname;
  it('the zone moves to `zone`, the hostname equal to nodeName goes, the rest is deprecatedTopology', () => {
    const stored = conv.toStorage(obj({ endpoints: [{ addresses: ['1.1.1.1'], nodeName: 'n', topology: { [zone]: 'z', [host]: 'n', rack: 'r' } }] }));
    assert.deepEqual(stored['endpoints'], [{ addresses: ['1.1.1.1'], nodeName: 'n', zone: 'z', deprecatedTopology: { rack: 'r' } }]);
    assert.deepEqual(conv.fromStorage(stored)['endpoints'], [{ addresses: ['1.1.1.1'], nodeName: 'n', topology: { rack: 'r', [zone]: 'z', [host]: 'n' } }]);
  });
  it('a hostname that differs from nodeName stays in the topology', () => {
    const stored = conv.toStorage(obj({ endpoints: [{ addresses: ['1.1.1.1'], nodeName: 'n', topology: { [host]: 'other' } }] }));
    assert.deepEqual(stored['endpoints'], [{ addresses: ['1.1.1.1'], nodeName: 'n', deprecatedTopology: { [host]: 'other' } }]);
  });
});

describe('declared older shapes', () => {
  const root = loadRoot();
  it('flowcontrol betas: assuredConcurrencyShares, field 1', () => {
    for (const v of ['v1beta1', 'v1beta2']) {
      const t = root.lookupType(`io.orch.api.flowcontrol.${v}.LimitedPriorityLevelConfiguration`);
      assert.equal(t.fields['assuredConcurrencyShares']!.id, 1);
      assert.equal(t.fields['nominalConcurrencyShares'], undefined);
    }
  });
  it('authorization v1beta1: spec.group, field 4', () => {
    assert.equal(root.lookupType('io.orch.api.authorization.v1beta1.SubjectAccessReviewSpec').fields['group']!.id, 4);
  });
  it('discovery v1beta1: topology 5 and hints 7', () => {
    const t = root.lookupType('io.orch.api.discovery.v1beta1.Endpoint');
    assert.equal(t.fields['topology']!.id, 5);
    assert.equal(t.fields['hints']!.id, 7);
    assert.equal(t.fields['zone'], undefined);
  });
  it('Protobuf for every older version; a v1beta1 SubjectAccessReview survives the codec', () => {
    for (const [group, version, kind] of [
      ['batch', 'v1beta1', 'CronJob'], ['autoscaling', 'v2beta2', 'HorizontalPodAutoscaler'], ['autoscaling', 'v1', 'HorizontalPodAutoscaler'],
      ['policy', 'v1beta1', 'PodDisruptionBudget'], [apiGroup('discovery'), 'v1beta1', 'EndpointSlice'], [apiGroup('events'), 'v1beta1', 'Event'],
      [apiGroup('node'), 'v1beta1', 'RuntimeClass'], [apiGroup('storage'), 'v1beta1', 'CSIStorageCapacity'],
      [apiGroup('flowcontrol.apiserver'), 'v1beta1', 'FlowSchema'], [apiGroup('flowcontrol.apiserver'), 'v1beta2', 'PriorityLevelConfiguration'],
      [apiGroup('admissionregistration'), 'v1beta1', 'ValidatingWebhookConfiguration'], [apiGroup('certificates'), 'v1beta1', 'CertificateSigningRequest'],
      [apiGroup('authentication'), 'v1beta1', 'TokenReview'], [apiGroup('authorization'), 'v1beta1', 'SelfSubjectRulesReview'],
    ] as const) {
      assert.ok(supportsProtobuf({ group, version, kind }), `${group}/${version} ${kind}`);
    }
    assert.equal(supportsProtobuf({ group: 'batch', version: 'v1beta1', kind: 'Job' }), false, 'only the kinds the version served');
    const gvk = { group: apiGroup('authorization'), version: 'v1beta1', kind: 'SubjectAccessReview' };
    const sar = { apiVersion: `${gvk.group}/v1beta1`, kind: gvk.kind, metadata: { name: 'x' }, spec: { user: 'u', group: ['g1', 'g2'], resourceAttributes: { verb: 'get', resource: 'pods' } } };
    assert.deepEqual((decodeObject(encodeObject(sar, gvk)).object['spec'] as Record<string, unknown>)['group'], ['g1', 'g2']);
  });
});
