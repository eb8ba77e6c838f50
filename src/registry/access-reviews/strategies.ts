/**
 * The access reviews (authorization.<suffix>, v1 and v1beta1), after the
 * original's pkg/registry/authorization: virtual, create-only types whose
 * answer is the posted object with `status` filled by asking the running
 * authorizer chain (reviewer.ts). Nothing is stored.
 *
 * - SelfSubjectAccessReview: the caller's own user info;
 * - SubjectAccessReview: the user in the spec (`groups`, or `group` in v1beta1);
 * - LocalSubjectAccessReview: as SubjectAccessReview, in the URL's namespace:
 *   the body's metadata.namespace must be the URL's (400, the generic store
 *   checks it) and spec.resourceAttributes.namespace must match it (422);
 * - SelfSubjectRulesReview: the rules the caller has in spec.namespace,
 *   `incomplete` where a mode cannot list them.
 */
import { errors, StatusError } from '../../api/status.ts';
import { pushAll } from '../../api/push-all.ts';
import { isPlainObject, type KObject } from '../object.ts';
import { fieldErrors, type FieldError, type Strategy, type StrategyContext } from '../strategy.ts';
import type { AuthorizationAttributes } from '../../authz/types.ts';
import type { UserInfo } from '../../server/context.ts';
import type { AccessReviewer } from './reviewer.ts';

export type ReviewKind = 'SelfSubjectAccessReview' | 'SubjectAccessReview' | 'LocalSubjectAccessReview' | 'SelfSubjectRulesReview';

type Json = Record<string, unknown>;

function obj(v: unknown): Json | undefined {
  return isPlainObject(v) ? v : undefined;
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((s): s is string => typeof s === 'string') : [];
}

/** Metadata a client may not set on a review (the original: "must be empty"); server-set fields excepted. */
const CLIENT_META = ['name', 'generateName', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'resourceVersion'] as const;

function metadataErrors(o: KObject): FieldError[] {
  const meta = o.metadata as Json;
  const set = CLIENT_META.filter((k) => {
    const v = meta[k];
    if (v === undefined || v === null || v === '') return false;
    if (Array.isArray(v)) return v.length > 0;
    if (isPlainObject(v)) return Object.keys(v).length > 0;
    return true;
  });
  if (set.length === 0) return [];
  const shown: Json = {};
  for (const k of set) shown[k] = meta[k];
  return [fieldErrors.invalid('metadata', shown, 'must be empty')];
}

/** ValidateSubjectAccessReviewSpec / ValidateSelfSubjectAccessReviewSpec. */
function specErrors(spec: Json, needsSubject: boolean, groupsField: string): FieldError[] {
  const errs: FieldError[] = [];
  const ra = spec['resourceAttributes'];
  const nra = spec['nonResourceAttributes'];
  const hasRa = ra !== undefined && ra !== null;
  const hasNra = nra !== undefined && nra !== null;
  if (hasRa && hasNra) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', nra, 'cannot be specified in combination with resourceAttributes'));
  if (!hasRa && !hasNra) errs.push(fieldErrors.invalid('spec.resourceAttributes', null, 'exactly one of nonResourceAttributes or resourceAttributes must be specified'));
  if (hasRa && !isPlainObject(ra)) errs.push(fieldErrors.invalid('spec.resourceAttributes', ra, 'must be an object'));
  if (hasNra && !isPlainObject(nra)) errs.push(fieldErrors.invalid('spec.nonResourceAttributes', nra, 'must be an object'));
  if (needsSubject && str(spec['user']) === '' && strings(spec[groupsField]).length === 0) {
    errs.push(fieldErrors.invalid('spec.user', str(spec['user']), 'at least one of user or group must be specified'));
  }
  return errs;
}

/** The request attributes a review's spec describes (ResourceAttributesFrom / NonResourceAttributesFrom). */
export function attributesFrom(user: UserInfo, spec: Json): AuthorizationAttributes {
  const ra = obj(spec['resourceAttributes']);
  if (ra !== undefined) {
    const version = str(ra['version']);
    return {
      user,
      verb: str(ra['verb']),
      isResourceRequest: true,
      path: '',
      namespace: str(ra['namespace']),
      apiGroup: str(ra['group']),
      // An empty version matches all versions, as in the original.
      apiVersion: version === '' ? '*' : version,
      resource: str(ra['resource']),
      subresource: str(ra['subresource']),
      name: str(ra['name']),
    };
  }
  const nra = obj(spec['nonResourceAttributes']) ?? {};
  return { user, verb: str(nra['verb']), isResourceRequest: false, path: str(nra['path']), namespace: '', apiGroup: '', apiVersion: '', resource: '', subresource: '', name: '' };
}

