/**
 * The AdmissionReview exchange (spec 6.3): the request built for one
 * invocation in the first version of the webhook's admissionReviewVersions
 * that this server speaks, and the checks the original makes of the answer
 * (VerifyAdmissionResponse): v1 answers must be v1 AdmissionReviews with the
 * request's uid, patch and patchType come together (mutating webhooks only).
 */
import { randomUUID } from 'node:crypto';
import type { ResourceType } from '../../registry/resource-type.ts';
import { cloneJson, type KObject } from '../../registry/object.ts';
import type { UserInfo } from '../../server/context.ts';
import type { Operation } from '../types.ts';
import { apiGroup } from '../../naming/index.ts';

export const ADMISSION_GROUP = apiGroup('admission');
const SUPPORTED = ['v1', 'v1beta1'] as const;
export type ReviewVersion = (typeof SUPPORTED)[number];

export interface GVK {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

export function kindOf(rt: ResourceType, subresource: string): GVK {
  if (subresource !== '') {
    const sub = rt.subresources.find((s) => s.name === subresource);
    if (sub !== undefined) return { group: sub.group ?? rt.group, version: sub.version ?? rt.version, kind: sub.kind };
  }
  return { group: rt.group, version: rt.version, kind: rt.kind };
}

/** The object in `to`'s version (a request matched through an equivalent type): a copy; the object itself when the types are one. */
export function convertObject(obj: KObject, from: ResourceType, to: ResourceType, subresource: string): KObject {
  if (from === to) return obj;
  const copy = cloneJson(obj);
  const fromKind = kindOf(from, subresource);
  // Only the resource's own kind converts; a subresource's other kind (Scale, Binding) is sent as it is.
  if (fromKind.kind !== from.kind) return copy;
  const stored = from.conversion === undefined ? copy : from.conversion.toStorage(copy);
  const out = to.conversion === undefined ? stored : to.conversion.fromStorage(stored);
  out.apiVersion = to.apiVersion;
  out.kind = to.kind;
  return out;
}

/** The first version we speak among the webhook's, or undefined. */
export function reviewVersionFor(versions: readonly string[]): ReviewVersion | undefined {
  for (const v of versions) if ((SUPPORTED as readonly string[]).includes(v)) return v as ReviewVersion;
  return undefined;
}

export interface ReviewInput {
  readonly version: ReviewVersion;
  readonly kind: GVK;
  readonly rt: ResourceType;
  readonly subresource: string;
  readonly requestKind: GVK;
  readonly requestRt: ResourceType;
  readonly requestSubresource: string;
  readonly name: string;
  readonly namespace: string;
  readonly operation: Operation;
  readonly user: UserInfo | undefined;
  readonly object: KObject | null;
  readonly oldObject: KObject | null;
  readonly dryRun: boolean;
  readonly options: Readonly<Record<string, unknown>> | undefined;
}

function gvk(k: GVK): Record<string, string> {
  return { group: k.group, version: k.version, kind: k.kind };
}

function gvr(rt: ResourceType): Record<string, string> {
  return { group: rt.group, version: rt.version, resource: rt.resource };
}

/** The review's JSON text and the uid the answer must carry. */
export function buildReview(inp: ReviewInput): { uid: string; body: string } {
  const uid = randomUUID();
  const user = inp.user;
  const userInfo: Record<string, unknown> = { username: user?.name ?? '' };
  if (user?.uid) userInfo['uid'] = user.uid;
  if (user !== undefined && user.groups.length > 0) userInfo['groups'] = user.groups;
  if (user?.extra !== undefined && Object.keys(user.extra).length > 0) userInfo['extra'] = user.extra;
  const request: Record<string, unknown> = { uid, kind: gvk(inp.kind), resource: gvr(inp.rt) };
  if (inp.subresource !== '') request['subResource'] = inp.subresource;
  request['requestKind'] = gvk(inp.requestKind);
  request['requestResource'] = gvr(inp.requestRt);
  if (inp.requestSubresource !== '') request['requestSubResource'] = inp.requestSubresource;
  if (inp.name !== '') request['name'] = inp.name;
  if (inp.namespace !== '') request['namespace'] = inp.namespace;
  request['operation'] = inp.operation;
  request['userInfo'] = userInfo;
  request['object'] = inp.object;
  request['oldObject'] = inp.oldObject;
  request['dryRun'] = inp.dryRun;
  request['options'] = inp.options ?? null;
  return { uid, body: JSON.stringify({ kind: 'AdmissionReview', apiVersion: `${ADMISSION_GROUP}/${inp.version}`, request }) };
}

export interface ReviewStatus {
  readonly code?: number;
  readonly message?: string;
  readonly reason?: string;
  readonly status?: string;
  readonly details?: Record<string, unknown>;
}

export interface ReviewResult {
  readonly allowed: boolean;
  readonly patch: string | undefined;
  readonly patchType: string | undefined;
  readonly status: ReviewStatus | undefined;
  readonly warnings: readonly string[];
  readonly auditAnnotations: Readonly<Record<string, string>>;
}

/** Why an answer was refused: a calling error (failurePolicy applies). */
export class InvalidReviewError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function statusOf(v: unknown): ReviewStatus | undefined {
  if (!isObj(v)) return undefined;
  const s: { -readonly [K in keyof ReviewStatus]: ReviewStatus[K] } = {};
  if (typeof v['code'] === 'number' && Number.isInteger(v['code'])) s.code = v['code'];
  if (typeof v['message'] === 'string') s.message = v['message'];
  if (typeof v['reason'] === 'string') s.reason = v['reason'];
  if (typeof v['status'] === 'string') s.status = v['status'];
  if (isObj(v['details'])) s.details = v['details'];
  return s;
}

function stringMap(v: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObj(v)) return out;
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
}

