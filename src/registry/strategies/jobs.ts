/**
 * Jobs (batch/v1): SetDefaults_Job, the selector the server generates
 * unless spec.manualSelector is true, the template rules (pods of a Job
 * must not restart forever) and the fields an update cannot change.
 */
import type { KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { validateLabelSelector, selectorMatches, selectorMismatch } from '../validation/label-selector.ts';
import { isDNS1123Label } from '../validation/names.ts';
import { validateImmutableField } from '../validation/object-meta.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { validatePodTemplateSpec } from './pod-validation.ts';
import { ensureObj, isMainResource, num, obj, setDefault, specOf, type JsonObject } from './util.ts';
import { nonNegative } from './workload.ts';
import { names } from '../../naming/index.ts';
import { pushAll } from '../../api/push-all.ts';

/** Labels the server puts on a Job's pods (the original's batch.kubernetes.io/... and legacy names). */
export const JOB_NAME_LABEL = names.labels.jobName;
export const CONTROLLER_UID_LABEL = names.labels.jobControllerUid;
export const LEGACY_JOB_NAME_LABEL = 'job-name';
export const LEGACY_CONTROLLER_UID_LABEL = 'controller-uid';

const COMPLETION_MODES = ['NonIndexed', 'Indexed'];
const MAX_PARALLELISM_FOR_INDEXED_JOB = 100000;

/** SetDefaults_Job (the parts a v1.32 server with default feature gates applies). */
export function defaultJob(job: KObject): void {
  const spec = specOf(job);
  if ((spec['completions'] === undefined || spec['completions'] === null) && (spec['parallelism'] === undefined || spec['parallelism'] === null)) {
    spec['completions'] = 1;
    spec['parallelism'] = 1;
  }
  setDefault(spec, 'parallelism', 1);
  setDefault(spec, 'backoffLimit', spec['backoffLimitPerIndex'] !== undefined && spec['backoffLimitPerIndex'] !== null ? 2147483647 : 6);
  setDefault(spec, 'completionMode', 'NonIndexed');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'manualSelector', false);
  setDefault(spec, 'podReplacementPolicy', obj(spec['podFailurePolicy']) ? 'Failed' : 'TerminatingOrFailed');
  defaultPodTemplate(ensureObj(spec, 'template'));
  copyTemplateLabels(job);
}

/** A Job without labels of its own takes its template's. */
function copyTemplateLabels(job: KObject): void {
  const templateLabels = obj(obj(obj(specOf(job)['template'])?.['metadata'])?.['labels']);
  if (templateLabels && Object.keys(job.metadata.labels ?? {}).length === 0) job.metadata.labels = { ...(templateLabels as Record<string, string>) };
}

/**
 * generateSelector: the pods are labelled with the Job's name and uid, and
 * the selector picks the uid. Labels the client set are left for
 * validation to judge.
 */
export function generateSelector(job: KObject): void {
  const template = ensureObj(specOf(job), 'template');
  const labels = ensureObj(ensureObj(template, 'metadata'), 'labels');
  const name = job.metadata.name ?? '';
  const uid = job.metadata.uid ?? '';
  for (const key of [LEGACY_JOB_NAME_LABEL, JOB_NAME_LABEL]) if (!(key in labels)) labels[key] = name;
  for (const key of [LEGACY_CONTROLLER_UID_LABEL, CONTROLLER_UID_LABEL]) if (!(key in labels)) labels[key] = uid;
  const selector = ensureObj(specOf(job), 'selector');
  const matchLabels = ensureObj(selector, 'matchLabels');
  if (!(CONTROLLER_UID_LABEL in matchLabels)) matchLabels[CONTROLLER_UID_LABEL] = uid;
}

