/**
 * authorization.<suffix>/v1: access reviews.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, B, OPAQUE, list, map, type StructDecl } from '../schema-dsl.ts';
import { authorization } from './namespaces.ts';

export const authorizationTypes: readonly StructDecl[] = [
  authorization.kind('SubjectAccessReview', 'Asks whether a user may perform an action.', {
    spec: f(authorization.ref('SubjectAccessReviewSpec'), 'The user and action.', { required: true, proto: 2 }),
    status: f(authorization.ref('SubjectAccessReviewStatus'), 'The answer, filled by the server.', { proto: 3 }),
  }),
  authorization.kind('SelfSubjectAccessReview', 'Asks whether the caller may perform an action.', {
    spec: f(authorization.ref('SelfSubjectAccessReviewSpec'), 'The action.', { required: true, proto: 2 }),
    status: f(authorization.ref('SubjectAccessReviewStatus'), 'The answer, filled by the server.', { proto: 3 }),
  }),
  authorization.kind('LocalSubjectAccessReview', 'Asks whether a user may perform an action in one namespace.', {
    spec: f(authorization.ref('SubjectAccessReviewSpec'), 'The user and action; namespace must match the request\'s.', { required: true, proto: 2 }),
    status: f(authorization.ref('SubjectAccessReviewStatus'), 'The answer, filled by the server.', { proto: 3 }),
  }),
  authorization.kind('SelfSubjectRulesReview', 'Lists what the caller may do in a namespace.', {
    spec: f(authorization.ref('SelfSubjectRulesReviewSpec'), 'The namespace.', { required: true, proto: 2 }),
    status: f(authorization.ref('SubjectRulesReviewStatus'), 'The actions allowed, filled by the server.', { proto: 3 }),
  }),
  authorization.struct('SubjectAccessReviewSpec', 'A user and an action; give resourceAttributes or nonResourceAttributes.', {
    resourceAttributes: f(authorization.ref('ResourceAttributes'), 'An action on a resource.', { proto: 1 }),
    nonResourceAttributes: f(authorization.ref('NonResourceAttributes'), 'An action on a non-resource URL.', { proto: 2 }),
    user: f(S, 'User to check.', { proto: 3 }),
    groups: f(list(S), 'Groups of the user.', { listType: 'atomic', proto: 4 }),
    extra: f(map(list(S)), 'Extra attributes of the user.', { proto: 5 }),
    uid: f(S, 'UID of the user.', { proto: 6 }),
  }),
  authorization.struct('SelfSubjectAccessReviewSpec', 'An action of the caller; give resourceAttributes or nonResourceAttributes.', {
    resourceAttributes: f(authorization.ref('ResourceAttributes'), 'An action on a resource.', { proto: 1 }),
    nonResourceAttributes: f(authorization.ref('NonResourceAttributes'), 'An action on a non-resource URL.', { proto: 2 }),
  }),
  authorization.struct('ResourceAttributes', 'An action on a resource.', {
    namespace: f(S, 'Namespace; empty for cluster-scoped resources or all namespaces.', { proto: 1 }),
    verb: f(S, 'Verb, such as get or list; `*` for all.', { proto: 2 }),
    group: f(S, 'API group; `*` for all.', { proto: 3 }),
    version: f(S, 'API version; `*` for all.', { proto: 4 }),
    resource: f(S, 'Resource; `*` for all.', { proto: 5 }),
    subresource: f(S, 'Subresource; empty for none.', { proto: 6 }),
    name: f(S, 'Object name; empty for all.', { proto: 7 }),
    fieldSelector: f(OPAQUE, 'Field selector of a list or watch.', { proto: 8 }),
    labelSelector: f(OPAQUE, 'Label selector of a list or watch.', { proto: 9 }),
  }),
  authorization.struct('NonResourceAttributes', 'An action on a non-resource URL.', {
    path: f(S, 'URL path.', { proto: 1 }),
    verb: f(S, 'Lower-case HTTP verb.', { proto: 2 }),
  }),
  authorization.struct('SubjectAccessReviewStatus', 'Answer of an access review.', {
    allowed: f(B, 'The action is allowed.', { required: true, proto: 1 }),
    denied: f(B, 'The action is explicitly denied.', { proto: 4 }),
    reason: f(S, 'Why it is allowed or denied.', { proto: 2 }),
    evaluationError: f(S, 'An error met while deciding; the answer may still be valid.', { proto: 3 }),
  }),
  authorization.struct('SelfSubjectRulesReviewSpec', 'Namespace to list rules for.', {
    namespace: f(S, 'The namespace.', { proto: 1 }),
  }),
  authorization.struct('SubjectRulesReviewStatus', 'Actions the caller may do.', {
    resourceRules: f(list(authorization.ref('ResourceRule')), 'Actions on resources.', { required: true, listType: 'atomic', proto: 1 }),
    nonResourceRules: f(list(authorization.ref('NonResourceRule')), 'Actions on non-resource URLs.', { required: true, listType: 'atomic', proto: 2 }),
    incomplete: f(B, 'Some rules could not be listed.', { required: true, proto: 3 }),
    evaluationError: f(S, 'Why the list may be incomplete.', { proto: 4 }),
  }),
  authorization.struct('ResourceRule', 'Actions allowed on resources.', {
    verbs: f(list(S), 'Verbs allowed.', { required: true, listType: 'atomic', proto: 1 }),
    apiGroups: f(list(S), 'API groups.', { listType: 'atomic', proto: 2 }),
    resources: f(list(S), 'Resources.', { listType: 'atomic', proto: 3 }),
    resourceNames: f(list(S), 'Object names; empty for all.', { listType: 'atomic', proto: 4 }),
  }),
  authorization.struct('NonResourceRule', 'Actions allowed on non-resource URLs.', {
    verbs: f(list(S), 'Verbs allowed.', { required: true, listType: 'atomic', proto: 1 }),
    nonResourceURLs: f(list(S), 'URL paths; may end in `*`.', { listType: 'atomic', proto: 2 }),
  }),
];
