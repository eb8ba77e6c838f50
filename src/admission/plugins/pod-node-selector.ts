/**
 * PodNodeSelector: the original's plugin/pkg/admission/podnodeselector.
 * A namespace's `scheduler.alpha.<domain>/node-selector` annotation (else the
 * plugin configuration's `clusterDefaultNodeSelector`) is merged into the
 * node selector of every pod created in it; a pod whose selector conflicts
 * with it is refused, and so is one whose selector leaves the namespace's
 * whitelist in the plugin configuration (`podNodeSelectorPluginConfig:
 * {clusterDefaultNodeSelector: "...", <namespace>: "..."}`). Pod create only;
 * the namespace comes from the watch cache.
 */
import { errors, StatusError } from '../../api/status.ts';
import { names } from '../../naming/index.ts';
import { isPlainObject, type KObject } from '../../registry/object.ts';
import { isQualifiedName, isValidLabelValue } from '../../registry/validation/names.ts';
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { isPods, plainError, podSpec, str, type JsonObject } from './pod-util.ts';
import { pluginConfiguration } from './plugin-config.ts';

export type LabelSet = Record<string, string>;

/** labels.ConvertSelectorToLabelsMap: `k=v,k2=v2` (spaces trimmed) to a map; throws on a malformed one. */
export function selectorToLabels(selector: string): LabelSet {
  const out: LabelSet = {};
  if (selector.length === 0) return out;
  for (const label of selector.split(',')) {
    const parts = label.split('=');
    if (parts.length !== 2) throw plainError(`invalid selector: [${parts.join(' ')}]`);
    const key = parts[0]!.trim();
    const keyErrs = isQualifiedName(key);
    if (keyErrs.length > 0) throw plainError(`Invalid value: ${JSON.stringify(key)}: ${keyErrs.join('; ')}`);
    const value = parts[1]!.trim();
    const valueErrs = isValidLabelValue(value);
    if (valueErrs.length > 0) throw plainError(`Invalid value: ${JSON.stringify(value)}: ${valueErrs.join('; ')}`);
    out[key] = value;
  }
  return out;
}

/** labels.Conflicts: a key both sets hold with different values. */
export function labelsConflict(a: LabelSet, b: LabelSet): boolean {
  for (const [k, v] of Object.entries(a)) if (Object.prototype.hasOwnProperty.call(b, k) && b[k] !== v) return true;
  return false;
}

function isSubset(sub: LabelSet, sup: LabelSet): boolean {
  if (Object.keys(sup).length === 0) return true;
  return Object.entries(sub).every(([k, v]) => Object.prototype.hasOwnProperty.call(sup, k) && sup[k] === v);
}

function stringMap(v: unknown): LabelSet {
  const out: LabelSet = {};
  if (isPlainObject(v)) for (const [k, x] of Object.entries(v)) out[k] = str(x);
  return out;
}

export interface PodNodeSelectorConfig {
  /** `clusterDefaultNodeSelector` and per-namespace whitelists, each a `k=v,...` selector. */
  readonly [namespaceOrDefault: string]: string;
}

/** The plugin configuration's `podNodeSelectorPluginConfig` map (anything else is ignored, as the original's lenient decoder does). */
export function parsePodNodeSelectorConfig(raw: unknown): PodNodeSelectorConfig {
  if (!isPlainObject(raw)) return {};
  const inner = raw['podNodeSelectorPluginConfig'];
  return isPlainObject(inner) ? stringMap(inner) : {};
}

export interface NamespaceGetter {
  get(name: string): Promise<KObject | null>;
}

export function podNodeSelector(namespaces: NamespaceGetter, config: PodNodeSelectorConfig): AdmissionPlugin {
  const annotation = names.podAdmission.nodeSelectorAnnotation;

  async function namespaceSelector(name: string): Promise<LabelSet> {
    const ns = await namespaces.get(name);
    if (ns === null) throw errors.notFound('', 'namespaces', name);
    const ann = ns.metadata.annotations;
    if (isPlainObject(ann) && typeof ann[annotation] === 'string') return selectorToLabels(ann[annotation]);
    return selectorToLabels(config['clusterDefaultNodeSelector'] ?? '');
  }

  function forbidden(attrs: AdmissionAttributes, pod: KObject, why: string): StatusError {
    return errors.forbidden('', 'pods', pod.metadata.name ?? '', why);
  }

  async function check(attrs: AdmissionAttributes, pod: KObject, spec: JsonObject, nsSelector: LabelSet): Promise<void> {
    const own = stringMap(spec['nodeSelector']);
    if (labelsConflict(nsSelector, own)) throw forbidden(attrs, pod, 'pod node label selector conflicts with its namespace node label selector');
    const whitelist = selectorToLabels(config[attrs.namespace] ?? '');
    if (!isSubset(own, whitelist)) throw forbidden(attrs, pod, 'pod node label selector labels conflict with its namespace whitelist');
  }

  return {
    name: 'PodNodeSelector',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && op === 'CREATE',
    async admit(attrs) {
      const pod = attrs.object;
      const spec = podSpec(pod);
      if (pod === null || spec === undefined) return;
      const own = spec['nodeSelector'];
      if (own !== undefined && own !== null && !isPlainObject(own)) return; // validation answers
      const nsSelector = await namespaceSelector(attrs.namespace);
      if (labelsConflict(nsSelector, stringMap(own))) throw forbidden(attrs, pod, 'pod node label selector conflicts with its namespace node label selector');
      // The pod's own labels win where both name a key (labels.Merge).
      const merged: JsonObject = { ...nsSelector, ...(isPlainObject(own) ? own : {}) };
      if (Object.keys(merged).length > 0) spec['nodeSelector'] = merged;
      await check(attrs, pod, spec, nsSelector);
    },
    async validate(attrs) {
      const pod = attrs.object;
      const spec = podSpec(pod);
      if (pod === null || spec === undefined) return;
      await check(attrs, pod, spec, await namespaceSelector(attrs.namespace));
    },
  };
}

export const podNodeSelectorFactory: AdmissionPluginFactory = {
  name: 'PodNodeSelector',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'namespaces')!;
    return podNodeSelector({ get: (name) => deps.lookup.get(rt, '', name) }, parsePodNodeSelectorConfig(pluginConfiguration(deps.opts, 'PodNodeSelector')));
  },
};
