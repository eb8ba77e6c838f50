export { HealthChecks, type HealthCheck, type HealthCheckKind, type HealthEndpoint, type NamedHealthCheck } from './checks.ts';
export { healthHandler, isHealthPath, parseHealthPath, type HealthPath } from './handler.ts';
