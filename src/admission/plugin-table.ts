/**
 * Every admission plugin this server builds, by name, and how one thread
 * builds its chain from the flags: the enabled plugins (plugin-names.ts
 * decides which), created with this thread's dependencies, ordered as the
 * original orders them (KNOWN_ADMISSION_PLUGINS), whatever the order of the
 * flags.
 *
 * Adding a plugin is adding its factory to PLUGIN_FACTORIES.
 */
import type { ServerOptions } from '../server/options.ts';
import type { Logger } from '../server/logging.ts';
import type { ResourceRegistry } from '../registry/registry.ts';
import type { GenericStore } from '../registry/generic-store.ts';
import type { Authorizer } from '../authz/types.ts';
import type { ApiserverMetrics } from '../server/metrics.ts';
import type { AdmissionPlugin } from './types.ts';
import type { AdmissionLookup } from './lookup.ts';
import { AdmissionChain } from './chain.ts';
import { KNOWN_ADMISSION_PLUGINS, admissionPluginEnabled } from './plugin-names.ts';
import { namespaceLifecycleFactory } from './plugins/namespace-lifecycle.ts';
import { alwaysAdmitFactory } from './plugins/always-admit.ts';
import { mutatingWebhookFactory, validatingWebhookFactory } from './webhook/plugin.ts';
import { serviceAccountFactory } from './plugins/service-account.ts';
import { taintNodesByConditionFactory } from './plugins/taint-nodes-by-condition.ts';
import { priorityFactory } from './plugins/priority.ts';
import { defaultTolerationSecondsFactory } from './plugins/default-toleration-seconds.ts';
import { runtimeClassFactory } from './plugins/runtime-class.ts';
import { podNodeSelectorFactory } from './plugins/pod-node-selector.ts';
import { podTolerationRestrictionFactory } from './plugins/pod-toleration-restriction.ts';
import { extendedResourceTolerationFactory } from './plugins/extended-resource-toleration.ts';
import { alwaysPullImagesFactory } from './plugins/always-pull-images.ts';
import { namespaceAutoProvisionFactory } from './plugins/namespace-auto-provision.ts';
import { namespaceExistsFactory } from './plugins/namespace-exists.ts';
import { alwaysDenyFactory } from './plugins/always-deny.ts';
import { podSecurityFactory } from './plugins/pod-security/index.ts';
import { defaultStorageClassFactory } from './plugins/default-storage-class.ts';
import { defaultIngressClassFactory } from './plugins/default-ingress-class.ts';
import { storageObjectInUseProtectionFactory } from './plugins/storage-object-in-use-protection.ts';
import { persistentVolumeClaimResizeFactory } from './plugins/persistent-volume-claim-resize.ts';
import { certificateApprovalFactory } from './plugins/certificate-approval.ts';
import { certificateSigningFactory } from './plugins/certificate-signing.ts';
import { certificateSubjectRestrictionFactory } from './plugins/certificate-subject-restriction.ts';
import { denyServiceExternalIPsFactory } from './plugins/deny-service-external-ips.ts';
import { nodeRestrictionFactory } from './plugins/node-restriction.ts';
import { ownerReferencesPermissionEnforcementFactory } from './plugins/owner-references-permission-enforcement.ts';
import { eventRateLimitFactory } from './plugins/event-rate-limit.ts';
import { limitRangerFactory } from './plugins/limit-ranger.ts';
import { resourceQuotaFactory } from './plugins/resource-quota/index.ts';

/** What a plugin may use, in the serving thread that runs it. */
export interface AdmissionDeps {
  readonly opts: ServerOptions;
  readonly logger: Logger;
  readonly registry: ResourceRegistry;
  /** Watch-cache reads of the objects a write is checked against. */
  readonly lookup: AdmissionLookup;
  /**
   * This thread's generic store, for the few plugins that write (quota
   * status, auto-provisioned namespaces) or watch. A getter: the store is
   * built with the chain, so it exists only once the chain does.
   */
  readonly store: () => GenericStore;
  /** This thread's authorizer (plugins that check a permission); built after the chain, so a getter too. */
  readonly authorizer: () => Authorizer;
  /** Tells the chain that this plugin's `handles` answers changed (webhook configurations came or went). */
  readonly recompile: () => void;
  /** This thread's metrics (webhook rejections and latency); a getter, built after the chain; absent in tests without a server. */
  readonly metrics?: (() => ApiserverMetrics | undefined) | undefined;
  /** Registers what to stop when the thread's pipeline closes (watches, timers, agents). */
  readonly onClose: (cleanup: () => Promise<void> | void) => void;
}

export interface AdmissionPluginFactory {
  /** The plugin's name as `--enable-admission-plugins` spells it. */
  readonly name: string;
  create(deps: AdmissionDeps): AdmissionPlugin | Promise<AdmissionPlugin>;
}

export const PLUGIN_FACTORIES: readonly AdmissionPluginFactory[] = [
  namespaceLifecycleFactory,
  alwaysAdmitFactory,
  mutatingWebhookFactory,
  validatingWebhookFactory,
  podSecurityFactory,
  defaultStorageClassFactory,
  defaultIngressClassFactory,
  storageObjectInUseProtectionFactory,
  persistentVolumeClaimResizeFactory,
  certificateApprovalFactory,
  certificateSigningFactory,
  certificateSubjectRestrictionFactory,
  denyServiceExternalIPsFactory,
  nodeRestrictionFactory,
  ownerReferencesPermissionEnforcementFactory,
  eventRateLimitFactory,
  serviceAccountFactory,
  taintNodesByConditionFactory,
  priorityFactory,
  defaultTolerationSecondsFactory,
  runtimeClassFactory,
  podNodeSelectorFactory,
  podTolerationRestrictionFactory,
  extendedResourceTolerationFactory,
  alwaysPullImagesFactory,
  namespaceAutoProvisionFactory,
  namespaceExistsFactory,
  alwaysDenyFactory,
  limitRangerFactory,
  resourceQuotaFactory,
];

/** The names this server runs (plugin-names.ts refuses to enable any other). */
export const BUILT_PLUGIN_NAMES: readonly string[] = PLUGIN_FACTORIES.map((f) => f.name);

/** Builds this thread's chain: enabled plugins only, in the original's order. */
export async function buildAdmissionChain(deps: Omit<AdmissionDeps, 'recompile'>): Promise<AdmissionChain> {
  const { enableAdmissionPlugins: enable, disableAdmissionPlugins: disable } = deps.opts;
  const order = new Map(KNOWN_ADMISSION_PLUGINS.map((n, i) => [n, i]));
  const factories = PLUGIN_FACTORIES.filter((f) => admissionPluginEnabled(f.name, enable, disable)).sort(
    (a, b) => (order.get(a.name) ?? Number.MAX_SAFE_INTEGER) - (order.get(b.name) ?? Number.MAX_SAFE_INTEGER),
  );
  const holder: { chain?: AdmissionChain } = {};
  const full: AdmissionDeps = { ...deps, recompile: () => holder.chain?.recompile() };
  const plugins: AdmissionPlugin[] = [];
  for (const f of factories) plugins.push(await f.create(full));
  holder.chain = new AdmissionChain(plugins);
  return holder.chain;
}
