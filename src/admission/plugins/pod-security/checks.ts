/**
 * The Pod Security Standards' checks, as the original's
 * k8s.io/pod-security-admission/policy/check_*.go (v1.25): each check has a
 * level (baseline checks also run at restricted) and versions (the first
 * policy version a revision applies to); a restricted revision may override
 * baseline checks it subsumes. Reasons and details are the original's
 * words, since users see them in errors and warnings.
 */
import { names } from '../../../naming/index.ts';
import { majorMinor, type Version } from './api.ts';
import { asArray, asObject, asString, boolField, containers, isWindows, podSecurityContext, type Json, type PodView } from './pod-view.ts';

export interface CheckResult {
  readonly allowed: boolean;
  readonly reason?: string;
  readonly detail?: string;
}

export type CheckFn = (pod: PodView) => CheckResult;

export interface VersionedCheck {
  readonly minimumVersion: Version;
  readonly check: CheckFn;
  /** Baseline checks this restricted revision replaces. */
  readonly overrides?: readonly string[];
}

export interface Check {
  readonly id: string;
  readonly level: 'baseline' | 'restricted';
  readonly versions: readonly VersionedCheck[];
}

const ALLOWED: CheckResult = { allowed: true };

const forbid = (reason: string, detail: string): CheckResult => ({ allowed: false, reason, detail });

export function joinQuote(items: readonly string[]): string {
  return items.length === 0 ? '' : `"${items.join('", "')}"`;
}

export function pluralize(singular: string, plural: string, count: number): string {
  return count === 1 ? singular : plural;
}

/** Go's %q for the strings these messages quote (JSON's escaping is the same for printable text). */
function goQuote(s: string): string {
  return JSON.stringify(s);
}

/** A sorted, de-duplicated list (Go's sets.String.List()). */
function sortedSet(values: Iterable<string>): string[] {
  return [...new Set(values)].sort();
}

const containersPhrase = (names: readonly string[]): string => `${pluralize('container', 'containers', names.length)} ${joinQuote(names)}`;

// ---- baseline ----

function windowsHostProcess(pod: PodView): CheckResult {
  const bad = containers(pod.spec)
    .filter((c) => boolField(asObject(c.sc?.['windowsOptions']), 'hostProcess') === true)
    .map((c) => c.name);
  const setters: string[] = [];
  if (boolField(asObject(podSecurityContext(pod.spec)?.['windowsOptions']), 'hostProcess') === true) setters.push('pod');
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbid('hostProcess', `${setters.join(' and ')} must not set securityContext.windowsOptions.hostProcess=true`);
}

function hostNamespaces(pod: PodView): CheckResult {
  const found: string[] = [];
  if (pod.spec['hostNetwork'] === true) found.push('hostNetwork=true');
  if (pod.spec['hostPID'] === true) found.push('hostPID=true');
  if (pod.spec['hostIPC'] === true) found.push('hostIPC=true');
  return found.length === 0 ? ALLOWED : forbid('host namespaces', found.join(', '));
}

function privileged(pod: PodView): CheckResult {
  const bad = containers(pod.spec)
    .filter((c) => boolField(c.sc, 'privileged') === true)
    .map((c) => c.name);
  return bad.length === 0 ? ALLOWED : forbid('privileged', `${containersPhrase(bad)} must not set securityContext.privileged=true`);
}

const CAPABILITIES_ALLOWED_1_0 = new Set([
  'AUDIT_WRITE',
  'CHOWN',
  'DAC_OVERRIDE',
  'FOWNER',
  'FSETID',
  'KILL',
  'MKNOD',
  'NET_BIND_SERVICE',
  'SETFCAP',
  'SETGID',
  'SETPCAP',
  'SETUID',
  'SYS_CHROOT',
]);

const capabilityList = (sc: Json | undefined, field: 'add' | 'drop'): string[] => asArray(asObject(sc?.['capabilities'])?.[field]).map(asString);

