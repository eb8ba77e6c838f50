/**
 * ServiceAllocators: the write hooks that give Services their cluster IPs
 * (one per IP family the service asks for), node ports and health check node
 * port, and take them back on delete and type changes (the original's
 * registry/core/service/storage/alloc.go). The IP family fields are
 * defaulted here because they depend on the cluster: which families
 * --service-cluster-ip-range configures, and which comes first.
 */
import { errors } from '../../api/status.ts';
import type { KObject } from '../object.ts';
import type { FieldError, StrategyContext } from '../strategy.ts';
import { fieldErrors } from '../strategy.ts';
import { goStringSlice, invalidShown } from '../validation/go-values.ts';
import type { WriteHooks, WriteTransaction } from '../write-hooks.ts';
import { arr, num, obj, type JsonObject } from '../strategies/util.ts';
import { isHeadless, needsClusterIP, needsHealthCheckNodePort, needsNodePort, validateClusterIPsRelatedFields } from '../strategies/services.ts';
import { familyOf, type IPFamily } from './ip.ts';
import { AllocationError } from './ranges.ts';
import type { StoredRange } from './stored-range.ts';
import { AllocationTransaction, type ReleaseFailure } from './transaction.ts';

export interface ServiceAllocatorsOptions {
  /** One range per family; the first is the cluster's default family. */
  ipRanges: readonly StoredRange<string>[];
  nodePorts: StoredRange<number>;
  onReleaseFailure?: ReleaseFailure;
}

type Spec = JsonObject;

function specOf(svc: KObject): Spec {
  return obj(svc['spec']) ?? {};
}

function invalid(svc: KObject, errs: FieldError[]): Error {
  return errors.invalid('', 'Service', svc.metadata.name ?? '', errs.map((e) => ({ reason: e.type, message: e.message, field: e.field })));
}

function strings(v: unknown): string[] {
  return arr(v).map((x) => String(x));
}

function sameList(a: unknown, b: unknown): boolean {
  return JSON.stringify(strings(a)) === JSON.stringify(strings(b));
}

function selectorless(spec: Spec): boolean {
  return Object.keys(obj(spec['selector']) ?? {}).length === 0;
}

function shouldAllocateNodePorts(spec: Spec): boolean {
  if (spec['type'] === 'NodePort') return true;
  return spec['type'] === 'LoadBalancer' && spec['allocateLoadBalancerNodePorts'] !== false;
}

/** Every node port the service holds (port entries and the health check port). */
function nodePortsOf(spec: Spec): number[] {
  return arr(spec['ports']).map((p) => num(obj(p)?.['nodePort']) ?? 0).filter((n) => n !== 0);
}

function otherFamily(f: IPFamily): IPFamily {
  return f === 'IPv4' ? 'IPv6' : 'IPv4';
}

export class ServiceAllocators implements WriteHooks {
  readonly #byFamily = new Map<IPFamily, StoredRange<string>>();
  readonly #defaultFamily: IPFamily;
  readonly #nodePorts: StoredRange<number>;
  readonly #onReleaseFailure: ReleaseFailure;

  constructor(opts: ServiceAllocatorsOptions) {
    for (const r of opts.ipRanges) {
      const family = familyOf(r.range.valueAt(0));
      if (family !== undefined) this.#byFamily.set(family, r);
    }
    const first = opts.ipRanges[0];
    this.#defaultFamily = first === undefined ? 'IPv4' : (familyOf(first.range.valueAt(0)) ?? 'IPv4');
    this.#nodePorts = opts.nodePorts;
    this.#onReleaseFailure = opts.onReleaseFailure ?? (() => undefined);
  }

