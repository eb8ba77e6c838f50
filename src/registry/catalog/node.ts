/** node.orch.io/v1: RuntimeClasses, which a PUT may create. */
import type { ResourceTypeDef } from '../resource-type.ts';

export const nodeTypes: ResourceTypeDef[] = [
  {
    group: 'node.orch.io', version: 'v1', resource: 'runtimeclasses', kind: 'RuntimeClass', singularName: 'runtimeclass', namespaced: false,
    allowCreateOnUpdate: true,
  },
];
