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
import type { AdmissionPlugin } from './types.ts';
import type { AdmissionLookup } from './lookup.ts';
import { AdmissionChain } from './chain.ts';
import { KNOWN_ADMISSION_PLUGINS, admissionPluginEnabled } from './plugin-names.ts';
import { namespaceLifecycleFactory } from './plugins/namespace-lifecycle.ts';
import { alwaysAdmitFactory } from './plugins/always-admit.ts';

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
  /** Registers what to stop when the thread's pipeline closes (watches, timers, agents). */
  readonly onClose: (cleanup: () => Promise<void> | void) => void;
}

export interface AdmissionPluginFactory {
  /** The plugin's name as `--enable-admission-plugins` spells it. */
  readonly name: string;
  create(deps: AdmissionDeps): AdmissionPlugin | Promise<AdmissionPlugin>;
}

export const PLUGIN_FACTORIES: readonly AdmissionPluginFactory[] = [namespaceLifecycleFactory, alwaysAdmitFactory];

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
