/**
 * Shared metadata types: ObjectMeta, ListMeta, selectors, owner references, Status and DeleteOptions.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, TIME, OPAQUE, list, map, typeMetaFields, type StructDecl } from '../schema-dsl.ts';
import { meta } from './namespaces.ts';

export const metaTypes: readonly StructDecl[] = [
  meta.struct('ObjectMeta', 'Metadata every stored object has.', {
    name: f(S, 'Name, unique per kind within a namespace; cannot be changed.', { proto: 1 }),
    generateName: f(S, 'Prefix of a name the server generates when name is empty.', { proto: 2 }),
    namespace: f(S, 'Namespace of the object; empty for cluster-scoped kinds.', { proto: 3 }),
    selfLink: f(S, 'Deprecated; always empty.', { proto: 4 }),
    uid: f(S, 'Unique ID the server assigns at creation.', { proto: 5 }),
    resourceVersion: f(S, 'Opaque version of the object, for optimistic concurrency and watches.', { proto: 6 }),
    generation: f(I64, 'Sequence number of changes to the desired state; set by the server.', { proto: 7 }),
    creationTimestamp: f(TIME, 'When the object was created; set by the server.', { proto: 8 }),
    deletionTimestamp: f(TIME, 'When deletion was requested; set by the server.', { proto: 9 }),
    deletionGracePeriodSeconds: f(I64, 'Seconds allowed for graceful deletion.', { proto: 10 }),
    labels: f(map(S), 'Key/value pairs used to select and group objects.', { proto: 11 }),
    annotations: f(map(S), 'Key/value pairs for tools; not used for selection.', { proto: 12 }),
    ownerReferences: f(list(meta.ref('OwnerReference')), 'Objects this object depends on; it is collected when they are all gone.', { listType: 'map', listMapKeys: ['uid'], patchMergeKey: 'uid', patchStrategy: 'merge', proto: 13 }),
    finalizers: f(list(S), 'Keys that must be removed before the object is deleted.', { listType: 'set', patchStrategy: 'merge', proto: 14 }),
    managedFields: f(list(meta.ref('ManagedFieldsEntry')), 'Which manager owns which fields; maintained by the server.', { listType: 'atomic', proto: 17 }),
  }),
  meta.struct('ListMeta', 'Metadata of a list response.', {
    selfLink: f(S, 'Deprecated; always empty.', { proto: 1 }),
    resourceVersion: f(S, 'Version of the store the list was read at.', { proto: 2 }),
    continue: f(S, 'Token for the next chunk; empty at the end.', { proto: 3 }),
    remainingItemCount: f(I64, 'Items after this chunk, when known.', { proto: 4 }),
  }),
  meta.struct('LabelSelector', 'Selects objects by labels; the requirements are ANDed.', {
    matchLabels: f(map(S), 'Labels that must be present with these values.', { proto: 1 }),
    matchExpressions: f(list(meta.ref('LabelSelectorRequirement')), 'Label requirements.', { listType: 'atomic', proto: 2 }),
  }, { structType: 'atomic' }),
  meta.struct('LabelSelectorRequirement', 'A requirement on a label.', {
    key: f(S, 'Label key.', { required: true, proto: 1 }),
    operator: f(S, 'In, NotIn, Exists or DoesNotExist.', { required: true, proto: 2 }),
    values: f(list(S), 'Values for In and NotIn.', { listType: 'atomic', proto: 3 }),
  }),
  meta.struct('OwnerReference', 'Names an object that owns this one; the owner must be in the same namespace or cluster-scoped.', {
    apiVersion: f(S, 'API version of the owner.', { required: true, proto: 5 }),
    kind: f(S, 'Kind of the owner.', { required: true, proto: 1 }),
    name: f(S, 'Name of the owner.', { required: true, proto: 3 }),
    uid: f(S, 'UID of the owner.', { required: true, proto: 4 }),
    controller: f(B, 'The owner is the managing controller.', { proto: 6 }),
    blockOwnerDeletion: f(B, 'Foreground deletion of the owner waits for this object.', { proto: 7 }),
  }, { structType: 'atomic' }),
  meta.struct('ManagedFieldsEntry', 'The fields one manager owns, per operation and version.', {
    manager: f(S, 'Name of the manager.', { proto: 1 }),
    operation: f(S, 'Apply or Update.', { proto: 2 }),
    apiVersion: f(S, 'Version the field set refers to.', { proto: 3 }),
    time: f(TIME, 'When the entry last changed.', { proto: 4 }),
    fieldsType: f(S, 'Format of the field set; always FieldsV1.', { proto: 6 }),
    fieldsV1: f(OPAQUE, 'The field set.', { proto: 7 }),
    subresource: f(S, 'Subresource the changes were made through.', { proto: 8 }),
  }),
  meta.struct('Status', 'Result of a call that returns no object, and the body of errors.', {
    ...typeMetaFields(),
    metadata: f(meta.ref('ListMeta'), 'List metadata.', { proto: 1 }),
    status: f(S, 'Success or Failure.', { proto: 2 }),
    message: f(S, 'Human-readable description.', { proto: 3 }),
    reason: f(S, 'Machine-readable reason, such as NotFound or Conflict.', { proto: 4 }),
    details: f(meta.ref('StatusDetails'), 'More data about the reason.', { listType: 'atomic', proto: 5 }),
    code: f(I32, 'HTTP status code.', { proto: 6 }),
  }),
  meta.struct('StatusDetails', 'Details of a Status.', {
    name: f(S, 'Name of the object concerned.', { proto: 1 }),
    group: f(S, 'Group of the object concerned.', { proto: 2 }),
    kind: f(S, 'Kind of the object concerned.', { proto: 3 }),
    uid: f(S, 'UID of the object concerned.', { proto: 6 }),
    causes: f(list(meta.ref('StatusCause')), 'Causes of the error, one per field where possible.', { listType: 'atomic', proto: 4 }),
    retryAfterSeconds: f(I32, 'Seconds to wait before retrying.', { proto: 5 }),
  }),
  meta.struct('StatusCause', 'One cause of an error.', {
    reason: f(S, 'Machine-readable cause.', { proto: 1 }),
    message: f(S, 'Human-readable cause.', { proto: 2 }),
    field: f(S, 'Field that caused the error, such as spec.containers[0].name.', { proto: 3 }),
  }),
  meta.struct('DeleteOptions', 'Options of a delete request.', {
    ...typeMetaFields(),
    gracePeriodSeconds: f(I64, 'Seconds before the object is deleted; 0 means now.', { proto: 1 }),
    preconditions: f(meta.ref('Preconditions'), 'Conditions the object must meet to be deleted.', { proto: 2 }),
    orphanDependents: f(B, 'Deprecated; use propagationPolicy.', { proto: 3 }),
    propagationPolicy: f(S, 'Orphan, Background or Foreground garbage collection of dependents.', { proto: 4 }),
    dryRun: f(list(S), 'All to run the request without storing.', { listType: 'atomic', proto: 5 }),
    ignoreStoreReadErrorWithClusterBreakingPotential: f(B, 'Delete an object that cannot be read from storage; dangerous.', { proto: 6 }),
  }),
  meta.struct('Preconditions', 'Conditions a delete must meet.', {
    uid: f(S, 'Required UID.', { proto: 1 }),
    resourceVersion: f(S, 'Required resource version.', { proto: 2 }),
  }),
  meta.struct('Condition', 'A condition in the standard shape.', {
    type: f(S, 'Condition type, in CamelCase.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    observedGeneration: f(I64, 'The metadata.generation the controller last acted on.', { proto: 3 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { required: true, proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { required: true, proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { required: true, proto: 6 }),
  }),
  meta.struct('Patch', 'A patch document; its format is given by the request\'s Content-Type.', {

  }),
];
