/**
 * Hand-written valid objects for the kinds clients write most, so that a
 * good share of unmutated creates and updates succeed and the read-back
 * checks (JSON, Protobuf, Table) get stored objects to work on. Schema
 * generated seeds (schema-values.ts) cover every other kind.
 */
import fc from 'fast-check';
import type { ResourceType } from '../../../src/registry/resource-type.ts';
import type { JsonObject } from './schema-values.ts';

const container = { name: 'c', image: 'nginx:1.27', ports: [{ containerPort: 80, protocol: 'TCP' }] };
const podSpec = { containers: [container], restartPolicy: 'Always' };
const template = { metadata: { labels: { app: 'fuzz' } }, spec: podSpec };
const selector = { matchLabels: { app: 'fuzz' } };

const BODIES: Readonly<Record<string, JsonObject>> = {
  ConfigMap: { data: { key: 'value', 'other.txt': 'line\n' }, binaryData: { bin: 'AAEC' } },
  Secret: { type: 'Opaque', data: { password: 'czNjcjN0' }, stringData: { user: 'admin' } },
  ServiceAccount: {},
  Pod: { spec: podSpec },
  Service: { spec: { selector: { app: 'fuzz' }, ports: [{ name: 'http', port: 80, targetPort: 8080, protocol: 'TCP' }] } },
  Endpoints: { subsets: [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80 }] }] },
  Deployment: { spec: { replicas: 1, selector, template } },
  ReplicaSet: { spec: { replicas: 1, selector, template } },
  StatefulSet: { spec: { replicas: 1, serviceName: 'fuzz', selector, template } },
  DaemonSet: { spec: { selector, template } },
  Job: { spec: { template: { ...template, spec: { ...podSpec, restartPolicy: 'Never' } } } },
  Lease: { spec: { holderIdentity: 'fuzz', leaseDurationSeconds: 15 } },
  Role: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }] },
  ClusterRole: { rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get'] }] },
  PriorityClass: { value: 1000, description: 'fuzz' },
  Namespace: {},
  LimitRange: { spec: { limits: [{ type: 'Container', default: { cpu: '100m' } }] } },
  PodTemplate: { template },
};

/** A valid object of `rt`'s kind with the given metadata, when we have a fixture for it. */
export function fixtureFor(rt: ResourceType, metadata: fc.Arbitrary<JsonObject>): fc.Arbitrary<JsonObject> | undefined {
  const body = BODIES[rt.kind];
  if (body === undefined) return undefined;
  return metadata.map((m) => ({ apiVersion: rt.apiVersion, kind: rt.kind, metadata: m, ...structuredClone(body) }));
}
