/**
 * Namespaces and the configuration objects that live in them: config maps,
 * secrets, service accounts and resource quotas. Config maps are the bulk
 * case (tens of thousands per list), so their printer does no more than
 * count keys.
 */
import { AGE, NAME, column, text } from '../columns.ts';
import { quantity } from '../format.ts';
import { arr, metadataOf, obj, size, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';

export const configMapPrinter: Printer = {
  columns: [NAME, column('Data', 'string', 'ConfigMap.data'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), size(o['data']) + size(o['binaryData']), clock.since(meta['creationTimestamp'])];
  },
};

export const secretPrinter: Printer = {
  columns: [NAME, column('Type', 'string', 'Secret.type'), column('Data', 'string', 'Secret.data'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), str(o['type']), size(o['data']), clock.since(meta['creationTimestamp'])];
  },
};

export const serviceAccountPrinter: Printer = {
  columns: [NAME, column('Secrets', 'string', 'ServiceAccount.secrets'), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), arr(o['secrets']).length, clock.since(meta['creationTimestamp'])];
  },
};

export const namespacePrinter: Printer = {
  columns: [NAME, column('Status', 'string', text('The status of the namespace')), AGE],
  cells(o, clock) {
    const meta = metadataOf(o);
    return [str(meta['name']), str(obj(o['status'])['phase']), clock.since(meta['creationTimestamp'])];
  },
};

/** `cpu: 100m/1, pods: 2/10` split into requests and `limits.*` resources, sorted by name. */
function quotaColumns(status: Record<string, unknown>): [string, string] {
  const hard = obj(status['hard']);
  const used = obj(status['used']);
  const requests: string[] = [];
  const limits: string[] = [];
  for (const name of Object.keys(hard).sort()) {
    const entry = `${name}: ${quantity(used[name])}/${quantity(hard[name])}`;
    const dot = name.indexOf('.');
    (dot > 0 && name.slice(0, dot) === 'limits' ? limits : requests).push(entry);
  }
  return [requests.join(', '), limits.join(', ')];
}

export const resourceQuotaPrinter: Printer = {
  columns: [
    NAME,
    column('Request', 'string', text('Request represents a minimum amount of cpu/memory that a container may consume.')),
    column('Limit', 'string', text('Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.')),
    AGE,
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const [requests, limits] = quotaColumns(obj(o['status']));
    return [str(meta['name']), requests, limits, clock.since(meta['creationTimestamp'])];
  },
};

export const registrations: readonly Registration[] = [
  { group: '', kind: 'ConfigMap', printer: configMapPrinter },
  { group: '', kind: 'Secret', printer: secretPrinter },
  { group: '', kind: 'ServiceAccount', printer: serviceAccountPrinter },
  { group: '', kind: 'Namespace', printer: namespacePrinter },
  { group: '', kind: 'ResourceQuota', printer: resourceQuotaPrinter },
];
