/**
 * What a pod action (binding, eviction) needs and answers. These are the
 * original's NamedCreater subresources: a POST whose body is another kind
 * (Binding, Eviction) and whose effect is a write to the pod and others.
 */
import type { GenericStore, WriteOptions } from '../generic-store.ts';
import type { KObject } from '../object.ts';
import type { ResourceRegistry } from '../registry.ts';
import type { ResourceType } from '../resource-type.ts';
import { errors } from '../../api/status.ts';

export interface PodActionEnv {
  store: GenericStore;
  registry: ResourceRegistry;
  /** The clock the PDB's disruptedPods entries and pod conditions use. */
  now?: () => Date;
}

export interface PodActionRequest {
  /** The type and subresource posted to (pods + binding, or the deprecated bindings + ''): what admission sees. */
  rt: ResourceType;
  subresource: string;
  namespace: string;
  /** The pod named in the URL; '' for the deprecated namespace-level `bindings` POST. */
  name: string;
  body: KObject;
  opts: WriteOptions;
}

/** The answer: an HTTP status and a JSON object (a meta/v1 Status for binding and eviction). */
export interface PodActionResult {
  status: number;
  body: Record<string, unknown>;
}

export type PodAction = (env: PodActionEnv, req: PodActionRequest) => Promise<PodActionResult>;

/** The Status the original answers a successful NamedCreater with: Success, the create's 201. */
export function successStatus(): PodActionResult {
  return { status: 201, body: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', code: 201 } };
}

/**
 * Checks the body's type meta against what the subresource decodes into, with
 * the generic store's messages: absent fields are defaulted, others must match.
 */
export function checkBodyType(body: KObject, kind: string, apiVersions: readonly string[]): void {
  if (body.apiVersion !== undefined && !apiVersions.includes(String(body.apiVersion))) {
    throw errors.badRequest(`the API version in the data (${String(body.apiVersion)}) does not match the expected API version (${apiVersions[0]})`);
  }
  if (body.kind !== undefined && body.kind !== kind) {
    throw errors.badRequest(`the kind in the data (${String(body.kind)}) does not match the expected kind (${kind})`);
  }
}

/** The body's namespace must be empty or the request's (EnsureObjectNamespaceMatchesRequestNamespace); it is then the request's. */
export function checkBodyNamespace(body: KObject, namespace: string): void {
  const ns = body.metadata.namespace;
  if (ns !== undefined && ns !== '' && ns !== namespace) {
    throw errors.badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
  body.metadata.namespace = namespace;
}

/**
 * Runs admission on the posted object as a CREATE of the subresource, and
 * gives the write options the action's own writes use: admission is done
 * (the original's BindingREST and EvictionREST write the pod without it).
 */
export async function admitAction(env: PodActionEnv, req: PodActionRequest): Promise<WriteOptions> {
  await env.store.admitCreate(req.rt, req.subresource, req.body, req.opts);
  return { ...req.opts, admitted: true };
}
