/** discovery.<suffix>/v1: EndpointSlices; any change outside metadata bumps the generation. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { endpointSliceStrategy } from '../strategies/endpointslices.ts';
import { apiGroup } from '../../naming/index.ts';

export const discoveryTypes: ResourceTypeDef[] = [
  {
    group: apiGroup('discovery'), version: 'v1', resource: 'endpointslices', kind: 'EndpointSlice', singularName: 'endpointslice', namespaced: true,
    tracksGeneration: true, strategy: endpointSliceStrategy,
  },
];
