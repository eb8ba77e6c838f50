/**
 * Services and Endpoints.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, B, IOS, list, map, type StructDecl } from '../schema-dsl.ts';
import { core, meta } from './namespaces.ts';

export const serviceTypes: readonly StructDecl[] = [
  core.kind('Service', 'A named, stable network endpoint for a set of pods.', {
    spec: f(core.ref('ServiceSpec'), 'Desired behaviour of the service.', { proto: 2 }),
    status: f(core.ref('ServiceStatus'), 'Observed state of the service, such as load balancer addresses.', { proto: 3 }),
  }),
  core.struct('ServiceSpec', 'Desired behaviour of a service.', {
    ports: f(list(core.ref('ServicePort')), 'Ports the service exposes.', { listType: 'map', listMapKeys: ['port', 'protocol'], patchMergeKey: 'port', patchStrategy: 'merge', proto: 1 }),
    selector: f(map(S), 'Labels of the pods traffic goes to; when empty, endpoints are managed outside.', { mapType: 'atomic', proto: 2 }),
    clusterIP: f(S, 'Primary virtual IP; `None` makes a headless service.', { proto: 3 }),
    clusterIPs: f(list(S), 'Virtual IPs, at most one per address family.', { listType: 'atomic', proto: 18 }),
    type: f(S, 'ClusterIP, NodePort, LoadBalancer or ExternalName.', { enum: ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'], proto: 4 }),
    externalIPs: f(list(S), 'Extra IPs on which nodes accept traffic for the service.', { listType: 'atomic', proto: 5 }),
    sessionAffinity: f(S, 'ClientIP or None.', { enum: ['ClientIP', 'None'], proto: 7 }),
    loadBalancerIP: f(S, 'Deprecated: requested load balancer IP.', { proto: 8 }),
    loadBalancerSourceRanges: f(list(S), 'Client CIDRs the load balancer admits.', { listType: 'atomic', proto: 9 }),
    externalName: f(S, 'DNS name the service aliases, for ExternalName.', { proto: 10 }),
    externalTrafficPolicy: f(S, 'Cluster or Local: how external traffic is routed to endpoints.', { enum: ['Cluster', 'Local'], proto: 11 }),
    healthCheckNodePort: f(I32, 'Node port for load balancer health checks, with Local traffic policy.', { proto: 12 }),
    publishNotReadyAddresses: f(B, 'Publish addresses of pods that are not ready.', { proto: 13 }),
    sessionAffinityConfig: f(core.ref('SessionAffinityConfig'), 'Settings of session affinity.', { proto: 14 }),
    ipFamilies: f(list(S), 'Address families of the service, in order.', { listType: 'atomic', proto: 19 }),
    ipFamilyPolicy: f(S, 'SingleStack, PreferDualStack or RequireDualStack.', { enum: ['SingleStack', 'PreferDualStack', 'RequireDualStack'], proto: 17 }),
    allocateLoadBalancerNodePorts: f(B, 'Allocate node ports for LoadBalancer services; default true.', { proto: 20 }),
    loadBalancerClass: f(S, 'Load balancer implementation to use.', { proto: 21 }),
    internalTrafficPolicy: f(S, 'Cluster or Local: how in-cluster traffic is routed.', { enum: ['Cluster', 'Local'], proto: 22 }),
    trafficDistribution: f(S, 'Preference for how traffic is spread over endpoints.', { proto: 23 }),
  }),
  core.struct('ServicePort', 'A port of a service.', {
    name: f(S, 'Port name; required when there are several ports.', { proto: 1 }),
    protocol: f(S, 'TCP, UDP or SCTP; default TCP.', { enum: ['TCP', 'UDP', 'SCTP'], proto: 2 }),
    appProtocol: f(S, 'Application protocol of the port.', { proto: 6 }),
    port: f(I32, 'Port the service exposes.', { required: true, proto: 3 }),
    targetPort: f(IOS, 'Port number or name on the pods; default the same as port.', { proto: 4 }),
    nodePort: f(I32, 'Port on every node, for NodePort and LoadBalancer.', { proto: 5 }),
  }),
  core.struct('ServiceStatus', 'Observed state of a service.', {
    loadBalancer: f(core.ref('LoadBalancerStatus'), 'State of the load balancer, if any.', { proto: 1 }),
    conditions: f(list(meta.ref('Condition')), 'Current conditions of the service.', { listType: 'map', listMapKeys: ['type'], patchMergeKey: 'type', patchStrategy: 'merge', proto: 2 }),
  }),
  core.struct('LoadBalancerStatus', 'State of a load balancer.', {
    ingress: f(list(core.ref('LoadBalancerIngress')), 'Addresses of the load balancer.', { listType: 'atomic', proto: 1 }),
  }),
  core.struct('LoadBalancerIngress', 'An address of a load balancer.', {
    ip: f(S, 'IP address.', { proto: 1 }),
    hostname: f(S, 'DNS name.', { proto: 2 }),
    ipMode: f(S, 'VIP or Proxy: how the address reaches nodes.', { proto: 3 }),
    ports: f(list(core.ref('PortStatus')), 'State of each service port.', { listType: 'atomic', proto: 4 }),
  }),
  core.struct('PortStatus', 'State of a service port on a load balancer.', {
    port: f(I32, 'Port number.', { required: true, proto: 1 }),
    protocol: f(S, 'TCP, UDP or SCTP.', { required: true, enum: ['TCP', 'UDP', 'SCTP'], proto: 2 }),
    error: f(S, 'Problem with the port, as a CamelCase reason.', { proto: 3 }),
  }),
  core.struct('SessionAffinityConfig', 'Session affinity settings.', {
    clientIP: f(core.ref('ClientIPConfig'), 'Settings for ClientIP affinity.', { proto: 1 }),
  }),
  core.struct('ClientIPConfig', 'ClientIP session affinity settings.', {
    timeoutSeconds: f(I32, 'Session lifetime in seconds; default 3 hours.', { proto: 1 }),
  }),
  core.kind('Endpoints', 'The addresses that implement a service.', {
    subsets: f(list(core.ref('EndpointSubset')), 'Groups of addresses sharing the same ports.', { listType: 'atomic', proto: 2 }),
  }),
  core.struct('EndpointSubset', 'Addresses with a common set of ports.', {
    addresses: f(list(core.ref('EndpointAddress')), 'Addresses that are ready.', { listType: 'atomic', proto: 1 }),
    notReadyAddresses: f(list(core.ref('EndpointAddress')), 'Addresses that are not ready yet.', { listType: 'atomic', proto: 2 }),
    ports: f(list(core.ref('EndpointPort')), 'Ports on those addresses.', { listType: 'atomic', proto: 3 }),
  }),
  core.struct('EndpointAddress', 'An endpoint address.', {
    ip: f(S, 'IP address.', { required: true, proto: 1 }),
    hostname: f(S, 'Hostname of the endpoint.', { proto: 3 }),
    nodeName: f(S, 'Node hosting the endpoint.', { proto: 4 }),
    targetRef: f(core.ref('ObjectReference'), 'Object behind the endpoint, usually a pod.', { proto: 2 }),
  }, { structType: 'atomic' }),
  core.struct('EndpointPort', 'A port of an endpoint.', {
    name: f(S, 'Name matching a service port.', { proto: 1 }),
    port: f(I32, 'Port number.', { required: true, proto: 2 }),
    protocol: f(S, 'TCP, UDP or SCTP.', { enum: ['TCP', 'UDP', 'SCTP'], proto: 3 }),
    appProtocol: f(S, 'Application protocol of the port.', { proto: 4 }),
  }, { structType: 'atomic' }),
];
