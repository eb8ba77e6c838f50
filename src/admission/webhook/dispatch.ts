/**
 * The two dispatchers, after the original's: mutating webhooks one after
 * another in order (configurations by name, webhooks in their order), each
 * JSONPatch applied and the result decoded into the kind again; webhooks
 * with reinvocationPolicy IfNeeded called once more when a later webhook
 * changed the object. Validating webhooks all at once; the first error to
 * arrive rejects. failurePolicy decides what a failure to get an answer
 * does; a denial always rejects, with the webhook's code and message.
 */
import { errors, StatusError, type StatusDetails, type StatusReason } from '../../api/status.ts';
import { jsonEqual, type KObject } from '../../registry/object.ts';
import type { ResourceType } from '../../registry/resource-type.ts';
import type { Logger } from '../../server/logging.ts';
import type { WebhookErrorType } from '../../server/metrics.ts';
import type { KindDecoder } from '../../typed/index.ts';
import { applyJsonPatch } from '../../patch/index.ts';
import { isQualifiedName } from '../../registry/validation/names.ts';
import type { AdmissionAttributes } from '../types.ts';
import type { Webhook } from './hook.ts';
import type { WebhookSource } from './config-index.ts';
import { isExemptResource, shouldCall, type Equivalents, type Invocation, type MatchRequest, type NamespaceLabels } from './matcher.ts';
import { ADMISSION_GROUP, buildReview, convertObject, InvalidReviewError, kindOf, reviewVersionFor, verifyResponse, type GVK, type ReviewResult, type ReviewStatus } from './review.ts';
import { CallError, type WebhookClients } from './client.ts';
import type { WebhookMetrics } from './metrics.ts';

export interface DispatchDeps {
  readonly source: WebhookSource;
  readonly namespaces: NamespaceLabels;
  readonly equivalents: Equivalents;
  readonly clients: WebhookClients;
  readonly metrics: WebhookMetrics;
  /** The typed decoder of a kind, for a patched object; undefined when the kind has none. */
  readonly decoder: (gvk: GVK) => KindDecoder | undefined;
  readonly logger: Logger;
}

/** A webhook said no (the original's ErrWebhookRejection). */
class Rejection extends Error {
  /** The code the webhook gave (the metric's), before it is made a code HTTP can carry. */
  readonly code: number;
  constructor(readonly status: StatusError) {
    super(status.message);
    this.code = status.code;
    // A code no HTTP answer can have (above 599) must not break the response: 500, with the webhook's message.
    if (status.code > 599) this.status = new StatusError(500, status.reason, status.message, status.details);
  }
}

const MUTATION_PREFIX = `mutation.webhook.${ADMISSION_GROUP}/`;
const PATCH_PREFIX = `patch.webhook.${ADMISSION_GROUP}/`;
const MUTATION_FAILED_OPEN_PREFIX = `failed-open.mutation.webhook.${ADMISSION_GROUP}/`;
const VALIDATING_FAILED_OPEN_PREFIX = `failed-open.validating.webhook.${ADMISSION_GROUP}/`;

/** webhookerrors.ToStatusErr: the webhook's status, its message prefixed; no code is 403 (spec 7), a code under 400 is 400. */
export function denialStatus(webhookName: string, result: ReviewStatus | undefined): StatusError {
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  let code = result?.code ?? 0;
  if (code === 0) code = 403;
  else if (code < 400) code = 400;
  let message: string;
  if (result?.message) message = `${deniedBy}: ${result.message}`;
  else if (result?.reason) message = `${deniedBy}: ${result.reason}`;
  else message = `${deniedBy} without explanation`;
  return new StatusError(code, (result?.reason ?? '') as StatusReason, message, statusDetails(result?.details));
}

/** The webhook's status details, only in the shape a Status carries (a webhook may send anything). */
function statusDetails(d: Record<string, unknown> | undefined): StatusDetails | undefined {
  if (d === undefined) return undefined;
  const out: StatusDetails = {};
  for (const k of ['name', 'group', 'kind', 'uid'] as const) if (typeof d[k] === 'string') out[k] = d[k];
  if (typeof d['retryAfterSeconds'] === 'number' && Number.isInteger(d['retryAfterSeconds'])) out.retryAfterSeconds = d['retryAfterSeconds'];
  if (Array.isArray(d['causes'])) {
    out.causes = d['causes']
      .filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null && !Array.isArray(c))
      .slice(0, 100)
      .map((c) => ({
        ...(typeof c['reason'] === 'string' ? { reason: c['reason'] } : {}),
        ...(typeof c['message'] === 'string' ? { message: c['message'] } : {}),
        ...(typeof c['field'] === 'string' ? { field: c['field'] } : {}),
      }));
  }
  return out;
}

