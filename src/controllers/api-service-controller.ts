/**
 * ApiServiceController keeps the in-cluster Service of the API server in
 * place (the original's pkg/controlplane/controller.go bootstrap
 * controller): `kubernetes` in `default`, ClusterIP = the first address of
 * the service range, port 443 `https` → the secure port; its Endpoints and
 * EndpointSlice point at the advertise address and the secure port. Created
 * at start and put back when removed; the Service's ports and type are put
 * back when changed. The Endpoints and EndpointSlice follow
 * `--endpoint-reconciler-type`: `lease` (default) lists every server whose
 * identity lease is live (identity-lease-controller.ts), rewritten on each
 * pass, so a dead server drops out when its lease expires and all servers
 * agree on one sorted list; `none` leaves them alone. Without a lease source
 * they point at this server and are rewritten only at start.
 */
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { KObject } from '../registry/object.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { StatusError } from '../api/status.ts';
import type { UserInfo } from '../server/context.ts';
import { apiGroup, names } from '../naming/index.ts';
import type { ServerEndpoint } from './identity-lease-controller.ts';

/** The Service's name; the original's product name (see the naming table issue). */
export const API_SERVICE_NAME = names.apiServiceName;
export const API_SERVICE_NAMESPACE = 'default';
const API_SERVICE_PORT = 443;
const PORT_NAME = 'https';
/** EndpointSlice label naming the service a slice belongs to. */
const SERVICE_NAME_LABEL = names.labels.serviceName;
const CONTROLLER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
const WRITE: WriteOptions = { user: CONTROLLER_USER, dryRun: false, fieldManager: names.apiServerFieldManager };

export interface ApiServiceControllerOptions {
  store: GenericStore;
  registry: ResourceRegistry;
  serviceIP: string;
  /** Where clients reach this server: the advertise address and the secure port. */
  advertiseAddress: string;
  securePort: number;
  log: { warn(obj: object, msg: string): void };
  /** `--endpoint-reconciler-type`: `none` leaves Endpoints and EndpointSlice alone. */
  reconcilerType?: 'lease' | 'none';
  /** The live servers (from identity leases): each pass rewrites the endpoints to list them. */
  liveEndpoints?: () => Promise<readonly ServerEndpoint[]>;
}

function lookup(registry: ResourceRegistry, group: string, version: string, resource: string): ResourceType | undefined {
  return registry.lookup(group, version, resource);
}

