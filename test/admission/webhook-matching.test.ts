/**
 * Which webhooks a write reaches, after the original's rules_test.go and
 * the namespace/object matcher tests: operations, groups, versions,
 * resources with `*`, `*\/*`, `pods/*`, `*\/status`, scope (a Namespace is
 * cluster-scoped), namespaceSelector (namespace labels; a Namespace's own
 * labels on create and update; cluster-scoped objects always), objectSelector
 * (new or old object), matchPolicy Equivalent with conversion, reinvocation,
 * service references, and per-host credentials from the admission
 * configuration file.
 */
import { test, before, after, beforeEach } from 'node:test';
import assert from 'node:assert/strict';
import { StatusError } from '../../src/api/status.ts';
import { apiGroup } from '../../src/naming/index.ts';
import { names } from '../../src/naming/index.ts';
import { ruleMatches, type MatchTarget } from '../../src/admission/webhook/matcher.ts';
import type { WebhookRule } from '../../src/admission/webhook/hook.ts';
import { webhookCredentials, AdmissionConfigError } from '../../src/admission/webhook/admission-config.ts';
import { startAdmissionWebhook, allow, patch, type AdmissionWebhookServer } from './support/admission-webhook.ts';
import { attributes, configuration, harness, hook, pod, rt, type Harness } from './support/plugin-harness.ts';
import type { KObject } from '../../src/registry/object.ts';

const pods = rt('', 'v1', 'pods');
const namespaces = rt('', 'v1', 'namespaces');
const nodes = rt('', 'v1', 'nodes');
const ADMISSION = apiGroup('admission');

function target(over: Partial<MatchTarget>): MatchTarget {
  return { group: '', version: 'v1', resource: 'pods', subresource: '', operation: 'CREATE', namespace: 'ns', ...over };
}
function rule(over: Partial<WebhookRule>): WebhookRule {
  return { operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*/*'], scope: '*', ...over };
}

test('rules: operations, groups, versions', () => {
  assert.equal(ruleMatches(rule({ operations: ['CREATE'] }), target({})), true);
  assert.equal(ruleMatches(rule({ operations: ['UPDATE', 'DELETE'] }), target({})), false);
  assert.equal(ruleMatches(rule({ apiGroups: ['apps'] }), target({})), false);
  assert.equal(ruleMatches(rule({ apiGroups: ['', 'apps'] }), target({})), true);
  assert.equal(ruleMatches(rule({ apiVersions: ['v1beta1'] }), target({})), false);
  assert.equal(ruleMatches(rule({ apiVersions: ['v1beta1', 'v1'] }), target({})), true);
});

test('rules: resources and subresources', () => {
  const cases: Array<[string[], string, string, boolean]> = [
    [['*'], 'pods', '', true],
    [['*'], 'pods', 'status', false],
    [['*/*'], 'pods', 'status', true],
    [['pods/*'], 'pods', 'exec', true],
    // As the original's matcher: `pods/*` also matches the pod itself (its subresource part is a wildcard).
    [['pods/*'], 'pods', '', true],
    [['pods/*'], 'deployments', 'status', false],
    [['*/status'], 'deployments', 'status', true],
    [['*/status'], 'deployments', 'scale', false],
    [['pods/status'], 'pods', 'status', true],
    [['pods'], 'pods', 'status', false],
    [['pods', 'pods/status'], 'pods', 'status', true],
    [['configmaps'], 'pods', '', false],
  ];
  for (const [resources, resource, subresource, want] of cases) {
    assert.equal(ruleMatches(rule({ resources }), target({ resource, subresource })), want, `${resources} ~ ${resource}/${subresource}`);
  }
});

test('rules: scope; a Namespace is cluster-scoped', () => {
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), target({})), true);
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), target({})), false);
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), target({ resource: 'nodes', namespace: '' })), true);
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), target({ resource: 'nodes', namespace: '' })), false);
  // A namespace request carries the namespace's name as its namespace.
  assert.equal(ruleMatches(rule({ scope: 'Cluster' }), target({ resource: 'namespaces', namespace: 'ns' })), true);
  assert.equal(ruleMatches(rule({ scope: 'Namespaced' }), target({ resource: 'namespaces', namespace: 'ns' })), false);
  assert.equal(ruleMatches(rule({ scope: '*' }), target({ resource: 'namespaces', namespace: 'ns' })), true);
});

