/**
 * Each API server's identity Lease (the original's APIServerIdentity): a
 * Lease `<prefix><hash>` in the system namespace, labelled as an identity
 * lease and with the server's hostname, held by the server and renewed every
 * `--identity-lease-renew-interval-seconds` (10) for
 * `--identity-lease-duration-seconds` (3600). Each server also deletes the
 * identity leases of other servers that expired (they stopped renewing).
 *
 * The lease carries the server's `<address>:<port>` in an annotation: the
 * `lease` endpoint reconciler (api-service-controller.ts) lists the live
 * leases to build the endpoints of the API Service, so a dead server drops
 * out once its lease expires. The hash is of hostname, address and port, so a
 * restarted server takes its own lease back while two servers on one host
 * (tests) stay apart.
 */
import { createHash } from 'node:crypto';
import type { GenericStore, WriteOptions } from '../registry/generic-store.ts';
import type { KObject } from '../registry/object.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { ResourceType } from '../registry/resource-type.ts';
import { StatusError } from '../api/status.ts';
import type { UserInfo } from '../server/context.ts';
import { apiGroup, names } from '../naming/index.ts';

const CONTROLLER_USER: UserInfo = { name: 'system:apiserver', groups: ['system:masters', 'system:authenticated'] };
const WRITE: WriteOptions = { user: CONTROLLER_USER, dryRun: false, fieldManager: names.apiServerFieldManager };

export interface ServerEndpoint {
  readonly ip: string;
  readonly port: number;
}

export interface IdentityLeaseOptions {
  store: GenericStore;
  registry: ResourceRegistry;
  hostname: string;
  advertiseAddress: string;
  securePort: number;
  durationSeconds: number;
  renewIntervalMs: number;
  log: { warn(obj: object, msg: string): void };
  /** Called after each renewal (the lease endpoint reconciler). */
  afterRenew?: () => Promise<void>;
  now?: () => number;
}

/** `<prefix><base32 of the first 16 bytes of sha256(hostname, address, port)>`, lowercase, as the original's shape. */
export function identityLeaseName(hostname: string, address: string, port: number): string {
  const hash = createHash('sha256').update(`${hostname}\0${address}\0${port}`).digest().subarray(0, 16);
  return `${names.identityLease.namePrefix}${base32(hash)}`;
}

