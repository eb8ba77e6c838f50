/**
 * authentication.<suffix>/v1: token reviews and self reviews.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I64, B, TIME, list, map, type StructDecl } from '../schema-dsl.ts';
import { authentication } from './namespaces.ts';

export const authenticationTypes: readonly StructDecl[] = [
  authentication.kind('TokenReview', 'Asks the server to authenticate a bearer token.', {
    spec: f(authentication.ref('TokenReviewSpec'), 'The token to check.', { required: true, proto: 2 }),
    status: f(authentication.ref('TokenReviewStatus'), 'The result, filled by the server.', { proto: 3 }),
  }),
  authentication.struct('TokenReviewSpec', 'A token to check.', {
    token: f(S, 'Opaque bearer token.', { proto: 1 }),
    audiences: f(list(S), 'Audiences the token must be valid for.', { listType: 'atomic', proto: 2 }),
  }),
  authentication.struct('TokenReviewStatus', 'Result of a token review.', {
    authenticated: f(B, 'The token is valid.', { proto: 1 }),
    user: f(authentication.ref('UserInfo'), 'The user the token belongs to.', { proto: 2 }),
    audiences: f(list(S), 'Requested audiences the token is valid for.', { listType: 'atomic', proto: 4 }),
    error: f(S, 'Why the token could not be checked.', { proto: 3 }),
  }),
  authentication.struct('UserInfo', 'A user as authentication found them.', {
    username: f(S, 'User name.', { proto: 1 }),
    uid: f(S, 'Unique ID of the user.', { proto: 2 }),
    groups: f(list(S), 'Groups of the user.', { listType: 'atomic', proto: 3 }),
    extra: f(map(list(S)), 'Extra attributes from the authenticator.', { proto: 4 }),
  }),
  authentication.kind('TokenRequest', 'Asks for a token for a service account; posted to its token subresource.', {
    spec: f(authentication.ref('TokenRequestSpec'), 'Audiences, lifetime and binding of the token.', { required: true, proto: 2 }),
    status: f(authentication.ref('TokenRequestStatus'), 'The issued token, filled by the server.', { proto: 3 }),
  }),
  authentication.struct('TokenRequestSpec', 'What token is wanted.', {
    audiences: f(list(S), 'Audiences the token is for; default the API server.', { required: true, listType: 'atomic', proto: 1 }),
    expirationSeconds: f(I64, 'Requested lifetime; the server may shorten it.', { proto: 4 }),
    boundObjectRef: f(authentication.ref('BoundObjectReference'), 'Object the token is bound to; the token stops working when it is deleted.', { proto: 3 }),
  }),
  authentication.struct('TokenRequestStatus', 'An issued token.', {
    token: f(S, 'The token.', { required: true, proto: 1 }),
    expirationTimestamp: f(TIME, 'When the token expires.', { required: true, proto: 2 }),
  }),
  authentication.struct('BoundObjectReference', 'An object a token is bound to.', {
    kind: f(S, 'Pod, Secret or Node.', { proto: 1 }),
    apiVersion: f(S, 'API version of the object.', { proto: 2 }),
    name: f(S, 'Name of the object.', { proto: 3 }),
    uid: f(S, 'UID of the object.', { proto: 4 }),
  }),
  authentication.kind('SelfSubjectReview', 'Returns the caller\'s own user information.', {
    status: f(authentication.ref('SelfSubjectReviewStatus'), 'The caller\'s user information.', { proto: 2 }),
  }),
  authentication.struct('SelfSubjectReviewStatus', 'Result of a self review.', {
    userInfo: f(authentication.ref('UserInfo'), 'The caller\'s user information.', { proto: 1 }),
  }),
];