/** VerifyAdmissionResponse for the version we sent. */
export function verifyResponse(version: ReviewVersion, uid: string, mutating: boolean, answer: unknown): ReviewResult {
  if (!isObj(answer)) throw new InvalidReviewError('webhook response was absent');
  const response = answer['response'];
  if (!isObj(response)) throw new InvalidReviewError('webhook response was absent');
  const patch = typeof response['patch'] === 'string' && response['patch'] !== '' ? response['patch'] : undefined;
  const patchType = typeof response['patchType'] === 'string' ? response['patchType'] : undefined;
  const hasPatchType = response['patchType'] !== undefined && response['patchType'] !== null;
  if (version === 'v1') {
    const gotUid = typeof response['uid'] === 'string' ? response['uid'] : '';
    if (gotUid !== uid) throw new InvalidReviewError(`expected response.uid="${uid}", got "${gotUid}"`);
    const want = `${ADMISSION_GROUP}/v1`;
    if (answer['apiVersion'] !== want || answer['kind'] !== 'AdmissionReview') {
      const [g, v] = typeof answer['apiVersion'] === 'string' ? splitApiVersion(answer['apiVersion']) : ['', ''];
      throw new InvalidReviewError(
        `expected webhook response of ${ADMISSION_GROUP}/v1, Kind=AdmissionReview, got ${g === '' ? '' : `${g}/`}${v}, Kind=${typeof answer['kind'] === 'string' ? answer['kind'] : ''}`,
      );
    }
    if (mutating) {
      if (patch !== undefined && !hasPatchType) throw new InvalidReviewError('webhook returned response.patch but not response.patchType');
      if (patch === undefined && hasPatchType) throw new InvalidReviewError('webhook returned response.patchType but not response.patch');
      if (hasPatchType && (patchType === undefined || patchType === '')) throw new InvalidReviewError(`webhook returned invalid response.patchType of "${patchType ?? ''}"`);
    } else {
      if (patch !== undefined) throw new InvalidReviewError('validating webhooks may not return response.patch');
      if (hasPatchType) throw new InvalidReviewError('validating webhooks may not return response.patchType');
    }
  }
  return {
    allowed: response['allowed'] === true,
    patch: mutating ? patch : undefined,
    patchType,
    status: statusOf(response['status']),
    warnings: Array.isArray(response['warnings']) ? response['warnings'].filter((w): w is string => typeof w === 'string') : [],
    auditAnnotations: stringMap(response['auditAnnotations']),
  };
}

function splitApiVersion(av: string): [string, string] {
  const i = av.lastIndexOf('/');
  return i < 0 ? ['', av] : [av.slice(0, i), av.slice(i + 1)];
}