function capabilitiesBaseline(pod: PodView): CheckResult {
  const bad: string[] = [];
  const caps: string[] = [];
  for (const c of containers(pod.spec)) {
    if (c.sc === undefined || asObject(c.sc['capabilities']) === undefined) continue;
    let valid = true;
    for (const cap of capabilityList(c.sc, 'add')) {
      if (!CAPABILITIES_ALLOWED_1_0.has(cap)) {
        valid = false;
        caps.push(cap);
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (bad.length === 0) return ALLOWED;
  return forbid('non-default capabilities', `${containersPhrase(bad)} must not include ${joinQuote(sortedSet(caps))} in securityContext.capabilities.add`);
}

function hostPathVolumes(pod: PodView): CheckResult {
  const bad = asArray(pod.spec['volumes'])
    .map(asObject)
    .filter((v): v is Json => v !== undefined && asObject(v['hostPath']) !== undefined)
    .map((v) => asString(v['name']));
  return bad.length === 0 ? ALLOWED : forbid('hostPath volumes', `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)}`);
}

function hostPorts(pod: PodView): CheckResult {
  const bad: string[] = [];
  const ports: string[] = [];
  for (const c of containers(pod.spec)) {
    let valid = true;
    for (const p of asArray(c.raw['ports'])) {
      const hostPort = asObject(p)?.['hostPort'];
      if (typeof hostPort === 'number' && hostPort !== 0) {
        valid = false;
        ports.push(String(hostPort));
      }
    }
    if (!valid) bad.push(c.name);
  }
  if (bad.length === 0) return ALLOWED;
  const portSet = sortedSet(ports);
  return forbid(
    'hostPort',
    `${containersPhrase(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('hostPort', 'hostPorts', portSet.length)} ${portSet.join(', ')}`,
  );
}

const APPARMOR_RUNTIME_DEFAULT = 'runtime/default';
const APPARMOR_LOCALHOST_PREFIX = 'localhost/';

function appArmorProfile(pod: PodView): CheckResult {
  const forbidden: string[] = [];
  for (const [k, v] of Object.entries(pod.annotations)) {
    if (!names.podSecurity.appArmorContainerPrefixes.some((p) => k.startsWith(p))) continue;
    const profile = asString(v);
    if (profile === '' || profile === APPARMOR_RUNTIME_DEFAULT || profile.startsWith(APPARMOR_LOCALHOST_PREFIX)) continue;
    forbidden.push(`${k}=${goQuote(profile)}`);
  }
  if (forbidden.length === 0) return ALLOWED;
  forbidden.sort();
  return forbid(pluralize('forbidden AppArmor profile', 'forbidden AppArmor profiles', forbidden.length), forbidden.join(', '));
}

const SELINUX_TYPES_1_0 = new Set(['', 'container_t', 'container_init_t', 'container_kvm_t']);

function seLinuxOptions(pod: PodView): CheckResult {
  const badTypes: string[] = [];
  let setUser = false;
  let setRole = false;
  const valid = (opts: Json): boolean => {
    let ok = true;
    const type = asString(opts['type']);
    if (!SELINUX_TYPES_1_0.has(type)) {
      ok = false;
      badTypes.push(type);
    }
    if (asString(opts['user']) !== '') {
      ok = false;
      setUser = true;
    }
    if (asString(opts['role']) !== '') {
      ok = false;
      setRole = true;
    }
    return ok;
  };
  const setters: string[] = [];
  const podOpts = asObject(podSecurityContext(pod.spec)?.['seLinuxOptions']);
  if (podOpts !== undefined && !valid(podOpts)) setters.push('pod');
  const bad: string[] = [];
  for (const c of containers(pod.spec)) {
    const opts = asObject(c.sc?.['seLinuxOptions']);
    if (opts !== undefined && !valid(opts)) bad.push(c.name);
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  // The original (v1.25) lists user and role only beside a bad type, which
  // leaves "...seLinuxOptions: " empty for a bad user alone; later releases
  // list them always, as here (the decision is the same).
  const data: string[] = [];
  const types = sortedSet(badTypes);
  if (types.length > 0) data.push(`${pluralize('type', 'types', types.length)} ${joinQuote(types)}`);
  if (setUser) data.push('user may not be set');
  if (setRole) data.push('role may not be set');
  return forbid('seLinuxOptions', `${setters.join(' and ')} set forbidden securityContext.seLinuxOptions: ${data.join('; ')}`);
}

function procMount(pod: PodView): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const c of containers(pod.spec)) {
    const pm = c.sc?.['procMount'];
    if (typeof pm !== 'string' || pm === 'Default') continue;
    bad.push(c.name);
    types.push(pm);
  }
  if (bad.length === 0) return ALLOWED;
  return forbid('procMount', `${containersPhrase(bad)} must not set securityContext.procMount to ${joinQuote(sortedSet(types))}`);
}

const SECCOMP_RUNTIME_DEFAULT_ANNOTATION = 'runtime/default';
const SECCOMP_DOCKER_DEFAULT_ANNOTATION = 'docker/default';
const SECCOMP_LOCALHOST_PREFIX = 'localhost/';

const validSeccompAnnotation = (v: string): boolean =>
  v === SECCOMP_RUNTIME_DEFAULT_ANNOTATION || v === SECCOMP_DOCKER_DEFAULT_ANNOTATION || v.startsWith(SECCOMP_LOCALHOST_PREFIX);

const validSeccompType = (t: string): boolean => t === 'Localhost' || t === 'RuntimeDefault';

/** Policy versions before 1.19: the alpha seccomp annotations. */
function seccompProfileBaseline_1_0(pod: PodView): CheckResult {
  const forbidden: string[] = [];
  const has = (k: string): boolean => Object.prototype.hasOwnProperty.call(pod.annotations, k);
  for (const key of names.podSecurity.seccompPodAnnotations) {
    if (has(key) && !validSeccompAnnotation(asString(pod.annotations[key]))) forbidden.push(`${key}=${goQuote(asString(pod.annotations[key]))}`);
  }
  for (const c of containers(pod.spec)) {
    for (const prefix of names.podSecurity.seccompContainerPrefixes) {
      const key = prefix + c.name;
      if (has(key) && !validSeccompAnnotation(asString(pod.annotations[key]))) forbidden.push(`${key}=${goQuote(asString(pod.annotations[key]))}`);
    }
  }
  if (forbidden.length === 0) return ALLOWED;
  const list = sortedSet(forbidden);
  return forbid('seccompProfile', `forbidden ${pluralize('annotation', 'annotations', list.length)} ${list.join(', ')}`);
}

const seccompType = (sc: Json | undefined): string | undefined => {
  const profile = asObject(sc?.['seccompProfile']);
  return profile === undefined ? undefined : asString(profile['type']);
};

/** 1.19+: securityContext.seccompProfile.type, if set, is RuntimeDefault or Localhost. */
function seccompProfileBaseline_1_19(pod: PodView): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  const podType = seccompType(podSecurityContext(pod.spec));
  if (podType !== undefined && !validSeccompType(podType)) {
    setters.push('pod');
    values.push(podType);
  }
  const bad: string[] = [];
  for (const c of containers(pod.spec)) {
    const t = seccompType(c.sc);
    if (t !== undefined && !validSeccompType(t)) {
      bad.push(c.name);
      values.push(t);
    }
  }
  if (bad.length > 0) setters.push(containersPhrase(bad));
  if (setters.length === 0) return ALLOWED;
  return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
}

const SYSCTLS_ALLOWED_1_0 = new Set(['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start']);

function sysctls(pod: PodView): CheckResult {
  const forbidden = asArray(podSecurityContext(pod.spec)?.['sysctls'])
    .map((s) => asString(asObject(s)?.['name']))
    .filter((n) => !SYSCTLS_ALLOWED_1_0.has(n));
  return forbidden.length === 0 ? ALLOWED : forbid('forbidden sysctls', forbidden.join(', '));
}

// ---- restricted ----

const ALLOWED_VOLUME_SOURCES = ['configMap', 'csi', 'downwardAPI', 'emptyDir', 'ephemeral', 'persistentVolumeClaim', 'projected', 'secret'];

/** The restricted volume sources, in the order the original names the first one found. */
const RESTRICTED_VOLUME_SOURCES = [
  'hostPath',
  'gcePersistentDisk',
  'awsElasticBlockStore',
  'gitRepo',
  'nfs',
  'iscsi',
  'glusterfs',
  'rbd',
  'flexVolume',
  'cinder',
  'cephfs',
  'flocker',
  'fc',
  'azureFile',
  'vsphereVolume',
  'quobyte',
  'azureDisk',
  'photonPersistentDisk',
  'portworxVolume',
  'scaleIO',
  'storageos',
];

const present = (v: Json, key: string): boolean => v[key] !== undefined && v[key] !== null;

function restrictedVolumes(pod: PodView): CheckResult {
  const bad: string[] = [];
  const types: string[] = [];
  for (const raw of asArray(pod.spec['volumes'])) {
    const v = asObject(raw);
    if (v === undefined) continue;
    if (ALLOWED_VOLUME_SOURCES.some((k) => present(v, k))) continue;
    // Validating admission sees defaulted objects (a volume without a source
    // is an emptyDir by then), so a source named nowhere is one this table
    // does not know: restricted, as "unknown".
    bad.push(asString(v['name']));
    types.push(RESTRICTED_VOLUME_SOURCES.find((k) => present(v, k)) ?? 'unknown');
  }
  if (bad.length === 0) return ALLOWED;
  const typeSet = sortedSet(types);
  return forbid(
    'restricted volume types',
    `${pluralize('volume', 'volumes', bad.length)} ${joinQuote(bad)} ${pluralize('uses', 'use', bad.length)} ${pluralize('restricted volume type', 'restricted volume types', typeSet.length)} ${joinQuote(typeSet)}`,
  );
}

function allowPrivilegeEscalation_1_8(pod: PodView): CheckResult {
  const bad = containers(pod.spec)
    .filter((c) => boolField(c.sc, 'allowPrivilegeEscalation') !== false)
    .map((c) => c.name);
  return bad.length === 0 ? ALLOWED : forbid('allowPrivilegeEscalation != false', `${containersPhrase(bad)} must set securityContext.allowPrivilegeEscalation=false`);
}

/** From 1.25 Windows pods (spec.os.name=windows), which cannot set the field, are exempt. */
const exemptWindows =
  (check: CheckFn): CheckFn =>
  (pod) =>
    isWindows(pod.spec) ? ALLOWED : check(pod);

function runAsNonRoot(pod: PodView): CheckResult {
  const setters: string[] = [];
  let podRunAsNonRoot = false;
  const podValue = boolField(podSecurityContext(pod.spec), 'runAsNonRoot');
  if (podValue === false) setters.push('pod');
  else if (podValue === true) podRunAsNonRoot = true;
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(pod.spec)) {
    const v = boolField(c.sc, 'runAsNonRoot');
    if (v === false) explicit.push(c.name);
    else if (v === undefined && !podRunAsNonRoot) implicit.push(c.name);
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) return forbid('runAsNonRoot != true', `${setters.join(' and ')} must not set securityContext.runAsNonRoot=false`);
  if (implicit.length > 0) return forbid('runAsNonRoot != true', `pod or ${containersPhrase(implicit)} must set securityContext.runAsNonRoot=true`);
  return ALLOWED;
}

