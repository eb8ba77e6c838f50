/**
 * CronJobs (batch/v1): SetDefaults_CronJob (Allow, not suspended, keep 3
 * successful and 1 failed Jobs), a schedule the cron parser accepts, a valid
 * time zone, and a job template whose selector the server will generate.
 */
import { fieldErrors, type FieldError, type Strategy } from '../strategy.ts';
import { goLabelSelector, invalidShown } from '../validation/go-values.ts';
import { cronScheduleError, isKnownTimeZone } from './cron.ts';
import { validateJobSpecCommon } from './jobs.ts';
import { defaultPodTemplate } from './pod-defaults.ts';
import { ensureObj, isMainResource, obj, setDefault, specOf, str, type JsonObject } from './util.ts';
import { nonNegative } from './workload.ts';
import { pushAll } from '../../api/push-all.ts';

const CONCURRENCY_POLICIES = ['Allow', 'Forbid', 'Replace'];
/** Job names get an 11-character `-<timestamp>` suffix and must stay within 63. */
const MAX_CRONJOB_NAME_LENGTH = 52;

export function defaultCronJobSpec(spec: JsonObject): void {
  setDefault(spec, 'concurrencyPolicy', 'Allow');
  setDefault(spec, 'suspend', false);
  setDefault(spec, 'successfulJobsHistoryLimit', 3);
  setDefault(spec, 'failedJobsHistoryLimit', 1);
  defaultPodTemplate(ensureObj(ensureObj(ensureObj(spec, 'jobTemplate'), 'spec'), 'template'));
}

function validateSchedule(schedule: string, allowTZ: boolean, timeZone: unknown): FieldError[] {
  const errs: FieldError[] = [];
  const parseError = cronScheduleError(schedule);
  if (parseError !== undefined) errs.push(fieldErrors.invalid('spec.schedule', schedule, parseError));
  if (schedule.includes('TZ')) {
    if (allowTZ && timeZone !== undefined && timeZone !== null) {
      errs.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use both timeZone field and TZ or CRON_TZ in schedule'));
    } else if (!allowTZ) {
      errs.push(fieldErrors.invalid('spec.schedule', schedule, 'cannot use TZ or CRON_TZ in schedule, use timeZone field instead'));
    }
  }
  return errs;
}

function validateTimeZone(timeZone: unknown): FieldError[] {
  if (timeZone === undefined || timeZone === null) return [];
  const tz = String(timeZone);
  if (tz === '') return [fieldErrors.invalid('spec.timeZone', tz, 'timeZone must be nil or non-empty string')];
  if (tz.toLowerCase() === 'local') {
    return [fieldErrors.invalid('spec.timeZone', tz, 'timeZone must be an explicit time zone as defined in https://www.iana.org/time-zones')];
  }
  return isKnownTimeZone(tz) ? [] : [fieldErrors.invalid('spec.timeZone', tz, `unknown time zone ${tz}`)];
}

export function validateCronJobSpec(spec: JsonObject, old: JsonObject | undefined): FieldError[] {
  const errs: FieldError[] = [];
  const schedule = str(spec['schedule']) ?? '';
  if (schedule === '') errs.push(fieldErrors.required('spec.schedule'));
  else pushAll(errs, validateSchedule(schedule, (str(old?.['schedule']) ?? '').includes('TZ'), spec['timeZone']));
  pushAll(errs, nonNegative(spec['startingDeadlineSeconds'], 'spec.startingDeadlineSeconds'));
  if (old === undefined || old['timeZone'] !== spec['timeZone']) pushAll(errs, validateTimeZone(spec['timeZone']));
  const policy = spec['concurrencyPolicy'];
  if (policy === undefined || policy === '') errs.push(fieldErrors.required('spec.concurrencyPolicy'));
  else if (!CONCURRENCY_POLICIES.includes(String(policy))) errs.push(fieldErrors.notSupported('spec.concurrencyPolicy', policy, CONCURRENCY_POLICIES));
  const jobSpec = obj(obj(spec['jobTemplate'])?.['spec']) ?? {};
  pushAll(errs, validateJobSpecCommon(jobSpec, 'spec.jobTemplate.spec'));
  if (jobSpec['selector'] !== undefined && jobSpec['selector'] !== null) {
    errs.push(invalidShown('spec.jobTemplate.spec.selector', goLabelSelector(jobSpec['selector']), '`selector` will be auto-generated'));
  }
  if (jobSpec['manualSelector'] === true) errs.push(fieldErrors.notSupported('spec.jobTemplate.spec.manualSelector', true, ['nil', 'false']));
  pushAll(errs, nonNegative(spec['successfulJobsHistoryLimit'], 'spec.successfulJobsHistoryLimit'));
  pushAll(errs, nonNegative(spec['failedJobsHistoryLimit'], 'spec.failedJobsHistoryLimit'));
  return errs;
}

export const cronJobStrategy: Strategy = {
  defaults(cj) {
    defaultCronJobSpec(specOf(cj));
  },

  prepareForCreate(cj) {
    cj['status'] = {};
  },

  validate(cj) {
    const errs = validateCronJobSpec(specOf(cj), undefined);
    const name = cj.metadata.name ?? '';
    if (name.length > MAX_CRONJOB_NAME_LENGTH) {
      errs.push(fieldErrors.invalid('metadata.name', name, `must be no more than ${MAX_CRONJOB_NAME_LENGTH} characters`));
    }
    return errs;
  },

  validateUpdate(cj, old, ctx) {
    if (!isMainResource(ctx)) return [];
    return validateCronJobSpec(specOf(cj), obj(old['spec']));
  },
};
