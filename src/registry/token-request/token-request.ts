/**
 * serviceaccounts/token: the TokenRequest subresource (authentication.<suffix>/v1,
 * create only), a port of the original's TokenREST.Create as of v1.25
 * (pkg/registry/core/serviceaccount/storage/token.go):
 *
 * - the body's name and namespace, if set, must be the service account's and
 *   the request's (422 otherwise); the service account must exist (404);
 * - audiences default to the API's; expirationSeconds defaults to 3600 and
 *   must be at least 600 and at most 2^32 (422 Invalid, TokenRequest, name "");
 * - admission runs on the TokenRequest as a CREATE of the subresource;
 * - boundObjectRef names a core Pod (running as this service account) or
 *   Secret that must exist, with the uid if one is given (409 Conflict);
 *   any other kind is a 400;
 * - a lifetime above --service-account-max-token-expiration is shortened,
 *   with a warning;
 * - a pod-bound token asked for exactly 3607 s for the API's audiences lives
 *   a year with --service-account-extend-token-expiration, carrying a
 *   warn-after claim at the requested expiry; status.expirationTimestamp
 *   still shows the requested expiry, as the original;
 * - dryRun is accepted and, as in the original of that era, does not change
 *   the answer: the token is issued.
 *
 * The token itself is made by the `issue` function the server passes in
 * (authn/service-account), so this layer never touches keys.
 */
import { errors } from '../../api/status.ts';
import { isPlainObject, nowRfc3339, type KObject } from '../object.ts';
import type { GenericStore, WriteOptions } from '../generic-store.ts';
import type { ResourceRegistry } from '../registry.ts';
import type { ResourceType } from '../resource-type.ts';
import { apiGroup } from '../../naming/index.ts';
import { checkBodyType } from '../pod-actions/action.ts';

export const WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS = 3607;
export const EXPIRATION_EXTENSION_SECONDS = 24 * 365 * 60 * 60;
const DEFAULT_EXPIRATION_SECONDS = 3600;
const MIN_EXPIRATION_SECONDS = 600;
const MAX_EXPIRATION_SECONDS = 2 ** 32;

export interface ObjectRef {
  readonly name: string;
  readonly uid: string;
}

/** What the token must say; the server's issuer turns it into a signed JWT. */
export interface TokenToIssue {
  readonly namespace: string;
  readonly serviceAccount: ObjectRef;
  readonly pod?: ObjectRef | undefined;
  readonly secret?: ObjectRef | undefined;
  readonly audiences: readonly string[];
  /** Epoch seconds, the token's iat/nbf. */
  readonly now: number;
  readonly expirationSeconds: number;
  /** 0: no warn-after claim. */
  readonly warnAfterSeconds: number;
}

export interface TokenRequestEnv {
  readonly store: GenericStore;
  readonly registry: ResourceRegistry;
  /** The API's audiences (--api-audiences, default the issuers). */
  readonly apiAudiences: readonly string[];
  /** 0: no cap. */
  readonly maxExpirationSeconds: number;
  readonly extendExpiration: boolean;
  readonly issue: (token: TokenToIssue) => Promise<string>;
  /** Epoch ms; injectable for tests. */
  readonly now?: () => number;
}

export interface TokenRequestCall {
  /** serviceaccounts. */
  readonly rt: ResourceType;
  readonly namespace: string;
  /** The service account named in the URL. */
  readonly name: string;
  readonly body: KObject;
  readonly opts: WriteOptions;
  readonly warn: (message: string) => void;
}

export function tokenRequestGroupVersion(): string {
  return `${apiGroup('authentication')}/v1`;
}

function invalid(name: string, field: string, value: unknown, detail: string): Error {
  const shown = typeof value === 'string' ? JSON.stringify(value) : String(value);
  return errors.invalid(apiGroup('authentication'), 'TokenRequest', name, [{ field, reason: 'FieldValueInvalid', message: `Invalid value: ${shown}: ${detail}` }]);
}