function runAsUser(pod: PodView): CheckResult {
  const setters: string[] = [];
  if (podSecurityContext(pod.spec)?.['runAsUser'] === 0) setters.push('pod');
  const bad = containers(pod.spec)
    .filter((c) => c.sc?.['runAsUser'] === 0)
    .map((c) => c.name);
  if (bad.length > 0) setters.push(containersPhrase(bad));
  return setters.length === 0 ? ALLOWED : forbid('runAsUser=0', `${setters.join(' and ')} must not set runAsUser=0`);
}

function seccompProfileRestricted_1_19(pod: PodView): CheckResult {
  const setters: string[] = [];
  const values: string[] = [];
  let podSet = false;
  const podType = seccompType(podSecurityContext(pod.spec));
  if (podType !== undefined) {
    if (!validSeccompType(podType)) {
      setters.push('pod');
      values.push(podType);
    } else podSet = true;
  }
  const explicit: string[] = [];
  const implicit: string[] = [];
  for (const c of containers(pod.spec)) {
    const t = seccompType(c.sc);
    if (t !== undefined) {
      if (!validSeccompType(t)) {
        explicit.push(c.name);
        values.push(t);
      }
    } else if (!podSet) implicit.push(c.name);
  }
  if (explicit.length > 0) setters.push(containersPhrase(explicit));
  if (setters.length > 0) {
    return forbid('seccompProfile', `${setters.join(' and ')} must not set securityContext.seccompProfile.type to ${joinQuote(sortedSet(values))}`);
  }
  if (implicit.length > 0) {
    return forbid('seccompProfile', `pod or ${containersPhrase(implicit)} must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost"`);
  }
  return ALLOWED;
}

