/**
 * Services: defaults (SetDefaults_Service and the IP family fields the
 * original's service REST fills), the values an update may omit and keep
 * (clusterIP, nodePorts), and the commonly hit validation. Cluster IPs and
 * node ports are allocated by the registry, never here.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goStringSlice, invalidShown } from '../validation/go-values.ts';
import { isDNS1035Label, isDNS1123Label, isDNS1123Subdomain, isQualifiedName, isValidPortName, isValidPortNum } from '../validation/names.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { arr, isMainResource, num, obj, setDefault, specOf, str, type JsonObject } from './util.ts';

const SERVICE_TYPES = ['ClusterIP', 'ExternalName', 'LoadBalancer', 'NodePort'];
const SESSION_AFFINITIES = ['ClientIP', 'None'];
const PROTOCOLS = ['SCTP', 'TCP', 'UDP'];
const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10800;
/** The default --service-node-port-range. */
export const NODE_PORT_RANGE = { min: 30000, max: 32767 };
const KUBELET_PORT = 10250;

function type(spec: JsonObject): string {
  return str(spec['type']) ?? '';
}

function needsClusterIP(spec: JsonObject): boolean {
  return type(spec) !== 'ExternalName';
}

function needsNodePort(spec: JsonObject): boolean {
  return type(spec) === 'NodePort' || type(spec) === 'LoadBalancer';
}

function isHeadless(spec: JsonObject): boolean {
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

/**
 * The IP family fields the original's REST fills on a single-stack IPv4
 * cluster: none for ExternalName; headless services without a selector may
 * serve any family (RequireDualStack); others SingleStack IPv4.
 */
function defaultIPFamilies(spec: JsonObject): void {
  if (!needsClusterIP(spec)) return;
  const selectorless = Object.keys(obj(spec['selector']) ?? {}).length === 0;
  setDefault(spec, 'ipFamilyPolicy', isHeadless(spec) && selectorless ? 'RequireDualStack' : 'SingleStack');
  if (arr(spec['ipFamilies']).length === 0) spec['ipFamilies'] = ['IPv4'];
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
  else if (!PROTOCOLS.includes(String(protocol))) errs.push(fieldErrors.notSupported(`${path}.protocol`, protocol, PROTOCOLS));
  errs.push(...validateTargetPort(port['targetPort'], `${path}.targetPort`));
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
  ports.forEach((raw, i) => errs.push(...validateServicePort(obj(raw) ?? {}, ports.length > 1, names, `spec.ports[${i}]`)));
  if (obj(spec['selector'])) errs.push(...validateLabels(obj(spec['selector']) as Record<string, string>, 'spec.selector'));
  const affinity = spec['sessionAffinity'];
  if (affinity === undefined || affinity === '') errs.push(fieldErrors.required('spec.sessionAffinity'));
  else if (!SESSION_AFFINITIES.includes(String(affinity))) errs.push(fieldErrors.notSupported('spec.sessionAffinity', affinity, SESSION_AFFINITIES));
  if (t === '') errs.push(fieldErrors.required('spec.type'));
  else if (!SERVICE_TYPES.includes(t)) errs.push(fieldErrors.notSupported('spec.type', t, SERVICE_TYPES));

  const nodePortKeys = new Set<string>();
  const portKeys = new Set<string>();
  ports.forEach((raw, i) => {
    const port = obj(raw) ?? {};
    const nodePort = num(port['nodePort']) ?? 0;
    if (nodePort !== 0) {
      if (t === 'ClusterIP') errs.push(fieldErrors.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"));
      else if (nodePort < NODE_PORT_RANGE.min || nodePort > NODE_PORT_RANGE.max) {
        errs.push(
          fieldErrors.invalid(
            `spec.ports[${i}].nodePort`,
            nodePort,
            `provided port is not in the valid range. The range of valid ports is ${NODE_PORT_RANGE.min}-${NODE_PORT_RANGE.max}`,
          ),
        );
      }
      const key = `${String(port['protocol'])}/${nodePort}`;
      if (nodePortKeys.has(key)) errs.push(fieldErrors.duplicate(`spec.ports[${i}].nodePort`, nodePort));
      nodePortKeys.add(key);
    }
    const key = `${String(port['protocol'])}/${String(port['port'])}`;
    if (portKeys.has(key)) {
      errs.push(fieldErrors.duplicate(`spec.ports[${i}]`, { port: port['port'], protocol: port['protocol'] }));
    }
    portKeys.add(key);
  });
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

  prepareForCreate(svc) {
    svc['status'] = { loadBalancer: {} };
    const spec = specOf(svc);
    defaultServiceSpec(spec);
    normalizeClusterIPs(spec);
    defaultIPFamilies(spec);
  },

  prepareForUpdate(svc, old, ctx) {
    if (!isMainResource(ctx)) return;
    const spec = specOf(svc);
    defaultServiceSpec(spec);
    keepAllocated(spec, obj(old['spec']) ?? {});
    normalizeClusterIPs(spec);
    defaultIPFamilies(spec);
  },

  validate(svc) {
    return validateServiceSpec(svc);
  },

  validateUpdate(svc, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateServiceSpec(svc), ...validateClusterIPUpdate(specOf(svc), obj(old['spec']) ?? {})];
  },
};
