/**
 * The objects a pod or a persistent volume makes reachable for the node it
 * runs on, after the original's podutil.VisitPodSecretNames,
 * VisitPodConfigmapNames and VisitPVSecretNames (kubelet-visible secrets
 * only). Reads untrusted stored JSON defensively: anything odd is skipped.
 */
import type { KObject } from '../../registry/object.ts';

export interface PodRefs {
  readonly nodeName: string;
  readonly serviceAccount: string;
  readonly secrets: ReadonlySet<string>;
  readonly configMaps: ReadonlySet<string>;
  readonly claims: ReadonlySet<string>;
}

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined;
}

function arr(v: unknown): Json[] {
  return Array.isArray(v) ? (v.map(obj).filter((x) => x !== undefined) as Json[]) : [];
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function add(set: Set<string>, name: unknown): void {
  const s = str(name);
  if (s !== '') set.add(s);
}

/** What the pod references by name (all in the pod's namespace). */
export function podRefs(pod: KObject): PodRefs {
  const spec = obj(pod['spec']) ?? {};
  const secrets = new Set<string>();
  const configMaps = new Set<string>();
  const claims = new Set<string>();
  for (const ref of arr(spec['imagePullSecrets'])) add(secrets, ref['name']);
  const containers = [...arr(spec['initContainers']), ...arr(spec['containers']), ...arr(spec['ephemeralContainers'])];
  for (const c of containers) {
    for (const from of arr(c['envFrom'])) {
      add(secrets, obj(from['secretRef'])?.['name']);
      add(configMaps, obj(from['configMapRef'])?.['name']);
    }
    for (const env of arr(c['env'])) {
      const valueFrom = obj(env['valueFrom']);
      add(secrets, obj(valueFrom?.['secretKeyRef'])?.['name']);
      add(configMaps, obj(valueFrom?.['configMapKeyRef'])?.['name']);
    }
  }
  const podName = str(pod.metadata.name);
  for (const vol of arr(spec['volumes'])) {
    add(secrets, obj(vol['secret'])?.['secretName']);
    add(secrets, obj(vol['azureFile'])?.['secretName']);
    for (const src of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'storageos', 'scaleIO', 'iscsi']) add(secrets, obj(obj(vol[src])?.['secretRef'])?.['name']);
    add(secrets, obj(obj(vol['csi'])?.['nodePublishSecretRef'])?.['name']);
    add(configMaps, obj(vol['configMap'])?.['name']);
    for (const source of arr(obj(vol['projected'])?.['sources'])) {
      add(secrets, obj(source['secret'])?.['name']);
      add(configMaps, obj(source['configMap'])?.['name']);
    }
    add(claims, obj(vol['persistentVolumeClaim'])?.['claimName']);
    // A generic ephemeral volume's claim is named after the pod and the volume.
    if (obj(vol['ephemeral']) !== undefined && podName !== '' && str(vol['name']) !== '') claims.add(`${podName}-${str(vol['name'])}`);
  }
  return {
    nodeName: str(spec['nodeName']),
    serviceAccount: str(spec['serviceAccountName']),
    secrets,
    configMaps,
    claims,
  };
}

export interface PvRefs {
  /** `namespace/name` of the claim the volume is bound to, or ''. */
  readonly claim: string;
  /** `namespace/name` of the secrets the node agent needs to mount it. */
  readonly secrets: ReadonlySet<string>;
}

/** The claim a volume is bound to and the kubelet-visible secrets it names. */
export function pvRefs(pv: KObject): PvRefs {
  const spec = obj(pv['spec']) ?? {};
  const claimRef = obj(spec['claimRef']);
  const claimNs = str(claimRef?.['namespace']);
  const claimName = str(claimRef?.['name']);
  const claim = claimName !== '' ? `${claimNs}/${claimName}` : '';
  const secrets = new Set<string>();
  if (claim === '') return { claim, secrets };
  const ref = (r: Json | undefined, defaultNs: string): void => {
    const name = str(r?.['name']);
    if (name === '') return;
    secrets.add(`${str(r?.['namespace']) || defaultNs}/${name}`);
  };
  const azure = obj(spec['azureFile']);
  if (azure !== undefined && str(azure['secretName']) !== '') secrets.add(`${str(azure['secretNamespace']) || claimNs}/${str(azure['secretName'])}`);
  for (const src of ['cephfs', 'cinder', 'flexVolume', 'rbd', 'storageos', 'scaleIO', 'iscsi']) ref(obj(obj(spec[src])?.['secretRef']), claimNs);
  const csi = obj(spec['csi']);
  for (const key of ['nodePublishSecretRef', 'nodeStageSecretRef', 'nodeExpandSecretRef']) ref(obj(csi?.[key]), claimNs);
  return { claim, secrets };
}