export class ApiServiceController {
  readonly #opts: ApiServiceControllerOptions;
  readonly #services: ResourceType;
  readonly #endpoints: ResourceType | undefined;
  readonly #slices: ResourceType | undefined;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(opts: ApiServiceControllerOptions) {
    this.#opts = opts;
    const services = lookup(opts.registry, '', 'v1', 'services');
    if (services === undefined) throw new Error('services are not served');
    this.#services = services;
    this.#endpoints = lookup(opts.registry, '', 'v1', 'endpoints');
    this.#slices = lookup(opts.registry, apiGroup('discovery'), 'v1', 'endpointslices');
  }

  /** Reconciles now, then every `intervalMs` (0: only now). */
  async start(intervalMs: number): Promise<void> {
    await this.reconcile(true);
    if (intervalMs <= 0) return;
    this.#timer = setInterval(() => {
      if (this.#running !== null) return;
      this.#running = this.reconcile()
        .catch((err: unknown) => this.#opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not reconcile the API server service'))
        .finally(() => (this.#running = null));
    }, intervalMs);
    this.#timer.unref();
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
  }

  /** One pass; `claimEndpoints` also points existing Endpoints and EndpointSlice at this server. */
  async reconcile(claimEndpoints = false): Promise<void> {
    await this.#ensureService();
    if (this.#opts.reconcilerType === 'none') return;
    const source = this.#opts.liveEndpoints;
    let servers: readonly ServerEndpoint[] = [{ ip: this.#opts.advertiseAddress, port: this.#opts.securePort }];
    if (source !== undefined) {
      const live = await source();
      // Our own lease may not be written yet (first pass): this server is live whatever the leases say.
      servers = live.length > 0 ? live : servers;
      claimEndpoints = true;
    }
    if (this.#endpoints !== undefined) {
      const want = this.#endpointsObject(servers);
      await this.#ensure(this.#endpoints, want, claimEndpoints, (cur) => ({ ...cur, subsets: want['subsets'] }), ['subsets']);
    }
    if (this.#slices !== undefined) {
      const want = this.#sliceObject(servers);
      await this.#ensure(
        this.#slices,
        want,
        claimEndpoints,
        (cur) => ({ ...cur, metadata: { ...cur.metadata, labels: { ...(cur.metadata.labels ?? {}), ...want.metadata.labels } }, addressType: want['addressType'], endpoints: want['endpoints'], ports: want['ports'] }),
        ['addressType', 'endpoints', 'ports'],
      );
    }
  }

  #port(): Record<string, unknown> {
    return { name: PORT_NAME, port: API_SERVICE_PORT, protocol: 'TCP', targetPort: this.#opts.securePort };
  }

  async #ensureService(): Promise<void> {
    const rt = this.#services;
    const cur = await this.#opts.store.getObject(rt, API_SERVICE_NAMESPACE, API_SERVICE_NAME, { kind: 'latest' });
    if (cur === null) {
      const svc: KObject = {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name: API_SERVICE_NAME, namespace: API_SERVICE_NAMESPACE, labels: { component: 'apiserver', provider: API_SERVICE_NAME } },
        spec: {
          type: 'ClusterIP',
          clusterIP: this.#opts.serviceIP,
          clusterIPs: [this.#opts.serviceIP],
          ports: [this.#port()],
          sessionAffinity: 'None',
          ipFamilyPolicy: 'SingleStack',
        },
      };
      await this.#tolerateRace(() => this.#opts.store.create(rt, API_SERVICE_NAMESPACE, svc, WRITE));
      return;
    }
    // getMasterServiceUpdateIfNeeded: only ports and type are put back.
    const spec = (cur.obj['spec'] ?? {}) as Record<string, unknown>;
    const ports = JSON.stringify(spec['ports']) === JSON.stringify([this.#port()]);
    if (ports && spec['type'] === 'ClusterIP') return;
    const next: KObject = { ...cur.obj, spec: { ...spec, type: 'ClusterIP', ports: [this.#port()] } };
    await this.#tolerateRace(() => this.#opts.store.update(rt, API_SERVICE_NAMESPACE, API_SERVICE_NAME, next, WRITE));
  }

  /** One subset per port (servers normally share one; tests run several on one host), addresses sorted. */
  #endpointsObject(servers: readonly ServerEndpoint[]): KObject {
    const byPort = new Map<number, string[]>();
    for (const s of servers) {
      const ips = byPort.get(s.port) ?? [];
      if (!ips.includes(s.ip)) ips.push(s.ip);
      byPort.set(s.port, ips);
    }
    const subsets = [...byPort.entries()]
      .sort((a, b) => a[0] - b[0])
      .map(([port, ips]) => ({ addresses: ips.sort().map((ip) => ({ ip })), ports: [{ name: PORT_NAME, port, protocol: 'TCP' }] }));
    return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: API_SERVICE_NAME, namespace: API_SERVICE_NAMESPACE }, subsets };
  }

  /** A slice has one port list: the servers on the lowest port (all of them, where servers share the port). */
  #sliceObject(servers: readonly ServerEndpoint[]): KObject {
    const port = Math.min(...servers.map((s) => s.port));
    const ips = [...new Set(servers.filter((s) => s.port === port).map((s) => s.ip))].sort();
    return {
      apiVersion: `${apiGroup('discovery')}/v1`,
      kind: 'EndpointSlice',
      metadata: { name: API_SERVICE_NAME, namespace: API_SERVICE_NAMESPACE, labels: { [SERVICE_NAME_LABEL]: API_SERVICE_NAME } },
      addressType: ips[0]!.includes(':') ? 'IPv6' : 'IPv4',
      endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
      ports: [{ name: PORT_NAME, port, protocol: 'TCP' }],
    };
  }

  /** Creates `want`, or (when `rewrite`) rewrites the `fields` of the stored object when they differ. */
  async #ensure(rt: ResourceType, want: KObject, rewrite: boolean, merge: (cur: KObject) => KObject, fields: readonly string[]): Promise<void> {
    const store = this.#opts.store;
    const cur = await store.getObject(rt, API_SERVICE_NAMESPACE, API_SERVICE_NAME, { kind: 'latest' });
    if (cur === null) {
      await this.#tolerateRace(() => store.create(rt, API_SERVICE_NAMESPACE, { ...want, apiVersion: rt.apiVersion }, WRITE));
      return;
    }
    if (!rewrite) return;
    const labelsOk = Object.entries(want.metadata.labels ?? {}).every(([k, v]) => cur.obj.metadata.labels?.[k] === v);
    if (labelsOk && fields.every((f) => JSON.stringify(cur.obj[f]) === JSON.stringify(want[f]))) return;
    await this.#tolerateRace(() => store.update(rt, API_SERVICE_NAMESPACE, API_SERVICE_NAME, { ...merge(cur.obj), apiVersion: rt.apiVersion }, WRITE));
  }

  /** Another API server on the same store may have written first: the next pass looks again. */
  async #tolerateRace(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch (err) {
      if (err instanceof StatusError && (err.code === 409 || err.code === 422)) {
        this.#opts.log.warn({ reason: err.reason, message: err.message }, 'API server service: lost a race with another writer; retrying later');
        return;
      }
      throw err;
    }
  }
}
