/**
 * Maps resourceVersion, resourceVersionMatch, limit and continue onto the
 * shard's read modes, row by row of the spec's 4.5 tables. Invalid
 * combinations are 400 Bad Request naming the parameter.
 */
import type { ReadMode } from '../../shards/protocol.ts';
import type { ContinuePosition, ContinueTokens } from './continue-token.ts';
import { errors } from '../api/status.ts';
import { decodeListIntegers } from '../api/query-params.ts';

export interface ListPlan {
  read: ReadMode;
  limit: number | undefined;
  /** Resume position from a continue token. */
  resume: ContinuePosition | undefined;
}

const UINT64_MAX = 2n ** 64n - 1n;

/**
 * A resource version as the original's versioner parses it (a uint64).
 * Versions past 2^53 are valid there, and simply newer than anything the
 * store has: they read as Number.MAX_SAFE_INTEGER, which is just as far in
 * the future (504 "Too large resource version" on reads), instead of being
 * refused.
 */
export function parseResourceVersion(value: string, param = 'resourceVersion'): number {
  if (!/^[0-9]+$/.test(value)) throw errors.badRequest(`invalid ${param}: ${JSON.stringify(value)}: must be a non-negative integer`);
  if (BigInt(value) > UINT64_MAX) throw errors.badRequest(`invalid ${param}: ${JSON.stringify(value)}: out of range`);
  return Math.min(Number(value), Number.MAX_SAFE_INTEGER);
}


/** Get: unset -> most recent; "0" -> any; other -> not older than. */
export function planGet(query: URLSearchParams): ReadMode {
  const rv = query.get('resourceVersion') ?? '';
  if (rv === '') return { kind: 'latest' };
  const n = parseResourceVersion(rv);
  return n === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: n };
}

/** List: the table of spec 4.5. */
export function planList(query: URLSearchParams, tokens: ContinueTokens): ListPlan {
  const rv = query.get('resourceVersion') ?? '';
  const match = query.get('resourceVersionMatch') ?? '';
  // Every integer of ListOptions (limit, timeoutSeconds) must parse, as the
  // original fails the whole decoding; limit <= 0 means no limit.
  const decoded = decodeListIntegers(query);
  const limit = decoded.limit !== undefined && decoded.limit > 0 ? decoded.limit : undefined;
  const cont = query.get('continue') ?? '';

  // Streaming initial events is a watch feature; the original forbids it on a plain list.
  if (query.has('sendInitialEvents')) throw errors.badRequest('sendInitialEvents: Forbidden: sendInitialEvents is forbidden for list');
  if (match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
    throw errors.badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
  }
  if (match !== '' && rv === '') {
    throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided');
  }
  if (cont !== '') {
    if (match !== '') throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided');
    if (rv !== '' && parseResourceVersion(rv) !== 0) {
      throw errors.badRequest('resourceVersion: Forbidden: specifying resource version is not allowed when using continue');
    }
    const resume = tokens.decode(cont);
    return { read: { kind: 'exact', revision: resume.revision }, limit, resume };
  }
  if (match === 'Exact') {
    const n = parseResourceVersion(rv);
    if (n === 0) throw errors.badRequest('resourceVersionMatch: Forbidden: resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
    return { read: { kind: 'exact', revision: n }, limit, resume: undefined };
  }
  if (match === 'NotOlderThan') {
    const n = parseResourceVersion(rv);
    return { read: n === 0 ? { kind: 'any' } : { kind: 'notOlderThan', revision: n }, limit, resume: undefined };
  }
  if (rv === '') return { read: { kind: 'latest' }, limit, resume: undefined };
  const n = parseResourceVersion(rv);
  if (n === 0) return { read: { kind: 'any' }, limit, resume: undefined };
  // A version with a limit is an exact snapshot; without one, "not older than".
  return { read: limit !== undefined ? { kind: 'exact', revision: n } : { kind: 'notOlderThan', revision: n }, limit, resume: undefined };
}
