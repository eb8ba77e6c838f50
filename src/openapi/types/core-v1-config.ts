/**
 * ConfigMaps, Secrets, ServiceAccounts, Namespaces and object references.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, B, BYTES, TIME, list, map, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';
import { names } from '../../naming/index.ts';

export const configTypes: readonly StructDecl[] = [
  core.kind('ConfigMap', 'Configuration data as key/value pairs.', {
    immutable: f(B, 'When true, data cannot change afterwards.', { proto: 4 }),
    data: f(map(S), 'UTF-8 values by key.', { proto: 2 }),
    binaryData: f(map(BYTES), 'Binary values by key, base64 in JSON.', { proto: 3 }),
  }),
  core.kind('Secret', 'Sensitive data as key/value pairs.', {
    immutable: f(B, 'When true, data cannot change afterwards.', { proto: 5 }),
    data: f(map(BYTES), 'Values by key, base64 in JSON.', { proto: 2 }),
    stringData: f(map(S), 'Write-only plain-text values, merged into data.', { proto: 4 }),
    type: f(S, `Kind of secret, such as Opaque or ${names.secretTypes.serviceAccountToken}.`, { proto: 3 }),
  }),
  core.kind('ServiceAccount', 'An identity for processes running in pods.', {
    secrets: f(list(core.ref('ObjectReference')), 'Deprecated list of token secrets.', { listType: 'map', listMapKeys: ['name'], patchMergeKey: 'name', patchStrategy: 'merge', proto: 2 }),
    imagePullSecrets: f(list(core.ref('LocalObjectReference')), 'Secrets for pulling images, added to pods that use this account.', { listType: 'atomic', proto: 3 }),
    automountServiceAccountToken: f(B, 'Whether pods using this account get a token mounted.', { proto: 4 }),
  }),
  core.kind('Namespace', 'A scope for names; namespaced objects live in one.', {
    spec: f(core.ref('NamespaceSpec'), 'Desired behaviour of the namespace.', { proto: 2 }),
    status: f(core.ref('NamespaceStatus'), 'Observed state of the namespace.', { proto: 3 }),
  }),
  core.struct('NamespaceSpec', 'Desired behaviour of a namespace.', {
    finalizers: f(list(S), 'Must be empty before the namespace is removed.', { listType: 'atomic', proto: 1 }),
  }),
  core.struct('NamespaceStatus', 'Observed state of a namespace.', {
    phase: f(S, 'Active or Terminating.', { enum: ['Active', 'Terminating'], proto: 1 }),
    conditions: f(list(core.ref('NamespaceCondition')), 'Current conditions of the namespace.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 2 }),
  }),
  core.struct('NamespaceCondition', 'One condition of a namespace.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 6 }),
  }),
  core.struct('ObjectReference', 'A reference to another object.', {
    kind: f(S, 'Kind of the object.', { proto: 1 }),
    namespace: f(S, 'Namespace of the object.', { proto: 2 }),
    name: f(S, 'Name of the object.', { proto: 3 }),
    uid: f(S, 'UID of the object.', { proto: 4 }),
    apiVersion: f(S, 'API version of the object.', { proto: 5 }),
    resourceVersion: f(S, 'Resource version the reference was made at.', { proto: 6 }),
    fieldPath: f(S, 'A part of the object, such as a container.', { proto: 7 }),
  }, { structType: 'atomic' }),
];
