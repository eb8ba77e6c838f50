/**
 * The core group, v1 (served at /api/v1), as the original serves it in
 * v1.32: names, scope, short names, categories, subresources, whether a PUT
 * may create, and which types keep metadata.generation.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { configMapStrategy } from '../strategies/configmaps.ts';
import { eventStrategy } from '../strategies/events.ts';
import { namespaceStrategy } from '../strategies/namespaces.ts';
import { nodeStrategy } from '../strategies/nodes.ts';
import { persistentVolumeClaimStrategy, persistentVolumeStrategy } from '../strategies/persistentvolumes.ts';
import { podTemplateStrategy } from '../strategies/podtemplates.ts';
import { podStrategy } from '../strategies/pods.ts';
import { replicationControllerStrategy } from '../strategies/replicationcontrollers.ts';
import { secretStrategy } from '../strategies/secrets.ts';
import { serviceAccountStrategy } from '../strategies/serviceaccounts.ts';
import { serviceStrategy } from '../strategies/services.ts';
import { limitRangeStrategy } from '../strategies/limitranges.ts';
import { resourceQuotaStrategy } from '../strategies/resourcequotas.ts';
import { ALL, VERBS_WITHOUT_DELETECOLLECTION, binding, ephemeralContainers, eviction, finalize, scale, status, tokenRequest } from './subresources.ts';

const v1 = { group: '', version: 'v1' } as const;

export const coreTypes: ResourceTypeDef[] = [
  {
    ...v1, resource: 'namespaces', kind: 'Namespace', singularName: 'namespace', namespaced: false, shortNames: ['ns'],
    verbs: VERBS_WITHOUT_DELETECOLLECTION, subresources: [finalize, status('Namespace')], nameRule: 'label', strategy: namespaceStrategy,
  },
  {
    ...v1, resource: 'pods', kind: 'Pod', singularName: 'pod', namespaced: true, shortNames: ['po'], categories: ALL,
    subresources: [binding, ephemeralContainers, eviction, status('Pod')], strategy: podStrategy,
  },
  {
    // The deprecated POST of a Binding to the namespace: answered by the pods/binding action, nothing stored.
    ...v1, resource: 'bindings', kind: 'Binding', singularName: 'binding', namespaced: true, verbs: ['create'], virtual: true,
  },
  {
    // Names are DNS-1035 labels in the original; the strategy adds the rule
    // a DNS-1123 label lacks (a leading letter).
    ...v1, resource: 'services', kind: 'Service', singularName: 'service', namespaced: true, shortNames: ['svc'], categories: ALL,
    subresources: [status('Service')], nameRule: 'label', allowCreateOnUpdate: true, strategy: serviceStrategy,
  },
  { ...v1, resource: 'endpoints', kind: 'Endpoints', singularName: 'endpoints', namespaced: true, shortNames: ['ep'], allowCreateOnUpdate: true },
  { ...v1, resource: 'configmaps', kind: 'ConfigMap', singularName: 'configmap', namespaced: true, shortNames: ['cm'], strategy: configMapStrategy },
  { ...v1, resource: 'secrets', kind: 'Secret', singularName: 'secret', namespaced: true, strategy: secretStrategy },
  { ...v1, resource: 'serviceaccounts', kind: 'ServiceAccount', singularName: 'serviceaccount', namespaced: true, shortNames: ['sa'], subresources: [tokenRequest], strategy: serviceAccountStrategy },
  {
    ...v1, resource: 'nodes', kind: 'Node', singularName: 'node', namespaced: false, shortNames: ['no'],
    subresources: [status('Node')], strategy: nodeStrategy,
  },
  {
    // Core v1 event names are not validated by the original beyond being a
    // path segment (its v1 event validation skips object metadata).
    ...v1, resource: 'events', kind: 'Event', singularName: 'event', namespaced: true, shortNames: ['ev'],
    nameRule: 'path-segment', allowCreateOnUpdate: true, strategy: eventStrategy,
  },
  {
    ...v1, resource: 'persistentvolumes', kind: 'PersistentVolume', singularName: 'persistentvolume', namespaced: false, shortNames: ['pv'],
    subresources: [status('PersistentVolume')], strategy: persistentVolumeStrategy,
  },
  {
    ...v1, resource: 'persistentvolumeclaims', kind: 'PersistentVolumeClaim', singularName: 'persistentvolumeclaim', namespaced: true, shortNames: ['pvc'],
    subresources: [status('PersistentVolumeClaim')], strategy: persistentVolumeClaimStrategy,
  },
  { ...v1, resource: 'limitranges', kind: 'LimitRange', singularName: 'limitrange', namespaced: true, shortNames: ['limits'], allowCreateOnUpdate: true, strategy: limitRangeStrategy },
  {
    ...v1, resource: 'resourcequotas', kind: 'ResourceQuota', singularName: 'resourcequota', namespaced: true, shortNames: ['quota'],
    subresources: [status('ResourceQuota')], strategy: resourceQuotaStrategy,
  },
  {
    ...v1, resource: 'replicationcontrollers', kind: 'ReplicationController', singularName: 'replicationcontroller', namespaced: true,
    shortNames: ['rc'], categories: ALL, subresources: [scale, status('ReplicationController')], tracksGeneration: true,
    strategy: replicationControllerStrategy,
  },
  {
    ...v1, resource: 'podtemplates', kind: 'PodTemplate', singularName: 'podtemplate', namespaced: true, tracksGeneration: true,
    strategy: podTemplateStrategy,
  },
];
