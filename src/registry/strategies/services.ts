/**
 * Services: defaults (SetDefaults_Service and the IP family fields the
 * original's service REST fills), the values an update may omit and keep
 * (clusterIP, nodePorts), the fields a type change drops, and the commonly
 * hit validation. Cluster IPs, node ports and the IP family fields that
 * depend on the cluster's configuration are filled by the allocator
 * (src/registry/service-allocation), never here.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goStringSlice, invalidShown } from '../validation/go-values.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum } from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { familyOf } from '../service-allocation/ip.ts';
import { arr, isMainResource, num, obj, setDefault, specOf, str, type JsonObject } from './util.ts';
import { pushAll } from '../../api/push-all.ts';

/** A client value as text for comparisons and messages; never throws (String() does on `{"toString": ""}`). */
function textOf(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v) ?? '';
}

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10800;
const KUBELET_PORT = 10250;
const IP_FAMILIES = ['IPv4', 'IPv6'];
const IP_FAMILY_POLICIES = ['PreferDualStack', 'RequireDualStack', 'SingleStack'];

function type(spec: JsonObject): string {
  return str(spec['type']) ?? '';
}

export function needsClusterIP(spec: JsonObject): boolean {
  return type(spec) !== 'ExternalName';
}

export function needsNodePort(spec: JsonObject): boolean {
  return type(spec) === 'NodePort' || type(spec) === 'LoadBalancer';
}

/** apiservice.NeedsHealthCheck: a LoadBalancer with externalTrafficPolicy Local gets a health check node port. */
export function needsHealthCheckNodePort(spec: JsonObject): boolean {
  return type(spec) === 'LoadBalancer' && spec['externalTrafficPolicy'] === 'Local';
}

export function isHeadless(spec: JsonObject): boolean {
  const ips = arr(spec['clusterIPs']);
  return ips.length > 0 ? ips[0] === 'None' : spec['clusterIP'] === 'None';
}

/** clusterIP and clusterIPs say the same thing; whichever the client set fills the other. */
function normalizeClusterIPs(spec: JsonObject): void {
  const ip = str(spec['clusterIP']) ?? '';
  const ips = arr(spec['clusterIPs']);
  if (ip !== '' && ips.length === 0) spec['clusterIPs'] = [ip];
  else if (ip === '' && ips.length > 0 && typeof ips[0] === 'string') spec['clusterIP'] = ips[0];
}

/** SetDefaults_Service. */
export function defaultServiceSpec(spec: JsonObject): void {
  setDefault(spec, 'sessionAffinity', 'None');
  if (spec['sessionAffinity'] === 'None') delete spec['sessionAffinityConfig'];
  if (spec['sessionAffinity'] === 'ClientIP') {
    const timeout = obj(obj(obj(spec['sessionAffinityConfig'])?.['clientIP']))?.['timeoutSeconds'];
    if (timeout === undefined || timeout === null) {
      spec['sessionAffinityConfig'] = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT_SECONDS } };
    }
  }
  setDefault(spec, 'type', 'ClusterIP');
  for (const raw of arr(spec['ports'])) {
    const port = obj(raw);
    if (!port) continue;
    setDefault(port, 'protocol', 'TCP');
    const target = port['targetPort'];
    if (target === undefined || target === null || target === 0 || target === '') port['targetPort'] = port['port'];
  }
  const t = type(spec);
  const externallyAccessible = t === 'LoadBalancer' || t === 'NodePort' || (t === 'ClusterIP' && arr(spec['externalIPs']).length > 0);
  if (externallyAccessible) setDefault(spec, 'externalTrafficPolicy', 'Cluster');
  if (t === 'NodePort' || t === 'LoadBalancer' || t === 'ClusterIP') setDefault(spec, 'internalTrafficPolicy', 'Cluster');
  if (t === 'LoadBalancer') setDefault(spec, 'allocateLoadBalancerNodePorts', true);
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
}

function nodePortsOf(spec: JsonObject): number[] {
  return arr(spec['ports']).map((p) => num(obj(p)?.['nodePort']) ?? 0);
}

/**
 * dropTypeDependentFields: a type change wipes what the old type had
 * allocated or defaulted (cluster IPs, IP families, node ports, the health
 * check port, ...) unless the client changed that field too (then
 * validation judges it). The allocator releases what was wiped.
 */
