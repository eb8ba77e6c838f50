/**
 * The node certificate rules of the original (pkg/apis/certificates
 * helpers.go: ValidateKubeletClientCSR, ValidateKubeletServingCSR), with its
 * error texts: organization exactly `system:nodes`, common name
 * `system:node:<name>`, the exact usage set, and the subjectAltNames each
 * kind allows.
 */
import type { ParsedRequest } from '../csr-request.ts';

export const NODES_GROUP = 'system:nodes';
export const NODE_USER_PREFIX = 'system:node:';

const CLIENT_USAGES = ['client auth', 'digital signature', 'key encipherment'];
const SERVING_USAGES = ['digital signature', 'key encipherment', 'server auth'];

function sameSet(usages: readonly string[], required: readonly string[]): boolean {
  const set = new Set(usages);
  return set.size === required.length && required.every((u) => set.has(u));
}

/** Go prints a sorted string list as `[a b c]`. */
const goList = (l: readonly string[]): string => `[${[...l].sort().join(' ')}]`;

function organizationIsNodes(req: ParsedRequest): boolean {
  return req.organizations.length === 1 && req.organizations[0] === NODES_GROUP;
}

export function validateNodeClientRequest(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!organizationIsNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length > 0) return 'DNS subjectAltNames are not allowed';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.ipAddresses.length > 0) return 'IP subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  if (!sameSet(usages, CLIENT_USAGES)) return `usages did not match ${goList(CLIENT_USAGES)}`;
  return undefined;
}

export function validateNodeServingRequest(req: ParsedRequest, usages: readonly string[]): string | undefined {
  if (!organizationIsNodes(req)) return 'subject organization is not system:nodes';
  if (req.dnsNames.length === 0 && req.ipAddresses.length === 0) return 'DNS or IP subjectAltName is required';
  if (req.emailAddresses.length > 0) return 'Email subjectAltNames are not allowed';
  if (req.uris.length > 0) return 'URI subjectAltNames are not allowed';
  if (!sameSet(usages, SERVING_USAGES)) return `usages did not match ${goList(SERVING_USAGES)}`;
  if (!req.commonName.startsWith(NODE_USER_PREFIX)) return 'subject common name does not begin with system:node:';
  return undefined;
}
