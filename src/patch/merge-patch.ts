/**
 * RFC 7386 JSON merge patch: objects merge member by member, a null member
 * deletes, anything else (arrays included) replaces.
 *
 * One detail follows the library the original API server uses (evanphx/json-patch
 * v4) rather than the RFC's pseudo-code: a value that replaces instead of
 * merging has its null members removed at every depth, also inside objects
 * within arrays (`{"a":[{"b":null}]}` stores `[{}]`). Null array elements
 * themselves are kept, as in both.
 */
import { cloneJson, getOwn, isJsonObject, setOwn, type JsonObject } from './json-value.ts';

/** Applies `patch` to a copy of `doc` and returns the result; neither input is modified. */
export function applyMergePatch(doc: unknown, patch: unknown): unknown {
  if (!isJsonObject(patch)) return pruneNulls(cloneJson(patch));
  const target: JsonObject = isJsonObject(doc) ? cloneJson(doc) : {};
  mergeInto(target, patch);
  return target;
}

function mergeInto(target: JsonObject, patch: JsonObject): void {
  for (const key of Object.keys(patch)) {
    const value = patch[key];
    if (value === null) {
      delete target[key];
      continue;
    }
    const current = getOwn(target, key);
    if (isJsonObject(current) && isJsonObject(value)) {
      mergeInto(current, value);
    } else if (isJsonObject(current)) {
      // v4 skips pruning only here, when a non-object replaces an object.
      setOwn(target, key, cloneJson(value));
    } else {
      setOwn(target, key, pruneNulls(cloneJson(value)));
    }
  }
}

/** Drops null object members at every depth (v4's pruneNulls). */
function pruneNulls(v: unknown): unknown {
  if (Array.isArray(v)) {
    for (const item of v) pruneNulls(item);
  } else if (isJsonObject(v)) {
    for (const key of Object.keys(v)) {
      if (v[key] === null) delete v[key];
      else pruneNulls(v[key]);
    }
  }
  return v;
}
