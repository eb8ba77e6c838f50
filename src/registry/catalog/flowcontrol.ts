/**
 * flowcontrol.apiserver.<suffix>: FlowSchemas and PriorityLevelConfigurations
 * as a v1.25-era server serves them: v1beta2 (preferred, stored) and the
 * deprecated v1beta1 (older-versions.ts). Names are path segments.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { flowSchemaStrategy, priorityLevelConfigurationStrategy } from '../strategies/flowcontrol.ts';
import { status } from './subresources.ts';
import { apiGroup } from '../../naming/index.ts';

const flowcontrolV1beta2 = { group: apiGroup('flowcontrol.apiserver'), version: 'v1beta2', namespaced: false, nameRule: 'path-segment', tracksGeneration: true } as const;

export const flowcontrolTypes: ResourceTypeDef[] = [
  {
    ...flowcontrolV1beta2, resource: 'flowschemas', kind: 'FlowSchema', singularName: 'flowschema',
    subresources: [status('FlowSchema')], strategy: flowSchemaStrategy,
  },
  {
    ...flowcontrolV1beta2, resource: 'prioritylevelconfigurations', kind: 'PriorityLevelConfiguration', singularName: 'prioritylevelconfiguration',
    subresources: [status('PriorityLevelConfiguration')], strategy: priorityLevelConfigurationStrategy,
  },
];
