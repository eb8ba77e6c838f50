/**
 * Small helpers strategies share for walking untyped JSON objects: read a
 * field of the right type or nothing, make sure a nested object exists, and
 * set a default only where the field is absent (the original's defaulters
 * fill nil pointers and empty strings, never overwrite a given value).
 */
import { isPlainObject, type KObject } from '../object.ts';
import type { Strategy, StrategyContext } from '../strategy.ts';

export type JsonObject = Record<string, unknown>;

export function obj(v: unknown): JsonObject | undefined {
  return isPlainObject(v) ? v : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function arr(v: unknown): unknown[] {
  return Array.isArray(v) ? v : [];
}

/** The object at `parent[key]`, created when absent or not an object. */
export function ensureObj(parent: JsonObject, key: string): JsonObject {
  const cur = parent[key];
  if (isPlainObject(cur)) return cur;
  const made: JsonObject = {};
  parent[key] = made;
  return made;
}

/** Sets `target[key] = value` when the field is absent, null or the empty string (Go's zero for strings and pointers). */
export function setDefault(target: JsonObject, key: string, value: unknown): void {
  const cur = target[key];
  if (cur === undefined || cur === null || cur === '') target[key] = value;
}

/** The object's `spec`, created when missing. */
export function specOf(o: KObject): JsonObject {
  return ensureObj(o, 'spec');
}

/**
 * True for writes that go through the type's main strategy: the resource
 * itself, and /scale, which in the original updates spec.replicas of the
 * object through the main strategy (so defaults and validation apply).
 * Status, approval and finalize have their own rules.
 */
export function isMainResource(ctx: StrategyContext): boolean {
  return ctx.subresource === '' || ctx.subresource === 'scale';
}

/** Go int32 range, which many integer fields use for their upper bound. */
export const MAX_INT32 = 2147483647;

/**
 * A strategy for types whose only particular behaviour is that a create
 * cannot set status (the original's PrepareForCreate resets it to the zero
 * struct, which serializes as `status: {}`). Updates of the main resource
 * keep the stored status; the generic store does that.
 */
export function statusResetOnCreate(initialStatus: () => JsonObject = () => ({}), extra: Strategy = {}): Strategy {
  return {
    ...extra,
    prepareForCreate(o, ctx) {
      o['status'] = initialStatus();
      extra.prepareForCreate?.(o, ctx);
    },
  };
}