/** schema.FromAPIVersionAndKind: `group/version`, `version`, or (malformed) the kind alone. */
function groupVersionKind(apiVersion: string, kind: string): { group: string; version: string; kind: string } {
  const parts = apiVersion.split('/');
  if (apiVersion === '') return { group: '', version: '', kind };
  if (parts.length === 1) return { group: '', version: apiVersion, kind };
  if (parts.length === 2) return { group: parts[0]!, version: parts[1]!, kind };
  return { group: '', version: '', kind };
}

/** Go's GroupVersionKind.String(). */
function gvkString(g: { group: string; version: string; kind: string }): string {
  return `${g.group}/${g.version}, Kind=${g.kind}`;
}

function stringField(o: Record<string, unknown>, key: string, path: string): string {
  const v = o[key];
  if (v === undefined || v === null) return '';
  if (typeof v !== 'string') throw errors.badRequest(`${path}: must be a string`);
  return v;
}

interface Spec {
  audiences: string[];
  expirationSeconds: number;
  boundObjectRef: { kind: string; apiVersion: string; name: string; uid: string } | undefined;
}

function readSpec(body: KObject): Spec {
  const raw = body['spec'];
  if (raw !== undefined && raw !== null && !isPlainObject(raw)) throw errors.badRequest('spec: must be an object');
  const spec = isPlainObject(raw) ? raw : {};
  const auds = spec['audiences'];
  if (auds !== undefined && auds !== null && (!Array.isArray(auds) || auds.some((a) => typeof a !== 'string'))) {
    throw errors.badRequest('spec.audiences: must be a list of strings');
  }
  const exp = spec['expirationSeconds'];
  if (exp !== undefined && exp !== null && (typeof exp !== 'number' || !Number.isSafeInteger(exp))) {
    throw errors.badRequest('spec.expirationSeconds: must be an integer');
  }
  const ref = spec['boundObjectRef'];
  if (ref !== undefined && ref !== null && !isPlainObject(ref)) throw errors.badRequest('spec.boundObjectRef: must be an object');
  return {
    audiences: Array.isArray(auds) ? [...(auds as string[])] : [],
    // SetDefaults_TokenRequestSpec: an absent lifetime is an hour; an explicit 0 stays 0 (and fails validation).
    expirationSeconds: typeof exp === 'number' ? exp : DEFAULT_EXPIRATION_SECONDS,
    boundObjectRef: isPlainObject(ref)
      ? {
          kind: stringField(ref, 'kind', 'spec.boundObjectRef.kind'),
          apiVersion: stringField(ref, 'apiVersion', 'spec.boundObjectRef.apiVersion'),
          name: stringField(ref, 'name', 'spec.boundObjectRef.name'),
          uid: stringField(ref, 'uid', 'spec.boundObjectRef.uid'),
        }
      : undefined,
  };
}

function required(registry: ResourceRegistry, resource: string): ResourceType {
  const rt = registry.lookup('', 'v1', resource);
  if (rt === undefined) throw errors.internal(`the ${resource} resource is not served`);
  return rt;
}

