/** apps/v1 as the original serves it in v1.32. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { daemonSetStrategy } from '../strategies/daemonsets.ts';
import { deploymentStrategy } from '../strategies/deployments.ts';
import { replicaSetStrategy } from '../strategies/replicasets.ts';
import { statefulSetStrategy } from '../strategies/statefulsets.ts';
import { ALL, scale, status } from './subresources.ts';

const appsV1 = { group: 'apps', version: 'v1' } as const;

export const appsTypes: ResourceTypeDef[] = [
  { ...appsV1, resource: 'controllerrevisions', kind: 'ControllerRevision', singularName: 'controllerrevision', namespaced: true },
  {
    ...appsV1, resource: 'daemonsets', kind: 'DaemonSet', singularName: 'daemonset', namespaced: true, shortNames: ['ds'], categories: ALL,
    subresources: [status('DaemonSet')], tracksGeneration: true, strategy: daemonSetStrategy,
  },
  {
    ...appsV1, resource: 'deployments', kind: 'Deployment', singularName: 'deployment', namespaced: true, shortNames: ['deploy'], categories: ALL,
    subresources: [scale, status('Deployment')], tracksGeneration: true, strategy: deploymentStrategy,
  },
  {
    ...appsV1, resource: 'replicasets', kind: 'ReplicaSet', singularName: 'replicaset', namespaced: true, shortNames: ['rs'], categories: ALL,
    subresources: [scale, status('ReplicaSet')], tracksGeneration: true, strategy: replicaSetStrategy,
  },
  {
    ...appsV1, resource: 'statefulsets', kind: 'StatefulSet', singularName: 'statefulset', namespaced: true, shortNames: ['sts'], categories: ALL,
    subresources: [scale, status('StatefulSet')], tracksGeneration: true, strategy: statefulSetStrategy,
  },
];
