/**
 * Builds audit events from what the filter kept of a request. Called off the
 * hot path in batch mode (the filter queues a record; the event is made when
 * the queue is flushed), at once in blocking modes.
 */
import type { RequestContext, UserInfo } from '../server/context.ts';
import { names } from '../naming/index.ts';
import { loggableUri } from '../server/filters/with-logging.ts';
import { AUDIT_API_VERSION, DECISION_ANNOTATION, REASON_ANNOTATION, levelAtLeast, type AuditEvent, type AuditUser, type Level, type ObjectReference, type Stage } from './types.ts';

/** What the filter records of one request when it starts. */
export interface AuditRecord {
  readonly ctx: RequestContext;
  readonly level: Level;
  readonly omitManagedFields: boolean;
  readonly receivedAt: number;
  readonly remoteAddress: string;
  /** Request body bytes, when read at Request level or above. */
  requestBody: Uint8Array | undefined;
  /** Response body chunks, at RequestResponse level for requests that are not long-running. */
  responseChunks: (Uint8Array | string)[] | undefined;
  responseBytes: number;
  /** The JSON every stage shares without impersonation, and RequestReceived's in any case (serialize.ts). */
  sharedPlain?: string | undefined;
  /** The same once impersonation named the user acted as, and for which impersonator it was made. */
  sharedImpersonated?: { json: string; impersonator: UserInfo | undefined } | undefined;
  /** Those two as encoded bytes (metadata-lines.ts). */
  sharedPlainBytes?: Uint8Array | undefined;
  sharedImpersonatedBytes?: { bytes: Uint8Array; impersonator: UserInfo | undefined } | undefined;
}

/** RFC 3339 with microseconds, as the original's MicroTime prints. */
let prefixSecond = -1;
let prefix = '';
export function microTime(ms: number): string {
  // Date#toISOString costs microseconds; events of one second share its prefix (`...T12:00:00.`).
  const second = Math.floor(ms / 1000);
  if (second !== prefixSecond) {
    prefixSecond = second;
    prefix = new Date(second * 1000).toISOString().slice(0, 20);
  }
  const milli = Math.floor(ms) - second * 1000;
  return `${prefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}000Z`;
}

export function auditUser(u: UserInfo | undefined): AuditUser {
  if (u === undefined) return { username: '' };
  const out: AuditUser = { username: u.name };
  if (u.uid !== undefined && u.uid !== '') out.uid = u.uid;
  if (u.groups.length > 0) out.groups = [...u.groups];
  if (u.extra !== undefined && Object.keys(u.extra).length > 0) out.extra = Object.fromEntries(Object.entries(u.extra).map(([k, v]) => [k, [...v]]));
  return out;
}

/** The original's utilnet.SourceIPs: X-Forwarded-For, then X-Real-Ip, then the peer, without repeats. */
export function sourceIPs(ctx: RequestContext, remote: string): string[] {
  const ips: string[] = [];
  const add = (ip: string): void => {
    const t = ip.trim();
    if (t !== '' && !ips.includes(t)) ips.push(t);
  };
  const fwd = ctx.req.header('x-forwarded-for');
  if (fwd !== undefined) for (const ip of fwd.split(',')) add(ip);
  const real = ctx.req.header('x-real-ip');
  if (real !== undefined) add(real);
  add(remote.replace(/^::ffff:/, ''));
  return ips;
}

export function objectRef(ctx: RequestContext): ObjectReference | undefined {
  const info = ctx.info;
  if (info === undefined || !info.isResourceRequest) return undefined;
  const ref: ObjectReference = { resource: info.resource };
  if (info.namespace !== '') ref.namespace = info.namespace;
  if (info.name !== '') ref.name = info.name;
  if (info.apiGroup !== '') ref.apiGroup = info.apiGroup;
  ref.apiVersion = info.apiVersion;
  if (info.subresource !== '') ref.subresource = info.subresource;
  return ref;
}

