/**
 * discovery.<suffix>/v1 EndpointSlice (shallow).
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, OPAQUE, list, type StructDecl } from '../schema-dsl.ts';
import { discovery } from './namespaces.ts';

export const discoveryTypes: readonly StructDecl[] = [
  discovery.kind('EndpointSlice', 'A subset of the endpoints of a service.', {
    addressType: f(S, 'IPv4, IPv6 or FQDN.', { required: true, proto: 4 }),
    endpoints: f(list(OPAQUE), 'Endpoints of the slice; at most 1000.', { required: true, listType: 'atomic', proto: 2 }),
    ports: f(list(OPAQUE), 'Ports served by every endpoint of the slice.', { listType: 'atomic', proto: 3 }),
  }),
];