/** The user a SubjectAccessReview's spec names. */
function specUser(spec: Json, groupsField: string): UserInfo {
  const extra: Record<string, string[]> = {};
  const rawExtra = obj(spec['extra']);
  if (rawExtra !== undefined) for (const [k, v] of Object.entries(rawExtra)) extra[k] = strings(v);
  const uid = str(spec['uid']);
  return { name: str(spec['user']), groups: strings(spec[groupsField]), uid: uid === '' ? undefined : uid, extra: Object.keys(extra).length > 0 ? extra : undefined };
}

function callerOf(ctx: StrategyContext): UserInfo {
  if (ctx.user === undefined) throw errors.badRequest('no user present on request');
  return ctx.user;
}

/** The answer's metadata: what was sent (managed fields included), with no server identity. */
function answerMeta(o: KObject): KObject['metadata'] {
  const meta = { ...o.metadata } as Json;
  delete meta['uid'];
  meta['creationTimestamp'] = null;
  return meta as KObject['metadata'];
}

async function decide(reviewer: AccessReviewer, attrs: AuthorizationAttributes): Promise<Json> {
  try {
    const r = await reviewer.authorize(attrs);
    const status: Json = { allowed: r.decision === 'allow' };
    if (r.decision === 'deny') status['denied'] = true;
    if (r.reason !== '') status['reason'] = r.reason;
    return status;
  } catch (err) {
    if (err instanceof StatusError) throw err;
    return { allowed: false, evaluationError: err instanceof Error ? err.message : String(err) };
  }
}

/** One review kind at one version (v1beta1 spells the subject's groups `group`). */
export function reviewStrategy(kind: ReviewKind, version: 'v1' | 'v1beta1', reviewer: AccessReviewer): Strategy {
  const groupsField = version === 'v1' ? 'groups' : 'group';
  const spec = (o: KObject): Json => obj(o['spec']) ?? {};
  return {
    validate(o: KObject): FieldError[] {
      const errs = metadataErrors(o);
      if (kind === 'SelfSubjectRulesReview') return errs;
      const s = spec(o);
      pushAll(errs, specErrors(s, kind === 'SubjectAccessReview' || kind === 'LocalSubjectAccessReview', groupsField));
      if (kind === 'LocalSubjectAccessReview') {
        const ra = obj(s['resourceAttributes']);
        const ns = o.metadata.namespace ?? '';
        if (ra !== undefined && str(ra['namespace']) !== ns) errs.push(fieldErrors.invalid('spec.resourceAttributes.namespace', str(ra['namespace']), 'must match metadata.namespace'));
        if (s['nonResourceAttributes'] !== undefined && s['nonResourceAttributes'] !== null) {
          errs.push(fieldErrors.invalid('spec.nonResourceAttributes', s['nonResourceAttributes'], 'disallowed on this kind of request'));
        }
      }
      return errs;
    },
    async answerCreate(o: KObject, ctx: StrategyContext): Promise<KObject> {
      const s = spec(o);
      switch (kind) {
        case 'SelfSubjectAccessReview':
          return { ...o, metadata: answerMeta(o), status: await decide(reviewer, attributesFrom(callerOf(ctx), s)) };
        case 'SubjectAccessReview':
          return { ...o, metadata: answerMeta(o), status: await decide(reviewer, attributesFrom(specUser(s, groupsField), s)) };
        case 'LocalSubjectAccessReview': {
          if ((o.metadata.namespace ?? '') === '') throw errors.badRequest('namespace is required on this type: ');
          return { ...o, metadata: answerMeta(o), status: await decide(reviewer, attributesFrom(specUser(s, groupsField), s)) };
        }
        case 'SelfSubjectRulesReview': {
          const user = callerOf(ctx);
          const namespace = str(s['namespace']);
          if (namespace === '') throw errors.badRequest('no namespace on request');
          const rules = await reviewer.rulesFor(user, namespace);
          const status: Json = {
            resourceRules: rules.resourceRules.map((r) => {
              const out: Json = { verbs: [...r.verbs] };
              if (r.apiGroups.length > 0) out['apiGroups'] = [...r.apiGroups];
              if (r.resources.length > 0) out['resources'] = [...r.resources];
              if (r.resourceNames.length > 0) out['resourceNames'] = [...r.resourceNames];
              return out;
            }),
            nonResourceRules: rules.nonResourceRules.map((r) => ({ verbs: [...r.verbs], nonResourceURLs: [...r.nonResourceURLs] })),
            incomplete: rules.incomplete,
          };
          if (rules.evaluationError !== undefined && rules.evaluationError !== '') status['evaluationError'] = rules.evaluationError;
          // The original answers a fresh object: the spec is not echoed.
          return { apiVersion: o.apiVersion, kind: o.kind, metadata: answerMeta({ ...o, metadata: {} } as KObject), spec: {}, status };
        }
      }
    },
  };
}