function dropTypeDependentFields(spec: JsonObject, old: JsonObject): void {
  if (needsClusterIP(old) && !needsClusterIP(spec)) {
    if (sameJson(spec['clusterIPs'], old['clusterIPs'])) {
      delete spec['clusterIP'];
      delete spec['clusterIPs'];
    }
    if (sameJson(spec['ipFamilies'], old['ipFamilies'])) delete spec['ipFamilies'];
    if (sameJson(spec['ipFamilyPolicy'], old['ipFamilyPolicy'])) delete spec['ipFamilyPolicy'];
  }
  if (needsNodePort(old) && !needsNodePort(spec) && sameJson(nodePortsOf(spec), nodePortsOf(old))) {
    for (const p of arr(spec['ports'])) if (obj(p)) delete (p as JsonObject)['nodePort'];
  }
  if (needsHealthCheckNodePort(old) && !needsHealthCheckNodePort(spec) && sameJson(spec['healthCheckNodePort'], old['healthCheckNodePort'])) {
    delete spec['healthCheckNodePort'];
  }
  if (type(old) === 'LoadBalancer' && type(spec) !== 'LoadBalancer') {
    if (spec['allocateLoadBalancerNodePorts'] !== undefined && spec['allocateLoadBalancerNodePorts'] === old['allocateLoadBalancerNodePorts']) {
      delete spec['allocateLoadBalancerNodePorts'];
    }
    if (sameJson(spec['loadBalancerClass'], old['loadBalancerClass'])) delete spec['loadBalancerClass'];
  }
  const externalPolicy = (s: JsonObject): boolean => type(s) === 'LoadBalancer' || type(s) === 'NodePort';
  if (externalPolicy(old) && !externalPolicy(spec) && arr(spec['externalIPs']).length === 0 && spec['externalTrafficPolicy'] === old['externalTrafficPolicy']) {
    delete spec['externalTrafficPolicy'];
  }
}

/** patchAllocatedValues: an update may leave out what the server allocated; it is kept. */
function keepAllocated(spec: JsonObject, old: JsonObject): void {
  if (needsClusterIP(old) && needsClusterIP(spec)) {
    if (str(old['clusterIP'])) setDefault(spec, 'clusterIP', old['clusterIP']);
    if (arr(spec['clusterIPs']).length === 0 && arr(old['clusterIPs']).length > 0) spec['clusterIPs'] = old['clusterIPs'];
    if (spec['ipFamilyPolicy'] === undefined && old['ipFamilyPolicy'] !== undefined) spec['ipFamilyPolicy'] = old['ipFamilyPolicy'];
    if (arr(spec['ipFamilies']).length === 0 && arr(old['ipFamilies']).length > 0) spec['ipFamilies'] = old['ipFamilies'];
  }
  if (needsNodePort(old) && needsNodePort(spec)) {
    const nodePorts = (s: JsonObject): Set<number> => new Set(arr(s['ports']).map((p) => num(obj(p)?.['nodePort']) ?? 0).filter((n) => n !== 0));
    const newPorts = nodePorts(spec);
    const used = new Set([...nodePorts(old)].filter((n) => newPorts.has(n)));
    // By port name: the client may have changed other properties of the port.
    const byName = new Map<string, number>();
    for (const p of arr(old['ports'])) byName.set(str(obj(p)?.['name']) ?? '', num(obj(p)?.['nodePort']) ?? 0);
    for (const raw of arr(spec['ports'])) {
      const p = obj(raw);
      if (!p || (num(p['nodePort']) ?? 0) !== 0) continue;
      const prev = byName.get(str(p['name']) ?? '') ?? 0;
      if (prev !== 0 && !used.has(prev)) p['nodePort'] = prev;
    }
  }
  if (type(old) === 'LoadBalancer' && type(spec) === 'LoadBalancer' && spec['externalTrafficPolicy'] === 'Local') {
    if ((num(spec['healthCheckNodePort']) ?? 0) === 0 && old['healthCheckNodePort'] !== undefined) spec['healthCheckNodePort'] = old['healthCheckNodePort'];
  }
}

function validateTargetPort(value: unknown, path: string): FieldError[] {
  if (typeof value === 'number') return isValidPortNum(value).map((msg) => fieldErrors.invalid(path, value, msg));
  if (typeof value === 'string') return isValidPortName(value).map((msg) => fieldErrors.invalid(path, value, msg));
  return [];
}

