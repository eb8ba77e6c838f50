/**
 * Probes and lifecycle hooks of containers.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, IOS, list, type StructDecl } from '../schema-dsl.ts';
import { core } from './namespaces.ts';

export const probeTypes: readonly StructDecl[] = [
  core.struct('Probe', 'A health check run against a container.', {
    initialDelaySeconds: f(I32, 'Seconds after start before the first probe.', { proto: 2 }),
    timeoutSeconds: f(I32, 'Seconds before a probe times out; default 1.', { proto: 3 }),
    periodSeconds: f(I32, 'Seconds between probes; default 10.', { proto: 4 }),
    successThreshold: f(I32, 'Consecutive successes to count as healthy after a failure; default 1.', { proto: 5 }),
    failureThreshold: f(I32, 'Consecutive failures to count as failed; default 3.', { proto: 6 }),
    terminationGracePeriodSeconds: f(I64, 'Grace period for stopping after a failed probe; overrides the pod\'s.', { proto: 7 }),
  }, { embeds: [{ name: core.name('ProbeHandler'), proto: 1 }] }),
  core.struct('ProbeHandler', 'The action of a probe; exactly one is set.', {
    exec: f(core.ref('ExecAction'), 'Run a command.', { proto: 1 }),
    httpGet: f(core.ref('HTTPGetAction'), 'Send an HTTP GET.', { proto: 2 }),
    tcpSocket: f(core.ref('TCPSocketAction'), 'Open a TCP connection.', { proto: 3 }),
    grpc: f(core.ref('GRPCAction'), 'Call the gRPC health service.', { proto: 4 }),
  }),
  core.struct('ExecAction', 'Runs a command in the container.', {
    command: f(list(S), 'Command and arguments; run without a shell. Exit 0 means healthy.', { listType: 'atomic', proto: 1 }),
  }),
  core.struct('HTTPGetAction', 'An HTTP GET request.', {
    path: f(S, 'Path to request.', { proto: 1 }),
    port: f(IOS, 'Port number or name.', { required: true, proto: 2 }),
    host: f(S, 'Host to connect to; default the pod IP.', { proto: 3 }),
    scheme: f(S, 'HTTP or HTTPS; default HTTP.', { enum: ['HTTP', 'HTTPS'], proto: 4 }),
    httpHeaders: f(list(core.ref('HTTPHeader')), 'Extra request headers.', { listType: 'atomic', proto: 5 }),
  }),
  core.struct('HTTPHeader', 'An HTTP header.', {
    name: f(S, 'Header name.', { required: true, proto: 1 }),
    value: f(S, 'Header value.', { required: true, proto: 2 }),
  }),
  core.struct('TCPSocketAction', 'Opens a TCP connection.', {
    port: f(IOS, 'Port number or name.', { required: true, proto: 1 }),
    host: f(S, 'Host to connect to; default the pod IP.', { proto: 2 }),
  }),
  core.struct('GRPCAction', 'Calls the gRPC health checking service.', {
    port: f(I32, 'Port number.', { required: true, proto: 1 }),
    service: f(S, 'Service name sent in the request.', { proto: 2 }),
  }),
  core.struct('Lifecycle', 'Actions run at container start and stop.', {
    postStart: f(core.ref('LifecycleHandler'), 'Run right after the container is created.', { proto: 1 }),
    preStop: f(core.ref('LifecycleHandler'), 'Run before the container is stopped.', { proto: 2 }),
  }),
  core.struct('LifecycleHandler', 'The action of a lifecycle hook; exactly one is set.', {
    exec: f(core.ref('ExecAction'), 'Run a command.', { proto: 1 }),
    httpGet: f(core.ref('HTTPGetAction'), 'Send an HTTP GET.', { proto: 2 }),
    tcpSocket: f(core.ref('TCPSocketAction'), 'Deprecated; accepted but not run.', { proto: 3 }),
    sleep: f(core.ref('SleepAction'), 'Wait a while.', { proto: 4 }),
  }),
  core.struct('SleepAction', 'Waits.', {
    seconds: f(I64, 'Seconds to wait.', { required: true, proto: 1 }),
  }),
];