let wh: AdmissionWebhookServer;
let h: Harness;
before(async () => {
  wh = await startAdmissionWebhook({ dnsNames: ['hooks.webhooks.svc'] });
});
after(async () => {
  await wh.close();
});
beforeEach(() => {
  h?.close();
  h = harness();
  wh.calls.length = 0;
  wh.answer = (c) => allow(c);
});

const all = [{ operations: ['*'], apiGroups: ['*'], apiVersions: ['*'], resources: ['*'] }];

test('namespaceSelector: namespace labels; a Namespace by its own new labels; cluster-scoped objects always; a missing namespace is 404', async () => {
  h.lookup.put(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'prod', labels: { env: 'prod' } } });
  h.lookup.put(namespaces, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'dev', labels: { env: 'dev' } } });
  h.index.put('validating', configuration('cfg', [hook('ns.example.com', wh.url(), wh.caBundle, { rules: all, namespaceSelector: { matchLabels: { env: 'prod' } } })]));
  await h.validating.validate!(attributes(pods, 'CREATE', pod('a', {}, 'prod')));
  assert.equal(wh.calls.length, 1);
  await h.validating.validate!(attributes(pods, 'CREATE', pod('b', {}, 'dev')));
  assert.equal(wh.calls.length, 1);
  // Cluster-scoped, not a namespace: never exempted.
  await h.validating.validate!(attributes(nodes, 'CREATE', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } }));
  assert.equal(wh.calls.length, 2);
  // A namespace being created: its own labels decide.
  await h.validating.validate!(attributes(namespaces, 'CREATE', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels: { env: 'prod' } } }));
  assert.equal(wh.calls.length, 3);
  assert.equal(wh.calls[2]!.review.request['namespace'], 'new');
  await h.validating.validate!(attributes(namespaces, 'CREATE', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new2', labels: { env: 'qa' } } }));
  assert.equal(wh.calls.length, 3);
  // A namespace that does not exist: 404, as the original.
  await assert.rejects(Promise.resolve(h.validating.validate!(attributes(pods, 'CREATE', pod('c', {}, 'missing')))), (e: unknown) => e instanceof StatusError && e.code === 404 && e.message === 'namespaces "missing" not found');
  // ...but only when a rule matches: a webhook that does not apply never fails a request.
  h.index.put('validating', configuration('cfg', [hook('ns.example.com', wh.url(), wh.caBundle, { rules: [{ ...all[0], operations: ['DELETE'] }], namespaceSelector: { matchLabels: { env: 'prod' } } })]));
  await h.validating.validate!(attributes(pods, 'CREATE', pod('c', {}, 'missing')));
});

test('objectSelector: the new or the old object may match; objects without labels do not', async () => {
  h.index.put('mutating', configuration('cfg', [hook('obj.example.com', wh.url(), wh.caBundle, { rules: all, objectSelector: { matchExpressions: [{ key: 'inject', operator: 'In', values: ['yes'] }] } })]));
  await h.mutating.admit!(attributes(pods, 'CREATE', pod('a', { inject: 'yes' })));
  assert.equal(wh.calls.length, 1);
  await h.mutating.admit!(attributes(pods, 'CREATE', pod('b', { inject: 'no' })));
  assert.equal(wh.calls.length, 1);
  await h.mutating.admit!(attributes(pods, 'UPDATE', pod('c', {}), { oldObject: pod('c', { inject: 'yes' }) }));
  assert.equal(wh.calls.length, 2);
  await h.mutating.admit!(attributes(pods, 'CREATE', pod('d')));
  assert.equal(wh.calls.length, 2);
});

