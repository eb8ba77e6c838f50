/** Jobs and CronJobs: defaults, the generated selector, template restart policy, schedules. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { jobStrategy } from '../../../src/registry/strategies/jobs.ts';
import { cronJobStrategy } from '../../../src/registry/strategies/cronjobs.ts';
import { cronScheduleError } from '../../../src/registry/strategies/cron.ts';
import { ctx, lines, make } from './helpers.ts';
import type { KObject } from '../../../src/registry/object.ts';

const template = (restartPolicy?: string) => ({
  spec: { containers: [{ name: 'pi', image: 'perl:5.34' }], ...(restartPolicy ? { restartPolicy } : {}) },
});

function job(spec: Record<string, unknown> = {}): KObject {
  const j = make('Job', { spec: { template: template('Never'), ...spec } }, { name: 'pi', namespace: 'default', uid: 'uid-123' });
  jobStrategy.defaults?.(j);
  jobStrategy.prepareForCreate?.(j, ctx());
  return j;
}

describe('job defaults', () => {
  it('fill completions, parallelism, backoff, mode, suspend and replacement policy', () => {
    const spec = job()['spec'] as Record<string, unknown>;
    assert.equal(spec['completions'], 1);
    assert.equal(spec['parallelism'], 1);
    assert.equal(spec['backoffLimit'], 6);
    assert.equal(spec['completionMode'], 'NonIndexed');
    assert.equal(spec['suspend'], false);
    assert.equal(spec['manualSelector'], false);
    assert.equal(spec['podReplacementPolicy'], 'TerminatingOrFailed');
  });

  it('leave completions unset for a work queue (parallelism only)', () => {
    const spec = job({ parallelism: 3 })['spec'] as Record<string, unknown>;
    assert.equal(spec['completions'], undefined);
    assert.equal(spec['parallelism'], 3);
  });
});

describe('job selector generation', () => {
  it('labels the pods with the job name and uid and selects the uid', () => {
    const j = job();
    assert.deepEqual(jobStrategy.validate!(j, ctx()), []);
    const spec = j['spec'] as Record<string, Record<string, unknown>>;
    assert.deepEqual(spec['selector'], { matchLabels: { 'batch.orch.io/controller-uid': 'uid-123' } });
    const labels = (spec['template']!['metadata'] as Record<string, unknown>)['labels'];
    assert.deepEqual(labels, {
      'job-name': 'pi',
      'batch.orch.io/job-name': 'pi',
      'controller-uid': 'uid-123',
      'batch.orch.io/controller-uid': 'uid-123',
    });
    // The Job takes its template's labels when it has none.
    assert.deepEqual(j.metadata.labels, labels);
  });

  it('leaves a manual selector alone and checks it against the template', () => {
    const j = job({ manualSelector: true, selector: { matchLabels: { app: 'x' } } });
    assert.deepEqual(lines(jobStrategy.validate!(j, ctx())), ['spec.template.metadata.labels: Invalid value: map[string]string(nil): `selector` does not match template `labels`']);
  });
});

describe('job validation', () => {
  it('requires restartPolicy Never or OnFailure (the pod default Always is refused)', () => {
    const j = make('Job', { spec: { template: template() } }, { name: 'pi', namespace: 'default', uid: 'u' });
    jobStrategy.defaults?.(j);
    jobStrategy.prepareForCreate?.(j, ctx());
    assert.deepEqual(lines(jobStrategy.validate!(j, ctx())), ['spec.template.spec.restartPolicy: Unsupported value: "Always": supported values: "OnFailure", "Never"']);
  });

  it('checks counters and the completion mode', () => {
    const j = job({ backoffLimit: -1, completionMode: 'Sometimes' });
    assert.deepEqual(lines(jobStrategy.validate!(j, ctx())), [
      'spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0',
      'spec.completionMode: Unsupported value: "Sometimes": supported values: "NonIndexed", "Indexed"',
    ]);
  });

  it('keeps the template and selector on update', () => {
    const old = job();
    jobStrategy.validate!(old, ctx());
    const next = structuredClone(old);
    const podSpec = ((next['spec'] as Record<string, unknown>)['template'] as Record<string, Record<string, unknown>>)['spec']!;
    (podSpec['containers'] as Record<string, unknown>[])[0]!['image'] = 'perl:6';
    jobStrategy.defaults?.(next);
    jobStrategy.prepareForUpdate?.(next, old, ctx());
    const errs = jobStrategy.validateUpdate!(next, old, ctx());
    assert.deepEqual(errs.map((e) => e.field), ['spec.template']);
    assert.match(errs[0]!.message, /: field is immutable$/);
  });
});

function cronJob(spec: Record<string, unknown>, name = 'nightly'): KObject {
  const cj = make('CronJob', { spec: { jobTemplate: { spec: { template: template('OnFailure') } }, ...spec } }, { name, namespace: 'default' });
  cronJobStrategy.defaults?.(cj);
  cronJobStrategy.prepareForCreate?.(cj, ctx());
  return cj;
}

describe('cronjobs', () => {
  it('fill the defaults', () => {
    const spec = cronJob({ schedule: '0 3 * * *' })['spec'] as Record<string, unknown>;
    assert.equal(spec['concurrencyPolicy'], 'Allow');
    assert.equal(spec['suspend'], false);
    assert.equal(spec['successfulJobsHistoryLimit'], 3);
    assert.equal(spec['failedJobsHistoryLimit'], 1);
    assert.deepEqual(cronJobStrategy.validate!(cronJob({ schedule: '0 3 * * *' }), ctx()), []);
  });

  it('require a schedule the cron parser accepts', () => {
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({}), ctx())), ['spec.schedule: Required value']);
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({ schedule: 'every day' }), ctx())), [
      'spec.schedule: Invalid value: "every day": expected exactly 5 fields, found 2: [every day]',
    ]);
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({ schedule: 'TZ=UTC 0 3 * * *' }), ctx())), [
      'spec.schedule: Invalid value: "TZ=UTC 0 3 * * *": cannot use TZ or CRON_TZ in schedule, use timeZone field instead',
    ]);
  });

  it('check the concurrency policy, time zone and name length', () => {
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({ schedule: '@daily', concurrencyPolicy: 'Sometimes' }), ctx())), [
      'spec.concurrencyPolicy: Unsupported value: "Sometimes": supported values: "Allow", "Forbid", "Replace"',
    ]);
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({ schedule: '@daily', timeZone: 'Mars/Olympus' }), ctx())), [
      'spec.timeZone: Invalid value: "Mars/Olympus": unknown time zone Mars/Olympus',
    ]);
    assert.deepEqual(cronJobStrategy.validate!(cronJob({ schedule: '@daily', timeZone: 'Europe/Berlin' }), ctx()), []);
    assert.deepEqual(lines(cronJobStrategy.validate!(cronJob({ schedule: '@daily' }, 'n'.repeat(53)), ctx())), [
      `metadata.name: Invalid value: "${'n'.repeat(53)}": must be no more than 52 characters`,
    ]);
  });

  it('refuse a selector in the job template', () => {
    const cj = cronJob({ schedule: '@hourly', jobTemplate: { spec: { selector: { matchLabels: { a: 'b' } }, template: template('Never') } } });
    assert.deepEqual(lines(cronJobStrategy.validate!(cj, ctx())), [
      'spec.jobTemplate.spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"a":"b"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: `selector` will be auto-generated',
    ]);
  });
});

describe('cron schedule parsing', () => {
  it('accepts standard schedules and descriptors', () => {
    for (const s of ['* * * * *', '*/5 * * * *', '0 0 1 jan *', '0 9-17 * * MON-FRI', '0 0 ? * sun', '@every 1h30m', '@yearly', 'CRON_TZ=UTC 0 * * * *']) {
      assert.equal(cronScheduleError(s), undefined, s);
    }
  });

  it('reports the parser errors', () => {
    assert.equal(cronScheduleError(''), 'empty spec string');
    assert.equal(cronScheduleError('60 * * * *'), 'end of range (60) above maximum (59): 60');
    assert.equal(cronScheduleError('* * 0 * *'), 'beginning of range (0) below minimum (1): 0');
    assert.equal(cronScheduleError('5-1 * * * *'), 'beginning of range (5) beyond end of range (1): 5-1');
    assert.equal(cronScheduleError('*/0 * * * *'), 'step of range should be a positive number: */0');
    assert.equal(cronScheduleError('x * * * *'), 'failed to parse int from x: strconv.Atoi: parsing "x": invalid syntax');
    assert.equal(cronScheduleError('1-2-3 * * * *'), 'too many hyphens: 1-2-3');
    assert.equal(cronScheduleError('@sometimes'), 'unrecognized descriptor: @sometimes');
    assert.equal(cronScheduleError('@every soon'), 'failed to parse duration @every soon: time: invalid duration "soon"');
  });
});
