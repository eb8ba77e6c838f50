/**
 * DefaultIngressClass: an Ingress created without spec.ingressClassName and
 * without the legacy class annotation gets the default IngressClass, as the
 * original's plugin (plugin/pkg/admission/network/defaultingressclass).
 * More than one default class rejects the create (spec 7).
 */
import type { AdmissionAttributes, AdmissionPlugin } from '../types.ts';
import type { AdmissionPluginFactory } from '../plugin-table.ts';
import type { KObject } from '../../registry/object.ts';
import { names, apiGroup } from '../../naming/index.ts';
import { admissionForbidden, internalErrorText, record } from './admission-errors.ts';

export interface IngressClassSource {
  list(): Promise<KObject[]>;
}

export function isDefaultIngressClass(ic: KObject): boolean {
  const ann = ic.metadata.annotations ?? {};
  return names.admissionNames.defaultIngressClass.some((k) => ann[k] === 'true');
}

export function defaultIngressClass(classes: IngressClassSource): AdmissionPlugin {
  const networking = apiGroup('networking');
  return {
    name: 'DefaultIngressClass',
    handles: (rt, sub, op) => rt.group === networking && rt.resource === 'ingresses' && sub === '' && op === 'CREATE',
    async admit(attrs: AdmissionAttributes): Promise<void> {
      const ing = attrs.object;
      if (ing === null) return;
      const spec = record(ing['spec']);
      if (spec['ingressClassName'] !== undefined && spec['ingressClassName'] !== null) return;
      const ann = ing.metadata.annotations ?? {};
      if (names.admissionNames.ingressClass.some((k) => k in ann)) return;
      const defaults = (await classes.list()).filter(isDefaultIngressClass);
      if (defaults.length === 0) return;
      if (defaults.length > 1) {
        throw admissionForbidden(attrs, internalErrorText(`${defaults.length} default IngressClasses were found, only 1 allowed`));
      }
      attrs.object = { ...ing, spec: { ...spec, ingressClassName: defaults[0]!.metadata.name } };
    },
  };
}

export const defaultIngressClassFactory: AdmissionPluginFactory = {
  name: 'DefaultIngressClass',
  create(deps) {
    const rt = deps.lookup.type(apiGroup('networking'), 'v1', 'ingressclasses');
    return defaultIngressClass({ list: async () => (rt === undefined ? [] : deps.lookup.list(rt)) });
  },
};