function matchRequest(attrs: AdmissionAttributes): MatchRequest {
  return {
    rt: attrs.resourceType,
    subresource: attrs.subresource,
    operation: attrs.operation,
    namespace: attrs.namespace,
    name: attrs.name,
    object: attrs.object,
    oldObject: attrs.oldObject,
  };
}

const MAX_WARNING_CHARS = 256;

/**
 * A webhook's warning as a header can carry it: dropped when empty or holding
 * control characters (the original's warning recorder refuses those),
 * characters beyond ASCII written as \u escapes (a header value cannot hold
 * them in every front end), cut at 256 characters.
 */
export function headerSafeWarning(w: string): string | undefined {
  if (w === '' || /[\u0000-\u0008\u000a-\u001f\u007f]/.test(w)) return undefined;
  let out = w.replace(/[^\u0009\u0020-\u007e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (out.length > MAX_WARNING_CHARS) out = `${out.slice(0, MAX_WARNING_CHARS - 3)}...`;
  return out;
}

function isBase64(s: string): boolean {
  return s.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(s);
}

interface Versioned {
  readonly rt: ResourceType;
  readonly object: KObject | null;
  readonly oldObject: KObject | null;
}

function versioned(attrs: AdmissionAttributes, inv: Invocation): Versioned {
  const conv = (o: KObject | null): KObject | null => (o === null ? null : convertObject(o, attrs.resourceType, inv.rt, attrs.subresource));
  return { rt: inv.rt, object: conv(attrs.object), oldObject: conv(attrs.oldObject) };
}

/** Calls one webhook with the object in the invocation's version; the answer, or CallError / Rejection / StatusError. */
async function callHook(d: DispatchDeps, hook: Webhook, inv: Invocation, attrs: AdmissionAttributes, v: Versioned, mutating: boolean): Promise<ReviewResult> {
  if (attrs.dryRun) {
    if (hook.sideEffects === undefined) throw new CallError('Webhook SideEffects is nil', errors.badRequest('Webhook SideEffects is nil'));
    if (hook.sideEffects !== 'None' && hook.sideEffects !== 'NoneOnDryRun') throw errors.badRequest(`admission webhook "${hook.name}" does not support dry run`);
  }
  const version = reviewVersionFor(hook.admissionReviewVersions);
  if (version === undefined) {
    throw new CallError('could not create admission objects: webhook does not accept v1 or v1beta1 AdmissionReview', errors.badRequest('error creating admission objects'));
  }
  const { uid, body } = buildReview({
    version,
    kind: kindOf(inv.rt, inv.subresource),
    rt: inv.rt,
    subresource: inv.subresource,
    requestKind: kindOf(attrs.resourceType, attrs.subresource),
    requestRt: attrs.resourceType,
    requestSubresource: attrs.subresource,
    name: attrs.name,
    namespace: attrs.resourceType.group === '' && attrs.resourceType.resource === 'namespaces' ? attrs.name : attrs.namespace,
    operation: attrs.operation,
    user: attrs.user,
    object: v.object,
    oldObject: v.oldObject,
    dryRun: attrs.dryRun,
    options: attrs.options,
  });
  const answer = await d.clients.call(hook.clientConfig, body, hook.timeoutSeconds);
  let result: ReviewResult;
  try {
    result = verifyResponse(version, uid, mutating, answer);
  } catch (err) {
    if (!(err instanceof InvalidReviewError)) throw err;
    throw new CallError(`received invalid webhook response: ${err.message}`, errors.serviceUnavailable('error validating webhook response'));
  }
  if (mutating && result.patch !== undefined && !isBase64(result.patch)) {
    throw new CallError('failed to call webhook: illegal base64 data in response.patch', errors.badRequest('error calling webhook'));
  }
  for (const [k, val] of Object.entries(result.auditAnnotations)) {
    // As the original's AddAnnotation: `<webhook name>/<key>`, a qualified name; others are dropped.
    const key = `${hook.name}/${k}`;
    if (key.split('/').length === 2 && isQualifiedName(key).length === 0) attrs.annotate(key, val);
  }
  for (const w of result.warnings) {
    const safe = headerSafeWarning(w);
    if (safe !== undefined) attrs.warn(safe);
  }
  if (!result.allowed) throw new Rejection(denialStatus(hook.name, result.status));
  return result;
}

/** Metrics for one finished call, as the original's dispatchers record them. */
function observe(d: DispatchDeps, hook: Webhook, attrs: AdmissionAttributes, type: 'admit' | 'validating', started: number, err: unknown): void {
  const seconds = (performance.now() - started) / 1000;
  if (err === undefined) {
    d.metrics.observe(hook.name, type, attrs.operation, seconds, false);
    return;
  }
  let errorType: WebhookErrorType;
  let code: number;
  let rejected = true;
  if (err instanceof CallError) {
    errorType = 'calling_webhook_error';
    code = err.status.code;
    rejected = hook.failurePolicy !== 'Ignore';
  } else if (err instanceof Rejection) {
    errorType = 'no_error';
    code = err.code;
  } else {
    errorType = 'apiserver_internal_error';
    code = 0;
  }
  if (rejected) d.metrics.reject(hook.name, type, attrs.operation, errorType, code);
  d.metrics.observe(hook.name, type, attrs.operation, seconds, rejected);
}

function callingFailure(hook: Webhook, err: CallError): StatusError {
  return errors.internal(`failed calling webhook "${hook.name}": ${err.reason}`);
}

function asStatus(err: unknown): StatusError {
  if (err instanceof Rejection) return err.status;
  if (err instanceof StatusError) return err;
  return errors.internal(err instanceof Error ? err.message : String(err));
}

// ---- mutating ----

/** One mutating call; answers whether the object changed. */
async function mutate(d: DispatchDeps, hook: Webhook, inv: Invocation, attrs: AdmissionAttributes, round: number, index: number): Promise<boolean> {
  let changed = false;
  const suffix = `round_${round}_index_${index}`;
  try {
    const v = versioned(attrs, inv);
    const result = await callHook(d, hook, inv, attrs, v, true);
    if (result.patch === undefined) return false;
    let ops: unknown;
    try {
      ops = JSON.parse(Buffer.from(result.patch, 'base64').toString('utf8'));
    } catch (err) {
      throw errors.internal(err instanceof Error ? err.message : String(err));
    }
    if (!Array.isArray(ops)) throw errors.internal(`json: cannot unmarshal ${ops === null ? 'null' : typeof ops} into Go value of type jsonpatch.Patch`);
    if (ops.length === 0) return false;
    if (v.object === null) throw errors.internal(`admission webhook "${hook.name}" attempted to modify the object, which is not supported for this operation`);
    if (result.patchType !== 'JSONPatch') throw new CallError(`unsupported patch type "${result.patchType ?? ''}"`, errors.badRequest('error calling webhook'));
    let patched: KObject;
    try {
      patched = applyJsonPatch(v.object, ops) as KObject;
    } catch (err) {
      throw errors.internal(err instanceof Error ? err.message : String(err));
    }
    if (typeof patched !== 'object' || patched === null || Array.isArray(patched)) throw errors.internal('the patched object is not an object');
    // Decoded into the kind again, as the original decodes the patched JSON into its Go type.
    const gvk = kindOf(inv.rt, inv.subresource);
    if (typeof patched.metadata !== 'object' || patched.metadata === null || Array.isArray(patched.metadata)) {
      throw errors.internal(`the patched object has no metadata`);
    }
    try {
      d.decoder(gvk)?.decode(patched as unknown as Record<string, unknown>);
    } catch (err) {
      throw errors.internal(err instanceof Error ? err.message : String(err));
    }
    // ... and defaulted, as that decode defaults (a subresource's other kind, a Scale, has no type defaults here).
    if (gvk.kind === inv.rt.kind) inv.rt.strategy.defaults?.(patched);
    patched.apiVersion = v.object.apiVersion ?? patched.apiVersion;
    patched.kind = v.object.kind ?? patched.kind;
    changed = !jsonEqual(v.object, patched);
    attrs.annotate(PATCH_PREFIX + suffix, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, patch: ops, patchType: result.patchType }));
    attrs.object = convertObject(patched, inv.rt, attrs.resourceType, attrs.subresource);
    return changed;
  } finally {
    attrs.annotate(MUTATION_PREFIX + suffix, JSON.stringify({ configuration: hook.configurationName, webhook: hook.name, mutated: changed }));
  }
}

