/**
 * batch/v1: Jobs and CronJobs.
 * Field names, types, markers and proto numbers follow the original API; descriptions are ours.
 */
import { f, S, I32, I64, B, TIME, list, type StructDecl } from '../schema-dsl.ts';
import { batch, core, meta } from './namespaces.ts';

export const batchTypes: readonly StructDecl[] = [
  batch.kind('Job', 'Runs pods until a number of them complete.', {
    spec: f(batch.ref('JobSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(batch.ref('JobStatus'), 'Current state.', { proto: 3 }),
  }),
  batch.struct('JobSpec', 'Desired behaviour of a job.', {
    parallelism: f(I32, 'Most pods running at once.', { proto: 1 }),
    completions: f(I32, 'Successful pods needed; unset means any one success.', { proto: 2 }),
    activeDeadlineSeconds: f(I64, 'Seconds the job may run before it is failed.', { proto: 3 }),
    podFailurePolicy: f(batch.ref('PodFailurePolicy'), 'Rules for handling pod failures.', { proto: 11 }),
    successPolicy: f(batch.ref('SuccessPolicy'), 'Rules for declaring an Indexed job successful early.', { proto: 16 }),
    backoffLimit: f(I32, 'Retries before the job fails; default 6.', { proto: 7 }),
    backoffLimitPerIndex: f(I32, 'Retries per index, for Indexed jobs.', { proto: 12 }),
    maxFailedIndexes: f(I32, 'Failed indexes allowed before the job fails.', { proto: 13 }),
    selector: f(meta.ref('LabelSelector'), 'Labels of the pods counted; normally generated.', { proto: 4 }),
    manualSelector: f(B, 'Use the given selector instead of a generated one.', { proto: 5 }),
    template: f(core.ref('PodTemplateSpec'), 'Template of the pods run.', { required: true, proto: 6 }),
    ttlSecondsAfterFinished: f(I32, 'Seconds after finishing before the job is deleted.', { proto: 8 }),
    completionMode: f(S, 'NonIndexed or Indexed.', { enum: ['NonIndexed', 'Indexed'], proto: 9 }),
    suspend: f(B, 'Do not create pods; running ones are stopped.', { proto: 10 }),
    podReplacementPolicy: f(S, 'When failed pods are replaced.', { enum: ['TerminatingOrFailed', 'Failed'], proto: 14 }),
    managedBy: f(S, 'Controller that manages the job.', { proto: 15 }),
  }),
  batch.struct('JobStatus', 'Current state of a job.', {
    conditions: f(list(batch.ref('JobCondition')), 'Current conditions, such as Complete and Failed.', { listType: 'atomic', patchMergeKey: 'type', patchStrategy: 'merge', proto: 1 }),
    startTime: f(TIME, 'When the job started.', { proto: 2 }),
    completionTime: f(TIME, 'When the job completed.', { proto: 3 }),
    active: f(I32, 'Pods pending or running.', { proto: 4 }),
    succeeded: f(I32, 'Pods that succeeded.', { proto: 5 }),
    failed: f(I32, 'Pods that failed.', { proto: 6 }),
    terminating: f(I32, 'Pods shutting down.', { proto: 11 }),
    completedIndexes: f(S, 'Completed indexes, as a range list.', { proto: 7 }),
    failedIndexes: f(S, 'Failed indexes, as a range list.', { proto: 10 }),
    uncountedTerminatedPods: f(batch.ref('UncountedTerminatedPods'), 'Finished pods not yet counted.', { proto: 8 }),
    ready: f(I32, 'Pods that are ready.', { proto: 9 }),
  }),
  batch.struct('JobCondition', 'One condition of a job.', {
    type: f(S, 'Condition type, such as Complete.', { required: true, proto: 1 }),
    status: f(S, 'True, False or Unknown.', { required: true, proto: 2 }),
    lastProbeTime: f(TIME, 'When the condition was last checked.', { proto: 3 }),
    lastTransitionTime: f(TIME, 'When the condition last changed from one status to another.', { proto: 4 }),
    reason: f(S, 'Machine-readable, CamelCase reason for the last transition.', { proto: 5 }),
    message: f(S, 'Human-readable details about the last transition.', { proto: 6 }),
  }),
  batch.struct('PodFailurePolicy', 'Rules for pod failures; the first matching rule applies.', {
    rules: f(list(batch.ref('PodFailurePolicyRule')), 'The rules.', { required: true, listType: 'atomic', proto: 1 }),
  }),
  batch.struct('PodFailurePolicyRule', 'What to do when a pod failure matches.', {
    action: f(S, 'FailJob, FailIndex, Ignore or Count.', { required: true, enum: ['FailJob', 'FailIndex', 'Ignore', 'Count'], proto: 1 }),
    onExitCodes: f(batch.ref('PodFailurePolicyOnExitCodesRequirement'), 'Container exit codes to match.', { proto: 2 }),
    onPodConditions: f(list(batch.ref('PodFailurePolicyOnPodConditionsPattern')), 'Pod conditions to match.', { listType: 'atomic', proto: 3 }),
  }),
  batch.struct('PodFailurePolicyOnExitCodesRequirement', 'Matches container exit codes.', {
    containerName: f(S, 'Container to check; default all.', { proto: 1 }),
    operator: f(S, 'In or NotIn.', { required: true, enum: ['In', 'NotIn'], proto: 2 }),
    values: f(list(I32), 'Exit codes.', { required: true, listType: 'set', proto: 3 }),
  }),
  batch.struct('PodFailurePolicyOnPodConditionsPattern', 'Matches a pod condition.', {
    type: f(S, 'Condition type.', { required: true, proto: 1 }),
    status: f(S, 'Condition status; default True.', { required: true, proto: 2 }),
  }),
  batch.struct('SuccessPolicy', 'Rules that declare a job successful early.', {
    rules: f(list(batch.ref('SuccessPolicyRule')), 'The rules, ORed.', { required: true, listType: 'atomic', proto: 1 }),
  }),
  batch.struct('SuccessPolicyRule', 'A success rule.', {
    succeededIndexes: f(S, 'Indexes that must succeed.', { proto: 1 }),
    succeededCount: f(I32, 'Successes needed among those indexes.', { proto: 2 }),
  }),
  batch.struct('UncountedTerminatedPods', 'UIDs of finished pods not yet counted.', {
    succeeded: f(list(S), 'Pods that succeeded.', { listType: 'set', proto: 1 }),
    failed: f(list(S), 'Pods that failed.', { listType: 'set', proto: 2 }),
  }),
  batch.kind('CronJob', 'Runs a job on a schedule.', {
    spec: f(batch.ref('CronJobSpec'), 'Desired behaviour.', { proto: 2 }),
    status: f(batch.ref('CronJobStatus'), 'Current state.', { proto: 3 }),
  }),
  batch.struct('CronJobSpec', 'Desired behaviour of a cron job.', {
    schedule: f(S, 'Cron schedule.', { required: true, proto: 1 }),
    timeZone: f(S, 'Time zone of the schedule.', { proto: 8 }),
    startingDeadlineSeconds: f(I64, 'Seconds after a missed start during which the job may still start.', { proto: 2 }),
    concurrencyPolicy: f(S, 'Allow, Forbid or Replace concurrent runs.', { enum: ['Allow', 'Forbid', 'Replace'], proto: 3 }),
    suspend: f(B, 'Skip future runs.', { proto: 4 }),
    jobTemplate: f(batch.ref('JobTemplateSpec'), 'Job created at each run.', { required: true, proto: 5 }),
    successfulJobsHistoryLimit: f(I32, 'Successful jobs kept; default 3.', { proto: 6 }),
    failedJobsHistoryLimit: f(I32, 'Failed jobs kept; default 1.', { proto: 7 }),
  }),
  batch.struct('CronJobStatus', 'Current state of a cron job.', {
    active: f(list(core.ref('ObjectReference')), 'Jobs running now.', { listType: 'atomic', proto: 1 }),
    lastScheduleTime: f(TIME, 'When a job was last scheduled.', { proto: 4 }),
    lastSuccessfulTime: f(TIME, 'When a job last succeeded.', { proto: 5 }),
  }),
  batch.struct('JobTemplateSpec', 'Metadata and spec of jobs created from a template.', {
    metadata: f(meta.ref('ObjectMeta'), 'Metadata given to created jobs.', { proto: 1 }),
    spec: f(batch.ref('JobSpec'), 'Spec given to created jobs.', { proto: 2 }),
  }),
];
