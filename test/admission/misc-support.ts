/**
 * Shared pieces of the storage, certificate, node, owner-reference and event
 * admission plugin tests: the served types, attributes as the generic store
 * builds them, and PKCS#10 requests with a chosen subject.
 */
import { webcrypto } from 'node:crypto';
import { x509 } from '../../src/pki/x509.ts';
import type { AdmissionAttributes, AdmissionPlugin, Operation } from '../../src/admission/types.ts';
import type { ResourceType } from '../../src/registry/resource-type.ts';
import type { KObject } from '../../src/registry/object.ts';
import type { UserInfo } from '../../src/server/context.ts';
import { builtinResourceTypes } from '../../src/registry/catalog/index.ts';
import { ResourceRegistry } from '../../src/registry/registry.ts';
import { StatusError } from '../../src/api/status.ts';

export const registry = new ResourceRegistry(builtinResourceTypes, { defaultWatchCacheSize: 100, watchCacheSizes: new Map(), isEnabled: () => true });

export function rt(group: string, version: string, resource: string): ResourceType {
  const t = registry.lookup(group, version, resource);
  if (t === undefined) throw new Error(`no type ${group}/${version}/${resource}`);
  return t;
}

export interface AttrsInput {
  rt: ResourceType;
  op: Operation;
  sub?: string;
  ns?: string;
  name?: string;
  obj?: KObject | null;
  old?: KObject | null;
  user?: UserInfo;
  dryRun?: boolean;
}

export function attrs(i: AttrsInput): AdmissionAttributes {
  return {
    operation: i.op,
    resourceType: i.rt,
    subresource: i.sub ?? '',
    namespace: i.ns ?? '',
    name: i.name ?? '',
    object: i.obj ?? null,
    oldObject: i.old ?? null,
    user: i.user,
    dryRun: i.dryRun ?? false,
    options: undefined,
    warn: () => undefined,
    annotate: () => undefined,
  };
}

/** Whether the plugin handles the attributes' combination (the chain's compile step). */
export function handles(p: AdmissionPlugin, a: AdmissionAttributes): boolean {
  return p.handles === undefined || p.handles(a.resourceType, a.subresource, a.operation);
}

/** Runs the plugin as the chain would (handles, then admit, then validate); the error or undefined. */
export async function run(p: AdmissionPlugin, a: AdmissionAttributes): Promise<StatusError | undefined> {
  if (!handles(p, a)) return undefined;
  try {
    await p.admit?.(a);
    await p.validate?.(a);
    return undefined;
  } catch (e) {
    if (e instanceof StatusError) return e;
    throw e;
  }
}

export function obj(kind: string, metadata: KObject['metadata'], rest: Record<string, unknown> = {}): KObject {
  return { apiVersion: 'v1', kind, metadata, ...rest };
}

/** A PEM PKCS#10 request with the given subject (`CN=x, O=y`). */
export async function csrPem(subject: string): Promise<string> {
  const keys = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, true, ['sign', 'verify']);
  return (await x509.Pkcs10CertificateRequestGenerator.create({ name: subject, keys, signingAlgorithm: { name: 'ECDSA', hash: 'SHA-256' } })).toString('pem');
}

export const b64 = (s: string): string => Buffer.from(s).toString('base64');