interface ReinvokeState {
  /** IfNeeded webhooks called since the last change. */
  previouslyInvoked: Set<string>;
  /** Webhooks to call again in the next round. */
  reinvoke: Set<string>;
  shouldReinvoke: boolean;
}

async function mutatingRound(d: DispatchDeps, hooks: readonly Webhook[], attrs: AdmissionAttributes, round: number, state: ReinvokeState): Promise<void> {
  for (let i = 0; i < hooks.length; i++) {
    const hook = hooks[i]!;
    const inv = await shouldCall(hook, matchRequest(attrs), d.namespaces, d.equivalents);
    if (inv === null) continue;
    // In the reinvocation round only webhooks asked to run again run: one skipped in round 0 is never called for the first time here.
    if (round > 0 && !state.reinvoke.has(hook.uid)) continue;
    const started = performance.now();
    let changed = false;
    let failure: unknown;
    try {
      changed = await mutate(d, hook, inv, attrs, round, i);
    } catch (err) {
      failure = err;
    }
    observe(d, hook, attrs, 'admit', started, failure);
    if (changed) {
      for (const uid of state.previouslyInvoked) state.reinvoke.add(uid);
      state.previouslyInvoked = new Set();
      state.shouldReinvoke = true;
    }
    if (hook.reinvocationPolicy === 'IfNeeded') state.previouslyInvoked.add(hook.uid);
    if (failure === undefined) continue;
    if (failure instanceof CallError) {
      if (hook.failurePolicy === 'Ignore') {
        d.logger.warn({ webhook: hook.name, err: failure.reason }, 'failed calling webhook, failing open');
        attrs.annotate(`${MUTATION_FAILED_OPEN_PREFIX}round_${round}_index_${i}`, hook.name);
        continue;
      }
      d.logger.warn({ webhook: hook.name, err: failure.reason }, 'failed calling webhook, failing closed');
      throw callingFailure(hook, failure);
    }
    throw asStatus(failure);
  }
}

