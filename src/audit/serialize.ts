/**
 * The JSON of a Metadata-level event, written straight from the request
 * (the same document as `JSON.stringify(buildEvent(...))`, fields in the
 * original's order), for the cost of auditing every request: no event object
 * is built, what both stages share (URI, verb, user, source IPs, user agent,
 * object reference) is encoded once per request, the user once per user
 * object (the authenticators' caches hand out the same one), a status once
 * per code. Events at Request level and above carry objects: those are built
 * and stringified whole (buildEvent).
 */
import type { UserInfo } from '../server/context.ts';
import { loggableUri } from '../server/filters/with-logging.ts';
import { PATCH_ANNOTATION_PREFIX, auditUser, buildEvent, microTime, objectRef, sourceIPs, type AuditRecord } from './event.ts';
import { AUDIT_API_VERSION, DECISION_ANNOTATION, REASON_ANNOTATION, type Stage } from './types.ts';

const q = JSON.stringify;

export const HEAD = `{"kind":"Event","apiVersion":${q(AUDIT_API_VERSION)},"level":"Metadata","auditID":`;
const ANONYMOUS_USER = q(auditUser(undefined));
const DECISION_KEY = q(DECISION_ANNOTATION);
const REASON_KEY = q(REASON_ANNOTATION);

/** `"user":{...}` of a user object: bounded by the objects alive (a WeakMap), computed once each. */
const userJson = new WeakMap<UserInfo, string>();
function userOf(u: UserInfo | undefined): string {
  if (u === undefined) return ANONYMOUS_USER;
  let json = userJson.get(u);
  if (json === undefined) {
    json = q(auditUser(u));
    userJson.set(u, json);
  }
  return json;
}

/** `"responseStatus":{...}` per code (a few dozen at most). */
const statusJson = new Map<number, string>();
export function statusOf(code: number): string {
  let json = statusJson.get(code);
  if (json === undefined) {
    json = code >= 400 ? `{"metadata":{},"code":${code},"status":"Failure"}` : `{"metadata":{},"code":${code}}`;
    if (statusJson.size < 1000) statusJson.set(code, json);
  }
  return json;
}
export const PANIC_STATUS = `{"metadata":{},"code":500,"status":"Failure","message":${q("APIServer panic'd")}}`;

/**
 * From requestURI to objectRef: the same for every stage of a request, except
 * that impersonation (a filter after this one) names the user acted as from
 * ResponseStarted on. `received`: the RequestReceived view, before
 * impersonation (the authenticated user alone), whenever it is built.
 */
export function shared(rec: AuditRecord, received = false): string {
  const ctx = rec.ctx;
  const impersonated = !received && ctx.impersonator !== undefined;
  if (!impersonated) {
    rec.sharedPlain ??= sharedJson(rec, false);
    return rec.sharedPlain;
  }
  const memo = rec.sharedImpersonated;
  if (memo !== undefined && memo.impersonator === ctx.impersonator) return memo.json;
  const json = sharedJson(rec, true);
  rec.sharedImpersonated = { json, impersonator: ctx.impersonator };
  return json;
}

function sharedJson(rec: AuditRecord, impersonated: boolean): string {
  const ctx = rec.ctx;
  const req = ctx.req;
  // Without a query string there is nothing to leave out (and no parsed query to build).
  const uri = req.rawQuery === '' ? req.path : loggableUri(req.path, req.query);
  // The authenticated caller is `user`; whom they act as is `impersonatedUser`.
  let s = `,"requestURI":${q(uri)},"verb":${q(ctx.info?.verb ?? req.method.toLowerCase())},"user":${userOf(ctx.impersonator ?? ctx.user)}`;
  if (impersonated) s += `,"impersonatedUser":${userOf(ctx.user)}`;
  // Without forwarding headers the source is the peer alone (the common case: no list built).
  const ips = req.header('x-forwarded-for') === undefined && req.header('x-real-ip') === undefined ? [rec.remoteAddress.replace(/^::ffff:/, '')].filter((ip) => ip !== '') : sourceIPs(ctx, rec.remoteAddress);
  s += `,"sourceIPs":${q(ips)}`;
  const ua = req.header('user-agent');
  if (ua !== undefined) s += `,"userAgent":${q(ua)}`;
  const ref = objectRef(ctx);
  if (ref !== undefined) s += `,"objectRef":${q(ref)}`;
  return s;
}

export function annotations(rec: AuditRecord): string {
  const ctx = rec.ctx;
  let s = '';
  if (ctx.authorization !== undefined) {
    s += `${DECISION_KEY}:${ctx.authorization.decision === 'allow' ? '"allow"' : '"forbid"'},${REASON_KEY}:${q(ctx.authorization.reason)}`;
  }
  for (const [k, v] of ctx.auditAnnotations) {
    // Webhook patches can carry object contents: not at Metadata level (spec 6.2).
    if (k.startsWith(PATCH_ANNOTATION_PREFIX)) continue;
    s += `${s === '' ? '' : ','}${q(k)}:${q(v)}`;
  }
  return s === '' ? '' : `,"annotations":{${s}}`;
}

/** The event's JSON for `stage`, as `JSON.stringify(buildEvent(rec, stage, now))` gives it. */
export function eventJson(rec: AuditRecord, stage: Stage, now: number): string {
  if (rec.level !== 'Metadata') return JSON.stringify(buildEvent(rec, stage, now));
  let s = `${HEAD}${q(rec.ctx.auditID)},"stage":"${stage}"${shared(rec, stage === 'RequestReceived')}`;
  if (stage !== 'RequestReceived') s += `,"responseStatus":${stage === 'Panic' ? PANIC_STATUS : statusOf(rec.ctx.status)}`;
  s += `,"requestReceivedTimestamp":"${microTime(rec.receivedAt)}","stageTimestamp":"${microTime(now)}"`;
  // Annotations come from authorization and admission, both after the request was received.
  if (stage !== 'RequestReceived') s += annotations(rec);
  return `${s}}`;
}