function validateServicePort(port: JsonObject, requireName: boolean, names: Set<string>, path: string): FieldError[] {
  const errs: FieldError[] = [];
  const name = str(port['name']) ?? '';
  if (requireName && name === '') {
    errs.push(fieldErrors.required(`${path}.name`));
  } else if (name !== '') {
    for (const msg of isDNS1123Label(name)) errs.push(fieldErrors.invalid(`${path}.name`, name, msg));
    if (names.has(name)) errs.push(fieldErrors.duplicate(`${path}.name`, name));
    else names.add(name);
  }
  const p = num(port['port']) ?? 0;
  for (const msg of isValidPortNum(p)) errs.push(fieldErrors.invalid(`${path}.port`, p, msg));
  const protocol = port['protocol'];
  if (protocol === undefined || protocol === '') errs.push(fieldErrors.required(`${path}.protocol`));
  else if (!PROTOCOLS.includes(textOf(protocol))) errs.push(fieldErrors.notSupported(`${path}.protocol`, protocol, PROTOCOLS));
  pushAll(errs, validateTargetPort(port['targetPort'], `${path}.targetPort`));
  const appProtocol = str(port['appProtocol']);
  if (appProtocol !== undefined) for (const msg of isQualifiedName(appProtocol)) errs.push(fieldErrors.invalid(`${path}.appProtocol`, appProtocol, msg));
  return errs;
}

