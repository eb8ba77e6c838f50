/**
 * Jobs and cron jobs (printJob, printCronJob): the job's STATUS from its
 * conditions in the original's order of precedence, COMPLETIONS and
 * DURATION from its counters and start/completion times.
 */
import { AGE, CONTAINERS, IMAGES, NAME, column, text, wide } from '../columns.ts';
import { boolPtr, containerCells, formatLabelSelector, humanDuration, type Clock } from '../format.ts';
import { arr, int, metadataOf, obj, objs, optInt, optStr, str } from '../json.ts';
import type { Printer, Registration } from '../printer.ts';
import type { JsonObject } from '../types.ts';

/** hasJobCondition: the status of the first condition of that type. */
function hasCondition(status: JsonObject, type: string): boolean {
  const c = objs(status['conditions']).find((x) => x['type'] === type);
  return c !== undefined && c['status'] === 'True';
}

function jobStatus(o: JsonObject): string {
  const status = obj(o['status']);
  if (hasCondition(status, 'Complete')) return 'Complete';
  if (hasCondition(status, 'Failed')) return 'Failed';
  if (optStr(metadataOf(o)['deletionTimestamp']) !== undefined) return 'Terminating';
  if (hasCondition(status, 'Suspended')) return 'Suspended';
  if (hasCondition(status, 'FailureTarget')) return 'FailureTarget';
  return 'Running';
}

function completions(spec: JsonObject, status: JsonObject): string {
  const succeeded = int(status['succeeded']);
  const wanted = optInt(spec['completions']);
  if (wanted !== undefined) return `${succeeded}/${wanted}`;
  const parallelism = optInt(spec['parallelism']) ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

/** Running jobs count up from their start; finished ones show start to completion. */
function jobDuration(status: JsonObject, clock: Clock): string {
  const start = clock.parse(status['startTime']);
  if (start === undefined) return '';
  const done = clock.parse(status['completionTime']);
  return done === undefined ? clock.sinceMs(start) : humanDuration(done - start);
}

export const jobPrinter: Printer = {
  columns: [
    NAME,
    column('Status', 'string', text('Status of the job.')),
    column('Completions', 'string', 'JobStatus.succeeded'),
    column('Duration', 'string', text('Time required to complete the job.')),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'JobSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const [names, images] = containerCells(obj(obj(spec['template'])['spec'])['containers']);
    return [
      str(meta['name']),
      jobStatus(o),
      completions(spec, status),
      jobDuration(status, clock),
      clock.since(meta['creationTimestamp']),
      names,
      images,
      formatLabelSelector(spec['selector']),
    ];
  },
};

export const cronJobPrinter: Printer = {
  columns: [
    NAME,
    column('Schedule', 'string', 'CronJobSpec.schedule'),
    column('Timezone', 'string', 'CronJobSpec.timeZone'),
    column('Suspend', 'boolean', 'CronJobSpec.suspend'),
    column('Active', 'integer', 'CronJobStatus.active'),
    column('Last Schedule', 'string', 'CronJobStatus.lastScheduleTime'),
    AGE,
    CONTAINERS,
    IMAGES,
    wide('Selector', 'string', 'JobSpec.selector'),
  ],
  cells(o, clock) {
    const meta = metadataOf(o);
    const spec = obj(o['spec']);
    const status = obj(o['status']);
    const jobSpec = obj(obj(spec['jobTemplate'])['spec']);
    const [names, images] = containerCells(obj(obj(jobSpec['template'])['spec'])['containers']);
    const last = status['lastScheduleTime'];
    return [
      str(meta['name']),
      str(spec['schedule']),
      optStr(spec['timeZone']) ?? '<none>',
      // The original prints the pointer as text ("True", "False", "<unset>") in a boolean column.
      boolPtr(spec['suspend']),
      arr(status['active']).length,
      typeof last === 'string' ? clock.since(last) : '<none>',
      clock.since(meta['creationTimestamp']),
      names,
      images,
      formatLabelSelector(jobSpec['selector']),
    ];
  },
};

export const registrations: readonly Registration[] = [
  { group: 'batch', kind: 'Job', printer: jobPrinter },
  { group: 'batch', kind: 'CronJob', printer: cronJobPrinter },
];
