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