/** ValidateService, the commonly hit part. */
export function validateServiceSpec(svc: KObject): FieldError[] {
  const errs: FieldError[] = [];
  const spec = specOf(svc);
  const t = type(spec);
  const ports = arr(spec['ports']);
  const headless = isHeadless(spec);
  // Names are DNS-1035 labels; the generic metadata check applies DNS-1123
  // label rules, so only the extra DNS-1035 rule (leading letter) is added.
  const name = svc.metadata.name ?? '';
  if (name !== '' && isDNS1123Label(name).length === 0) {
    for (const msg of isDNS1035Label(name)) errs.push(fieldErrors.invalid('metadata.name', name, msg));
  }
  if (ports.length === 0 && !headless && t !== 'ExternalName') errs.push(fieldErrors.required('spec.ports'));
  if (t === 'LoadBalancer') {
    ports.forEach((raw, i) => {
      if (obj(raw)?.['port'] === KUBELET_PORT) {
        errs.push(fieldErrors.invalid(`spec.ports[${i}]`, KUBELET_PORT, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`));
      }
    });
    if (headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for LoadBalancer services"));
  } else if (t === 'NodePort') {
    if (headless) errs.push(fieldErrors.invalid('spec.clusterIPs[0]', 'None', "may not be set to 'None' for NodePort services"));
  } else if (t === 'ExternalName') {
    if (arr(spec['clusterIPs']).length > 0) errs.push(fieldErrors.forbidden('spec.clusterIPs', 'may not be set for ExternalName services'));
    if (arr(spec['ipFamilies']).length > 0) errs.push(fieldErrors.forbidden('spec.ipFamilies', 'may not be set for ExternalName services'));
    if (spec['ipFamilyPolicy'] !== undefined && spec['ipFamilyPolicy'] !== null) {
      errs.push(fieldErrors.forbidden('spec.ipFamilyPolicy', 'may not be set for ExternalName services'));
    }
    // A CNAME may end in a dot to say it is fully qualified.
    const cname = (str(spec['externalName']) ?? '').replace(/\.$/, '');
    if (cname === '') errs.push(fieldErrors.required('spec.externalName'));
    else for (const msg of isDNS1123Subdomain(cname)) errs.push(fieldErrors.invalid('spec.externalName', cname, msg));
  }
  const names = new Set<string>();
  ports.forEach((raw, i) => pushAll(errs, validateServicePort(obj(raw) ?? {}, ports.length > 1, names, `spec.ports[${i}]`)));
  if (obj(spec['selector'])) pushAll(errs, validateLabels(obj(spec['selector']) as Record<string, string>, 'spec.selector'));
  const affinity = spec['sessionAffinity'];
  if (affinity === undefined || affinity === '') errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(textOf(affinity))) errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, SESSION_AFFINITIES));
  if (t === '') errs.push(fieldErrors.required('spec.type'));
  else if (!SERVICE_TYPES.includes(t)) errs.push(fieldErrors.notSupported('spec.type', t, SERVICE_TYPES));

  const nodePortKeys = new Set<string>();
  const portKeys = new Set<string>();
  ports.forEach((raw, i) => {
    const port = obj(raw) ?? {};
    const nodePort = num(port['nodePort']) ?? 0;
    if (nodePort !== 0) {
      if (t === 'ClusterIP') errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
      // The range (--service-node-port-range) is the allocator's to check.
      const key = `${textOf(port['protocol'])}/${nodePort}`;
      if (nodePortKeys.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, nodePort));
      nodePortKeys.add(key);
    }
    const key = `${textOf(port['protocol'])}/${textOf(port['port'])}`;
    if (portKeys.has(key)) {
      errs.push(fieldErrors.duplicate(`spec.ports[${i}]`, { port: port['port'], protocol: port['protocol'] }));
    }
    portKeys.add(key);
  });
  pushAll(errs, validateClusterIPsRelatedFields(spec));
  return errs;
}

/**
 * ValidateServiceClusterIPsRelatedFields: clusterIP and clusterIPs agree,
 * IPs are IPs (at most one per family), families and policy are known
 * values and match the IPs. What the cluster supports is the allocator's
 * to check.
 */
export function validateClusterIPsRelatedFields(spec: JsonObject): FieldError[] {
  if (type(spec) === 'ExternalName') return [];
  const errs: FieldError[] = [];
  const clusterIP = str(spec['clusterIP']) ?? '';
  const ips = arr(spec['clusterIPs']);
  const families = arr(spec['ipFamilies']);
  if (clusterIP !== '') {
    if (ips.length === 0) errs.push(fieldErrors.required('spec.clusterIPs'));
    else if (ips[0] !== clusterIP) errs.push(invalidShown('spec.clusterIPs', goStringSlice(ips), 'first value must match `clusterIP`'));
  } else if (ips.length > 0) {
    errs.push(invalidShown('spec.clusterIPs', goStringSlice(ips), 'must be empty when `clusterIP` is not specified'));
  }
  const seen = new Set<unknown>();
  families.forEach((f, i) => {
    if (!IP_FAMILIES.includes(textOf(f))) errs.push(fieldErrors.notSupported(`spec.ipFamilies[${i}]`, f, IP_FAMILIES));
    if (seen.has(f)) errs.push(fieldErrors.duplicate(`spec.ipFamilies[${i}]`, f));
    seen.add(f);
  });
  const policy = spec['ipFamilyPolicy'];
  if (policy !== undefined && policy !== null && !IP_FAMILY_POLICIES.includes(textOf(policy))) {
    errs.push(fieldErrors.notSupported('spec.ipFamilyPolicy', policy, IP_FAMILY_POLICIES));
  }
  let badIPs = false;
  ips.forEach((ip, i) => {
    if (i === 0 && ip === 'None') {
      if (ips.length > 1) {
        badIPs = true;
        errs.push(invalidShown('spec.clusterIPs', goStringSlice(ips), "'None' must be the first and only value"));
      }
      return;
    }
    if (typeof ip !== 'string' || familyOf(ip) === undefined) {
      badIPs = true;
      errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)'));
    }
  });
  if (ips.length > 2) errs.push(invalidShown('spec.clusterIPs', goStringSlice(ips), 'may only hold up to 2 values'));
  if (badIPs) return errs;
  if (ips.length === 2 && familyOf(textOf(ips[0])) === familyOf(textOf(ips[1]))) {
    errs.push(invalidShown('spec.clusterIPs', goStringSlice(ips), 'may specify no more than one IP for each IP family'));
  }
  if (!isHeadless(spec)) {
    ips.forEach((ip, i) => {
      if (i >= families.length) return;
      const fam = familyOf(textOf(ip));
      if (families[i] === 'IPv4' && fam === 'IPv6') errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv4 value as indicated by \`ipFamilies[${i}]\``));
      if (families[i] === 'IPv6' && fam !== 'IPv6') errs.push(fieldErrors.invalid(`spec.clusterIPs[${i}]`, ip, `expected an IPv6 value as indicated by \`ipFamilies[${i}]\``));
    });
  }
  return errs;
}

/** The primary cluster IP cannot change once set, except to or from ExternalName. */
function validateClusterIPUpdate(spec: JsonObject, old: JsonObject): FieldError[] {
  if (!needsClusterIP(spec) || !needsClusterIP(old)) return [];
  const oldIPs = arr(old['clusterIPs']);
  const newIPs = arr(spec['clusterIPs']);
  if (oldIPs.length > 0 && newIPs.length > 0 && oldIPs[0] !== newIPs[0]) {
    return [invalidShown('spec.clusterIPs[0]', goStringSlice(newIPs), 'may not change once set')];
  }
  return [];
}

export const serviceStrategy: Strategy = {
  returnDeletedObject: true,

  defaults(svc) {
    defaultServiceSpec(specOf(svc));
  },

  prepareForCreate(svc) {
    svc['status'] = { loadBalancer: {} };
    normalizeClusterIPs(specOf(svc));
  },

  prepareForUpdate(svc, old, ctx) {
    if (!isMainResource(ctx)) return;
    const spec = specOf(svc);
    const oldSpec = obj(old['spec']) ?? {};
    keepAllocated(spec, oldSpec);
    normalizeClusterIPs(spec);
    dropTypeDependentFields(spec, oldSpec);
  },

  validate(svc) {
    return validateServiceSpec(svc);
  },

  validateUpdate(svc, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateServiceSpec(svc), ...validateClusterIPUpdate(specOf(svc), obj(old['spec']) ?? {})];
  },
};
