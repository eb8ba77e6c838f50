/** networking.<suffix>/v1 as the original serves it in v1.32; each type keeps metadata.generation. */
import type { ResourceTypeDef } from '../resource-type.ts';
import { ingressStrategy } from '../strategies/ingresses.ts';
import { status } from './subresources.ts';
import { apiGroup } from '../../naming/index.ts';

const networkingV1 = { group: apiGroup('networking'), version: 'v1', tracksGeneration: true } as const;

export const networkingTypes: ResourceTypeDef[] = [
  { ...networkingV1, resource: 'ingressclasses', kind: 'IngressClass', singularName: 'ingressclass', namespaced: false },
  {
    ...networkingV1, resource: 'ingresses', kind: 'Ingress', singularName: 'ingress', namespaced: true, shortNames: ['ing'],
    subresources: [status('Ingress')], strategy: ingressStrategy,
  },
  { ...networkingV1, resource: 'networkpolicies', kind: 'NetworkPolicy', singularName: 'networkpolicy', namespaced: true, shortNames: ['netpol'] },
];
