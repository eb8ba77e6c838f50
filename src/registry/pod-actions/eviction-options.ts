/**
 * The delete options an Eviction carries (propagateDryRun in the original):
 * the body's deleteOptions, whose dryRun joins the request's; an
 * Eviction without them deletes with the request's dryRun only.
 */
import type { DeleteOptions, WriteOptions } from '../generic-store.ts';
import { errors } from '../../api/status.ts';
import { checkDryRun, checkGracePeriod, checkPropagationPolicy, invalidOptions } from '../../api/query-params.ts';
import { isPlainObject } from '../object.ts';

export function evictionDeleteOptions(raw: unknown, request: WriteOptions): DeleteOptions {
  const opts: DeleteOptions = { user: request.user, dryRun: request.dryRun, fieldManager: request.fieldManager, userAgent: request.userAgent, admitted: request.admitted };
  if (raw === undefined || raw === null) return opts;
  if (!isPlainObject(raw)) throw errors.badRequest('deleteOptions: must be an object');
  const grace = raw['gracePeriodSeconds'];
  if (grace !== undefined && grace !== null) {
    if (typeof grace !== 'number' || !Number.isInteger(grace)) throw errors.badRequest('deleteOptions.gracePeriodSeconds: must be an integer');
    opts.gracePeriodSeconds = checkGracePeriod(grace);
  }
  const policy = raw['propagationPolicy'];
  if (policy !== undefined && policy !== null) opts.propagationPolicy = checkPropagationPolicy(policy);
  const orphan = raw['orphanDependents'];
  if (orphan !== undefined && orphan !== null) {
    if (typeof orphan !== 'boolean') throw errors.badRequest('deleteOptions.orphanDependents: must be a boolean');
    if (opts.propagationPolicy !== undefined) {
      throw invalidOptions('DeleteOptions', 'propagationPolicy', 'FieldValueInvalid', `Invalid value: ${JSON.stringify(opts.propagationPolicy)}: orphanDependents and deletionPropagation cannot be both set`);
    }
    opts.orphanDependents = orphan;
  }
  const pre = raw['preconditions'];
  if (pre !== undefined && pre !== null) {
    if (!isPlainObject(pre)) throw errors.badRequest('deleteOptions.preconditions: must be an object');
    const uid = pre['uid'];
    const rv = pre['resourceVersion'];
    if ((uid !== undefined && uid !== null && typeof uid !== 'string') || (rv !== undefined && rv !== null && typeof rv !== 'string')) {
      throw errors.badRequest('deleteOptions.preconditions: uid and resourceVersion must be strings');
    }
    opts.preconditions = { uid: typeof uid === 'string' ? uid : undefined, resourceVersion: typeof rv === 'string' ? rv : undefined };
  }
  const dry = raw['dryRun'];
  if (dry !== undefined && dry !== null) {
    if (!Array.isArray(dry) || dry.some((v) => typeof v !== 'string')) throw errors.badRequest('deleteOptions.dryRun: must be a list of strings');
    // Only `All` is valid, so the request's and the body's lists can disagree only in
    // repetition, which the original refuses and this accepts: either one asks for a dry run.
    opts.dryRun = request.dryRun || checkDryRun('DeleteOptions', dry as string[]);
  }
  return opts;
}
