/**
 * Every built-in resource type the server serves, group by group. The
 * registry resolves these; discovery, routing and storage follow from them.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { admissionregistrationTypes } from './admissionregistration.ts';
import { appsTypes } from './apps.ts';
import { authorizationTypes } from './authorization.ts';
import { autoscalingTypes } from './autoscaling.ts';
import { batchTypes } from './batch.ts';
import { certificatesTypes } from './certificates.ts';
import { coordinationTypes } from './coordination.ts';
import { coreTypes } from './core.ts';
import { discoveryTypes } from './discovery.ts';
import { eventsTypes } from './events.ts';
import { networkingTypes } from './networking.ts';
import { nodeTypes } from './node.ts';
import { policyTypes } from './policy.ts';
import { rbacTypes } from './rbac.ts';
import { schedulingTypes } from './scheduling.ts';
import { storageTypes } from './storage.ts';
import { autoscalingV1Types } from './autoscaling-v1.ts';
import { flowcontrolTypes } from './flowcontrol.ts';
import { olderVersionTypes } from './older-versions.ts';

export const builtinResourceTypes: ResourceTypeDef[] = [
  ...coreTypes,
  ...appsTypes,
  ...batchTypes,
  ...autoscalingTypes,
  ...policyTypes,
  ...coordinationTypes,
  ...eventsTypes,
  ...rbacTypes,
  ...authorizationTypes,
  ...certificatesTypes,
  ...admissionregistrationTypes,
  ...storageTypes,
  ...networkingTypes,
  ...schedulingTypes,
  ...nodeTypes,
  ...discoveryTypes,
  ...flowcontrolTypes,
  // Served versions besides the current ones; discovery lists each group's current version first (preferred).
  ...autoscalingV1Types,
  ...olderVersionTypes,
];
