/**
 * LimitRanger on the original's cases (plugin/pkg/admission/limitranger/
 * admission_test.go): defaults merged into containers and init containers
 * with the annotation, min/max/ratio per Container and per Pod, storage per
 * claim, messages, what the plugin handles; and LimitRange defaulting and
 * validation (the type's strategy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LIMIT_RANGER_ANNOTATION, limitRanger, mutatePod, validateClaim, validatePod } from '../../src/admission/plugins/limit-ranger.ts';
import { limitRangeStrategy, validateLimitRange } from '../../src/registry/strategies/limitranges.ts';
import type { AdmissionAttributes } from '../../src/admission/types.ts';
import type { KObject } from '../../src/registry/object.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { StatusError } from '../../src/api/status.ts';
import type { StrategyContext } from '../../src/registry/strategy.ts';

type RL = Record<string, string>;
const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });
const pods = registry.lookup('', 'v1', 'pods')!;
const pvcs = registry.lookup('', 'v1', 'persistentvolumeclaims')!;

const cm = (cpu: string, memory: string): RL => ({ ...(cpu ? { cpu } : {}), ...(memory ? { memory } : {}) });
const reqs = (requests: RL, limits: RL): Record<string, unknown> => ({
  ...(Object.keys(requests).length > 0 ? { requests } : {}),
  ...(Object.keys(limits).length > 0 ? { limits } : {}),
});

function limitRange(type: string, min: RL, max: RL, def: RL = {}, defReq: RL = {}, ratio: RL = {}): KObject {
  const item: Record<string, unknown> = { type };
  if (Object.keys(min).length) item['min'] = min;
  if (Object.keys(max).length) item['max'] = max;
  if (Object.keys(def).length) item['default'] = def;
  if (Object.keys(defReq).length) item['defaultRequest'] = defReq;
  if (Object.keys(ratio).length) item['maxLimitRequestRatio'] = ratio;
  return { apiVersion: 'v1', kind: 'LimitRange', metadata: { name: 'abc', namespace: 'test' }, spec: { limits: [item] } };
}

function validLimitRange(): KObject {
  return {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: { name: 'abc', namespace: 'test' },
    spec: {
      limits: [
        { type: 'Pod', max: cm('200m', '4Gi'), min: cm('50m', '2Mi') },
        { type: 'Container', max: cm('100m', '2Gi'), min: cm('25m', '1Mi'), default: cm('75m', '10Mi'), defaultRequest: cm('50m', '5Mi') },
      ],
    },
  };
}

function validPod(name: string, n: number, resources: Record<string, unknown>, init: Array<Record<string, unknown>> = []): KObject {
  const containers = Array.from({ length: n }, (_, i) => ({ name: `foo-${i}`, image: `foo:V${i}`, resources: structuredClone(resources) }));
  const spec: Record<string, unknown> = { containers };
  if (init.length > 0) spec['initContainers'] = init.map((r, i) => ({ name: `foo-${i}`, image: `foo:V${i}`, resources: structuredClone(r) }));
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'test' }, spec };
}

const resourcesOf = (p: KObject, key = 'containers'): unknown[] => ((p['spec'] as Record<string, Array<{ resources: unknown }>>)[key] ?? []).map((c) => c.resources);

test('TestMergePodResourceRequirements: empty containers get every default; the annotation says what was set', () => {
  const p = validPod('empty-resources', 1, {});
  mutatePod(p, [validLimitRange()]);
  assert.deepEqual(resourcesOf(p), [{ requests: cm('50m', '5Mi'), limits: cm('75m', '10Mi') }]);
  assert.equal(p.metadata.annotations?.[LIMIT_RANGER_ANNOTATION], 'LimitRanger plugin set: cpu, memory request for container foo-0; cpu, memory limit for container foo-0');
});

test('TestMergePodResourceRequirements: only what is missing is merged, in init containers too', () => {
  const input = reqs(cm('', '512Mi'), {});
  const p = validPod('limit-memory', 1, input, [input]);
  mutatePod(p, [validLimitRange()]);
  const expected = { requests: { memory: '512Mi', cpu: '50m' }, limits: cm('75m', '10Mi') };
  assert.deepEqual(resourcesOf(p), [expected]);
  assert.deepEqual(resourcesOf(p, 'initContainers'), [expected]);
  assert.equal(
    p.metadata.annotations?.[LIMIT_RANGER_ANNOTATION],
    'LimitRanger plugin set: cpu request for container foo-0; cpu, memory limit for container foo-0; cpu request for init container foo-0; cpu, memory limit for init container foo-0',
  );
});

test('TestMergePodResourceRequirements: a fully specified pod is untouched and not annotated', () => {
  const input = reqs(cm('100m', '512Mi'), cm('200m', '1G'));
  const init = reqs(cm('200m', '1G'), cm('400m', '2G'));
  const p = validPod('limit-memory', 1, input, [init]);
  mutatePod(p, [validLimitRange()]);
  assert.deepEqual(resourcesOf(p), [input]);
  assert.deepEqual(resourcesOf(p, 'initContainers'), [init]);
  assert.equal(p.metadata.annotations, undefined);
});

test('limits without requests: requests come from the limits (the pod defaulting before admission), not from defaultRequest', () => {
  const p = validPod('limits-only', 1, reqs({}, cm('80m', '')));
  mutatePod(p, [validLimitRange()]);
  assert.deepEqual(resourcesOf(p), [{ requests: cm('80m', '5Mi'), limits: cm('80m', '10Mi') }]);
});

test('TestPodLimitFuncApplyDefault: defaults satisfy the range', () => {
  const p = validPod('foo', 1, {}, [{}]);
  mutatePod(p, [validLimitRange()]);
  assert.deepEqual(validatePod(p, validLimitRange()), []);
  assert.deepEqual(resourcesOf(p, 'initContainers'), [{ requests: cm('50m', '5Mi'), limits: cm('75m', '10Mi') }]);
});

const C = 'Container';
const P = 'Pod';
const successCases: Array<[KObject, KObject]> = [
  [validPod('ctr-min-cpu-request', 1, reqs(cm('100m', ''), {})), limitRange(C, cm('50m', ''), {})],
  [validPod('ctr-min-cpu-request-limit', 1, reqs(cm('100m', ''), cm('200m', ''))), limitRange(C, cm('50m', ''), {})],
  [validPod('ctr-min-memory-request', 1, reqs(cm('', '60Mi'), {})), limitRange(C, cm('', '50Mi'), {})],
  [validPod('ctr-max-cpu-request-limit', 1, reqs(cm('500m', ''), cm('1', ''))), limitRange(C, {}, cm('2', ''))],
  [validPod('ctr-max-cpu-limit', 1, reqs({}, cm('1', ''))), limitRange(C, {}, cm('2', ''))],
  [validPod('ctr-max-mem-request-limit', 1, reqs(cm('', '250Mi'), cm('', '500Mi'))), limitRange(C, {}, cm('', '1Gi'))],
  [validPod('ctr-max-cpu-ratio', 1, reqs(cm('500m', ''), cm('750m', ''))), limitRange(C, {}, {}, {}, {}, cm('1.5', ''))],
  [validPod('pod-min-cpu-request', 2, reqs(cm('75m', ''), {})), limitRange(P, cm('100m', ''), {})],
  [validPod('pod-min-memory-request-limit', 2, reqs(cm('', '60Mi'), cm('', '100Mi'))), limitRange(P, cm('', '100Mi'), {})],
  [validPod('pod-init-min-memory-request', 2, reqs(cm('', '60Mi'), {}), [reqs(cm('', '100Mi'), {})]), limitRange(P, cm('', '100Mi'), {})],
  [validPod('pod-max-cpu-request-limit', 2, reqs(cm('500m', ''), cm('1', ''))), limitRange(P, {}, cm('2', ''))],
  [validPod('pod-init-max-cpu-request-limit', 2, reqs(cm('500m', ''), cm('1', '')), [reqs(cm('1', ''), cm('2', '')), reqs(cm('1', ''), cm('1', ''))]), limitRange(P, {}, cm('2', ''))],
  [validPod('pod-max-mem-ratio', 3, reqs(cm('', '300Mi'), cm('', '450Mi'))), limitRange(P, {}, cm('', '2Gi'), {}, {}, cm('', '1.5'))],
];

test('TestPodLimitFunc: success cases', () => {
  for (const [p, lr] of successCases) assert.deepEqual(validatePod(p, lr), [], p.metadata.name);
});

const errorCases: Array<[KObject, KObject, string]> = [
  [validPod('ctr-min-cpu-request', 1, reqs(cm('40m', ''), {})), limitRange(C, cm('50m', ''), {}), 'minimum cpu usage per Container is 50m, but request is 40m'],
  [validPod('ctr-min-cpu-no-request-limit', 1, {}), limitRange(C, cm('50m', ''), {}), 'minimum cpu usage per Container is 50m.  No request is specified'],
  [validPod('ctr-min-memory-request-limit', 1, reqs(cm('', '40Mi'), cm('', '100Mi'))), limitRange(C, cm('', '50Mi'), {}), 'minimum memory usage per Container is 50Mi, but request is 40Mi'],
  [validPod('ctr-max-cpu-request-limit', 1, reqs(cm('500m', ''), cm('2500m', ''))), limitRange(C, {}, cm('2', '')), 'maximum cpu usage per Container is 2, but limit is 2500m'],
  [validPod('ctr-max-cpu-no-request-limit', 1, {}), limitRange(C, {}, cm('2', '')), 'maximum cpu usage per Container is 2.  No limit is specified'],
  [validPod('ctr-max-cpu-ratio', 1, reqs(cm('1250m', ''), cm('2500m', ''))), limitRange(C, {}, {}, {}, {}, cm('1', '')), 'cpu max limit to request ratio per Container is 1, but provided ratio is 2.000000'],
  [validPod('ctr-max-mem-limit', 1, reqs({}, cm('', '2Gi'))), limitRange(C, {}, cm('', '1Gi')), 'maximum memory usage per Container is 1Gi, but limit is 2Gi'],
  [validPod('pod-min-cpu-request', 1, reqs(cm('75m', ''), {})), limitRange(P, cm('100m', ''), {}), 'minimum cpu usage per Pod is 100m, but request is 75m'],
  [validPod('pod-max-cpu-request-limit', 3, reqs(cm('500m', ''), cm('1', ''))), limitRange(P, {}, cm('2', '')), 'maximum cpu usage per Pod is 2, but limit is 3'],
  [validPod('pod-max-mem-limit', 3, reqs({}, cm('', '500Mi'))), limitRange(P, {}, cm('', '1Gi')), 'maximum memory usage per Pod is 1Gi, but limit is 1500Mi'],
  [validPod('pod-init-max-mem-limit', 1, reqs({}, cm('', '500Mi')), [reqs({}, cm('', '1.5Gi'))]), limitRange(P, {}, cm('', '1Gi')), 'maximum memory usage per Pod is 1Gi, but limit is 1536Mi'],
  [validPod('pod-max-mem-ratio', 3, reqs(cm('', '250Mi'), cm('', '500Mi'))), limitRange(P, {}, cm('', '2Gi'), {}, {}, cm('', '1.5')), 'memory max limit to request ratio per Pod is 1500m, but provided ratio is 2.000000'],
  [validPod('ctr-ratio-no-request', 1, reqs({}, {})), limitRange(C, {}, {}, {}, {}, cm('1', '')), 'cpu max limit to request ratio per Container is 1, but no request is specified or request is 0'],
];

test('TestPodLimitFunc: error cases, with the original messages', () => {
  for (const [p, lr, msg] of errorCases) assert.deepEqual(validatePod(p, lr), [msg], p.metadata.name);
});

test('TestPersistentVolumeClaimLimitFunc', () => {
  const claim = (name: string, storage: string): KObject => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'test' },
    spec: { resources: storage ? { requests: { storage } } : {} },
  });
  const pvcRange = (min: string, max: string): KObject => limitRange('PersistentVolumeClaim', min ? { storage: min } : {}, max ? { storage: max } : {});
  assert.deepEqual(validateClaim(claim('pvc-is-min', '1Gi'), pvcRange('1Gi', '')), []);
  assert.deepEqual(validateClaim(claim('pvc-is-max', '1Gi'), pvcRange('', '1Gi')), []);
  assert.deepEqual(validateClaim(claim('pvc-within', '5Gi'), pvcRange('1Gi', '10Gi')), []);
  assert.deepEqual(validateClaim(claim('pvc-below-min', '500Mi'), pvcRange('1Gi', '')), ['minimum storage usage per PersistentVolumeClaim is 1Gi, but request is 500Mi']);
  assert.deepEqual(validateClaim(claim('pvc-exceeds-max', '200Gi'), pvcRange('', '100Gi')), ['maximum storage usage per PersistentVolumeClaim is 100Gi, but request is 200Gi']);
  assert.deepEqual(validateClaim(claim('pvc-no-request', ''), pvcRange('', '100Gi')), ['maximum storage usage per PersistentVolumeClaim is 100Gi.  No request is specified']);
});

function attrs(object: KObject, operation: 'CREATE' | 'UPDATE' = 'CREATE', rt = pods): AdmissionAttributes {
  return {
    operation,
    resourceType: rt,
    subresource: '',
    namespace: 'test',
    name: object.metadata.name ?? '',
    object,
    oldObject: null,
    user: undefined,
    dryRun: false,
    options: undefined,
    warn: () => undefined,
    annotate: () => undefined,
  };
}

test('the plugin: pods on create only, claims on create and update, never subresources; several errors in one Forbidden', async () => {
  const plugin = limitRanger({ ready: Promise.resolve(), forNamespace: (ns) => (ns === 'test' ? [limitRange(C, cm('50m', '10Mi'), {})] : []) });
  assert.equal(plugin.handles!(pods, '', 'CREATE'), true);
  assert.equal(plugin.handles!(pods, '', 'UPDATE'), false);
  assert.equal(plugin.handles!(pods, 'status', 'CREATE'), false);
  assert.equal(plugin.handles!(pvcs, '', 'UPDATE'), true);
  const p = validPod('testPod', 1, {});
  assert.equal(plugin.admit!(attrs(p)), undefined, 'synchronous: no promise on the pod path');
  // The range's defaulting made min the default request: the admitted pod passes.
  assert.deepEqual(resourcesOf(p), [{ requests: cm('50m', '10Mi') }]);
  assert.equal(plugin.validate!(attrs(p)), undefined);
  // Without the mutating phase (a request admitted elsewhere), validation refuses with every error at once.
  let refused: unknown;
  try {
    plugin.validate!(attrs(validPod('testPod', 1, {})));
  } catch (err) {
    refused = err;
  }
  {
    const err = refused;
    assert.ok(err instanceof StatusError, String(err));
    assert.equal(err.code, 403);
    assert.equal(err.message, 'pods "testPod" is forbidden: [minimum cpu usage per Container is 50m.  No request is specified, minimum memory usage per Container is 10Mi.  No request is specified]');
  }
  // No LimitRange in the namespace: nothing set, nothing refused.
  const other: KObject = { ...validPod('x', 1, {}), metadata: { name: 'x', namespace: 'other' } };
  plugin.admit!({ ...attrs(other), namespace: 'other' });
  plugin.validate!({ ...attrs(other), namespace: 'other' });
  assert.equal(other.metadata.annotations, undefined);
});

test('the plugin waits for its index before the first request', async () => {
  let ready = false;
  let release!: () => void;
  const plugin = limitRanger({
    ready: new Promise<void>((r) => (release = r)),
    forNamespace: () => (ready ? [validLimitRange()] : undefined),
  });
  const p = validPod('early', 1, {});
  const pending = plugin.admit!(attrs(p));
  assert.ok(pending instanceof Promise);
  ready = true;
  release();
  await pending;
  assert.deepEqual(resourcesOf(p), [{ requests: cm('50m', '5Mi'), limits: cm('75m', '10Mi') }]);
});

const ctx: StrategyContext = { user: undefined, now: '2024-01-01T00:00:00Z', dryRun: false, subresource: '' };

test('LimitRange defaulting: default from max, defaultRequest from default then min', () => {
  const lr = limitRange(C, cm('10m', '1Mi'), cm('1', ''), {}, {});
  limitRangeStrategy.defaults?.(lr);
  limitRangeStrategy.prepareForCreate?.(lr, ctx);
  const item = (lr['spec'] as { limits: Array<Record<string, unknown>> }).limits[0]!;
  assert.deepEqual(item['default'], { cpu: '1' });
  assert.deepEqual(item['defaultRequest'], { cpu: '1', memory: '1Mi' });
  const pod = limitRange(P, cm('1m', ''), {});
  limitRangeStrategy.defaults?.(pod);
  limitRangeStrategy.prepareForCreate?.(pod, ctx);
  assert.equal((pod['spec'] as { limits: Array<Record<string, unknown>> }).limits[0]!['default'], undefined);
});

test('LimitRange validation: the original rules and messages', () => {
  const msgs = (lr: KObject): string[] => validateLimitRange(lr).map((e) => `${e.field}: ${e.message}`);
  assert.deepEqual(msgs(validLimitRange()), []);
  assert.deepEqual(msgs(limitRange(C, cm('2', ''), cm('1', ''))), ['spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1']);
  assert.deepEqual(msgs(limitRange(C, {}, cm('1', ''), cm('2', ''))), ['spec.limits[0].default[cpu]: Invalid value: "1": default value 2 is greater than max value 1']);
  assert.deepEqual(msgs(limitRange(C, {}, {}, cm('1', ''), cm('2', ''))), [
    'spec.limits[0].defaultRequest[cpu]: Invalid value: "2": default request value 2 is greater than default limit value 1',
  ]);
  assert.deepEqual(msgs(limitRange(C, {}, {}, {}, {}, cm('500m', ''))), ['spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "500m": ratio 500m is less than 1']);
  assert.deepEqual(msgs(limitRange(C, cm('1', ''), cm('2', ''), {}, {}, cm('3', ''))), [
    'spec.limits[0].maxLimitRequestRatio[cpu]: Invalid value: "3": ratio 3 is greater than max/min = 2.000000',
  ]);
  assert.deepEqual(msgs(limitRange(P, {}, cm('1', ''), cm('1', ''))), ["spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"]);
  assert.deepEqual(msgs(limitRange('PersistentVolumeClaim', {}, {})), ['spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided']);
  assert.deepEqual(msgs(limitRange(C, {}, { 'example.com/gpu': '2' }, { 'example.com/gpu': '2' }, { 'example.com/gpu': '1' })), [
    'spec.limits[0].defaultRequest[example.com/gpu]: Invalid value: "1": default value 2 must equal to defaultRequest value 1 in example.com/gpu',
  ]);
  const dup: KObject = { ...validLimitRange(), spec: { limits: [{ type: 'Pod', max: cm('1', '') }, { type: 'Pod', max: cm('1', '') }] } };
  assert.deepEqual(msgs(dup), ['spec.limits[1].type: Duplicate value: "Pod"']);
});
