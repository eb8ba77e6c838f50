/**
 * DenyServiceExternalIPs: no new external IP on a Service, as the original's
 * plugin (plugin/pkg/admission/network/denyserviceexternalips): a create
 * with externalIPs, or an update adding one the old Service did not have,
 * is rejected; keeping, reordering or removing them is allowed.
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { admissionForbidden, list, record } from './admission-errors.ts';

function externalIPs(svc: KObject | null): unknown[] {
  return svc === null ? [] : list(record(svc['spec'])['externalIPs']);
}

export function denyServiceExternalIPs(): AdmissionPlugin {
  return {
    name: 'DenyServiceExternalIPs',
    handles: (rt, sub, op) => rt.group === '' && rt.resource === 'services' && sub === '' && (op === 'CREATE' || op === 'UPDATE'),
    validate(attrs: AdmissionAttributes): void {
      const wanted = externalIPs(attrs.object);
      if (wanted.length === 0) return;
      const had = new Set(attrs.oldObject === null ? [] : externalIPs(attrs.oldObject));
      if (attrs.oldObject !== null && wanted.every((ip) => had.has(ip))) return;
      throw admissionForbidden(attrs, 'Use of external IPs is denied by admission control');
    },
  };
}

export const denyServiceExternalIPsFactory: AdmissionPluginFactory = {
  name: 'DenyServiceExternalIPs',
  create: () => denyServiceExternalIPs(),
};
