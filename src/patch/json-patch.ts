/**
 * RFC 6902 JSON patch, with the behaviour of the library the original API
 * server uses (evanphx/json-patch v4) where it is more lenient than the RFC,
 * because clients written against the original rely on it:
 * - `replace` of a missing object member adds it;
 * - an operation without `value` uses null;
 * - negative array indices count from the end (`-1` on add appends);
 * - `test` of a missing member passes when the expected value is null or absent.
 * Where v4 is plainly wrong we follow the RFC instead: a pointer must be ""
 * or start with "/" (v4 read `a/b` as `/b`), `copy` from a missing member
 * fails (v4 copied a null), and `test` compares JSON values (v4 told `1`
 * from `1.0` but not `null` from `{}` in one direction).
 *
 * Errors carry the original's HTTP status: 400 for a document that is not a
 * list of operation objects, 413 past the operation limit, 422 when an
 * operation does not apply. Messages follow v4's wording.
 */
import { goTypeName } from './go-format.ts';
import { cloneJson, getOwn, hasOwn, isJsonObject, jsonEqual, setOwn, type JsonObject } from './json-value.ts';
import { parseIndex, pointerTokens } from './json-pointer.ts';
import { badPatch, PatchError, unprocessablePatch } from './patch-error.ts';

/** The original's cap on operations in one JSON patch. */
export const MAX_JSON_PATCH_OPERATIONS = 10_000;
/** The original's default `--json-patch-max-copy-bytes`: total bytes `copy` operations may add. */
export const MAX_JSON_PATCH_COPY_BYTES = 3 * 1024 * 1024;

export interface JsonPatchLimits {
  readonly maxOperations?: number;
  readonly maxCopyBytes?: number;
}

type Container = JsonObject | unknown[];
/** One decoded operation; null stands for a `null` entry, which the original accepts and then rejects as an unknown kind. */
type Operation = JsonObject | null;

const MISSING = 'missing value';
const INVALID_INDEX = 'invalid index referenced';

/**
 * Checks that `patch` (decoded JSON) is a list of operation objects, as the
 * original's decoder does; throws 400 with Go's decoding message otherwise.
 * `null` decodes to an empty patch, as in the original.
 */
export function decodeJsonPatch(patch: unknown, limits: JsonPatchLimits = {}): Operation[] {
  if (patch === null) return [];
  if (!Array.isArray(patch)) throw badPatch(`json: cannot unmarshal ${jsonTypeWord(patch)} into Go value of type jsonpatch.Patch`);
  for (const op of patch) {
    if (op !== null && !isJsonObject(op)) throw badPatch(`json: cannot unmarshal ${jsonTypeWord(op)} into Go value of type jsonpatch.Operation`);
  }
  const max = limits.maxOperations ?? MAX_JSON_PATCH_OPERATIONS;
  if (patch.length > max) throw new PatchError(413, `The allowed maximum operations in a JSON patch is ${max}, got ${patch.length}`);
  return patch as Operation[];
}

/** Applies a JSON patch to a copy of `doc` and returns the copy; `doc` is untouched. */
export function applyJsonPatch(doc: unknown, patch: unknown, limits: JsonPatchLimits = {}): unknown {
  const ops = decodeJsonPatch(patch, limits);
  const state: PatchState = { root: cloneJson(doc), copied: 0, maxCopyBytes: limits.maxCopyBytes ?? MAX_JSON_PATCH_COPY_BYTES };
  for (const op of ops) {
    const kind = opKind(op);
    switch (kind) {
      case 'add':
        addOp(state, op!);
        break;
      case 'remove':
        removeOp(state, op!);
        break;
      case 'replace':
        replaceOp(state, op!);
        break;
      case 'move':
        moveOp(state, op!);
        break;
      case 'test':
        testOp(state, op!);
        break;
      case 'copy':
        copyOp(state, op!);
        break;
      default:
        throw unprocessablePatch(`Unexpected kind: ${kind}`);
    }
  }
  return state.root;
}

interface PatchState {
  root: unknown;
  /** Bytes added by `copy` so far. */
  copied: number;
  readonly maxCopyBytes: number;
}

