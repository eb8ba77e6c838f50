/**
 * PodSecurity in the kubernetes flavor speaks the original's names: the
 * `pod-security.kubernetes.io/` labels and audit annotations, the
 * `pod-security.admission.config.k8s.io` configuration group, and the
 * original's AppArmor and seccomp annotation keys.
 */
import '../support/kubernetes-flavor.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AUDIT_KEYS, LABELS, policyToEvaluate, DEFAULT_POLICY } from '../../src/admission/plugins/pod-security/api.ts';
import { parsePodSecurityConfiguration } from '../../src/admission/plugins/pod-security/config.ts';
import { DEFAULT_CHECKS } from '../../src/admission/plugins/pod-security/checks.ts';
import { podView } from '../../src/admission/plugins/pod-security/pod-view.ts';

test('labels, audit annotations and configuration group are the original spellings', () => {
  assert.deepEqual(Object.values(LABELS), [
    'pod-security.kubernetes.io/enforce',
    'pod-security.kubernetes.io/enforce-version',
    'pod-security.kubernetes.io/audit',
    'pod-security.kubernetes.io/audit-version',
    'pod-security.kubernetes.io/warn',
    'pod-security.kubernetes.io/warn-version',
  ]);
  assert.equal(AUDIT_KEYS.auditViolations, 'pod-security.kubernetes.io/audit-violations');
  assert.equal(AUDIT_KEYS.enforcePolicy, 'pod-security.kubernetes.io/enforce-policy');
  assert.equal(AUDIT_KEYS.exempt, 'pod-security.kubernetes.io/exempt');
  const { policy } = policyToEvaluate({ 'pod-security.kubernetes.io/enforce': 'restricted', 'pod-security.kubernetes.io/enforce-version': 'v1.24' }, DEFAULT_POLICY);
  assert.deepEqual(policy.enforce, { level: 'restricted', version: { major: 1, minor: 24, latest: false } });
  const c = parsePodSecurityConfiguration({ apiVersion: 'pod-security.admission.config.k8s.io/v1beta1', kind: 'PodSecurityConfiguration', defaults: { audit: 'baseline' } });
  assert.equal(c.defaults.audit.level, 'baseline');
  assert.throws(() => parsePodSecurityConfiguration({ apiVersion: 'pod-security.admission.config.orch.example/v1', kind: 'PodSecurityConfiguration' }), /expected PodSecurityConfiguration/);
});

test('the AppArmor and seccomp annotations are the original keys', () => {
  const appArmor = DEFAULT_CHECKS.find((c) => c.id === 'appArmorProfile')!.versions[0]!.check;
  const r = appArmor(podView({ annotations: { 'container.apparmor.security.beta.kubernetes.io/c': 'unconfined' } }, {}));
  assert.equal(r.detail, 'container.apparmor.security.beta.kubernetes.io/c="unconfined"');
  const seccomp = DEFAULT_CHECKS.find((c) => c.id === 'seccompProfile_baseline')!.versions[0]!.check;
  const s = seccomp(podView({ annotations: { 'seccomp.security.alpha.kubernetes.io/pod': 'unconfined' } }, { containers: [{ name: 'c' }] }));
  assert.equal(s.detail, 'forbidden annotation seccomp.security.alpha.kubernetes.io/pod="unconfined"');
});