test('matchPolicy Equivalent: a core Event reaches a webhook for events.<group>/v1 events, converted; Exact does not', async () => {
  const coreEvents = rt('', 'v1', 'events');
  const group = apiGroup('events');
  const ev = { apiVersion: 'v1', kind: 'Event', metadata: { name: 'e1', namespace: 'default' }, involvedObject: { kind: 'Pod', name: 'p' }, message: 'hi', reason: 'R' } as KObject;
  h.index.put('mutating', configuration('cfg', [hook('eq.example.com', wh.url(), wh.caBundle, { rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['events'] }], matchPolicy: 'Exact' })]));
  assert.equal(h.mutating.handles!(coreEvents, '', 'CREATE'), false);
  await h.mutating.admit!(attributes(coreEvents, 'CREATE', structuredClone(ev)));
  assert.equal(wh.calls.length, 0);

  h.index.put('mutating', configuration('cfg', [hook('eq.example.com', wh.url(), wh.caBundle, { rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources: ['events'] }], matchPolicy: 'Equivalent' })]));
  assert.equal(h.mutating.handles!(coreEvents, '', 'CREATE'), true);
  wh.answer = (c) => patch(c, [{ op: 'replace', path: '/note', value: 'changed' }]);
  const a = attributes(coreEvents, 'CREATE', structuredClone(ev));
  await h.mutating.admit!(a);
  const r = wh.calls[0]!.review.request;
  assert.deepEqual(r['kind'], { group, version: 'v1', kind: 'Event' });
  assert.deepEqual(r['resource'], { group, version: 'v1', resource: 'events' });
  assert.deepEqual(r['requestKind'], { group: '', version: 'v1', kind: 'Event' });
  assert.deepEqual(r['requestResource'], { group: '', version: 'v1', resource: 'events' });
  const sent = r.object as Record<string, unknown>;
  assert.equal(sent['apiVersion'], `${group}/v1`);
  assert.equal(sent['note'], 'hi');
  assert.deepEqual(sent['regarding'], { kind: 'Pod', name: 'p' });
  // The patch made in the webhook's version comes back in the request's.
  assert.equal(a.object!['message'], 'changed');
  assert.equal(a.object!.apiVersion, 'v1');
});

test('reinvocationPolicy IfNeeded: called again once when a later webhook changed the object; Never is not', async () => {
  const seen: string[] = [];
  wh.answer = (c) => {
    const who = c.path.slice(1, c.path.indexOf('?'));
    seen.push(who);
    const labels = (c.review.request.object as { metadata: { labels?: Record<string, string> } }).metadata.labels ?? {};
    if (who === 'second' && labels['second'] === undefined) return patch(c, [{ op: 'add', path: '/metadata/labels/second', value: 'x' }]);
    return allow(c);
  };
  h.index.put('mutating', configuration('cfg', [
    hook('first.example.com', wh.url('/first'), wh.caBundle, { reinvocationPolicy: 'IfNeeded' }),
    hook('never.example.com', wh.url('/never'), wh.caBundle, { reinvocationPolicy: 'Never' }),
    hook('second.example.com', wh.url('/second'), wh.caBundle, { reinvocationPolicy: 'IfNeeded' }),
  ]));
  const a = attributes(pods, 'CREATE', pod('p'));
  await h.mutating.admit!(a);
  assert.deepEqual(seen, ['first', 'never', 'second', 'first']);
  assert.ok(a.annotations.has(`mutation.webhook.${ADMISSION}/round_1_index_0`));
  assert.ok(!a.annotations.has(`mutation.webhook.${ADMISSION}/round_1_index_1`));
  // Nothing changed: nobody is called again.
  seen.length = 0;
  await h.mutating.admit!(attributes(pods, 'CREATE', pod('q', { second: 'y' })));
  assert.deepEqual(seen, ['first', 'never', 'second']);
});

test('service references: resolved through Endpoints (port by name) or EndpointSlices; the TLS name is <service>.<namespace>.svc', async () => {
  const services = rt('', 'v1', 'services');
  h.lookup.put(services, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'hooks', namespace: 'webhooks' }, spec: { ports: [{ name: 'https', port: 443, targetPort: 8443 }] } } as KObject);
  const svcHook = hook('svc.example.com', '', wh.caBundle, { clientConfig: { service: { namespace: 'webhooks', name: 'hooks', path: '/validate', port: 443 }, caBundle: wh.caBundle } });
  h.index.put('validating', configuration('cfg', [svcHook]));
  // No endpoints yet: a calling error.
  await assert.rejects(Promise.resolve(h.validating.validate!(attributes(pods, 'CREATE', pod('p')))), /no endpoints available for service "hooks"/);
  h.lookup.put(rt(apiGroup('discovery'), 'v1', 'endpointslices'), {
    apiVersion: `${apiGroup('discovery')}/v1`, kind: 'EndpointSlice', metadata: { name: 'hooks-abc', namespace: 'webhooks', labels: { [names.labels.serviceName]: 'hooks' } },
    ports: [{ name: 'https', port: wh.port }], endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
  } as unknown as KObject);
  await h.validating.validate!(attributes(pods, 'CREATE', pod('p')));
  assert.equal(wh.calls.length, 1);
  assert.equal(wh.calls[0]!.path, '/validate?timeout=10s');
  assert.equal(wh.calls[0]!.headers.host, 'hooks.webhooks.svc:443');
  h.lookup.put(rt('', 'v1', 'endpoints'), { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'hooks', namespace: 'webhooks' }, subsets: [{ addresses: [{ ip: '127.0.0.1' }], ports: [{ name: 'https', port: wh.port }] }] } as unknown as KObject);
  await h.validating.validate!(attributes(pods, 'CREATE', pod('p')));
  assert.equal(wh.calls.length, 2);
  // A port the service does not have.
  h.index.put('validating', configuration('cfg', [{ ...svcHook, clientConfig: { service: { namespace: 'webhooks', name: 'hooks', port: 8443 }, caBundle: wh.caBundle } }]));
  await assert.rejects(Promise.resolve(h.validating.validate!(attributes(pods, 'CREATE', pod('p')))), /no service port 8443 found for service "hooks"/);
});

