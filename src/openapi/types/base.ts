/**
 * The types declared field by field, in one list (index.ts adds the older
 * versions declared as copies of them).
 */
import type { StructDecl } from '../schema-dsl.ts';
import { admissionregistrationTypes } from './admissionregistration-v1.ts';
import { appsTypes } from './apps-v1.ts';
import { authenticationTypes } from './authentication-v1.ts';
import { authorizationTypes } from './authorization-v1.ts';
import { autoscalingV1Types } from './autoscaling-v1.ts';
import { autoscalingV2Types } from './autoscaling-v2.ts';
import { batchTypes } from './batch-v1.ts';
import { certificatesTypes } from './certificates-v1.ts';
import { coordinationTypes } from './coordination-v1.ts';
import { configTypes } from './core-v1-config.ts';
import { containerTypes } from './core-v1-container.ts';
import { coreEventTypes } from './core-v1-event.ts';
import { nodeTypes } from './core-v1-node.ts';
import { podStatusTypes } from './core-v1-pod-status.ts';
import { podTypes } from './core-v1-pod.ts';
import { corePolicyTypes } from './core-v1-policy.ts';
import { probeTypes } from './core-v1-probe.ts';
import { schedulingTypes } from './core-v1-scheduling.ts';
import { securityTypes } from './core-v1-security.ts';
import { serviceTypes } from './core-v1-service.ts';
import { coreStorageTypes } from './core-v1-storage.ts';
import { volumeTypes } from './core-v1-volume.ts';
import { discoveryTypes } from './discovery-v1.ts';
import { eventsTypes } from './events-v1.ts';
import { flowcontrolTypes } from './flowcontrol-v1.ts';
import { metaTypes } from './meta-v1.ts';
import { networkingTypes } from './networking-v1.ts';
import { nodeClassTypes } from './node-v1.ts';
import { policyTypes } from './policy-v1.ts';
import { rbacTypes } from './rbac-v1.ts';
import { schedulingClassTypes } from './scheduling-v1.ts';
import { storageTypes } from './storage-v1.ts';

export const BASE_TYPES: readonly StructDecl[] = [
  ...metaTypes,
  ...configTypes,
  ...containerTypes,
  ...coreEventTypes,
  ...nodeTypes,
  ...podStatusTypes,
  ...podTypes,
  ...corePolicyTypes,
  ...probeTypes,
  ...schedulingTypes,
  ...securityTypes,
  ...serviceTypes,
  ...coreStorageTypes,
  ...volumeTypes,
  ...admissionregistrationTypes,
  ...appsTypes,
  ...authenticationTypes,
  ...authorizationTypes,
  ...autoscalingV1Types,
  ...autoscalingV2Types,
  ...batchTypes,
  ...certificatesTypes,
  ...coordinationTypes,
  ...discoveryTypes,
  ...eventsTypes,
  ...flowcontrolTypes,
  ...networkingTypes,
  ...nodeClassTypes,
  ...policyTypes,
  ...rbacTypes,
  ...schedulingClassTypes,
  ...storageTypes,
];
