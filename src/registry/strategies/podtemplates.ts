/**
 * PodTemplates: the template gets the pod spec defaults and validation
 * (registry/core/podtemplate). Generation follows template changes; the
 * generic store does that.
 */
import type { Strategy } from '../strategy.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { validatePodTemplateSpec } from './pod-validation.ts';
import { ensureObj } from './util.ts';

export const podTemplateStrategy: Strategy = {
  defaults(pt) {
    defaultPodTemplate(ensureObj(pt, 'template'));
  },
  validate(pt) {
    return validatePodTemplateSpec(pt['template'], 'template');
  },
  validateUpdate(pt) {
    return validatePodTemplateSpec(pt['template'], 'template');
  },
};