test('admission configuration file: per-host credentials (token, client certificate, basic), star prefixes, the default user', async () => {
  const secure = await startAdmissionWebhook({ requireClientCert: true, dnsNames: ['hooks.webhooks.svc'] });
  try {
    const client = await secure.client('apiserver-webhook-client');
    const kubeconfig = await secure.write('users.yaml', [
      'apiVersion: v1',
      'kind: Config',
      'users:',
      `- name: "127.0.0.1:${secure.port}"`,
      '  user:',
      `    client-certificate-data: ${Buffer.from(client.certPem).toString('base64')}`,
      `    client-key-data: ${Buffer.from(client.keyPem).toString('base64')}`,
      '    token: secret-token',
      `- name: "127.0.0.1:${wh.port}"`,
      '  user:',
      '    username: admin',
      '    password: pw',
      '- name: "*.webhooks.svc"',
      '  user:',
      '    token: svc-token',
      '- name: "*"',
      '  user:',
      '    token: default-token',
      '',
    ].join('\n'));
    const configFile = await secure.write('admission.yaml', [
      `apiVersion: ${apiGroup('apiserver.config')}/v1`,
      'kind: AdmissionConfiguration',
      'plugins:',
      '- name: ValidatingAdmissionWebhook',
      '  configuration:',
      `    apiVersion: ${apiGroup('apiserver.config')}/v1`,
      '    kind: WebhookAdmissionConfiguration',
      `    kubeConfigFile: ${kubeconfig}`,
      '',
    ].join('\n'));
    const creds = await webhookCredentials(configFile, 'ValidatingAdmissionWebhook');
    assert.equal((await webhookCredentials(configFile, 'MutatingAdmissionWebhook')).empty, true);
    assert.equal(creds.forService('hooks', 'webhooks', 443)?.token, 'svc-token');
    assert.equal(creds.forHost('elsewhere.example.com')?.token, 'default-token');
    h.close();
    h = harness(creds);
    h.index.put('validating', configuration('cfg', [hook('secure.example.com', secure.url(), secure.caBundle), hook('basic.example.com', wh.url(), wh.caBundle)]));
    await h.validating.validate!(attributes(pods, 'CREATE', pod('p')));
    assert.equal(secure.calls.length, 1);
    assert.equal(secure.calls[0]!.clientCN, 'apiserver-webhook-client');
    assert.equal(secure.calls[0]!.headers.authorization, 'Bearer secret-token');
    assert.equal(wh.calls[0]!.headers.authorization, `Basic ${Buffer.from('admin:pw').toString('base64')}`);
    // Without credentials, the client-certificate webhook refuses the connection: a calling error, never a secret in the message.
    h.close();
    h = harness();
    h.index.put('validating', configuration('cfg', [hook('secure.example.com', secure.url(), secure.caBundle)]));
    const e = await Promise.resolve(h.validating.validate!(attributes(pods, 'CREATE', pod('p')))).then(() => undefined, (err: unknown) => err);
    assert.ok(e instanceof StatusError && e.code === 500);
    assert.doesNotMatch(e.message, /secret-token/);
    // A configuration of another kind is refused.
    const wrong = await secure.write('wrong.yaml', `apiVersion: ${apiGroup('apiserver.config')}/v1\nkind: Other\n`);
    await assert.rejects(webhookCredentials(wrong, 'ValidatingAdmissionWebhook'), /must be kind AdmissionConfiguration/);
    // A plugin entry of another kind is refused too.
    const otherKind = await secure.write('other-kind.yaml', [`apiVersion: ${apiGroup('apiserver.config')}/v1`, 'kind: AdmissionConfiguration', 'plugins:', '- name: ValidatingAdmissionWebhook', '  configuration:', '    kind: Something', ''].join('\n'));
    await assert.rejects(webhookCredentials(otherKind, 'ValidatingAdmissionWebhook'), AdmissionConfigError);
  } finally {
    await secure.close();
  }
});
