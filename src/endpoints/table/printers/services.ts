/**
 * Service networking: services, endpoints, endpoint slices, ingresses,
 * ingress classes and network policies (printService, printEndpoints, ...).
 * The server prints "wide", so load-balancer addresses are never clipped.
 */
import { AGE, NAME, column, text, wide } from '../columns.ts';
import { formatLabelSelector, formatLabels, listWithMore } from '../format.ts';
import { arr, int, metadataOf, obj, objs, optStr, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';
import { apiGroup } from '../../../naming/index.ts';

/** Distinct load-balancer IPs (else hostnames), sorted: loadBalancerStatusStringer with wide output. */
function loadBalancerAddresses(lbStatus: unknown): string {
  const found = new Set<string>();
  for (const ing of objs(obj(lbStatus)['ingress'])) {
    const ip = str(ing['ip']);
    const host = str(ing['hostname']);
    if (ip !== '') found.add(ip);
    else if (host !== '') found.add(host);
  }
  return [...found].sort().join(',');
}

function stringList(v: unknown): string[] {
  return arr(v).filter((x): x is string => typeof x === 'string');
}

function externalIP(spec: JsonObject, status: JsonObject): string {
  const externalIPs = stringList(spec['externalIPs']);
  switch (str(spec['type']) || 'ClusterIP') {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : '<none>';
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(status['loadBalancer']);
      if (externalIPs.length > 0) return [...(lb === '' ? [] : lb.split(',')), ...externalIPs].join(',');
      return lb !== '' ? lb : '<pending>';
    }
    case 'ExternalName':
      return str(spec['externalName']);
    default:
      return '<unknown>';
  }
}

/** `80/TCP,443:30443/TCP`. */
function ports(spec: JsonObject): string {
  const text = objs(spec['ports'])
    .map((p) => {
      const protocol = str(p['protocol']) || 'TCP';
      const nodePort = int(p['nodePort']);
      return nodePort > 0 ? `${int(p['port'])}:${nodePort}/${protocol}` : `${int(p['port'])}/${protocol}`;
    })
    .join(',');
  return text === '' ? '<none>' : text;
}

export const servicePrinter: Printer = {
  columns: [
    NAME,
    column('Type', 'string', 'ServiceSpec.type'),
    column('Cluster-IP', 'string', 'ServiceSpec.clusterIP'),
    column('External-IP', 'string', 'ServiceSpec.externalIPs'),
    column('Port(s)', 'string', 'ServiceSpec.ports'),
    AGE,
    wide('Selector', 'string', 'ServiceSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const clusterIP = stringList(spec['clusterIPs'])[0] ?? (str(spec['clusterIP']) || '<none>');
    return [
      str(meta['name']),
      str(spec['type']),
      clusterIP,
      externalIP(spec, obj(o['status'])),
      ports(spec),
      clock.since(meta['creationTimestamp']),
      formatLabels(spec['selector']),
    ];
  },
};

function hostPort(ip: string, port: number): string {
  return ip.includes(':') ? `[${ip}]:${port}` : `${ip}:${port}`;
}

/** formatEndpoints: up to three `ip:port` entries, then "+ N more...". */
function formatEndpoints(o: JsonObject): string {
  const subsets = objs(o['subsets']);
  if (subsets.length === 0) return '<none>';
  const max = 3;
  const list: string[] = [];
  let count = 0;
  for (const ss of subsets) {
    const addresses = objs(ss['addresses']);
    const subsetPorts = objs(ss['ports']);
    if (subsetPorts.length === 0) {
      // Headless services may have addresses without ports.
      count += addresses.length;
      for (const a of addresses) if (list.length < max) list.push(str(a['ip']));
      continue;
    }
    for (const p of subsetPorts) {
      count += addresses.length;
      for (const a of addresses) if (list.length < max) list.push(hostPort(str(a['ip']), int(p['port'])));
    }
  }
  const ret = list.join(',');
  return count > max ? `${ret} + ${count - max} more...` : ret;
}

export const endpointsPrinter: Printer = {
  columns: [NAME, column('Endpoints', 'string', 'Endpoints.subsets'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), formatEndpoints(o), clock.since(meta['creationTimestamp'])];
  },
};

