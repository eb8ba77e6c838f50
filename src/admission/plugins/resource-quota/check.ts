/**
 * One request against the namespace's quotas, as the original's
 * CheckRequest: the quotas that match the object (resources and scopes),
 * their per-object constraints, refusal while a quota's usage is not yet
 * computed, the object's usage (on update, the growth only), and for each
 * matching quota hard vs used + requested. Answers the quotas with the
 * charged usage, or throws the original's Forbidden.
 */
import type { KObject } from '../../../registry/object.ts';
import { obj } from '../../../registry/strategies/util.ts';
import type { AdmissionAttributes } from '../../types.ts';
import { admissionForbidden } from '../../admission-errors.ts';
import type { Evaluator } from './evaluators.ts';
import { quotaMatches } from './evaluators.ts';
import {
  add,
  lessThanOrEqual,
  mask,
  negativeNames,
  prettyPrint,
  prettyPrintNames,
  removeZeros,
  resourceListFrom,
  subtractWithNonNegativeResult,
  type ResourceList,
} from './resource-list.ts';

/** A quota as checks see it: the stored object, its status lists parsed, and the usage charged so far. */
export interface QuotaState {
  readonly object: KObject;
  readonly name: string;
  readonly hard: ResourceList;
  used: ResourceList;
}

export function quotaState(o: KObject): QuotaState {
  const status = obj(o['status']) ?? {};
  return { object: o, name: o.metadata.name ?? '', hard: resourceListFrom(status['hard']), used: resourceListFrom(status['used']) };
}

/** The request's view: what is written, the old object on update, the time. */
export interface QuotaRequest {
  readonly attrs: AdmissionAttributes;
  readonly evaluator: Evaluator;
  readonly now: Date;
}

/** Answers new states (copies) with the charge applied; the input is left as it was. */
export function checkRequest(quotas: readonly QuotaState[], req: QuotaRequest): QuotaState[] {
  const { attrs, evaluator } = req;
  const input = attrs.object;
  if (input === null || !evaluator.handles(attrs.operation)) return [...quotas];
  const interesting: number[] = [];
  quotas.forEach((q, i) => {
    if (!quotaMatches(evaluator, q.object, input)) return;
    const hardNames = [...q.hard.keys()];
    const restricted = evaluator.matchingResources(hardNames);
    const failed = evaluator.constraints(restricted, input);
    if (failed !== undefined) throw admissionForbidden(attrs, `failed quota: ${q.name}: ${failed}`);
    // Usage not computed yet (a new quota, a changed spec): refuse rather than guess.
    for (const r of restricted) {
      if (q.hard.has(r) && !q.used.has(r)) throw admissionForbidden(attrs, `status unknown for quota: ${q.name}, resources: ${prettyPrintNames(restricted)}`);
    }
    interesting.push(i);
  });
  let delta = evaluator.usage(input, req.now);
  const negative = negativeNames(delta);
  if (negative.length > 0) throw admissionForbidden(attrs, `quota usage is negative for resource(s): ${prettyPrintNames(negative)}`);
  if (attrs.operation === 'UPDATE') {
    const prev = attrs.oldObject;
    if (prev === null) throw admissionForbidden(attrs, 'unable to get previous usage since prior version of object was not found');
    // Not a create-on-update: charge only the growth.
    if (prev.metadata.resourceVersion) delta = subtractWithNonNegativeResult(delta, evaluator.usage(prev, req.now));
  }
  delta = removeZeros(delta);
  if (delta.size === 0 || interesting.length === 0) return [...quotas];
  const out = quotas.map((q) => ({ ...q }));
  for (const i of interesting) {
    const q = out[i]!;
    const requested = mask(delta, q.hard.keys());
    const newUsage = add(q.used, requested);
    const { allowed, exceeded } = lessThanOrEqual(mask(newUsage, requested.keys()), q.hard);
    if (!allowed) {
      throw admissionForbidden(
        attrs,
        `exceeded quota: ${q.name}, requested: ${prettyPrint(mask(requested, exceeded))}, used: ${prettyPrint(mask(q.used, exceeded))}, limited: ${prettyPrint(mask(q.hard, exceeded))}`,
      );
    }
    q.used = newUsage;
  }
  return out;
}
