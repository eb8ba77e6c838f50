/**
 * The admission plugin names the original recognizes (its
 * AllOrderedPlugins, v1.25 onwards, plus the names spec 8 lists that later
 * releases removed), which of them it enables by default, and which this
 * server actually runs.
 *
 * --enable-admission-plugins / --disable-admission-plugins are checked
 * against this table before anything starts:
 * - an unknown name is an error, worded as the original words it
 *   (`enable-admission-plugins plugin "X" is unknown`);
 * - a name in both lists is an error, as in the original;
 * - enabling a known plugin this server does not run is an error too: the
 *   operator asked for a policy (NodeRestriction, PodSecurity, ResourceQuota,
 *   AlwaysDeny...) that would silently not be enforced, and starting anyway
 *   is the unsafe answer;
 * - disabling a known plugin this server does not run is accepted (it is
 *   off either way);
 * - default-on plugins this server does not run are reported as one start-up
 *   warning (see unbuiltDefaultPlugins).
 */
import { BUILT_PLUGIN_NAMES } from './plugin-table.ts';

/** Every recognized name, in the original's order. */
export const KNOWN_ADMISSION_PLUGINS: readonly string[] = [
  'AlwaysAdmit',
  'NamespaceAutoProvision',
  'NamespaceLifecycle',
  'NamespaceExists',
  'SecurityContextDeny', // removed in v1.30; listed by spec 8
  'LimitPodHardAntiAffinityTopology',
  'LimitRanger',
  'ServiceAccount',
  'NodeRestriction',
  'TaintNodesByCondition',
  'AlwaysPullImages',
  'ImagePolicyWebhook',
  'PodSecurity',
  'PodSecurityPolicy', // removed in v1.25; listed by spec 8
  'PodNodeSelector',
  'Priority',
  'DefaultTolerationSeconds',
  'PodTolerationRestriction',
  'EventRateLimit',
  'ExtendedResourceToleration',
  'PersistentVolumeLabel', // removed in v1.31; listed by spec 8
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'OwnerReferencesPermissionEnforcement',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'ClusterTrustBundleAttest',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'DenyServiceExternalIPs',
  'PodTopologyLabels',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
  'AlwaysDeny',
];

/** On unless disabled (spec 8's default-enabled list). */
export const DEFAULT_ON_ADMISSION_PLUGINS: readonly string[] = [
  'NamespaceLifecycle',
  'LimitRanger',
  'ServiceAccount',
  'TaintNodesByCondition',
  'PodSecurity',
  'Priority',
  'DefaultTolerationSeconds',
  'DefaultStorageClass',
  'StorageObjectInUseProtection',
  'PersistentVolumeClaimResize',
  'RuntimeClass',
  'CertificateApproval',
  'CertificateSigning',
  'CertificateSubjectRestriction',
  'DefaultIngressClass',
  'MutatingAdmissionWebhook',
  'ValidatingAdmissionWebhook',
  'ResourceQuota',
];

const known = new Set(KNOWN_ADMISSION_PLUGINS);
/**
 * The plugins this server builds (plugin-table.ts). Read when asked, not at
 * load: plugin-table.ts imports this module too.
 */
const built = (): ReadonlySet<string> => new Set(BUILT_PLUGIN_NAMES);

/** Every problem with the two flag lists, in the order found; empty when they are fine. */
export function admissionPluginProblems(enable: readonly string[], disable: readonly string[]): string[] {
  const problems: string[] = [];
  for (const name of enable) if (!known.has(name)) problems.push(`enable-admission-plugins plugin ${JSON.stringify(name)} is unknown`);
  for (const name of disable) if (!known.has(name)) problems.push(`disable-admission-plugins plugin ${JSON.stringify(name)} is unknown`);
  const disabled = new Set(disable);
  const overlap = [...new Set(enable)].filter((n) => disabled.has(n)).sort();
  if (overlap.length > 0) problems.push(`[${overlap.join(' ')}] in enable-admission-plugins and disable-admission-plugins overlapped`);
  for (const name of enable) {
    if (known.has(name) && !built().has(name)) {
      problems.push(`enable-admission-plugins plugin ${JSON.stringify(name)} is not implemented by this server; its policy would not be enforced (remove it to start)`);
    }
  }
  return problems;
}

/** Whether a plugin runs under these flags: enabled explicitly or on by default, and not disabled. */
export function admissionPluginEnabled(name: string, enable: readonly string[], disable: readonly string[]): boolean {
  if (enable.includes(name)) return true;
  return DEFAULT_ON_ADMISSION_PLUGINS.includes(name) && !disable.includes(name);
}

/** Default-on plugins that would run in the original but that this server does not implement (for a start-up warning). */
export function unbuiltDefaultPlugins(disable: readonly string[]): string[] {
  return DEFAULT_ON_ADMISSION_PLUGINS.filter((n) => !built().has(n) && !disable.includes(n));
}