export async function createToken(env: TokenRequestEnv, call: TokenRequestCall): Promise<{ status: number; body: Record<string, unknown> }> {
  const { body, namespace, name } = call;
  checkBodyType(body, 'TokenRequest', [tokenRequestGroupVersion()]);
  const metaName = typeof body.metadata.name === 'string' ? body.metadata.name : '';
  const metaNamespace = typeof body.metadata.namespace === 'string' ? body.metadata.namespace : '';
  if (metaName !== '' && metaName !== name) throw invalid(name, 'metadata.name', metaName, 'must match the service account name if specified');
  if (metaNamespace !== '' && metaNamespace !== namespace) {
    throw invalid(name, 'metadata.namespace', metaNamespace, 'must match the service account namespace if specified');
  }
  const spec = readSpec(body);

  const found = await env.store.getObject(call.rt, namespace, name, { kind: 'latest' });
  if (found === null) throw errors.notFound('', 'serviceaccounts', name);
  const sa = found.obj;
  if (spec.audiences.length === 0) spec.audiences = [...env.apiAudiences];

  const nowMs = (env.now ?? Date.now)();
  const nowSec = Math.floor(nowMs / 1000);
  const creationTimestamp = nowRfc3339(new Date(nowSec * 1000));

  if (spec.expirationSeconds < MIN_EXPIRATION_SECONDS) {
    throw invalid('', 'spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration less than 10 minutes');
  }
  if (spec.expirationSeconds > MAX_EXPIRATION_SECONDS) {
    throw invalid('', 'spec.expirationSeconds', spec.expirationSeconds, 'may not specify a duration larger than 2^32 seconds');
  }

  const request: KObject = {
    kind: 'TokenRequest',
    apiVersion: tokenRequestGroupVersion(),
    metadata: { name: metaName || name, namespace: metaNamespace || namespace, creationTimestamp },
    spec: {
      audiences: spec.audiences,
      expirationSeconds: spec.expirationSeconds,
      ...(spec.boundObjectRef !== undefined ? { boundObjectRef: spec.boundObjectRef } : {}),
    },
  };
  await env.store.admitCreate(call.rt, 'token', request, call.opts);

  let pod: ObjectRef | undefined;
  let secret: ObjectRef | undefined;
  const ref = spec.boundObjectRef;
  if (ref !== undefined) {
    const gvk = groupVersionKind(ref.apiVersion, ref.kind);
    let uid: string;
    if (gvk.group === '' && gvk.kind === 'Pod') {
      const got = await env.store.getObject(required(env.registry, 'pods'), namespace, ref.name, { kind: 'latest' });
      if (got === null) throw errors.notFound('', 'pods', ref.name);
      const podSpec = isPlainObject(got.obj['spec']) ? got.obj['spec'] : {};
      if (podSpec['serviceAccountName'] !== name) {
        throw errors.badRequest(`cannot bind token for serviceaccount ${JSON.stringify(name)} to pod running with different serviceaccount name.`);
      }
      uid = got.obj.metadata.uid ?? '';
      pod = { name: ref.name, uid };
    } else if (gvk.group === '' && gvk.kind === 'Secret') {
      const got = await env.store.getObject(required(env.registry, 'secrets'), namespace, ref.name, { kind: 'latest' });
      if (got === null) throw errors.notFound('', 'secrets', ref.name);
      uid = got.obj.metadata.uid ?? '';
      secret = { name: ref.name, uid };
    } else {
      throw errors.badRequest(`cannot bind token to object of type ${gvkString(gvk)}`);
    }
    if (ref.uid !== '' && uid !== ref.uid) {
      throw errors.conflict(
        gvk.group,
        gvk.kind,
        ref.name,
        `the UID in the bound object reference (${ref.uid}) does not match the UID in record. The object might have been deleted and then recreated`,
      );
    }
  }

  if (env.maxExpirationSeconds > 0 && spec.expirationSeconds > env.maxExpirationSeconds) {
    call.warn(`requested expiration of ${spec.expirationSeconds} seconds shortened to ${env.maxExpirationSeconds} seconds`);
    spec.expirationSeconds = env.maxExpirationSeconds;
    (request['spec'] as Record<string, unknown>)['expirationSeconds'] = spec.expirationSeconds;
  }

  let warnAfterSeconds = 0;
  let lifetime = spec.expirationSeconds;
  const forTheApi = spec.audiences.every((a) => env.apiAudiences.includes(a));
  if (env.extendExpiration && pod !== undefined && spec.expirationSeconds === WARN_ONLY_BOUND_TOKEN_EXPIRATION_SECONDS && forTheApi) {
    warnAfterSeconds = lifetime;
    lifetime = EXPIRATION_EXTENSION_SECONDS;
  }

  const token = await env.issue({
    namespace,
    serviceAccount: { name: sa.metadata.name ?? name, uid: sa.metadata.uid ?? '' },
    pod,
    secret,
    audiences: spec.audiences,
    now: nowSec,
    expirationSeconds: lifetime,
    warnAfterSeconds,
  });
  request['status'] = { token, expirationTimestamp: nowRfc3339(new Date((nowSec + spec.expirationSeconds) * 1000)) };
  return { status: 201, body: request };
}
