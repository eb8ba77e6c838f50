/**
 * Values that may come at once or later. Authenticators, authorizers and
 * filters answer from memory almost always (a token file, a cached decision,
 * RBAC over watched roles) and over the network rarely (a webhook). Awaiting
 * an answer that is already there costs a promise and a suspended frame per
 * request, so the hot paths take a value as it is and wait only for a real
 * promise.
 */
export type MaybePromise<T> = T | Promise<T>;

/** True for a promise or any thenable (an answer still on its way). */
export function isPromiseLike<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof value === 'object' && value !== null && typeof (value as { then?: unknown }).then === 'function';
}

/** `fn(value)`, at once when the value is there, else once it comes (its rejection passes on; fn is not called). */
export function thenMaybe<T, U>(value: T | PromiseLike<T>, fn: (value: T) => MaybePromise<U>): MaybePromise<U> {
  return isPromiseLike(value) ? Promise.resolve(value).then(fn) : fn(value);
}

/**
 * How a union asks its members in turn (the authentication and authorization
 * unions): `ask` is member i's answer, `take` the decision it makes (undefined:
 * no decision, ask the next), `failed` what a member's error means (it may
 * throw to end the whole ask), and `otherwise` the result when nobody decided.
 * Built once per union; `C` carries one call's state, so asking makes no
 * closures while the members answer at once.
 */
export interface Decider<C, A, T> {
  count(c: C): number;
  ask(c: C, i: number): MaybePromise<A>;
  take(c: C, i: number, answer: A): T | undefined;
  failed(c: C, i: number, err: unknown): void;
  otherwise(c: C): T;
}

/** Asks from member `start` on: in the same turn while every member answers at once, then asynchronously. */
export function firstDecision<C, A, T>(d: Decider<C, A, T>, c: C, start = 0): MaybePromise<T> {
  const count = d.count(c);
  for (let i = start; i < count; i++) {
    let answer: MaybePromise<A>;
    try {
      answer = d.ask(c, i);
    } catch (err) {
      d.failed(c, i, err);
      continue;
    }
    if (isPromiseLike(answer)) {
      return Promise.resolve(answer).then(
        (a) => d.take(c, i, a) ?? firstDecision(d, c, i + 1),
        (err: unknown) => {
          d.failed(c, i, err);
          return firstDecision(d, c, i + 1);
        },
      );
    }
    const decided = d.take(c, i, answer);
    if (decided !== undefined) return decided;
  }
  return d.otherwise(c);
}
