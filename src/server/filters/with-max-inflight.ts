/**
 * In-flight limits, after the original's WithMaxInFlightLimit: at most
 * `--max-requests-inflight` read-only (get, list, watch) and
 * `--max-mutating-requests-inflight` other requests execute at once; 0
 * disables a limit. Over the limit the answer is 429 with `Retry-After: 1`.
 *
 * Long-running requests are not counted (a watch lasts half an hour; counting
 * it would starve everything else). Members of system:masters are never
 * turned away: a super-user or a loopback client must always get an answer.
 */
import { stepFinally, type Filter } from '../context.ts';
import { errors } from '../../api/status.ts';
import { GROUP_MASTERS } from '../../authn/types.ts';
import { writeStatus } from './write-status.ts';

/** The original's text for a rejected request. */
export const TOO_MANY_REQUESTS_MESSAGE = 'Too many requests, please try again later.';

const READ_ONLY_VERBS = new Set(['get', 'list', 'watch']);

export interface InflightLimits {
  readonly maxRequestsInflight: number;
  readonly maxMutatingRequestsInflight: number;
}

export interface InflightSnapshot {
  readonly readOnly: number;
  readonly mutating: number;
}

/** What the filter needs of a counter (InflightCounter, or one shared by threads: src/server/shared-inflight.ts). */
export interface InflightCounts {
  readonly readOnly: number;
  readonly mutating: number;
  add(mutating: boolean, delta: 1 | -1): void;
  takeWatermark(): InflightSnapshot;
}

/**
 * Current in-flight counts, plus the highest value seen since the last
 * `takeWatermark()`: the metric is "maximal number of currently used
 * inflight request limit in the last period", so short bursts between two
 * scrapes still show.
 */
export class InflightCounter implements InflightCounts {
  readOnly = 0;
  mutating = 0;
  #readOnlyMax = 0;
  #mutatingMax = 0;

  add(mutating: boolean, delta: 1 | -1): void {
    if (mutating) {
      this.mutating += delta;
      if (this.mutating > this.#mutatingMax) this.#mutatingMax = this.mutating;
    } else {
      this.readOnly += delta;
      if (this.readOnly > this.#readOnlyMax) this.#readOnlyMax = this.readOnly;
    }
  }

  /** The peaks since the last call; the next period starts from the current counts. */
  takeWatermark(): InflightSnapshot {
    const snapshot = { readOnly: this.#readOnlyMax, mutating: this.#mutatingMax };
    this.#readOnlyMax = this.readOnly;
    this.#mutatingMax = this.mutating;
    return snapshot;
  }
}

export function withMaxInflight(limits: InflightLimits, counter: InflightCounts): Filter | undefined {
  const { maxRequestsInflight: readOnlyLimit, maxMutatingRequestsInflight: mutatingLimit } = limits;
  if (readOnlyLimit === 0 && mutatingLimit === 0) return undefined; // nothing to enforce: leave the filter out
  const tooMany = errors.tooManyRequests(TOO_MANY_REQUESTS_MESSAGE, 1);

  const doneMutating = (): void => counter.add(true, -1);
  const doneReadOnly = (): void => counter.add(false, -1);
  return (ctx, next) => {
    if (ctx.longRunning) return next(ctx);
    const mutating = !READ_ONLY_VERBS.has(ctx.info?.verb ?? '');
    const limit = mutating ? mutatingLimit : readOnlyLimit;
    if (limit === 0) return next(ctx);
    const current = mutating ? counter.mutating : counter.readOnly;
    if (current >= limit) {
      if (ctx.user?.groups.includes(GROUP_MASTERS)) return next(ctx);
      writeStatus(ctx.res, tooMany);
      return undefined;
    }
    counter.add(mutating, 1);
    return stepFinally(ctx, next, mutating ? doneMutating : doneReadOnly);
  };
}
