/**
 * Status errors: every failure a client sees is a `Status` object with the
 * right HTTP code, reason and message, as the original's
 * apimachinery/pkg/api/errors builds them. One table of constructors here;
 * handlers throw StatusError and the chain writes it.
 */

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'Invalid'
  | 'MethodNotAllowed'
  | 'NotAcceptable'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'TooManyRequests'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout'
  | 'ServerTimeout'
  | '';

export interface StatusCause {
  reason?: string;
  message?: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

export interface StatusObject {
  kind: 'Status';
  apiVersion: 'v1';
  metadata: Record<string, never> | { resourceVersion?: string };
  status: 'Success' | 'Failure';
  message: string;
  reason: StatusReason;
  details?: StatusDetails;
  code: number;
}

export class StatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
    /** Extra response headers (Retry-After, ...). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {
    super(message);
  }

  toStatus(): StatusObject {
    const s: StatusObject = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      code: this.code,
    };
    if (this.details !== undefined) s.details = this.details;
    return s;
  }
}

/** group/resource as the original prints it in messages: `pods`, `deployments.apps`. */
export function qualifiedResource(group: string, resource: string): string {
  return group === '' ? resource : `${resource}.${group}`;
}

export const errors = {
  badRequest: (message: string): StatusError => new StatusError(400, 'BadRequest', message),
  unauthorized: (message = 'Unauthorized'): StatusError => new StatusError(401, 'Unauthorized', message),
  forbidden: (group: string, resource: string, name: string, reason: string): StatusError =>
    new StatusError(
      403,
      'Forbidden',
      name === ''
        ? `${qualifiedResource(group, resource)} is forbidden: ${reason}`
        : `${qualifiedResource(group, resource)} "${name}" is forbidden: ${reason}`,
      { ...(name ? { name } : {}), group, kind: resource },
    ),
  /** A forbidden non-resource request: `forbidden: User "x" cannot get path "/foo"`. */
  forbiddenMessage: (message: string): StatusError => new StatusError(403, 'Forbidden', message),
  notFound: (group: string, resource: string, name: string): StatusError =>
    new StatusError(404, 'NotFound', `${qualifiedResource(group, resource)} "${name}" not found`, { name, group, kind: resource }),
  notFoundMessage: (message = 'the server could not find the requested resource'): StatusError =>
    new StatusError(404, 'NotFound', message, {}),
  alreadyExists: (group: string, resource: string, name: string): StatusError =>
    new StatusError(409, 'AlreadyExists', `${qualifiedResource(group, resource)} "${name}" already exists`, { name, group, kind: resource }),
  conflict: (group: string, resource: string, name: string, why: string): StatusError =>
    new StatusError(409, 'Conflict', `Operation cannot be fulfilled on ${qualifiedResource(group, resource)} "${name}": ${why}`, { name, group, kind: resource }),
  invalid: (group: string, kind: string, name: string, causes: StatusCause[]): StatusError =>
    new StatusError(
      422,
      'Invalid',
      `${kind}${group ? '.' + group : ''} "${name}" is invalid: ${causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(', ')}`,
      { name, group, kind, causes },
    ),
  gone: (message: string): StatusError => new StatusError(410, 'Gone', message),
  expired: (message: string): StatusError => new StatusError(410, 'Expired', message),
  methodNotAllowed: (verb: string): StatusError =>
    new StatusError(405, 'MethodNotAllowed', `the server does not allow this method on the requested resource`, {}, {}),
  notAcceptable: (accepted: readonly string[]): StatusError =>
    new StatusError(406, 'NotAcceptable', `only the following media types are accepted: ${accepted.join(', ')}`),
  unsupportedMediaType: (contentType: string, supported: readonly string[]): StatusError =>
    new StatusError(415, 'UnsupportedMediaType', `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')}`, { causes: [{ reason: 'UnsupportedMediaType', message: contentType }] }),
  tooLarge: (message = 'the request is too large'): StatusError => new StatusError(413, 'RequestEntityTooLarge', message),
  tooManyRequests: (message: string, retryAfterSeconds: number): StatusError =>
    new StatusError(429, 'TooManyRequests', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  internal: (message: string): StatusError =>
    new StatusError(500, 'InternalError', `Internal error occurred: ${message}`, { causes: [{ message }] }),
  serviceUnavailable: (message: string): StatusError => new StatusError(503, 'ServiceUnavailable', message),
  timeout: (message: string, retryAfterSeconds: number): StatusError =>
    new StatusError(504, 'Timeout', message, { retryAfterSeconds }, { 'Retry-After': String(retryAfterSeconds) }),
  requestTimeout: (): StatusError =>
    new StatusError(504, 'Timeout', 'request did not complete within the allotted timeout', { retryAfterSeconds: 0 }),
};

const encoder = new TextEncoder();

/** Serializes a Status as JSON. */
export function statusBody(err: StatusError): Uint8Array {
  return encoder.encode(JSON.stringify(err.toStatus()));
}
