/**
 * networking.<suffix>/v1: Ingress, IngressClass and NetworkPolicy (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, OPAQUE, type StructDecl } from '../schema-dsl.ts';
import { networking } from './namespaces.ts';

export const networkingTypes: readonly StructDecl[] = [
  networking.kind('Ingress', 'Routes outside HTTP traffic to services.', {
    spec: f(OPAQUE, 'Rules, TLS and default backend.', { proto: 2 }),
    status: f(OPAQUE, 'Addresses of the load balancer.', { proto: 3 }),
  }),
  networking.kind('IngressClass', 'An ingress implementation that Ingresses can name.', {
    spec: f(OPAQUE, 'Controller and parameters of the class.', { proto: 2 }),
  }),
  networking.kind('NetworkPolicy', 'Allowed traffic to and from a set of pods.', {
    spec: f(OPAQUE, 'Pods selected and the traffic allowed.', { proto: 2 }),
  }),
];
