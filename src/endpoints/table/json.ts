/**
 * Tolerant readers for stored JSON. Printers read the served shape of an
 * object without trusting it: a missing or mistyped field reads as the Go
 * zero value, which is what the original's typed structs would hold.
 */
import type { JsonObject } from './types.ts';

const EMPTY: JsonObject = Object.freeze({}) as JsonObject;
const NONE: readonly unknown[] = Object.freeze([]);

export function isObj(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A nested object, or a frozen empty one. */
export function obj(v: unknown): JsonObject {
  return isObj(v) ? v : EMPTY;
}

/** An array, or a frozen empty one. */
export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : NONE;
}

/** Objects of an array (other entries skipped). */
export function objs(v: unknown): JsonObject[] {
  const out: JsonObject[] = [];
  for (const e of arr(v)) if (isObj(e)) out.push(e);
  return out;
}

export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** A string field that may be absent (a Go *string). */
export function optStr(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function int(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : 0;
}

/** A number field that may be absent (a Go *int32). */
export function optInt(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? Math.trunc(v) : undefined;
}

export function bool(v: unknown): boolean {
  return v === true;
}

/** A boolean field that may be absent (a Go *bool). */
export function optBool(v: unknown): boolean | undefined {
  return typeof v === 'boolean' ? v : undefined;
}

/** Number of own keys of a map field (len(map) in Go). */
export function size(v: unknown): number {
  if (!isObj(v)) return 0;
  let n = 0;
  for (const k in v) if (Object.hasOwn(v, k)) n++;
  return n;
}

/** A string-to-string map (labels, selectors); non-string values dropped. */
export function strMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(v)) return out;
  for (const k of Object.keys(v)) {
    const s = v[k];
    if (typeof s === 'string') out[k] = s;
  }
  return out;
}

export function metadataOf(o: JsonObject): JsonObject {
  return obj(o['metadata']);
}

export function nameOf(o: JsonObject): string {
  return str(metadataOf(o)['name']);
}