  async beginCreate(svc: KObject, ctx: StrategyContext): Promise<WriteTransaction> {
    const spec = specOf(svc);
    this.#initIPFamilyFields(svc, spec, undefined);
    const txn = new AllocationTransaction(ctx.dryRun, this.#onReleaseFailure);
    try {
      await this.#allocClusterIPs(svc, spec, txn);
      await this.#allocNodePorts(svc, spec, undefined, txn);
      if (needsHealthCheckNodePort(spec)) await this.#allocHealthCheckNodePort(spec, txn);
    } catch (err) {
      await txn.revert();
      throw err;
    }
    return txn;
  }

  async beginUpdate(svc: KObject, old: KObject, ctx: StrategyContext): Promise<WriteTransaction> {
    const spec = specOf(svc);
    const oldSpec = specOf(old);
    this.#initIPFamilyFields(svc, spec, oldSpec);
    const txn = new AllocationTransaction(ctx.dryRun, this.#onReleaseFailure);
    try {
      await this.#updateClusterIPs(svc, spec, oldSpec, txn);
      if (needsNodePort(oldSpec) && !needsNodePort(spec)) {
        for (const p of nodePortsOf(oldSpec)) txn.releaseOnCommit(this.#nodePorts, p);
      }
      if (needsNodePort(spec)) await this.#allocNodePorts(svc, spec, oldSpec, txn);
      const had = needsHealthCheckNodePort(oldSpec);
      const needs = needsHealthCheckNodePort(spec);
      if (!had && needs) await this.#allocHealthCheckNodePort(spec, txn);
      else if (had && !needs) {
        const port = num(oldSpec['healthCheckNodePort']) ?? 0;
        if (port !== 0) txn.releaseOnCommit(this.#nodePorts, port);
      }
    } catch (err) {
      await txn.revert();
      throw err;
    }
    return txn;
  }

  async afterDelete(svc: KObject): Promise<void> {
    const spec = specOf(svc);
    const txn = new AllocationTransaction(false, this.#onReleaseFailure);
    if (needsClusterIP(spec) && !isHeadless(spec)) {
      for (const ip of strings(spec['clusterIPs'])) {
        const range = this.#byFamily.get(familyOf(ip) ?? 'IPv4');
        if (range !== undefined) txn.releaseOnCommit(range, ip);
      }
    }
    for (const p of nodePortsOf(spec)) txn.releaseOnCommit(this.#nodePorts, p);
    const hc = num(spec['healthCheckNodePort']) ?? 0;
    if (needsHealthCheckNodePort(spec) && hc !== 0) txn.releaseOnCommit(this.#nodePorts, hc);
    await txn.commit();
  }

  // ---- IP families ----

  /** initIPFamilyFields: default ipFamilyPolicy and ipFamilies from the cluster and check what was asked. */
  #initIPFamilyFields(svc: KObject, spec: Spec, oldSpec: Spec | undefined): void {
    if (!needsClusterIP(spec)) return;
    if (oldSpec !== undefined && this.#matchingPreferDualStack(spec, oldSpec)) return;
    const headlessSelectorless = spec['clusterIP'] === 'None' && selectorless(spec);
    if (spec['ipFamilyPolicy'] === undefined || spec['ipFamilyPolicy'] === null) {
      if (oldSpec !== undefined && typeof oldSpec['ipFamilyPolicy'] === 'string') spec['ipFamilyPolicy'] = oldSpec['ipFamilyPolicy'];
      else spec['ipFamilyPolicy'] = headlessSelectorless ? 'RequireDualStack' : 'SingleStack';
    }
    const pre = validateClusterIPsRelatedFields(spec);
    if (pre.length > 0) throw invalid(svc, pre);
    const policy = spec['ipFamilyPolicy'];
    const errs: FieldError[] = [];
    if (oldSpec !== undefined) {
      if (policy === 'SingleStack') {
        if (sameList(spec['clusterIPs'], oldSpec['clusterIPs']) && arr(spec['clusterIPs']).length > 1) spec['clusterIPs'] = arr(spec['clusterIPs']).slice(0, 1);
        if (sameList(spec['ipFamilies'], oldSpec['ipFamilies']) && arr(spec['ipFamilies']).length > 1) spec['ipFamilies'] = arr(spec['ipFamilies']).slice(0, 1);
      } else {
        const reduced = (k: string): boolean => arr(spec[k]).length > 0 && arr(spec[k]).length < arr(oldSpec[k]).length;
        if (reduced('clusterIPs')) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary cluster IP"));
        if (reduced('ipFamilies')) errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'SingleStack' to release the secondary IP family"));
      }
    }
    if (policy === 'SingleStack') {
      if (arr(spec['clusterIPs']).length === 2) {
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"));
      }
      if (arr(spec['ipFamilies']).length === 2) {
        errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"));
      }
    }
    // Families follow from the IPs asked for.
    const ips = strings(spec['clusterIPs']);
    const families = strings(spec['ipFamilies']);
    for (let i = 0; i < ips.length && ips[i] !== 'None'; i++) {
      if (i < families.length) continue;
      const fam = familyOf(ips[i]!)!;
      if (!this.#byFamily.has(fam)) errs.push(invalidShown(`spec.clusterIPs[${i}]`, goStringSlice(ips), `${fam} is not configured on this cluster`));
      else families.push(fam);
    }
    if (errs.length > 0) throw invalid(svc, errs);
    if (families.length > 0) spec['ipFamilies'] = families;
    if (headlessSelectorless) {
      if (families.length === 0) families.push(this.#defaultFamily);
      if (families.length < 2 && policy !== 'SingleStack') families.push(otherFamily(families[0] as IPFamily));
      spec['ipFamilies'] = families;
      return;
    }
    if (policy === 'RequireDualStack' && this.#byFamily.size < 2) {
      errs.push(fieldErrors.invalid('spec.ipFamilyPolicy', policy, 'this cluster is not configured for dual-stack services'));
    }
    families.forEach((f, i) => {
      if (!this.#byFamily.has(f as IPFamily)) errs.push(fieldErrors.invalid(`spec.ipFamilies[${i}]`, f, 'not configured on this cluster'));
    });
    if (errs.length > 0) throw invalid(svc, errs);
    if (families.length === 0) families.push(this.#defaultFamily);
    if (policy !== 'SingleStack' && families.length === 1 && this.#byFamily.size === 2) families.push(otherFamily(families[0] as IPFamily));
    spec['ipFamilies'] = families;
  }

  /** isMatchingPreferDualStackClusterIPFields: a PreferDualStack service that changed none of these stays as it is. */
  #matchingPreferDualStack(spec: Spec, old: Spec): boolean {
    if (spec['ipFamilyPolicy'] === undefined || spec['ipFamilyPolicy'] === null) return false;
    if (spec['type'] !== old['type'] || !needsClusterIP(spec)) return false;
    if (spec['ipFamilyPolicy'] !== 'PreferDualStack' || (old['ipFamilyPolicy'] !== undefined && old['ipFamilyPolicy'] !== 'PreferDualStack')) return false;
    return sameList(spec['clusterIPs'], old['clusterIPs']) && sameList(spec['ipFamilies'], old['ipFamilies']);
  }

  // ---- cluster IPs ----

  /** Fills clusterIPs (one per family in ipFamilies), honouring IPs asked for. */
  async #allocClusterIPs(svc: KObject, spec: Spec, txn: AllocationTransaction, from = 0): Promise<void> {
    if (!needsClusterIP(spec) || isHeadless(spec)) return;
    const families = strings(spec['ipFamilies']);
    const ips = strings(spec['clusterIPs']);
    for (let i = from; i < families.length; i++) {
      const range = this.#byFamily.get(families[i] as IPFamily)!;
      const wanted = ips[i] ?? '';
      try {
        ips[i] = await txn.take(range, wanted === '' ? undefined : wanted);
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        if (err.kind === 'Full') throw errors.internal(`failed to allocate a serviceIP: ${err.message}`);
        throw invalid(svc, [invalidShown('spec.clusterIPs', goStringSlice(spec['clusterIPs'] ?? []), `failed to allocate IP ${wanted}: ${err.message}`)]);
      }
    }
    spec['clusterIPs'] = ips;
    spec['clusterIP'] = ips[0];
  }

  /** updateClusterIPs: type changes to and from ExternalName, dual-stack upgrade and downgrade. */
  async #updateClusterIPs(svc: KObject, spec: Spec, old: Spec, txn: AllocationTransaction): Promise<void> {
    if (this.#matchingPreferDualStack(spec, old)) return;
    if (!needsClusterIP(old) && needsClusterIP(spec)) {
      await this.#allocClusterIPs(svc, spec, txn);
      return;
    }
    if (isHeadless(old)) return;
    const oldIPs = strings(old['clusterIPs']);
    if (needsClusterIP(old) && !needsClusterIP(spec)) {
      for (const ip of oldIPs) {
        const range = this.#byFamily.get(familyOf(ip) ?? 'IPv4');
        if (range !== undefined) txn.releaseOnCommit(range, ip);
      }
      return;
    }
    const oldFamilies = arr(old['ipFamilies']).length;
    const newFamilies = arr(spec['ipFamilies']).length;
    if (oldFamilies === 1 && newFamilies === 2) {
      await this.#allocClusterIPs(svc, spec, txn, 1);
    } else if (oldFamilies === 2 && newFamilies === 1 && oldIPs[1] !== undefined) {
      const range = this.#byFamily.get(familyOf(oldIPs[1]) ?? 'IPv6');
      if (range !== undefined) txn.releaseOnCommit(range, oldIPs[1]);
    }
  }

  // ---- node ports ----

  /**
   * initNodePorts / updateNodePorts: every port gets a node port (the same
   * one for ports sharing a number); ports asked for are reserved unless the
   * old object already held them; old ones no longer used are freed on commit.
   */
  async #allocNodePorts(svc: KObject, spec: Spec, old: Spec | undefined, txn: AllocationTransaction): Promise<void> {
    if (!needsNodePort(spec)) return;
    const held = new Set(old === undefined || !needsNodePort(old) ? [] : nodePortsOf(old));
    const byServicePort = new Map<number, number>();
    const reserved = new Set<number>();
    const ports = arr(spec['ports']);
    for (let i = 0; i < ports.length; i++) {
      const port = obj(ports[i]);
      if (port === undefined) continue;
      let nodePort = num(port['nodePort']) ?? 0;
      if (nodePort === 0 && !shouldAllocateNodePorts(spec)) continue;
      const servicePort = num(port['port']) ?? 0;
      if (nodePort === 0) {
        // A port sharing its number with another (TCP and UDP) shares its node port.
        nodePort = byServicePort.get(servicePort) ?? requestedNodePort(ports, servicePort);
      }
      const wanted = nodePort;
      try {
        if (wanted === 0) nodePort = await txn.take(this.#nodePorts, undefined);
        else if (!held.has(wanted) && !reserved.has(wanted)) await txn.take(this.#nodePorts, wanted);
      } catch (err) {
        if (!(err instanceof AllocationError)) throw err;
        if (err.kind === 'Full') throw errors.internal(`failed to allocate a nodePort: ${err.message}`);
        throw invalid(svc, [fieldErrors.invalid(`spec.ports[${i}].nodePort`, wanted, err.message)]);
      }
      reserved.add(nodePort);
      byServicePort.set(servicePort, nodePort);
      port['nodePort'] = nodePort;
    }
    if (old !== undefined && needsNodePort(old)) {
      const now = new Set(nodePortsOf(spec));
      for (const p of held) if (!now.has(p)) txn.releaseOnCommit(this.#nodePorts, p);
    }
  }

  async #allocHealthCheckNodePort(spec: Spec, txn: AllocationTransaction): Promise<void> {
    const wanted = num(spec['healthCheckNodePort']) ?? 0;
    try {
      spec['healthCheckNodePort'] = await txn.take(this.#nodePorts, wanted === 0 ? undefined : wanted);
    } catch (err) {
      if (!(err instanceof AllocationError)) throw err;
      throw errors.internal(
        wanted === 0 ? `failed to allocate a HealthCheck NodePort 0: ${err.message}` : `failed to allocate requested HealthCheck NodePort ${wanted}: ${err.message}`,
      );
    }
  }
}

/** findRequestedNodePort: a node port some entry with this service port asked for. */
function requestedNodePort(ports: unknown[], servicePort: number): number {
  for (const p of ports) {
    const o = obj(p);
    if (o !== undefined && num(o['port']) === servicePort && (num(o['nodePort']) ?? 0) !== 0) return num(o['nodePort'])!;
  }
  return 0;
}


