/**
 * admissionregistration.<suffix>/v1: webhook configurations (admission policies are shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, BYTES, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { admissionregistration, meta } from './namespaces.ts';

export const admissionregistrationTypes: readonly StructDecl[] = [
  admissionregistration.kind('ValidatingWebhookConfiguration', 'Webhooks that may accept or reject objects, without changing them.', {
    webhooks: f(list(admissionregistration.ref('ValidatingWebhook')), 'The webhooks and the requests each one sees.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 2 }),
  }),
  admissionregistration.kind('MutatingWebhookConfiguration', 'Webhooks that may accept, reject or change objects.', {
    webhooks: f(list(admissionregistration.ref('MutatingWebhook')), 'The webhooks and the requests each one sees.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 2 }),
  }),
  admissionregistration.struct('ValidatingWebhook', 'A validating admission webhook.', {
    name: f(S, 'Webhook name, qualified like `name.example.com`; unique in the configuration.', { required: true, proto: 1 }),
    clientConfig: f(admissionregistration.ref('WebhookClientConfig'), 'How to reach the webhook.', { required: true, proto: 2 }),
    rules: f(list(admissionregistration.ref('RuleWithOperations')), 'Operations and resources the webhook sees.', { listType: 'atomic', proto: 3 }),
    failurePolicy: f(S, 'Ignore or Fail when the call errors; default Fail.', { enum: ['Ignore', 'Fail'], proto: 4 }),
    matchPolicy: f(S, 'Exact or Equivalent matching of rules; default Equivalent.', { enum: ['Exact', 'Equivalent'], proto: 9 }),
    namespaceSelector: f(meta.ref('LabelSelector'), 'Namespaces whose objects are sent; default all.', { proto: 5 }),
    objectSelector: f(meta.ref('LabelSelector'), 'Labels of objects that are sent; default all.', { proto: 10 }),
    sideEffects: f(S, 'None or NoneOnDryRun; required.', { required: true, enum: ['Unknown', 'None', 'Some', 'NoneOnDryRun'], proto: 6 }),
    timeoutSeconds: f(I32, 'Seconds to wait, 1 to 30; default 10.', { proto: 7 }),
    admissionReviewVersions: f(list(S), 'AdmissionReview versions the webhook accepts, in order of preference; required.', { required: true, listType: 'atomic', proto: 8 }),
    matchConditions: f(list(admissionregistration.ref('MatchCondition')), 'CEL conditions a request must meet to be sent; ANDed.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 11 }),
  }),
  admissionregistration.struct('MutatingWebhook', 'A mutating admission webhook.', {
    name: f(S, 'Webhook name, qualified like `name.example.com`; unique in the configuration.', { required: true, proto: 1 }),
    clientConfig: f(admissionregistration.ref('WebhookClientConfig'), 'How to reach the webhook.', { required: true, proto: 2 }),
    rules: f(list(admissionregistration.ref('RuleWithOperations')), 'Operations and resources the webhook sees.', { listType: 'atomic', proto: 3 }),
    failurePolicy: f(S, 'Ignore or Fail when the call errors; default Fail.', { enum: ['Ignore', 'Fail'], proto: 4 }),
    matchPolicy: f(S, 'Exact or Equivalent matching of rules; default Equivalent.', { enum: ['Exact', 'Equivalent'], proto: 9 }),
    namespaceSelector: f(meta.ref('LabelSelector'), 'Namespaces whose objects are sent; default all.', { proto: 5 }),
    objectSelector: f(meta.ref('LabelSelector'), 'Labels of objects that are sent; default all.', { proto: 11 }),
    sideEffects: f(S, 'None or NoneOnDryRun; required.', { required: true, enum: ['Unknown', 'None', 'Some', 'NoneOnDryRun'], proto: 6 }),
    timeoutSeconds: f(I32, 'Seconds to wait, 1 to 30; default 10.', { proto: 7 }),
    admissionReviewVersions: f(list(S), 'AdmissionReview versions the webhook accepts, in order of preference; required.', { required: true, listType: 'atomic', proto: 8 }),
    reinvocationPolicy: f(S, 'Never or IfNeeded: call again after later mutations; default Never.', { enum: ['Never', 'IfNeeded'], proto: 10 }),
    matchConditions: f(list(admissionregistration.ref('MatchCondition')), 'CEL conditions a request must meet to be sent; ANDed.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 12 }),
  }),
  admissionregistration.struct('RuleWithOperations', 'Operations on resources that a rule matches.', {
    operations: f(list(S), 'CREATE, UPDATE, DELETE, CONNECT or `*`.', { listType: 'atomic', proto: 1 }),
  }, { embeds: [{ name: admissionregistration.name('Rule'), proto: 2 }] }),
  admissionregistration.struct('Rule', 'Resources a rule matches.', {
    apiGroups: f(list(S), 'API groups; empty string is core, `*` all.', { listType: 'atomic', proto: 1 }),
    apiVersions: f(list(S), 'API versions, or `*`.', { listType: 'atomic', proto: 2 }),
    resources: f(list(S), 'Resources, such as `pods`, `pods/status`, `*` or `*/*`.', { listType: 'atomic', proto: 3 }),
    scope: f(S, 'Cluster, Namespaced or `*`; default `*`.', { enum: ['Cluster', 'Namespaced', '*'], proto: 4 }),
  }),
  admissionregistration.struct('WebhookClientConfig', 'How to reach a webhook; give url or service.', {
    url: f(S, 'HTTPS URL of the webhook; no user info, query or fragment.', { proto: 3 }),
    service: f(admissionregistration.ref('ServiceReference'), 'In-cluster service of the webhook.', { proto: 1 }),
    caBundle: f(BYTES, 'PEM CA bundle to verify the webhook\'s certificate.', { proto: 2 }),
  }),
  admissionregistration.struct('ServiceReference', 'A service that serves a webhook.', {
    namespace: f(S, 'Namespace of the service.', { required: true, proto: 1 }),
    name: f(S, 'Name of the service.', { required: true, proto: 2 }),
    path: f(S, 'URL path sent in requests; default `/`.', { proto: 3 }),
    port: f(I32, 'Service port; default 443.', { proto: 4 }),
  }),
  admissionregistration.struct('MatchCondition', 'A CEL condition on admission requests.', {
    name: f(S, 'Condition name, unique in its list.', { required: true, proto: 1 }),
    expression: f(S, 'CEL expression that returns a boolean.', { required: true, proto: 2 }),
  }),
  admissionregistration.kind('ValidatingAdmissionPolicy', 'CEL validations run in the API server against matching requests.', {
    spec: f(OPAQUE, 'What the policy matches and checks.', { proto: 2 }),
    status: f(OPAQUE, 'Type-checking results and generation observed.', { proto: 3 }),
  }),
  admissionregistration.kind('ValidatingAdmissionPolicyBinding', 'Applies a ValidatingAdmissionPolicy to matching resources, with parameters.', {
    spec: f(OPAQUE, 'The policy, parameters and matched resources.', { proto: 2 }),
  }),
];
