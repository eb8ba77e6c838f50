/**
 * The errors of an apply request, worded as the original's: 409 for
 * conflicts (with one FieldManagerConflict cause per field), 400 for bodies
 * that are not a configuration of the right kind and name, 422 without a
 * field manager. Also the group/version/kind helpers the messages need.
 */
import { StatusError } from '../api/status.ts';
import type { KObject } from '../registry/object.ts';
import { conflictsMessage, type ConflictError } from './conflict.ts';
import { parseManagerKey } from './managed-fields.ts';
import { pathString } from './path.ts';
import { goQuote, isMap, type Json, type JsonMap } from './value.ts';
import { names } from '../naming/index.ts';

export interface Gvk {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export function parseGvk(apiVersion: unknown, kind: unknown): Gvk {
  const av = typeof apiVersion === 'string' ? apiVersion : '';
  const slash = av.indexOf('/');
  return {
    group: slash < 0 ? '' : av.slice(0, slash),
    version: slash < 0 ? av : av.slice(slash + 1),
    kind: typeof kind === 'string' ? kind : '',
  };
}

/** `apps/v1`, or `v1` for the core group. */
export function gvString(gvk: Gvk): string {
  return gvk.group === '' ? gvk.version : `${gvk.group}/${gvk.version}`;
}

/** Go's GroupVersionKind.String(): `apps/v1, Kind=Deployment`, `/v1, Kind=Pod`. */
export function gvkString(gvk: Gvk): string {
  return `${gvk.group}/${gvk.version}, Kind=${gvk.kind}`;
}

export function badRequest(message: string): StatusError {
  return new StatusError(400, 'BadRequest', message);
}

/** The original's PatchOptions validation: apply needs a field manager. */
export function missingManager(): StatusError {
  return new StatusError(422, 'Invalid', `PatchOptions.${names.metaGroup} "" is invalid: fieldManager: Required value: is required for apply patch`, {
    group: names.metaGroup,
    kind: 'PatchOptions',
    name: '',
    causes: [{ reason: 'FieldValueRequired', message: 'Required value: is required for apply patch', field: 'fieldManager' }],
  });
}

/** How the original names a manager in conflicts: `"m"`, `"m" with subresource "status"`, `"m" using apps/v1`. */
export function printManager(key: string): string {
  let id;
  try {
    id = parseManagerKey(key);
  } catch {
    return goQuote(key);
  }
  let s = goQuote(id.manager);
  if (id.subresource !== undefined && id.subresource !== '') s += ` with subresource ${goQuote(id.subresource)}`;
  if (id.operation === 'Update') s += ` using ${id.apiVersion ?? ''}`;
  return s;
}

/** `Apply failed with N conflict(s): ...` with a cause per conflicting field. */
export function conflictStatus(err: ConflictError): StatusError {
  const n = err.conflicts.length;
  const message = `Apply failed with ${n} conflict${n === 1 ? '' : 's'}: ${conflictsMessage(err.conflicts, printManager)}`;
  return new StatusError(409, 'Conflict', message, {
    causes: err.conflicts.map((c) => ({ reason: 'FieldManagerConflict', message: `conflict with ${printManager(c.manager)}`, field: pathString(c.path) })),
  });
}

/** Name and namespace in the body must match the URL's (the original's checkName). */
export function checkIdentity(config: JsonMap, want: { name?: string | undefined; namespace?: string | undefined }, live: KObject | null): void {
  const meta = isMap(config['metadata']) ? config['metadata'] : {};
  const name = meta['name'];
  const wantName = want.name ?? live?.metadata?.name;
  if (typeof name === 'string' && wantName !== undefined && name !== wantName) {
    throw badRequest(`the name of the object (${name}) does not match the name on the URL (${wantName})`);
  }
  const ns = meta['namespace'];
  const wantNs = want.namespace ?? live?.metadata?.namespace;
  if (typeof ns === 'string' && ns !== '' && wantNs !== undefined && ns !== wantNs) {
    throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  }
}

/** `namespace/name` of a body, for messages. */
export function objectName(config: JsonMap): string {
  const meta = isMap(config['metadata']) ? config['metadata'] : {};
  const s = (v: Json | undefined): string => (typeof v === 'string' ? v : '');
  return `${s(meta['namespace'])}/${s(meta['name'])}`;
}