export async function dispatchMutating(d: DispatchDeps, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptResource(attrs.resourceType)) return;
  const hooks = d.source.hooks('mutating');
  if (hooks.length === 0) return;
  const state: ReinvokeState = { previouslyInvoked: new Set(), reinvoke: new Set(), shouldReinvoke: false };
  await mutatingRound(d, hooks, attrs, 0, state);
  if (state.shouldReinvoke && state.reinvoke.size > 0) await mutatingRound(d, hooks, attrs, 1, state);
}

// ---- validating ----

export async function dispatchValidating(d: DispatchDeps, attrs: AdmissionAttributes): Promise<void> {
  if (isExemptResource(attrs.resourceType)) return;
  const hooks = d.source.hooks('validating');
  if (hooks.length === 0) return;
  const req = matchRequest(attrs);
  const relevant: Invocation[] = [];
  for (const hook of hooks) {
    const inv = await shouldCall(hook, req, d.namespaces, d.equivalents);
    if (inv !== null) relevant.push(inv);
  }
  if (relevant.length === 0) return;
  // One converted copy per version the webhooks want.
  const byType = new Map<ResourceType, Versioned>();
  const errs: StatusError[] = [];
  await Promise.all(
    relevant.map(async (inv, idx) => {
      const hook = inv.hook;
      let v = byType.get(inv.rt);
      if (v === undefined) {
        v = versioned(attrs, inv);
        byType.set(inv.rt, v);
      }
      const started = performance.now();
      let failure: unknown;
      try {
        await callHook(d, hook, inv, attrs, v, false);
      } catch (err) {
        failure = err;
      }
      observe(d, hook, attrs, 'validating', started, failure);
      if (failure === undefined) return;
      if (failure instanceof CallError) {
        if (hook.failurePolicy === 'Ignore') {
          d.logger.warn({ webhook: hook.name, err: failure.reason }, 'failed calling webhook, failing open');
          attrs.annotate(`${VALIDATING_FAILED_OPEN_PREFIX}round_0_index_${idx}`, hook.name);
          return;
        }
        d.logger.warn({ webhook: hook.name, err: failure.reason }, 'failed calling webhook, failing closed');
        errs.push(callingFailure(hook, failure));
        return;
      }
      errs.push(asStatus(failure));
    }),
  );
  // The first error to arrive, as the original's error channel.
  if (errs.length > 0) throw errs[0]!;
}
