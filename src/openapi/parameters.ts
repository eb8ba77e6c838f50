/**
 * The request parameters the documents declare, with the action each applies
 * to (section 4.2 of the spec, plus the write options). Kept as data so the
 * v2 and v3 documents render the same set.
 */
export type ParamType = 'string' | 'integer' | 'boolean';

export interface ParamSpec {
  readonly name: string;
  readonly in: 'query' | 'path';
  readonly type: ParamType;
  readonly description: string;
  /**
   * Written into each operation rather than referenced: kubectl's
   * QueryParamVerifier reads `fieldValidation` by name from the PATCH
   * operation's own parameter list and does not follow references.
   */
  readonly inline?: boolean;
}

const q = (name: string, type: ParamType, description: string, inline = false): ParamSpec => ({ name, in: 'query', type, description, inline });

export const PARAMS = {
  name: { name: 'name', in: 'path', type: 'string', description: 'Name of the object.' },
  namespace: { name: 'namespace', in: 'path', type: 'string', description: 'Namespace of the object: the scope its name is unique in.' },
  pretty: q('pretty', 'string', 'When true, the response is indented.'),
  allowWatchBookmarks: q('allowWatchBookmarks', 'boolean', 'Ask for BOOKMARK events in a watch; the server may still send none.'),
  continue: q('continue', 'string', 'Token from the previous chunk of a list, to fetch the next one.'),
  fieldSelector: q('fieldSelector', 'string', 'Only objects whose fields match; default everything.'),
  labelSelector: q('labelSelector', 'string', 'Only objects whose labels match; default everything.'),
  limit: q('limit', 'integer', 'Most items to return in one chunk; the response carries a continue token if more exist.'),
  resourceVersion: q('resourceVersion', 'string', 'Which version of the data may be served; see the resource version rules.'),
  resourceVersionMatch: q('resourceVersionMatch', 'string', 'How resourceVersion applies to a list: Exact or NotOlderThan.'),
  sendInitialEvents: q('sendInitialEvents', 'boolean', 'Start a watch with synthetic events for the current state, then a bookmark.'),
  timeoutSeconds: q('timeoutSeconds', 'integer', 'Limit on the duration of a list or watch call.'),
  watch: q('watch', 'boolean', 'Watch for changes instead of listing.'),
  dryRun: q('dryRun', 'string', 'All: run every stage of the request but do not store the result.'),
  fieldManager: q('fieldManager', 'string', 'Name of the actor making the change, recorded in managedFields; required for apply.'),
  fieldValidation: q(
    'fieldValidation',
    'string',
    'What to do with unknown or duplicate fields in the body: Ignore, Warn or Strict (the default is Warn).',
    true,
  ),
  force: q('force', 'boolean', 'For apply: take over fields owned by other managers instead of failing.'),
  gracePeriodSeconds: q('gracePeriodSeconds', 'integer', 'Seconds before the object is deleted; 0 deletes at once.'),
  orphanDependents: q('orphanDependents', 'boolean', 'Deprecated: use propagationPolicy.'),
  propagationPolicy: q('propagationPolicy', 'string', 'How dependents are collected: Orphan, Background or Foreground.'),
  ignoreStoreReadErrorWithClusterBreakingPotential: q(
    'ignoreStoreReadErrorWithClusterBreakingPotential',
    'boolean',
    'Delete an object that cannot be read from storage; may break the cluster.',
  ),
} as const satisfies Record<string, ParamSpec>;

export type ParamName = keyof typeof PARAMS;

const LIST: readonly ParamName[] = [
  'allowWatchBookmarks',
  'continue',
  'fieldSelector',
  'labelSelector',
  'limit',
  'resourceVersion',
  'resourceVersionMatch',
  'sendInitialEvents',
  'timeoutSeconds',
  'watch',
];
const WRITE: readonly ParamName[] = ['dryRun', 'fieldManager', 'fieldValidation'];
const DELETE: readonly ParamName[] = ['dryRun', 'gracePeriodSeconds', 'ignoreStoreReadErrorWithClusterBreakingPotential', 'orphanDependents', 'propagationPolicy'];

export type Action = 'get' | 'list' | 'post' | 'put' | 'patch' | 'delete' | 'deletecollection' | 'connect';

/** Query parameters of each action, in the order they are listed. */
export const ACTION_PARAMS: Readonly<Record<Action, readonly ParamName[]>> = {
  get: [],
  connect: [],
  list: LIST,
  post: WRITE,
  put: WRITE,
  patch: [...WRITE, 'force'],
  delete: DELETE,
  deletecollection: [...new Set([...LIST.filter((p) => p !== 'watch' && p !== 'allowWatchBookmarks'), ...DELETE])].sort() as ParamName[],
};
