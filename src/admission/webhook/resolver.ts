/**
 * A webhook's Service reference to an address: the Service's port (by its
 * number), then a ready address of its Endpoints for that port (by the
 * port's name), else of its EndpointSlices; an ExternalName service is its
 * external name. Read from the watch caches (AdmissionLookup), never the store.
 */
import type { AdmissionLookup } from '../lookup.ts';
import type { KObject } from '../../registry/object.ts';
import { names } from '../../naming/index.ts';
import { apiGroup } from '../../naming/index.ts';

export interface ServiceResolver {
  resolve(namespace: string, name: string, port: number): Promise<{ host: string; port: number }>;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): Obj[] => (Array.isArray(v) ? v.filter(isObj) : []);

function pick<T>(xs: readonly T[]): T {
  return xs[Math.floor(Math.random() * xs.length)]!;
}

export class EndpointServiceResolver implements ServiceResolver {
  readonly #lookup: AdmissionLookup;

  constructor(lookup: AdmissionLookup) {
    this.#lookup = lookup;
  }

  async resolve(namespace: string, name: string, port: number): Promise<{ host: string; port: number }> {
    const services = this.#lookup.type('', 'v1', 'services');
    if (services === undefined) throw new Error(`services "${name}" not found`);
    const svc = await this.#lookup.get(services, namespace, name);
    if (svc === null) throw new Error(`services "${name}" not found`);
    const spec = isObj(svc['spec']) ? svc['spec'] : {};
    if (spec['type'] === 'ExternalName' && typeof spec['externalName'] === 'string') return { host: spec['externalName'], port };
    const svcPort = list(spec['ports']).find((p) => p['port'] === port);
    if (svcPort === undefined) throw new Error(`no service port ${port} found for service "${name}"`);
    const portName = typeof svcPort['name'] === 'string' ? svcPort['name'] : '';
    const fromEndpoints = await this.#fromEndpoints(namespace, name, portName);
    const found = fromEndpoints ?? (await this.#fromSlices(namespace, name, portName));
    if (found === undefined) throw new Error(`no endpoints available for service "${name}"`);
    return found;
  }

  async #fromEndpoints(namespace: string, name: string, portName: string): Promise<{ host: string; port: number } | undefined> {
    const rt = this.#lookup.type('', 'v1', 'endpoints');
    if (rt === undefined) return undefined;
    const ep: KObject | null = await this.#lookup.get(rt, namespace, name);
    if (ep === null) return undefined;
    const candidates: Array<{ host: string; port: number }> = [];
    for (const subset of list(ep['subsets'])) {
      const p = list(subset['ports']).find((x) => (x['name'] ?? '') === portName);
      if (p === undefined || typeof p['port'] !== 'number') continue;
      for (const a of list(subset['addresses'])) if (typeof a['ip'] === 'string') candidates.push({ host: a['ip'], port: p['port'] });
    }
    return candidates.length === 0 ? undefined : pick(candidates);
  }

  async #fromSlices(namespace: string, name: string, portName: string): Promise<{ host: string; port: number } | undefined> {
    const rt = this.#lookup.type(apiGroup('discovery'), 'v1', 'endpointslices');
    if (rt === undefined) return undefined;
    const slices = await this.#lookup.list(rt, namespace, `${names.labels.serviceName}=${name}`);
    const candidates: Array<{ host: string; port: number }> = [];
    for (const slice of slices) {
      const p = list(slice['ports']).find((x) => (x['name'] ?? '') === portName);
      if (p === undefined || typeof p['port'] !== 'number') continue;
      for (const e of list(slice['endpoints'])) {
        const cond = isObj(e['conditions']) ? e['conditions'] : {};
        if (cond['ready'] === false) continue;
        for (const a of Array.isArray(e['addresses']) ? e['addresses'] : []) if (typeof a === 'string') candidates.push({ host: a, port: p['port'] });
      }
    }
    return candidates.length === 0 ? undefined : pick(candidates);
  }
}
