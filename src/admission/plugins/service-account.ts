/**
 * ServiceAccount: the original's plugin/pkg/admission/serviceaccount (v1.25).
 *
 * On pod create (mutating): `default` when no account is named; the account
 * must exist (`error looking up service account ns/name: serviceaccount
 * "name" not found`, 403); unless automountServiceAccountToken is false
 * (the pod's choice first, then the account's), the projected token volume
 * of spec 2.8 (`<prefix>-api-access-<5 random>`: a bound token of 3607 s,
 * the root CA config map's ca.crt, the namespace from the downward API) is
 * mounted read-only at the original's path in every init container and
 * container that has nothing there yet; the account's imagePullSecrets are
 * copied when the pod names none.
 *
 * Validating, on create: a mirror pod (annotation) may not name an account,
 * reference secrets or project a token; otherwise the account must exist and,
 * when it carries `<domain>/enforce-mountable-secrets: true`, the pod may
 * only reference the secrets (volumes, env, envFrom, pull secrets) the account
 * lists. On pods/ephemeralcontainers updates the same rule covers the
 * ephemeral containers.
 *
 * A pod's serviceAccountName cannot change on update: pod update validation
 * forbids it (src/registry/strategies/pods.ts), as in the original.
 */
import { randomInt } from 'node:crypto';
import { names } from '../../naming/index.ts';
import { isPlainObject, type KObject } from '../../registry/object.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { StatusError, errors } from '../../api/status.ts';
import { admissionForbidden, containersWithPath, isPods, objects, parseGoBool, podSpec, str, type JsonObject } from './pod-util.ts';

export const DEFAULT_SERVICE_ACCOUNT = 'default';
/** The bound token's lifetime in the volume (one hour and seven seconds, as the original). */
export const TOKEN_EXPIRATION_SECONDS = 3607;

export interface ServiceAccountSource {
  /** The account as the watch cache has it, or null. */
  get(namespace: string, name: string): Promise<KObject | null>;
}

export interface ServiceAccountPluginOptions {
  /** Waits between lookups of a missing `default` account (the controller may be about to create it). */
  sleep?: (ms: number) => Promise<void>;
  /** The 5 characters after the volume prefix (tests fix them). */
  randomSuffix?: () => string;
}

// The original's SimpleNameGenerator alphabet: no vowels, no confusable digits.
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

export function randomNameSuffix(): string {
  let s = '';
  for (let i = 0; i < 5; i++) s += ALPHANUMS[randomInt(ALPHANUMS.length)];
  return s;
}