function dropManagedFields(obj: unknown): unknown {
  if (typeof obj !== 'object' || obj === null) return obj;
  const o = obj as Record<string, unknown>;
  const meta = o['metadata'];
  if (typeof meta === 'object' && meta !== null && 'managedFields' in meta) {
    const { managedFields: _dropped, ...rest } = meta as Record<string, unknown>;
    o['metadata'] = rest;
  }
  if (Array.isArray(o['items'])) o['items'] = o['items'].map(dropManagedFields);
  return o;
}

/** A JSON body as an object; anything else (protobuf, YAML, too big, broken) is left out. */
function decodeJson(bytes: Uint8Array | string | undefined, omitManagedFields: boolean): unknown {
  if (bytes === undefined || bytes.length === 0) return undefined;
  try {
    const text = typeof bytes === 'string' ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8');
    const obj: unknown = JSON.parse(text);
    return omitManagedFields ? dropManagedFields(obj) : obj;
  } catch {
    return undefined;
  }
}

function joined(chunks: (Uint8Array | string)[]): Uint8Array {
  return Buffer.concat(chunks.map((c) => (typeof c === 'string' ? Buffer.from(c) : c)));
}

export const PATCH_ANNOTATION_PREFIX = `patch.webhook.admission.${names.apiGroupSuffix}/`;

export function buildEvent(rec: AuditRecord, stage: Stage, now: number): AuditEvent {
  const ctx = rec.ctx;
  const req = ctx.req;
  // The authenticated caller is `user`; whom they act as is `impersonatedUser`.
  const user = ctx.impersonator ?? ctx.user;
  const ev: AuditEvent = {
    kind: 'Event',
    apiVersion: AUDIT_API_VERSION,
    level: rec.level,
    auditID: ctx.auditID,
    stage,
    // Credential-like query parameters stay out of the audit log as out of the request log.
    requestURI: loggableUri(req.path, req.query),
    verb: ctx.info?.verb ?? req.method.toLowerCase(),
    user: auditUser(user),
    sourceIPs: sourceIPs(ctx, rec.remoteAddress),
    requestReceivedTimestamp: microTime(rec.receivedAt),
    stageTimestamp: microTime(now),
  };
  // Impersonation comes after this filter: RequestReceived names the authenticated user alone, however late it is built.
  if (ctx.impersonator !== undefined && stage !== 'RequestReceived') ev.impersonatedUser = auditUser(ctx.user);
  const ua = req.header('user-agent');
  if (ua !== undefined) ev.userAgent = ua;
  const ref = objectRef(ctx);
  if (ref !== undefined) ev.objectRef = ref;
  if (stage !== 'RequestReceived') {
    const code = stage === 'Panic' ? 500 : ctx.status;
    ev.responseStatus = { metadata: {}, code };
    if (stage === 'Panic') {
      ev.responseStatus.status = 'Failure';
      ev.responseStatus.message = "APIServer panic'd";
    } else if (code >= 400) ev.responseStatus.status = 'Failure';
  }
  if (levelAtLeast(rec.level, 'Request')) {
    const obj = decodeJson(rec.requestBody, rec.omitManagedFields);
    if (obj !== undefined) ev.requestObject = obj;
  }
  if (rec.level === 'RequestResponse' && rec.responseChunks !== undefined && stage === 'ResponseComplete') {
    const obj = decodeJson(joined(rec.responseChunks), rec.omitManagedFields);
    if (obj !== undefined) ev.responseObject = obj;
  }
  // Annotations come from authorization and admission, both after the request was received.
  if (stage === 'RequestReceived') return ev;
  const annotations: Record<string, string> = {};
  let any = false;
  if (ctx.authorization !== undefined) {
    annotations[DECISION_ANNOTATION] = ctx.authorization.decision === 'allow' ? 'allow' : 'forbid';
    annotations[REASON_ANNOTATION] = ctx.authorization.reason;
    any = true;
  }
  const withPatches = levelAtLeast(rec.level, 'Request');
  for (const [k, v] of ctx.auditAnnotations) {
    // Webhook patches can carry object contents: only at Request level and above (spec 6.2).
    if (!withPatches && k.startsWith(PATCH_ANNOTATION_PREFIX)) continue;
    annotations[k] = v;
    any = true;
  }
  if (any) ev.annotations = annotations;
  return ev;
}
