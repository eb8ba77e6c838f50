/** node.<suffix>/v1: RuntimeClasses, which a PUT may create. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { apiGroup } from '../../naming/index.ts';

export const nodeTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('node'), version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', singularName: 'runtimeclass', namespaced: false,
    allowCreateOnUpdate: true,
  },
];