function addOp(s: PatchState, op: JsonObject): void {
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`add operation failed to decode path: ${MISSING}`);
  const at = locate(s.root, path);
  if (at === undefined) throw unprocessablePatch(`add operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(() => insert(at.con, at.key, opValue(op)), (e) => `error in add for path: '${path}': ${e}`);
}

function removeOp(s: PatchState, op: JsonObject): void {
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`remove operation failed to decode path: ${MISSING}`);
  const at = locate(s.root, path);
  if (at === undefined) throw unprocessablePatch(`remove operation does not apply: doc is missing path: "${path}": ${MISSING}`);
  wrap(() => remove(at.con, at.key), (e) => `error in remove for path: '${path}': ${e}`);
}

function replaceOp(s: PatchState, op: JsonObject): void {
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`replace operation failed to decode path: ${path.error}`);
  if (path === '') {
    const value = opValue(op);
    if (!isJsonObject(value) && !Array.isArray(value)) throw unprocessablePatch('replace operation value must be object or array');
    s.root = value;
    return;
  }
  const at = locate(s.root, path);
  if (at === undefined) throw unprocessablePatch(`replace operation does not apply: doc is missing path: ${path}: ${MISSING}`);
  // Only the index is checked: a missing object member is simply set (v4).
  wrap(() => get(at.con, at.key), () => `replace operation does not apply: doc is missing key: ${path}: ${MISSING}`);
  wrap(() => set(at.con, at.key, opValue(op)), (e) => `error in replace for path: '${path}': ${e}`);
}

function moveOp(s: PatchState, op: JsonObject): void {
  const from = readPointer(op, 'from');
  if (typeof from !== 'string') throw unprocessablePatch(`move operation failed to decode from: ${from.error}`);
  const src = locate(s.root, from);
  if (src === undefined) throw unprocessablePatch(`move operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(() => get(src.con, src.key), (e) => `error in move for path: '${src.key}': ${e}`);
  wrap(() => remove(src.con, src.key), (e) => `error in move for path: '${src.key}': ${e}`);
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`move operation failed to decode path: ${path.error}`);
  const dst = locate(s.root, path);
  if (dst === undefined) throw unprocessablePatch(`move operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  wrap(() => insert(dst.con, dst.key, value), (e) => `error in move for path: '${path}': ${e}`);
}

function copyOp(s: PatchState, op: JsonObject): void {
  const from = readPointer(op, 'from');
  if (typeof from !== 'string') throw unprocessablePatch(`copy operation failed to decode from: ${from.error}`);
  const src = locate(s.root, from);
  if (src === undefined) throw unprocessablePatch(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const value = wrap(() => get(src.con, src.key), (e) => `error in copy for from: '${from}': ${e}`);
  if (value === undefined) throw unprocessablePatch(`copy operation does not apply: doc is missing from path: ${from}: ${MISSING}`);
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`copy operation failed to decode path: ${MISSING}`);
  const dst = locate(s.root, path);
  if (dst === undefined) throw unprocessablePatch(`copy operation does not apply: doc is missing destination path: ${path}: ${MISSING}`);
  // The limit keeps a few small operations from multiplying a document's size.
  s.copied += Buffer.byteLength(JSON.stringify(value));
  if (s.maxCopyBytes > 0 && s.copied > s.maxCopyBytes) {
    throw unprocessablePatch(`Unable to complete the copy, the accumulated size increase of copy is ${s.copied}, exceeding the limit ${s.maxCopyBytes}`);
  }
  wrap(() => insert(dst.con, dst.key, cloneJson(value)), (e) => `error while adding value during copy: ${e}`);
}

function testOp(s: PatchState, op: JsonObject): void {
  const path = readPointer(op, 'path');
  if (typeof path !== 'string') throw unprocessablePatch(`test operation failed to decode path: ${path.error}`);
  const failed = (): PatchError => unprocessablePatch(`testing value ${path} failed: test failed`);
  const expected = hasOwn(op, 'value') ? op['value'] : undefined;
  if (path === '') {
    if (expected === undefined || !jsonEqual(s.root, expected)) throw failed();
    return;
  }
  const at = locate(s.root, path);
  if (at === undefined) throw unprocessablePatch(`test operation does not apply: is missing path: ${path}: ${MISSING}`);
  const actual = wrap(() => get(at.con, at.key), (e) => `error in test for path: '${path}': ${e}`);
  if (actual === undefined || actual === null) {
    // v4 decodes a null member as an absent one: both equal an absent or null expectation.
    if (expected === undefined || expected === null) return;
    throw failed();
  }
  if (expected === undefined || !jsonEqual(actual, expected)) throw failed();
}

/** The `op` member, or `unknown` when it is missing or not a string (as v4 reports it). */
function opKind(op: Operation): string {
  if (op === null) return 'unknown';
  const kind = getOwn(op, 'op');
  return typeof kind === 'string' ? kind : 'unknown';
}

/** The operation's value; a missing one is null, as v4 marshals it. */
function opValue(op: JsonObject): unknown {
  const v = getOwn(op, 'value');
  return v === undefined ? null : cloneJson(v);
}

function readPointer(op: JsonObject, field: 'path' | 'from'): string | { error: string } {
  const v = getOwn(op, field);
  if (v === undefined || v === null) {
    return { error: field === 'path' ? `operation missing path field: ${MISSING}` : `operation, missing from field: ${MISSING}` };
  }
  if (typeof v !== 'string') return { error: `json: cannot unmarshal ${jsonTypeWord(v)} into Go value of type string` };
  return v;
}

/** The container holding the pointer's target and the target's key, or undefined when a parent is missing. */
function locate(root: unknown, pointer: string): { con: Container; key: string } | undefined {
  const tokens = pointerTokens(pointer);
  if (tokens === undefined || tokens.length === 0) return undefined;
  let cur = root;
  for (const token of tokens.slice(0, -1)) {
    if (!isJsonObject(cur) && !Array.isArray(cur)) return undefined;
    let next: unknown;
    try {
      next = get(cur, token);
    } catch {
      return undefined;
    }
    cur = next;
  }
  if (!isJsonObject(cur) && !Array.isArray(cur)) return undefined;
  return { con: cur, key: tokens[tokens.length - 1]! };
}

/** Member or element at `key`: undefined for a missing object member, a thrown message for a bad index. */
function get(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return getOwn(con, key);
  return con[existingIndex(con, key)];
}

/** Replaces an existing element, or sets an object member. */
function set(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) return setOwn(con, key, value);
  con[existingIndex(con, key)] = value;
}

function insert(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) return setOwn(con, key, value);
  if (key === '-') {
    con.push(value);
    return;
  }
  let idx = parseIndex(key);
  if (idx === undefined) throw new Error(`value was not a proper array index: '${key}': ${atoiError(key)}`);
  // An insert may address one past the end; negatives count from that new end.
  const size = con.length + 1;
  if (idx >= size || idx < -size) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) idx += size;
  con.splice(idx, 0, value);
}

function remove(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!hasOwn(con, key)) throw new Error(`Unable to remove nonexistent key: ${key}: ${MISSING}`);
    delete con[key];
    return;
  }
  con.splice(existingIndex(con, key), 1);
}

function existingIndex(con: unknown[], key: string): number {
  let idx = parseIndex(key);
  if (idx === undefined) throw new Error(atoiError(key));
  if (idx >= con.length || idx < -con.length) throw new Error(`Unable to access invalid index: ${idx}: ${INVALID_INDEX}`);
  if (idx < 0) idx += con.length;
  return idx;
}

function atoiError(key: string): string {
  return `strconv.Atoi: parsing ${JSON.stringify(key)}: ${/^[+-]?\d+$/.test(key) ? 'value out of range' : 'invalid syntax'}`;
}

/** Runs a container step and rethrows its failure as a 422 with the operation's wording. */
function wrap<T>(step: () => T, message: (inner: string) => string): T {
  try {
    return step();
  } catch (e) {
    if (e instanceof PatchError) throw e;
    throw unprocessablePatch(message(e instanceof Error ? e.message : String(e)));
  }
}

/** The word Go's decoder uses for a JSON value's type in "cannot unmarshal X into ...". */
function jsonTypeWord(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (isJsonObject(v)) return 'object';
  if (typeof v === 'boolean') return 'bool';
  return goTypeName(v) === 'string' ? 'string' : 'number';
}