function base32(bytes: Uint8Array): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz234567';
  let bits = 0;
  let value = 0;
  let out = '';
  for (const b of bytes) {
    value = (value << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += alphabet[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += alphabet[(value << (5 - bits)) & 31];
  return out;
}

/** The original's MicroTime: RFC 3339 with microseconds. */
function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class IdentityLeaseController {
  readonly name: string;
  readonly #opts: IdentityLeaseOptions;
  readonly #leases: ResourceType;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;

  constructor(opts: IdentityLeaseOptions) {
    this.#opts = opts;
    const leases = opts.registry.lookup(apiGroup('coordination'), 'v1', 'leases');
    if (leases === undefined) throw new Error('leases are not served');
    this.#leases = leases;
    this.#now = opts.now ?? Date.now;
    this.name = identityLeaseName(opts.hostname, opts.advertiseAddress, opts.securePort);
  }

  /** Renews now, then every renew interval (with the garbage collection of expired leases). */
  async start(): Promise<void> {
    await this.tick();
    this.#timer = setInterval(() => {
      if (this.#running !== null) return;
      this.#running = this.tick()
        .catch((err: unknown) => this.#opts.log.warn({ err: err instanceof Error ? err.message : String(err) }, 'could not renew the identity lease'))
        .finally(() => (this.#running = null));
    }, this.#opts.renewIntervalMs);
    this.#timer.unref();
  }

  /** Stops renewing and deletes this server's lease, so peers drop its endpoint at once. */
  async stop(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    await this.#running;
    try {
      await this.#opts.store.delete(this.#leases, names.systemNamespace, this.name, { ...WRITE });
    } catch (err) {
      if (!(err instanceof StatusError)) throw err;
    }
  }

  /** One pass: renew ours, delete others' expired leases, then the after-renew hook. */
  async tick(): Promise<void> {
    await this.#renew();
    await this.#collect();
    await this.#opts.afterRenew?.();
  }

  /** The endpoints of every server whose identity lease is live, sorted (ours included once renewed). */
  async liveEndpoints(): Promise<ServerEndpoint[]> {
    const now = this.#now();
    const out: ServerEndpoint[] = [];
    for (const lease of await this.#identityLeases()) {
      if (expired(lease, now)) continue;
      const at = lease.metadata.annotations?.[names.identityLease.endpointAnnotation];
      const ep = at === undefined ? null : parseEndpoint(at);
      if (ep !== null) out.push(ep);
    }
    return out.sort((a, b) => a.port - b.port || (a.ip < b.ip ? -1 : a.ip > b.ip ? 1 : 0));
  }

  async #identityLeases(): Promise<KObject[]> {
    const reply = await this.#opts.store.list(this.#leases, { kind: 'latest' }, { namespace: names.systemNamespace, labelSelector: `${names.identityLease.label}=${names.identityLease.labelValue}` }, {});
    const text = new TextDecoder().decode(reply.items);
    return text === '' ? [] : (JSON.parse(`[${text}]`) as KObject[]);
  }

  #want(cur: KObject | null): KObject {
    const now = microTime(this.#now());
    const spec = (cur?.['spec'] ?? {}) as Record<string, unknown>;
    return {
      ...(cur ?? {}),
      apiVersion: this.#leases.apiVersion,
      kind: 'Lease',
      metadata: {
        ...(cur?.metadata ?? {}),
        name: this.name,
        namespace: names.systemNamespace,
        labels: { ...(cur?.metadata.labels ?? {}), [names.identityLease.label]: names.identityLease.labelValue, [names.labels.hostname]: this.#opts.hostname },
        annotations: { ...(cur?.metadata.annotations ?? {}), [names.identityLease.endpointAnnotation]: formatEndpoint(this.#opts.advertiseAddress, this.#opts.securePort) },
      },
      spec: {
        ...spec,
        holderIdentity: this.name,
        leaseDurationSeconds: this.#opts.durationSeconds,
        renewTime: now,
        ...(cur === null || spec['acquireTime'] === undefined ? { acquireTime: now } : {}),
      },
    };
  }

  async #renew(): Promise<void> {
    const store = this.#opts.store;
    const cur = await store.getObject(this.#leases, names.systemNamespace, this.name, { kind: 'latest' });
    try {
      if (cur === null) await store.create(this.#leases, names.systemNamespace, this.#want(null), WRITE);
      else await store.update(this.#leases, names.systemNamespace, this.name, this.#want(cur.obj), WRITE);
    } catch (err) {
      // A concurrent write (our own previous pass, or a restart's): the next tick renews.
      if (err instanceof StatusError && (err.code === 409 || err.code === 422)) return;
      throw err;
    }
  }

  /** Deletes other servers' identity leases past renewTime + leaseDurationSeconds (CAS on their resourceVersion). */
  async #collect(): Promise<void> {
    const now = this.#now();
    for (const lease of await this.#identityLeases()) {
      if (lease.metadata.name === this.name || !expired(lease, now)) continue;
      try {
        await this.#opts.store.delete(this.#leases, names.systemNamespace, lease.metadata.name!, { ...WRITE, preconditions: { resourceVersion: lease.metadata.resourceVersion } });
      } catch (err) {
        // Renewed meanwhile (409) or collected by another server (404).
        if (!(err instanceof StatusError && (err.code === 404 || err.code === 409))) throw err;
      }
    }
  }
}

function expired(lease: KObject, now: number): boolean {
  const spec = (lease['spec'] ?? {}) as { renewTime?: unknown; leaseDurationSeconds?: unknown };
  const renew = typeof spec.renewTime === 'string' ? Date.parse(spec.renewTime) : NaN;
  const duration = typeof spec.leaseDurationSeconds === 'number' ? spec.leaseDurationSeconds : NaN;
  // A lease without a readable renew time or duration counts as expired: nothing keeps it alive.
  if (!Number.isFinite(renew) || !Number.isFinite(duration)) return true;
  return renew + duration * 1000 < now;
}

function formatEndpoint(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

function parseEndpoint(text: string): ServerEndpoint | null {
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([0-9.]+)):(\d{1,5})$/.exec(text);
  if (m === null) return null;
  const port = Number(m[3]);
  if (port < 1 || port > 65535) return null;
  return { ip: (m[1] ?? m[2])!, port };
}
