/**
 * PodNodeSelector and PodTolerationRestriction: the cases of the original's
 * podnodeselector/admission_test.go (TestPodAdmission: namespace annotation,
 * cluster default, whitelist, conflicts) and podtolerationrestriction/
 * admission_test.go (TestPodAdmission: defaults, whitelists, memory
 * pressure for non-BestEffort pods, TestIgnoreUpdatingInitializedPod).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { podNodeSelector, parsePodNodeSelectorConfig, selectorToLabels } from '../../src/admission/plugins/pod-node-selector.ts';
import { podTolerationRestriction, parseTolerationRestrictionConfig } from '../../src/admission/plugins/pod-toleration-restriction.ts';
import { names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { admitAndValidate, attrs, pod, rejection, rt } from './pod-plugin-support.ts';
import { scratchDir } from '../support/scratch-dir.ts';

function ns(annotations: Record<string, string> = {}): KObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'testNamespace', annotations } };
}
const lookup = (n: KObject | null) => ({ get: async (name: string) => (n !== null && n.metadata.name === name ? n : null) });
const spec = (p: KObject) => p['spec'] as Record<string, any>;
const NS = 'testNamespace';
const SEL = names.podAdmission.nodeSelectorAnnotation;

test('selectorToLabels: k=v lists with spaces; malformed ones are errors', () => {
  assert.deepEqual(selectorToLabels(''), {});
  assert.deepEqual(selectorToLabels('infra = false, env=test'), { infra: 'false', env: 'test' });
  assert.throws(() => selectorToLabels('a=b=c'), /invalid selector: \[a b c\]/);
  assert.throws(() => selectorToLabels('in valid=x'), /Invalid value: "in valid"/);
});

test('PodNodeSelector: the namespace annotation is merged into the pod selector', async () => {
  const p = podNodeSelector(lookup(ns({ [SEL]: 'env=test' })), parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'infra=false' } }));
  assert.equal(p.handles!(rt.pods, '', 'CREATE'), true);
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), false);
  const created = pod({ nodeSelector: { foo: 'bar' } });
  await admitAndValidate(p, attrs({ object: created, namespace: NS }));
  assert.deepEqual(spec(created)['nodeSelector'], { env: 'test', foo: 'bar' });
});

test('PodNodeSelector: without the annotation the cluster default applies; an empty annotation means none', async () => {
  const config = parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: { clusterDefaultNodeSelector: 'infra=false' } });
  const created = pod({});
  await admitAndValidate(podNodeSelector(lookup(ns()), config), attrs({ object: created, namespace: NS }));
  assert.deepEqual(spec(created)['nodeSelector'], { infra: 'false' });
  const empty = pod({});
  await admitAndValidate(podNodeSelector(lookup(ns({ [SEL]: '' })), config), attrs({ object: empty, namespace: NS }));
  assert.equal(spec(empty)['nodeSelector'], undefined);
});

test('PodNodeSelector: a conflict with the namespace selector is refused', async () => {
  const p = podNodeSelector(lookup(ns({ [SEL]: 'env=test' })), {});
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ nodeSelector: { env: 'production' } }), namespace: NS })));
  assert.equal(e.code, 403);
  assert.equal(e.message, 'pods "mypod" is forbidden: pod node label selector conflicts with its namespace node label selector');
});

test('PodNodeSelector: the namespace whitelist of the configuration bounds the merged selector', async () => {
  const config = parsePodNodeSelectorConfig({ podNodeSelectorPluginConfig: { [NS]: 'env=test,infra=false' } });
  const p = podNodeSelector(lookup(ns({ [SEL]: 'infra=false' })), config);
  const ok = pod({ nodeSelector: { env: 'test' } });
  await admitAndValidate(p, attrs({ object: ok, namespace: NS }));
  assert.deepEqual(spec(ok)['nodeSelector'], { infra: 'false', env: 'test' });
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ nodeSelector: { foo: 'bar' } }), namespace: NS })));
  assert.equal(e.message, 'pods "mypod" is forbidden: pod node label selector labels conflict with its namespace whitelist');
});

test('PodNodeSelector: a missing namespace is its 404; a pod without a name gets the unnamed message', async () => {
  const e = await rejection(admitAndValidate(podNodeSelector(lookup(null), {}), attrs({ object: pod({}), namespace: NS })));
  assert.equal(e.code, 404);
  const p = podNodeSelector(lookup(ns({ [SEL]: 'env=test' })), {});
  const e2 = await rejection(admitAndValidate(p, attrs({ object: pod({ nodeSelector: { env: 'x' } }, { name: undefined, generateName: 'g-' }), name: '', namespace: NS })));
  assert.equal(e2.message, 'pods is forbidden: pod node label selector conflicts with its namespace node label selector');
});

const DEF = names.podAdmission.defaultTolerationsAnnotation;
const WL = names.podAdmission.tolerationsWhitelistAnnotation;
const MEM = { key: names.podAdmission.memoryPressureTaint, operator: 'Exists', effect: 'NoSchedule' };
const burstable = { name: 'c', resources: { requests: { cpu: '100m' } } };

test('PodTolerationRestriction: namespace default tolerations are merged on create', async () => {
  const defaults = [{ key: 'testKey', operator: 'Equal', value: 'testValue', effect: 'NoSchedule' }];
  const p = podTolerationRestriction(lookup(ns({ [DEF]: JSON.stringify(defaults) })), {});
  assert.equal(p.handles!(rt.pods, '', 'UPDATE'), true);
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(p, attrs({ object: created, namespace: NS }));
  assert.deepEqual(spec(created)['tolerations'], defaults);
  // On update the defaults are not added again.
  const updated = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(p, attrs({ object: updated, oldObject: pod(), operation: 'UPDATE', namespace: NS }));
  assert.equal(spec(updated)['tolerations'], undefined);
});

test('PodTolerationRestriction: the cluster default applies when the namespace says nothing', async () => {
  const config = parseTolerationRestrictionConfig({ default: [{ key: 'cluster', operator: 'Exists' }], whitelist: [] });
  const created = pod({ containers: [{ name: 'c' }] });
  await admitAndValidate(podTolerationRestriction(lookup(ns()), config), attrs({ object: created, namespace: NS }));
  assert.deepEqual(spec(created)['tolerations'], [{ key: 'cluster', operator: 'Exists' }]);
});

test('PodTolerationRestriction: a non-BestEffort pod tolerates memory pressure', async () => {
  const created = pod({ containers: [burstable] });
  await admitAndValidate(podTolerationRestriction(lookup(ns()), {}), attrs({ object: created, namespace: NS }));
  assert.deepEqual(spec(created)['tolerations'], [MEM]);
});

test('PodTolerationRestriction: tolerations outside the namespace whitelist are refused (500, the original plain error)', async () => {
  const whitelist = [{ key: 'testKey', operator: 'Exists' }];
  const p = podTolerationRestriction(lookup(ns({ [WL]: JSON.stringify(whitelist) })), {});
  await admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], tolerations: [{ key: 'testKey', operator: 'Equal', value: 'v', effect: 'NoSchedule' }] }), namespace: NS }));
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }], tolerations: [{ key: 'other', operator: 'Exists' }] }), namespace: NS })));
  assert.equal(e.code, 500);
  assert.equal(e.message, 'pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist');
  const clusterOnly = podTolerationRestriction(lookup(ns()), parseTolerationRestrictionConfig({ whitelist }));
  const e2 = await rejection(admitAndValidate(clusterOnly, attrs({ object: pod({ containers: [{ name: 'c' }], tolerations: [{ key: 'other', operator: 'Exists' }] }), namespace: NS })));
  assert.match(e2.message, /conflict with its cluster whitelist$/);
  // An empty namespace whitelist overrides the cluster one and allows all.
  await admitAndValidate(podTolerationRestriction(lookup(ns({ [WL]: '' })), parseTolerationRestrictionConfig({ whitelist })), attrs({ object: pod({ containers: [{ name: 'c' }], tolerations: [{ key: 'other', operator: 'Exists' }] }), namespace: NS }));
});

test('PodTolerationRestriction: a default that conflicts with the whitelist is refused', async () => {
  const p = podTolerationRestriction(lookup(ns({ [DEF]: '[{"key":"a","operator":"Exists"}]', [WL]: '[{"key":"b","operator":"Exists"}]' })), {});
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }] }), namespace: NS })));
  assert.equal(e.code, 500);
});

test('PodTolerationRestriction: a malformed annotation is an error, not a crash', async () => {
  const p = podTolerationRestriction(lookup(ns({ [DEF]: '{not json' })), {});
  const e = await rejection(admitAndValidate(p, attrs({ object: pod({ containers: [{ name: 'c' }] }), namespace: NS })));
  assert.equal(e.code, 500);
  const p2 = podTolerationRestriction(lookup(ns({ [DEF]: '{"a":1}' })), {});
  assert.equal((await rejection(admitAndValidate(p2, attrs({ object: pod({}), namespace: NS })))).code, 500);
});

test('the plugins read their entries of --admission-control-config-file (inline and by path)', async () => {
  const { writeFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { pluginConfiguration } = await import('../../src/admission/plugins/plugin-config.ts');
  const { defaultOptions } = await import('../../src/server/options.ts');
  const dir = await scratchDir('pod-plugin-config-');
  await writeFile(join(dir, 'ptr.yaml'), 'apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1\nkind: Configuration\ndefault:\n- key: a\n  operator: Exists\n');
  const file = join(dir, 'admission.yaml');
  await writeFile(
    file,
    [
      'apiVersion: apiserver.config.k8s.io/v1',
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: PodNodeSelector',
      '  configuration:',
      '    podNodeSelectorPluginConfig:',
      '      clusterDefaultNodeSelector: infra=false',
      '- name: PodTolerationRestriction',
      '  path: ptr.yaml',
      '',
    ].join('\n'),
  );
  const opts = { ...defaultOptions(), admissionControlConfigFile: file };
  assert.deepEqual(parsePodNodeSelectorConfig(pluginConfiguration(opts, 'PodNodeSelector')), { clusterDefaultNodeSelector: 'infra=false' });
  assert.deepEqual(parseTolerationRestrictionConfig(pluginConfiguration(opts, 'PodTolerationRestriction')).default, [{ key: 'a', operator: 'Exists' }]);
  assert.equal(pluginConfiguration(opts, 'AlwaysPullImages'), undefined);
  assert.equal(pluginConfiguration(defaultOptions(), 'PodNodeSelector'), undefined);
  assert.throws(() => pluginConfiguration({ ...defaultOptions(), admissionControlConfigFile: join(dir, 'missing.yaml') }, 'PodNodeSelector'), /unable to read admission control configuration/);
});
