/**
 * Defaults of a pod spec, ported from the original's core/v1 defaults.go
 * (SetDefaults_PodSpec, _Container, _ContainerPort, _Probe, _HTTPGetAction,
 * _Volume and the volume sources). They apply to pods and to every pod
 * template (Deployments, Jobs, ...). Two defaults are pod-only in the
 * original (requests copied from limits, enableServiceLinks): see
 * defaultPodOnly.
 */
import { arr, ensureObj, obj, setDefault, str, type JsonObject } from './util.ts';

const DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS = 30;
const DEFAULT_SCHEDULER_NAME = 'default-scheduler';
const TERMINATION_MESSAGE_PATH = '/dev/termination-log';
/** 0644, the mode files projected into volumes get unless told otherwise. */
const DEFAULT_FILE_MODE = 420;

const VOLUME_SOURCES = [
  'hostPath', 'emptyDir', 'gcePersistentDisk', 'awsElasticBlockStore', 'gitRepo', 'secret', 'nfs', 'iscsi',
  'glusterfs', 'persistentVolumeClaim', 'rbd', 'flexVolume', 'cinder', 'cephfs', 'flocker', 'downwardAPI', 'fc',
  'azureFile', 'configMap', 'vsphereVolume', 'quobyte', 'azureDisk', 'photonPersistentDisk', 'projected',
  'portworxVolume', 'scaleIO', 'storageos', 'csi', 'ephemeral', 'image',
];

/**
 * The pull policy the original derives from an image reference: `Always`
 * when the tag is `latest` or there is neither tag nor digest, else
 * `IfNotPresent`. A reference that does not parse gets `IfNotPresent`.
 */
export function defaultImagePullPolicy(image: string): 'Always' | 'IfNotPresent' {
  const ref = parseImageRef(image);
  if (ref === undefined) return 'IfNotPresent';
  if (ref.tag === 'latest') return 'Always';
  return ref.tag === '' && ref.digest === '' ? 'Always' : 'IfNotPresent';
}

/** A loose reading of the docker reference grammar: [host[:port]/]path[:tag][@digest]. */
function parseImageRef(image: string): { tag: string; digest: string } | undefined {
  if (image === '' || /\s/.test(image)) return undefined;
  let rest = image;
  let digest = '';
  const at = rest.indexOf('@');
  if (at >= 0) {
    digest = rest.slice(at + 1);
    rest = rest.slice(0, at);
    if (!/^[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}$/.test(digest)) return undefined;
  }
  let tag = '';
  const slash = rest.lastIndexOf('/');
  const colon = rest.lastIndexOf(':');
  if (colon > slash) {
    tag = rest.slice(colon + 1);
    rest = rest.slice(0, colon);
    if (!/^[\w][\w.-]{0,127}$/.test(tag)) return undefined;
  }
  // Repository path components are lower case; a domain (first component
  // with a dot, a colon or `localhost`) may carry upper case and a port.
  const parts = rest.split('/');
  const first = parts[0]!;
  const hasDomain = parts.length > 1 && (first.includes('.') || first.includes(':') || first === 'localhost' || first !== first.toLowerCase());
  const path = hasDomain ? parts.slice(1) : parts;
  if (path.length === 0 || path.some((c) => !/^[a-z0-9]+(?:(?:[._]|__|[-]+)[a-z0-9]+)*$/.test(c))) return undefined;
  if (hasDomain && !/^[A-Za-z0-9.-]+(:[0-9]+)?$/.test(first)) return undefined;
  return { tag, digest };
}

function defaultProbe(probe: unknown): void {
  const p = obj(probe);
  if (!p) return;
  setDefault(p, 'timeoutSeconds', 1);
  setDefault(p, 'periodSeconds', 10);
  setDefault(p, 'successThreshold', 1);
  setDefault(p, 'failureThreshold', 3);
  const httpGet = obj(p['httpGet']);
  if (httpGet) {
    setDefault(httpGet, 'path', '/');
    setDefault(httpGet, 'scheme', 'HTTP');
  }
}

function defaultLifecycleHandler(handler: unknown): void {
  const httpGet = obj(obj(handler)?.['httpGet']);
  if (httpGet) {
    setDefault(httpGet, 'path', '/');
    setDefault(httpGet, 'scheme', 'HTTP');
  }
}