export const endpointSlicePrinter: Printer = {
  columns: [
    NAME,
    column('AddressType', 'string', 'EndpointSlice.addressType'),
    column('Ports', 'string', 'EndpointSlice.ports'),
    column('Endpoints', 'string', 'EndpointSlice.endpoints'),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const portList = objs(o['ports']).map((p) => {
      if (typeof p['port'] === 'number') return String(int(p['port']));
      return optStr(p['name']) ?? '*';
    });
    const addresses = objs(o['endpoints']).flatMap((e) => stringList(e['addresses']));
    return [
      str(meta['name']),
      str(o['addressType']),
      listWithMore(portList, 3, portList.length, '<unset>'),
      listWithMore(addresses, 3, addresses.length, '<unset>'),
      clock.since(meta['creationTimestamp']),
    ];
  },
};

/** formatHosts: up to three rule hosts, `*` when no rule names one. */
function formatHosts(rules: JsonObject[]): string {
  const max = 3;
  const list: string[] = [];
  let more = false;
  for (const rule of rules) {
    if (list.length === max) more = true;
    const host = str(rule['host']);
    if (!more && host !== '') list.push(host);
  }
  if (list.length === 0) return '*';
  const ret = list.join(',');
  return more ? `${ret} + ${rules.length - max} more...` : ret;
}

export const ingressPrinter: Printer = {
  columns: [
    NAME,
    column('Class', 'string', text('The name of the IngressClass resource that should be used for additional configuration')),
    column('Hosts', 'string', text('Hosts that incoming requests are matched against before the ingress rule')),
    column('Address', 'string', text('Address is a list containing ingress points for the load-balancer')),
    column('Ports', 'string', text('Ports of TLS configurations that open')),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    return [
      str(meta['name']),
      optStr(spec['ingressClassName']) ?? '<none>',
      formatHosts(objs(spec['rules'])),
      loadBalancerAddresses(obj(o['status'])['loadBalancer']),
      arr(spec['tls']).length > 0 ? '80, 443' : '80',
      clock.since(meta['creationTimestamp']),
    ];
  },
};

export const ingressClassPrinter: Printer = {
  columns: [
    NAME,
    column('Controller', 'string', text('Controller that is responsible for handling this class')),
    column('Parameters', 'string', text('A reference to a resource with additional parameters')),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    let parameters = '<none>';
    const p = spec['parameters'];
    if (typeof p === 'object' && p !== null) {
      const ref = obj(p);
      const group = optStr(ref['apiGroup']);
      parameters = `${str(ref['kind'])}${group === undefined ? '' : `.${group}`}/${str(ref['name'])}`;
    }
    return [str(meta['name']), str(spec['controller']), parameters, clock.since(meta['creationTimestamp'])];
  },
};

export const networkPolicyPrinter: Printer = {
  columns: [NAME, column('Pod-Selector', 'string', 'NetworkPolicySpec.podSelector'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), formatLabelSelector(obj(obj(o['spec'])['podSelector'])), clock.since(meta['creationTimestamp'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'Service', printer: servicePrinter },
  { group: '', kind: 'Endpoints', printer: endpointsPrinter },
  { group: apiGroup('discovery'), kind: 'EndpointSlice', printer: endpointSlicePrinter },
  { group: apiGroup('networking'), kind: 'Ingress', printer: ingressPrinter },
  { group: apiGroup('networking'), kind: 'IngressClass', printer: ingressClassPrinter },
  { group: apiGroup('networking'), kind: 'NetworkPolicy', printer: networkPolicyPrinter },
];