/** validateJobSpec: the rules shared with a CronJob's job template. */
export function validateJobSpecCommon(spec: JsonObject, path: string): FieldError[] {
  const errs: FieldError[] = [];
  for (const field of ['parallelism', 'completions', 'activeDeadlineSeconds', 'backoffLimit', 'ttlSecondsAfterFinished']) {
    pushAll(errs, nonNegative(spec[field], `${path}.${field}`));
  }
  const mode = spec['completionMode'];
  if (mode !== undefined && mode !== null) {
    if (!COMPLETION_MODES.includes(String(mode))) errs.push(fieldErrors.notSupported(`${path}.completionMode`, mode, COMPLETION_MODES));
    if (mode === 'Indexed') {
      if (spec['completions'] === undefined || spec['completions'] === null) errs.push(fieldErrors.required(`${path}.completions`, 'when completion mode is Indexed'));
      const parallelism = num(spec['parallelism']);
      if (parallelism !== undefined && parallelism > MAX_PARALLELISM_FOR_INDEXED_JOB) {
        errs.push(fieldErrors.invalid(`${path}.parallelism`, parallelism, `must be less than or equal to ${MAX_PARALLELISM_FOR_INDEXED_JOB} when completion mode is Indexed`));
      }
    }
  }
  pushAll(errs, validatePodTemplateSpec(spec['template'], `${path}.template`));
  const restart = obj(obj(spec['template'])?.['spec'])?.['restartPolicy'];
  if (restart !== 'OnFailure' && restart !== 'Never') {
    errs.push(fieldErrors.notSupported(`${path}.template.spec.restartPolicy`, restart ?? '', ['OnFailure', 'Never']));
  } else if (obj(spec['podFailurePolicy']) && restart !== 'Never') {
    errs.push(fieldErrors.invalid(`${path}.template.spec.restartPolicy`, restart, 'only "Never" is supported when podFailurePolicy is specified'));
  }
  return errs;
}

export function validateJob(job: KObject): FieldError[] {
  const spec = specOf(job);
  const errs = validateJobSpecCommon(spec, 'spec');
  const selector = spec['selector'];
  if (selector === undefined || selector === null) errs.push(fieldErrors.required('spec.selector'));
  else pushAll(errs, validateLabelSelector(selector, 'spec.selector'));
  // Manual or generated, the selector must match the pods the Job makes.
  const labels = obj(obj(spec['template'])?.['metadata'])?.['labels'];
  if (selectorMatches(selector, labels) === false) errs.push(selectorMismatch('spec.template.metadata.labels', labels));
  // Indexed pods get `-<index>` appended to the Job name as hostname.
  const completions = num(spec['completions']);
  if (spec['completionMode'] === 'Indexed' && completions !== undefined && completions > 0) {
    const name = job.metadata.name ?? '';
    const hostname = `${name}-${completions - 1}`;
    if (isDNS1123Label(hostname).length > 0) {
      errs.push(fieldErrors.invalid('metadata.name', name, `will not able to create pod with invalid DNS label: ${hostname}`));
    }
  }
  return errs;
}

function validateJobUpdate(spec: JsonObject, old: JsonObject): FieldError[] {
  const errs: FieldError[] = [];
  // Elastic Indexed Jobs may change completions together with parallelism.
  const elastic = spec['completionMode'] === 'Indexed' && old['completionMode'] === 'Indexed' && spec['completions'] === spec['parallelism'];
  if (!elastic) pushAll(errs, validateImmutableField(spec['completions'], old['completions'], 'spec.completions'));
  pushAll(errs, validateImmutableField(spec['selector'], old['selector'], 'spec.selector'));
  pushAll(errs, validateImmutableField(spec['template'], old['template'], 'spec.template'));
  for (const field of ['completionMode', 'podFailurePolicy', 'backoffLimitPerIndex', 'managedBy', 'successPolicy']) {
    pushAll(errs, validateImmutableField(spec[field], old[field], `spec.${field}`));
  }
  return errs;
}

export const jobStrategy: Strategy = {
  defaults: defaultJob,

  prepareForCreate(job) {
    job['status'] = {};
  },

  /**
   * As in the original, the selector is generated here rather than in
   * prepareForCreate: the Job's name, which the pods' labels carry, is only
   * known once a generateName has been resolved, just before validation.
   */
  validate(job) {
    if (specOf(job)['manualSelector'] !== true) {
      generateSelector(job);
      copyTemplateLabels(job);
    }
    return validateJob(job);
  },

  validateUpdate(job, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return [...validateJob(job), ...validateJobUpdate(specOf(job), obj(old['spec']) ?? {})];
  },
};

