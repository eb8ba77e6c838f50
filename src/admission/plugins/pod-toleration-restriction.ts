/**
 * PodTolerationRestriction: the original's plugin/pkg/admission/
 * podtolerationrestriction. On pod create the namespace's default
 * tolerations (annotation `scheduler.alpha.<domain>/defaultTolerations`, a
 * JSON list; else the plugin configuration's `default`) are merged into the
 * pod's; a pod that is not BestEffort also tolerates memory-pressure
 * NoSchedule (create and update). Then every toleration must be covered by
 * the namespace's whitelist (`.../tolerationsWhitelist`; else the
 * configuration's `whitelist`; empty or absent allows all). The refusal is a
 * plain error in the original, so a 500 with its text.
 */
import { errors } from '../../api/status.ts';
import { names } from '../../naming/index.ts';
import { isPlainObject, type KObject } from '../../registry/object.ts';
import { podQOSClass } from '../../registry/strategies/pod-qos.ts';
import type { AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import { isPods, isSuperset as isCovered, mergeTolerations, objects, plainError, podSpec, type JsonObject } from './pod-util.ts';
import { pluginConfiguration } from './plugin-config.ts';
import type { NamespaceGetter } from './pod-node-selector.ts';

export interface TolerationRestrictionConfig {
  readonly default?: readonly JsonObject[];
  readonly whitelist?: readonly JsonObject[];
}

export function parseTolerationRestrictionConfig(raw: unknown): TolerationRestrictionConfig {
  if (!isPlainObject(raw)) return {};
  return { default: objects(raw['default']), whitelist: objects(raw['whitelist']) };
}

/** extractNSTolerations: undefined when the annotation is absent, [] when empty, else the JSON list (a bad one is an error). */
function namespaceTolerations(ns: KObject, key: string): JsonObject[] | undefined {
  const ann = ns.metadata.annotations;
  if (!isPlainObject(ann) || typeof ann[key] !== 'string') return undefined;
  const text = ann[key];
  if (text.length === 0) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw plainError(e instanceof Error ? e.message : String(e));
  }
  if (parsed === null) return [];
  if (!Array.isArray(parsed)) throw plainError(`json: cannot unmarshal ${typeof parsed} into Go value of type []v1.Toleration`);
  return parsed.map((t) => {
    if (!isPlainObject(t)) throw plainError('json: cannot unmarshal into Go value of type v1.Toleration');
    return t;
  });
}

export function podTolerationRestriction(namespaces: NamespaceGetter, config: TolerationRestrictionConfig): AdmissionPlugin {
  const defaultKey = names.podAdmission.defaultTolerationsAnnotation;
  const whitelistKey = names.podAdmission.tolerationsWhitelistAnnotation;

  async function namespace(name: string): Promise<KObject> {
    const ns = await namespaces.get(name);
    if (ns === null) throw errors.notFound('', 'namespaces', name);
    return ns;
  }

  async function verify(namespaceName: string, spec: JsonObject, ns?: KObject): Promise<void> {
    const tolerations = objects(spec['tolerations']);
    if (tolerations.length === 0) return;
    let whitelist = namespaceTolerations(ns ?? (await namespace(namespaceName)), whitelistKey);
    let scope = 'namespace';
    if (whitelist === undefined) {
      whitelist = [...(config.whitelist ?? [])];
      scope = 'cluster';
    }
    if (whitelist.length > 0 && !tolerations.every((t) => whitelist.some((w) => isCovered(w, t)))) {
      throw plainError(`pod tolerations (possibly merged with namespace default tolerations) conflict with its ${scope} whitelist`);
    }
  }

  return {
    name: 'PodTolerationRestriction',
    handles: (rt, sub, op) => isPods(rt) && sub === '' && (op === 'CREATE' || op === 'UPDATE'),
    async admit(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      if (spec['tolerations'] !== undefined && spec['tolerations'] !== null && !Array.isArray(spec['tolerations'])) return;
      let ns: KObject | undefined;
      const extra: JsonObject[] = [];
      if (attrs.operation === 'CREATE') {
        ns = await namespace(attrs.namespace);
        extra.push(...(namespaceTolerations(ns, defaultKey) ?? config.default ?? []));
      }
      if (podQOSClass(spec) !== 'BestEffort') extra.push({ key: names.podAdmission.memoryPressureTaint, operator: 'Exists', effect: 'NoSchedule' });
      if (extra.length > 0) spec['tolerations'] = mergeTolerations(objects(spec['tolerations']), extra);
      await verify(attrs.namespace, spec, ns);
    },
    async validate(attrs) {
      const spec = podSpec(attrs.object);
      if (spec === undefined) return;
      await verify(attrs.namespace, spec);
    },
  };
}

export const podTolerationRestrictionFactory: AdmissionPluginFactory = {
  name: 'PodTolerationRestriction',
  create(deps) {
    const rt = deps.lookup.type('', 'v1', 'namespaces')!;
    return podTolerationRestriction(
      { get: (name) => deps.lookup.get(rt, '', name) },
      parseTolerationRestrictionConfig(pluginConfiguration(deps.opts, 'PodTolerationRestriction')),
    );
  },
};