function capabilitiesRestricted_1_22(pod: PodView): CheckResult {
  const missingDropAll: string[] = [];
  const addingForbidden: string[] = [];
  const forbiddenCaps: string[] = [];
  for (const c of containers(pod.spec)) {
    if (c.sc === undefined || asObject(c.sc['capabilities']) === undefined) {
      missingDropAll.push(c.name);
      continue;
    }
    if (!capabilityList(c.sc, 'drop').includes('ALL')) missingDropAll.push(c.name);
    let added = false;
    for (const cap of capabilityList(c.sc, 'add')) {
      if (cap !== 'NET_BIND_SERVICE') {
        added = true;
        forbiddenCaps.push(cap);
      }
    }
    if (added) addingForbidden.push(c.name);
  }
  const details: string[] = [];
  if (missingDropAll.length > 0) details.push(`${containersPhrase(missingDropAll)} must set securityContext.capabilities.drop=["ALL"]`);
  if (addingForbidden.length > 0) {
    details.push(`${containersPhrase(addingForbidden)} must not include ${joinQuote(sortedSet(forbiddenCaps))} in securityContext.capabilities.add`);
  }
  return details.length === 0 ? ALLOWED : forbid('unrestricted capabilities', details.join('; '));
}

/** Every check of the default set (the original's DefaultChecks), with its versions. */
export const DEFAULT_CHECKS: readonly Check[] = [
  { id: 'allowPrivilegeEscalation', level: 'restricted', versions: [
    { minimumVersion: majorMinor(1, 8), check: allowPrivilegeEscalation_1_8 },
    { minimumVersion: majorMinor(1, 25), check: exemptWindows(allowPrivilegeEscalation_1_8) },
  ] },
  { id: 'appArmorProfile', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: appArmorProfile }] },
  { id: 'capabilities_baseline', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: capabilitiesBaseline }] },
  { id: 'capabilities_restricted', level: 'restricted', versions: [
    { minimumVersion: majorMinor(1, 22), check: capabilitiesRestricted_1_22, overrides: ['capabilities_baseline'] },
    { minimumVersion: majorMinor(1, 25), check: exemptWindows(capabilitiesRestricted_1_22), overrides: ['capabilities_baseline'] },
  ] },
  { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: hostNamespaces }] },
  { id: 'hostPathVolumes', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: hostPathVolumes }] },
  { id: 'hostPorts', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: hostPorts }] },
  { id: 'privileged', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: privileged }] },
  { id: 'procMount', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: procMount }] },
  { id: 'restrictedVolumes', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), check: restrictedVolumes, overrides: ['hostPathVolumes'] }] },
  { id: 'runAsNonRoot', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 0), check: runAsNonRoot }] },
  { id: 'runAsUser', level: 'restricted', versions: [{ minimumVersion: majorMinor(1, 23), check: runAsUser }] },
  { id: 'seLinuxOptions', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: seLinuxOptions }] },
  { id: 'seccompProfile_baseline', level: 'baseline', versions: [
    { minimumVersion: majorMinor(1, 0), check: seccompProfileBaseline_1_0 },
    { minimumVersion: majorMinor(1, 19), check: seccompProfileBaseline_1_19 },
  ] },
  { id: 'seccompProfile_restricted', level: 'restricted', versions: [
    { minimumVersion: majorMinor(1, 19), check: seccompProfileRestricted_1_19, overrides: ['seccompProfile_baseline'] },
    { minimumVersion: majorMinor(1, 25), check: exemptWindows(seccompProfileRestricted_1_19), overrides: ['seccompProfile_baseline'] },
  ] },
  { id: 'sysctls', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: sysctls }] },
  { id: 'windowsHostProcess', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), check: windowsHostProcess }] },
];
