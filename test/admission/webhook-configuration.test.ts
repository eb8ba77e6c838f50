/**
 * Webhook configuration validation beyond the common cases, after the
 * original's admissionregistration validation_test.go: resource wildcards,
 * admissionReviewVersions (duplicates, DNS-1035 labels, one recognized),
 * service paths by segment, URLs without a scheme, names unique only when
 * set, and the update rules that let an object already breaking a rule be
 * updated.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mutatingWebhookConfigurationStrategy as mutating, validatingWebhookConfigurationStrategy as validating } from '../../src/registry/strategies/webhookconfigurations.ts';
import { ctx, lines, make } from '../registry/strategies/helpers.ts';
import type { KObject } from '../../src/registry/object.ts';

const good = (over: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'policy.example.com',
  rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
  clientConfig: { url: 'https://hooks.example.com/x' },
  sideEffects: 'None',
  admissionReviewVersions: ['v1'],
  ...over,
});
const config = (...hooks: Array<Record<string, unknown>>): KObject => make('ValidatingWebhookConfiguration', { webhooks: hooks }, { name: 'c' });
const errs = (c: KObject): string[] => lines(validating.validate!(c, ctx()));
const withResources = (resources: string[]): KObject => config(good({ rules: [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources }] }));

describe('webhook configuration validation', () => {
  it('resources: wildcard combinations as the original', () => {
    assert.deepEqual(errs(withResources(['*/*'])), []);
    assert.deepEqual(errs(withResources(['*', 'pods/status'])), []);
    assert.deepEqual(errs(withResources(['pods/*', 'deployments/status'])), []);
    assert.deepEqual(errs(withResources(['*/*', 'pods'])), [`webhooks[0].rules[0].resources: Invalid value: ["*/*","pods"]: if '*/*' is present, must not specify other resources`]);
    assert.deepEqual(errs(withResources(['*', 'pods'])), [`webhooks[0].rules[0].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources without subresources`]);
    assert.deepEqual(errs(withResources(['pods/*', 'pods/status'])), [`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if 'pods/*' is present, must not specify pods/status`]);
    assert.deepEqual(errs(withResources(['*/status', 'pods/status'])), [`webhooks[0].rules[0].resources[1]: Invalid value: "pods/status": if '*/status' is present, must not specify pods/status`]);
    assert.deepEqual(errs(withResources(['pods', ''])), ['webhooks[0].rules[0].resources[1]: Required value']);
    assert.deepEqual(errs(withResources([])), ['webhooks[0].rules[0].resources: Required value']);
  });

  it('admissionReviewVersions: duplicates, DNS-1035 labels, at least one recognized', () => {
    assert.deepEqual(errs(config(good({ admissionReviewVersions: ['v1', 'v1'] }))), ['webhooks[0].admissionReviewVersions[1]: Invalid value: "v1": duplicate version']);
    const bad = errs(config(good({ admissionReviewVersions: ['V2'] })));
    assert.equal(bad.length, 2);
    assert.match(bad[0]!, /^webhooks\[0\]\.admissionReviewVersions\[0\]: Invalid value: "V2": a DNS-1035 label must consist of lower case/);
    assert.equal(bad[1], 'webhooks[0].admissionReviewVersions: Invalid value: ["V2"]: must include at least one of v1, v1beta1');
    assert.deepEqual(errs(config(good({ admissionReviewVersions: ['v2', 'v1beta1'] }))), []);
  });

  it('service paths: each segment a DNS subdomain, none empty', () => {
    const svc = (path: string): KObject => config(good({ clientConfig: { service: { namespace: 'ns', name: 'svc', path } } }));
    assert.deepEqual(errs(svc('/')), []);
    assert.deepEqual(errs(svc('/validate/pods/')), []);
    assert.deepEqual(errs(svc('//')), ['webhooks[0].clientConfig.service.path: Invalid value: "//": segment[0] may not be empty']);
    assert.deepEqual(errs(svc('/a//b')), ['webhooks[0].clientConfig.service.path: Invalid value: "/a//b": segment[1] may not be empty']);
    assert.deepEqual(errs(svc('noslash')), [`webhooks[0].clientConfig.service.path: Invalid value: "noslash": must start with a '/'`]);
    const upper = errs(svc('/Validate'));
    assert.equal(upper.length, 1);
    assert.match(upper[0]!, /^webhooks\[0\]\.clientConfig\.service\.path: Invalid value: "\/Validate": segment\[0\]: a lowercase RFC 1123 subdomain/);
  });

  it('a URL without a scheme has neither scheme nor host, as Go parses it', () => {
    assert.deepEqual(errs(config(good({ clientConfig: { url: 'hooks.example.com/x' } }))), [
      `webhooks[0].clientConfig.url: Invalid value: "": 'https' is the only allowed URL scheme; desired format: https://host[/path]`,
      'webhooks[0].clientConfig.url: Invalid value: "": host must be specified; desired format: https://host[/path]',
    ]);
  });

  it('names: unique when set; an empty name is required, not a duplicate', () => {
    const e = errs(config(good({ name: '' }), good({ name: '' })));
    assert.deepEqual(e, ['webhooks[0].name: Required value', 'webhooks[1].name: Required value']);
    assert.deepEqual(errs(config(good(), good())), ['webhooks[1].name: Duplicate value: "policy.example.com"']);
  });

  it('mutating: reinvocationPolicy IfNeeded or Never', () => {
    const m = make('MutatingWebhookConfiguration', { webhooks: [good({ reinvocationPolicy: 'Always' })] }, { name: 'm' });
    assert.deepEqual(lines(mutating.validate!(m, ctx())), ['webhooks[0].reinvocationPolicy: Unsupported value: "Always": supported values: "IfNeeded", "Never"']);
  });

  it('update: what the stored object already breaks is not enforced (duplicate names, Unknown side effects, unrecognized review versions)', () => {
    const old = config(good({ sideEffects: 'Unknown', admissionReviewVersions: ['v2'] }), good({ sideEffects: 'Unknown', admissionReviewVersions: ['v2'] }));
    const next = config(good({ sideEffects: 'Some', admissionReviewVersions: ['v3'] }), good({ sideEffects: 'Unknown', admissionReviewVersions: ['v2'] }));
    assert.deepEqual(lines(validating.validateUpdate!(next, old, ctx())), []);
    // A valid stored object: the new one must be valid too.
    assert.deepEqual(lines(validating.validateUpdate!(next, config(good()), ctx())), [
      'webhooks[0].sideEffects: Unsupported value: "Some": supported values: "None", "NoneOnDryRun"',
      'webhooks[0].admissionReviewVersions: Invalid value: ["v3"]: must include at least one of v1, v1beta1',
      'webhooks[1].sideEffects: Unsupported value: "Unknown": supported values: "None", "NoneOnDryRun"',
      'webhooks[1].admissionReviewVersions: Invalid value: ["v2"]: must include at least one of v1, v1beta1',
      'webhooks[1].name: Duplicate value: "policy.example.com"',
    ]);
  });
});