/** The projected volume of spec 2.8 (the original's TokenVolumeSource). */
export function tokenVolume(name: string): JsonObject {
  return {
    name,
    projected: {
      defaultMode: 0o644,
      sources: [
        { serviceAccountToken: { expirationSeconds: TOKEN_EXPIRATION_SECONDS, path: 'token' } },
        { configMap: { name: names.rootCaConfigMap, items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
        { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
      ],
    },
  };
}

function isMirrorPod(pod: KObject): boolean {
  const ann = pod.metadata.annotations;
  return isPlainObject(ann) && Object.prototype.hasOwnProperty.call(ann, names.annotations.mirrorPod);
}

function secretRefName(v: unknown): string | undefined {
  return isPlainObject(v) ? str(v['name']) : undefined;
}

/** Every secret a pod references (podutil.VisitPodSecretNames with all containers). */
function podSecretNames(spec: JsonObject): string[] {
  const out: string[] = [];
  for (const s of objects(spec['imagePullSecrets'])) out.push(str(s['name']));
  for (const { c } of containersWithPath(spec)) {
    for (const e of objects(c['envFrom'])) {
      const n = secretRefName(e['secretRef']);
      if (n !== undefined) out.push(n);
    }
    for (const e of objects(c['env'])) {
      const from = e['valueFrom'];
      if (isPlainObject(from)) {
        const n = secretRefName(from['secretKeyRef']);
        if (n !== undefined) out.push(n);
      }
    }
  }
  for (const v of objects(spec['volumes'])) {
    const secret = v['secret'];
    if (isPlainObject(secret)) out.push(str(secret['secretName']));
    for (const key of ['azureFile', 'cephfs', 'cinder', 'flexVolume', 'rbd', 'scaleIO', 'iscsi', 'storageos', 'csi']) {
      const src = v[key];
      if (!isPlainObject(src)) continue;
      if (key === 'azureFile') out.push(str(src['secretName']));
      else if (key === 'iscsi') {
        const n = secretRefName(src['secretRef']);
        if (n !== undefined) out.push(n);
      } else if (key === 'csi') {
        const n = secretRefName(src['nodePublishSecretRef']);
        if (n !== undefined) out.push(n);
      } else {
        const n = secretRefName(src['secretRef']);
        if (n !== undefined) out.push(n);
      }
    }
    const projected = v['projected'];
    if (isPlainObject(projected)) {
      for (const s of objects(projected['sources'])) {
        const n = secretRefName(s['secret']);
        if (n !== undefined) out.push(n);
      }
    }
  }
  return out.filter((n) => n !== '');
}

function projectsToken(spec: JsonObject): boolean {
  return objects(spec['volumes']).some((v) => isPlainObject(v['projected']) && objects(v['projected']['sources']).some((s) => isPlainObject(s['serviceAccountToken'])));
}

function shouldAutomount(sa: KObject, spec: JsonObject): boolean {
  if (typeof spec['automountServiceAccountToken'] === 'boolean') return spec['automountServiceAccountToken'];
  if (typeof sa['automountServiceAccountToken'] === 'boolean') return sa['automountServiceAccountToken'];
  return true;
}

function enforceMountableSecrets(sa: KObject): boolean {
  const v = sa.metadata.annotations?.[names.podAdmission.enforceMountableSecrets];
  return typeof v === 'string' && parseGoBool(v) === true;
}

function names_(list: unknown): Set<string> {
  return new Set(objects(list).map((s) => str(s['name'])));
}

/** limitSecretReferences: the first reference the account does not list, as the original words it. */
function limitSecretReferences(sa: KObject, spec: JsonObject): string | undefined {
  const saName = sa.metadata.name ?? '';
  const mountable = names_(sa['secrets']);
  for (const v of objects(spec['volumes'])) {
    const secret = v['secret'];
    if (!isPlainObject(secret)) continue;
    const n = str(secret['secretName']);
    if (!mountable.has(n)) return `volume with secret.secretName="${n}" is not allowed because service account ${saName} does not reference that secret`;
  }
  for (const [key, label] of [
    ['initContainers', 'init container'],
    ['containers', 'container'],
  ] as const) {
    for (const c of objects(spec[key])) {
      const problem = containerSecretProblem(c, label, mountable, saName);
      if (problem !== undefined) return problem;
    }
  }
  const pull = names_(sa['imagePullSecrets']);
  const refs = objects(spec['imagePullSecrets']);
  for (let i = 0; i < refs.length; i++) {
    const n = str(refs[i]!['name']);
    if (!pull.has(n)) return `imagePullSecrets[${i}].name="${n}" is not allowed because service account ${saName} does not reference that imagePullSecret`;
  }
  return undefined;
}

function containerSecretProblem(c: JsonObject, label: string, mountable: Set<string>, saName: string): string | undefined {
  const cname = str(c['name']);
  for (const e of objects(c['env'])) {
    const from = e['valueFrom'];
    if (!isPlainObject(from) || !isPlainObject(from['secretKeyRef'])) continue;
    const n = str(from['secretKeyRef']['name']);
    if (!mountable.has(n)) {
      return `${label} ${cname} with envVar ${str(e['name'])} referencing secret.secretName="${n}" is not allowed because service account ${saName} does not reference that secret`;
    }
  }
  for (const e of objects(c['envFrom'])) {
    if (!isPlainObject(e['secretRef'])) continue;
    const n = str(e['secretRef']['name']);
    if (!mountable.has(n)) return `${label} ${cname} with envFrom referencing secret.secretName="${n}" is not allowed because service account ${saName} does not reference that secret`;
  }
  return undefined;
}

export function serviceAccountPlugin(accounts: ServiceAccountSource, options: ServiceAccountPluginOptions = {}): AdmissionPlugin {
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const suffix = options.randomSuffix ?? randomNameSuffix;
  const mountPath = names.podAdmission.tokenMountPath;
  const volumePrefix = `${names.podAdmission.tokenVolumePrefix}-`;
  // The account admit found, for validate of the same request (one watch-cache hop per pod, not two).
  const seen = new WeakMap<AdmissionAttributes, KObject>();

  /** getServiceAccount: the cache, then (for `default`, which the controller creates) up to nine more looks 100-200 ms apart. */
  async function getServiceAccount(namespace: string, name: string): Promise<KObject> {
    const found = await accounts.get(namespace, name);
    if (found !== null) return found;
    const attempts = name === DEFAULT_SERVICE_ACCOUNT ? 10 : 1;
    const interval = 100 + randomInt(100);
    for (let i = 0; i < attempts; i++) {
      if (i !== 0) await sleep(interval);
      const again = await accounts.get(namespace, name);
      if (again !== null) return again;
    }
    throw errors.notFound('', 'serviceaccount', name);
  }

  async function lookupOrForbid(attrs: AdmissionAttributes, name: string): Promise<KObject> {
    try {
      return await getServiceAccount(attrs.namespace, name);
    } catch (err) {
      const why = err instanceof StatusError || err instanceof Error ? err.message : String(err);
      throw admissionForbidden(attrs, `error looking up service account ${attrs.namespace}/${name}: ${why}`);
    }
  }

  function mountToken(spec: JsonObject): void {
    let volumeName = '';
    let hasVolume = false;
    for (const v of objects(spec['volumes'])) {
      const n = str(v['name']);
      if (n.startsWith(volumePrefix)) {
        volumeName = n;
        hasVolume = true;
        break;
      }
    }
    if (volumeName === '') volumeName = `${volumePrefix}${suffix()}`;
    let needsVolume = false;
    for (const key of ['initContainers', 'containers']) {
      for (const c of objects(spec[key])) {
        const mounts = Array.isArray(c['volumeMounts']) ? (c['volumeMounts'] as unknown[]) : undefined;
        // A mount already at the path keeps the container's own choice.
        if (mounts?.some((m) => isPlainObject(m) && m['mountPath'] === mountPath)) continue;
        if (c['volumeMounts'] !== undefined && c['volumeMounts'] !== null && mounts === undefined) continue; // not a list: validation answers
        c['volumeMounts'] = [...(mounts ?? []), { name: volumeName, readOnly: true, mountPath }];
        needsVolume = true;
      }
    }
    if (!hasVolume && needsVolume) {
      if (spec['volumes'] !== undefined && spec['volumes'] !== null && !Array.isArray(spec['volumes'])) return;
      spec['volumes'] = [...((spec['volumes'] as unknown[] | undefined) ?? []), tokenVolume(volumeName)];
    }
  }

  async function validateCreate(attrs: AdmissionAttributes, pod: KObject, spec: JsonObject): Promise<void> {
    if (isMirrorPod(pod)) {
      if (str(spec['serviceAccountName']) !== '') throw admissionForbidden(attrs, 'a mirror pod may not reference service accounts');
      if (podSecretNames(spec).length > 0) throw admissionForbidden(attrs, 'a mirror pod may not reference secrets');
      if (projectsToken(spec)) throw admissionForbidden(attrs, 'a mirror pod may not use ServiceAccountToken volume projections');
      return;
    }
    const saName = str(spec['serviceAccountName']);
    if (saName === '') throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${pod.metadata.name ?? ''}`);
    const cached = seen.get(attrs);
    const sa = cached !== undefined && cached.metadata.name === saName ? cached : await lookupOrForbid(attrs, saName);
    if (enforceMountableSecrets(sa)) {
      const problem = limitSecretReferences(sa, spec);
      if (problem !== undefined) throw admissionForbidden(attrs, problem);
    }
  }

  async function validateEphemeral(attrs: AdmissionAttributes, pod: KObject, spec: JsonObject): Promise<void> {
    const saName = str(spec['serviceAccountName']);
    if (saName === '') throw admissionForbidden(attrs, `no service account specified for pod ${attrs.namespace}/${pod.metadata.name ?? ''}`);
    const sa = await lookupOrForbid(attrs, saName);
    if (!enforceMountableSecrets(sa)) return;
    const mountable = names_(sa['secrets']);
    for (const c of objects(spec['ephemeralContainers'])) {
      const problem = containerSecretProblem(c, 'ephemeral container', mountable, sa.metadata.name ?? '');
      // The original returns this one unwrapped (a plain error: 500 with its text).
      if (problem !== undefined) throw new StatusError(500, '', problem);
    }
  }

  return {
    name: 'ServiceAccount',
    handles: (rt, sub, op) => isPods(rt) && ((sub === '' && op === 'CREATE') || (sub === 'ephemeralcontainers' && op === 'UPDATE')),
    async admit(attrs) {
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
      const pod = attrs.object;
      const spec = podSpec(pod);
      if (pod === null || spec === undefined) return;
      // Mirror pods keep their spec (the node agent would delete a changed one); validate checks their references.
      if (isMirrorPod(pod)) return;
      if (str(spec['serviceAccountName']) === '') spec['serviceAccountName'] = DEFAULT_SERVICE_ACCOUNT;
      const saName = str(spec['serviceAccountName']);
      const sa = await lookupOrForbid(attrs, saName);
      seen.set(attrs, sa);
      if (shouldAutomount(sa, spec)) mountToken(spec);
      const pull = spec['imagePullSecrets'];
      if (!Array.isArray(pull) || pull.length === 0) {
        if (pull === undefined || pull === null || Array.isArray(pull)) {
          const fromSa = objects(sa['imagePullSecrets']).map((s) => ({ name: str(s['name']) }));
          if (fromSa.length > 0 || Array.isArray(pull)) spec['imagePullSecrets'] = fromSa;
        }
      }
    },
    async validate(attrs) {
      const pod = attrs.object;
      const spec = podSpec(pod);
      if (pod === null || spec === undefined) return;
      if (attrs.operation === 'UPDATE' && attrs.subresource === 'ephemeralcontainers') return validateEphemeral(attrs, pod, spec);
      if (attrs.operation !== 'CREATE' || attrs.subresource !== '') return;
      return validateCreate(attrs, pod, spec);
    },
  };
}

export const serviceAccountFactory: AdmissionPluginFactory = {
  name: 'ServiceAccount',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'serviceaccounts');
    // The thread's mirror of service accounts (lookup.ts), a miss read from the watch cache: no thread hop
    // per pod create in the usual case, and an account created a moment ago is still found.
    return serviceAccountPlugin({ get: async (namespace, name) => (rt === undefined ? null : deps.lookup.get(rt, namespace, name)) });
  },
};
