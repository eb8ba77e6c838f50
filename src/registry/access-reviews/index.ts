/**
 * The access review types (authorization.<suffix>, v1 and the older
 * v1beta1), create-only and virtual. `accessReviewTypes()` gives their
 * definitions for discovery and documents (a review posted to a registry
 * built from them alone is a 503); `bindAccessReviews` gives the serving
 * registry's definitions, answered by the server's authorizer chain.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { apiGroup } from '../../naming/index.ts';
import { AccessReviewer } from './reviewer.ts';
import { reviewStrategy, type ReviewKind } from './strategies.ts';

export { AccessReviewer } from './reviewer.ts';
export { attributesFrom, reviewStrategy, type ReviewKind } from './strategies.ts';

const KINDS: ReadonlyArray<{ kind: ReviewKind; resource: string; namespaced: boolean }> = [
  { kind: 'LocalSubjectAccessReview', resource: 'localsubjectaccessreviews', namespaced: true },
  { kind: 'SelfSubjectAccessReview', resource: 'selfsubjectaccessreviews', namespaced: false },
  { kind: 'SelfSubjectRulesReview', resource: 'selfsubjectrulesreviews', namespaced: false },
  { kind: 'SubjectAccessReview', resource: 'subjectaccessreviews', namespaced: false },
];

/** The group all four live in. */
export function authorizationGroup(): string {
  return apiGroup('authorization');
}

export function accessReviewTypes(reviewer: AccessReviewer = new AccessReviewer()): ResourceTypeDef[] {
  const group = authorizationGroup();
  const defs: ResourceTypeDef[] = [];
  for (const version of ['v1', 'v1beta1'] as const) {
    for (const k of KINDS) {
      defs.push({
        group,
        version,
        resource: k.resource,
        kind: k.kind,
        singularName: k.kind.toLowerCase(),
        namespaced: k.namespaced,
        verbs: ['create'],
        virtual: true,
        strategy: reviewStrategy(k.kind, version, reviewer),
        // The original's facts for v1beta1 (removed in 1.22; the spec keeps serving it).
        deprecated: version === 'v1beta1' ? { since: '1.19', removed: '1.22', replacement: { group, version: 'v1', kind: k.kind } } : undefined,
      });
    }
  }
  return defs;
}

/** `defs` with the access review types answered by `reviewer` (types of that group are replaced). */
export function bindAccessReviews(defs: readonly ResourceTypeDef[], reviewer: AccessReviewer): ResourceTypeDef[] {
  const group = authorizationGroup();
  const reviews = accessReviewTypes(reviewer);
  const out = defs.filter((d) => d.group !== group);
  const at = defs.findIndex((d) => d.group === group);
  out.splice(at < 0 ? out.length : at, 0, ...reviews);
  return out;
}
