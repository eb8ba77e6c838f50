/**
 * DefaultIngressClass and DenyServiceExternalIPs, with the original's test
 * cases (plugin/pkg/admission/network/.../admission_test.go).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apiGroup, names } from '../../src/naming/index.ts';
import type { KObject } from '../../src/registry/object.ts';
import { defaultIngressClass } from '../../src/admission/plugins/default-ingress-class.ts';
import { denyServiceExternalIPs } from '../../src/admission/plugins/deny-service-external-ips.ts';
import { attrs, obj, rt, run } from './misc-support.ts';

const ingresses = rt(apiGroup('networking'), 'v1', 'ingresses');
const services = rt('', 'v1', 'services');
const DEFAULT = names.admissionNames.defaultIngressClass[0]!;

const ic = (name: string, annotations?: Record<string, string>): KObject =>
  ({ apiVersion: `${apiGroup('networking')}/v1`, kind: 'IngressClass', metadata: { name, ...(annotations ? { annotations } : {}) } });

test('DefaultIngressClass: the original cases', async () => {
  const defaultClass1 = ic('default1', { [DEFAULT]: 'true' });
  const defaultClass2 = ic('default2', { [DEFAULT]: 'true' });
  const classWithFalseDefault = ic('nondefault1', { [DEFAULT]: 'false' });
  const classWithNoDefault = ic('nondefault2');
  const classWithEmptyDefault = ic('nondefault2', { [DEFAULT]: '' });
  const others = [classWithFalseDefault, classWithNoDefault, classWithEmptyDefault];
  const cases: Array<{ name: string; classes: KObject[]; field?: string; annotation?: string; expected: string | null; error?: string }> = [
    { name: 'no default, no modification of Ingress', classes: others, expected: null },
    { name: 'one default, modify Ingress with class=nil', classes: [defaultClass1, ...others], expected: 'default1' },
    { name: "one default, no modification of Ingress with class field=''", classes: [defaultClass1, ...others], field: '', expected: '' },
    { name: "one default, no modification of Ingress with class field='foo'", classes: [defaultClass1, ...others], field: 'foo', expected: 'foo' },
    { name: "one default, no modification of Ingress with class annotation='foo'", classes: [defaultClass1, ...others], annotation: 'foo', expected: null },
    {
      name: 'two defaults, error with Ingress with class field=nil',
      classes: [defaultClass1, defaultClass2, ...others],
      expected: null,
      error: `ingresses.${apiGroup('networking')} "testing" is forbidden: Internal error occurred: 2 default IngressClasses were found, only 1 allowed`,
    },
    { name: "two defaults, no modification with Ingress with class field=''", classes: [defaultClass1, defaultClass2, ...others], field: '', expected: '' },
  ];
  for (const c of cases) {
    const plugin = defaultIngressClass({ list: async () => c.classes });
    const ingress = obj('Ingress', {
      name: 'testing',
      namespace: 'testing',
      ...(c.annotation !== undefined ? { annotations: { [names.admissionNames.ingressClass[0]!]: c.annotation } } : {}),
    }, { spec: c.field !== undefined ? { ingressClassName: c.field } : {} });
    const a = attrs({ rt: ingresses, op: 'CREATE', ns: 'testing', name: 'testing', obj: ingress });
    const err = await run(plugin, a);
    assert.equal(err?.message, c.error, c.name);
    if (c.error) assert.equal(err?.code, 403);
    assert.equal((a.object!['spec'] as Record<string, unknown>)['ingressClassName'] ?? null, c.expected, c.name);
  }
});

test('DenyServiceExternalIPs: the original cases', async () => {
  const plugin = denyServiceExternalIPs();
  const svc = (...ips: string[]): KObject => obj('Service', { name: 'test-svc', namespace: 'test-ns' }, { spec: ips.length ? { externalIPs: ips } : {} });
  const cases: Array<{ name: string; next: KObject; old?: KObject; fail?: boolean }> = [
    { name: 'create: without externalIPs', next: svc() },
    { name: 'create: with externalIPs', next: svc('1.1.1.1'), fail: true },
    { name: 'update: same externalIPs', next: svc('1.1.1.1', '2.2.2.2'), old: svc('1.1.1.1', '2.2.2.2') },
    { name: 'update: reorder externalIPs', next: svc('1.1.1.1', '2.2.2.2'), old: svc('2.2.2.2', '1.1.1.1') },
    { name: 'update: change externalIPs', next: svc('1.1.1.1', '2.2.2.2'), old: svc('1.1.1.1', '3.3.3.3'), fail: true },
    { name: 'update: add externalIPs', next: svc('1.1.1.1', '2.2.2.2'), old: svc('1.1.1.1'), fail: true },
    { name: 'update: erase externalIPs', next: svc(), old: svc('1.1.1.1', '2.2.2.2') },
    { name: 'update: reduce externalIPs from back', next: svc('1.1.1.1'), old: svc('1.1.1.1', '2.2.2.2') },
    { name: 'update: reduce externalIPs from front', next: svc('2.2.2.2'), old: svc('1.1.1.1', '2.2.2.2') },
  ];
  for (const c of cases) {
    const err = await run(plugin, attrs({ rt: services, op: c.old ? 'UPDATE' : 'CREATE', ns: 'test-ns', name: 'test-svc', obj: c.next, old: c.old ?? null }));
    if (c.fail) assert.equal(err?.message, 'services "test-svc" is forbidden: Use of external IPs is denied by admission control', c.name);
    else assert.equal(err, undefined, c.name);
  }
  assert.equal(plugin.handles!(services, 'status', 'UPDATE'), false, 'the status subresource is not checked');
});
