/**
 * ReplicationControllers (core v1): the selector and the controller's own
 * labels default to the template's labels, replicas to 1; the selector must
 * be non-empty and match the template (pkg/apis/core/validation
 * ValidateReplicationController).
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { selectorMismatch } from '../validation/label-selector.ts';
import { validateLabels } from '../validation/object-meta.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { isMainResource, obj, setDefault, specOf } from './util.ts';
import { nonNegative, validateAlwaysRestartingTemplate } from './workload.ts';
import { pushAll } from '../../api/push-all.ts';

export function defaultReplicationController(rc: KObject): void {
  const spec = specOf(rc);
  const template = obj(spec['template']);
  const labels = obj(obj(template?.['metadata'])?.['labels']);
  if (labels) {
    if (Object.keys(obj(spec['selector']) ?? {}).length === 0) spec['selector'] = { ...labels };
    if (Object.keys(rc.metadata.labels ?? {}).length === 0) rc.metadata.labels = { ...(labels as Record<string, string>) };
  }
  setDefault(spec, 'replicas', 1);
  if (template) defaultPodTemplate(template);
}

export function validateReplicationController(rc: KObject): FieldError[] {
  const spec = specOf(rc);
  const errs: FieldError[] = [...nonNegative(spec['minReadySeconds'], 'spec.minReadySeconds')];
  const selector = obj(spec['selector']) ?? {};
  if (Object.keys(selector).length === 0) errs.push(fieldErrors.required('spec.selector'));
  else pushAll(errs, validateLabels(selector as Record<string, string>, 'spec.selector'));
  pushAll(errs, nonNegative(spec['replicas'], 'spec.replicas'));
  const template = obj(spec['template']);
  if (!template) return [...errs, fieldErrors.required('spec.template')];
  const labels = obj(obj(template['metadata'])?.['labels']) ?? {};
  const matches = Object.entries(selector).every(([k, v]) => labels[k] === v);
  if (Object.keys(selector).length > 0 && !matches) errs.push(selectorMismatch('spec.template.metadata.labels', obj(obj(template['metadata'])?.['labels'])));
  pushAll(errs, validateAlwaysRestartingTemplate(spec, 'activeDeadlineSeconds in ReplicationController is not Supported'));
  return errs;
}

export const replicationControllerStrategy: Strategy = {
  defaults: defaultReplicationController,
  prepareForCreate(rc) {
    rc['status'] = { replicas: 0 };
  },
  validate(rc) {
    return validateReplicationController(rc);
  },
  validateUpdate(rc, _old, ctx) {
    return isMainResource(ctx) ? validateReplicationController(rc) : [];
  },
};