function defaultFieldRefs(env: unknown): void {
  for (const e of arr(env)) {
    const fieldRef = obj(obj(obj(e)?.['valueFrom'])?.['fieldRef']);
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
}

export function defaultContainer(c: JsonObject, hostNetwork: boolean): void {
  if (!str(c['imagePullPolicy'])) c['imagePullPolicy'] = defaultImagePullPolicy(str(c['image']) ?? '');
  setDefault(c, 'terminationMessagePath', TERMINATION_MESSAGE_PATH);
  setDefault(c, 'terminationMessagePolicy', 'File');
  for (const raw of arr(c['ports'])) {
    const port = obj(raw);
    if (!port) continue;
    setDefault(port, 'protocol', 'TCP');
    // On the host network the container port is the host port.
    if (hostNetwork && (port['hostPort'] === undefined || port['hostPort'] === 0)) port['hostPort'] = port['containerPort'];
  }
  defaultProbe(c['livenessProbe']);
  defaultProbe(c['readinessProbe']);
  defaultProbe(c['startupProbe']);
  const lifecycle = obj(c['lifecycle']);
  if (lifecycle) {
    defaultLifecycleHandler(lifecycle['postStart']);
    defaultLifecycleHandler(lifecycle['preStop']);
  }
  defaultFieldRefs(c['env']);
}

function defaultVolume(v: JsonObject): void {
  if (!VOLUME_SOURCES.some((s) => v[s] !== undefined && v[s] !== null)) v['emptyDir'] = {};
  for (const source of ['secret', 'configMap', 'downwardAPI', 'projected']) {
    const s = obj(v[source]);
    if (s) setDefault(s, 'defaultMode', DEFAULT_FILE_MODE);
  }
  for (const item of arr(obj(v['downwardAPI'])?.['items'])) {
    const fieldRef = obj(obj(item)?.['fieldRef']);
    if (fieldRef) setDefault(fieldRef, 'apiVersion', 'v1');
  }
}

/** SetDefaults_PodSpec and everything nested in it. */
export function defaultPodSpec(spec: JsonObject): void {
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'restartPolicy', 'Always');
  if (obj(spec['securityContext']) === undefined) spec['securityContext'] = {};
  setDefault(spec, 'terminationGracePeriodSeconds', DEFAULT_TERMINATION_GRACE_PERIOD_SECONDS);
  setDefault(spec, 'schedulerName', DEFAULT_SCHEDULER_NAME);
  const hostNetwork = spec['hostNetwork'] === true;
  for (const key of ['containers', 'initContainers', 'ephemeralContainers']) {
    for (const c of arr(spec[key])) {
      const container = obj(c);
      if (container) defaultContainer(container, hostNetwork);
    }
  }
  for (const v of arr(spec['volumes'])) {
    const volume = obj(v);
    if (volume) defaultVolume(volume);
  }
}

/** SetDefaults_PersistentVolumeClaim as it applies inside a StatefulSet's volumeClaimTemplates. */
export function defaultClaimTemplate(claim: JsonObject): void {
  const spec = ensureObj(claim, 'spec');
  setDefault(spec, 'volumeMode', 'Filesystem');
  const status = ensureObj(claim, 'status');
  setDefault(status, 'phase', 'Pending');
}

/** A pod template (Deployment, Job, ...): metadata left alone, spec defaulted. */
export function defaultPodTemplate(template: JsonObject): void {
  defaultPodSpec(ensureObj(template, 'spec'));
}

/**
 * Defaults the original applies to Pods only, not to templates: requests
 * copied from limits where only limits are given, and enableServiceLinks.
 */
export function defaultPodOnly(spec: JsonObject): void {
  for (const key of ['containers', 'initContainers']) {
    for (const c of arr(spec[key])) {
      const resources = obj(obj(c)?.['resources']);
      const limits = obj(resources?.['limits']);
      if (!resources || !limits) continue;
      const requests = ensureObj(resources, 'requests');
      for (const [name, value] of Object.entries(limits)) {
        if (!(name in requests)) requests[name] = value;
      }
    }
  }
  setDefault(spec, 'enableServiceLinks', true);
}
