/**
 * TokenReview (`authentication.<suffix>`, v1 and v1beta1; spec 2.9): a
 * virtual resource, create only, nothing stored, as the original's
 * tokenreview REST storage. The answer is the posted object with `status`
 * filled: authenticated, user, audiences, error (token-review.ts in authn).
 *
 * - a namespace in the path is not served (cluster-scoped type: 404);
 * - an empty `spec.token` is a 400 ("token is required for TokenReview in
 *   authentication"), as the original;
 * - dry-run answers the same (a review changes nothing), as the original,
 *   whose storage ignores the option;
 * - the token is never logged: the request log has no body, and messages
 *   never contain it.
 *
 * The token authenticators are built after the registry (they read the watch
 * caches the registry's types feed), so the strategy asks a TokenReviewSlot
 * that server start-up binds once they exist; unbound, the review is
 * answered unchanged, as the original answers without an authenticator.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import type { Strategy, StrategyContext } from '../strategy.ts';
import type { KObject } from '../object.ts';
import { errors } from '../../api/status.ts';
import { apiGroup } from '../../naming/index.ts';
import { AudienceValidationError, type TokenReviewAnswer } from '../../authn/token-review.ts';

export interface TokenReviewBackend {
  review(token: string, audiences: readonly string[]): Promise<TokenReviewAnswer>;
}

/** Late binding of the token reviewer: set once the authenticators exist. */
export class TokenReviewSlot {
  #backend: TokenReviewBackend | undefined;

  bind(backend: TokenReviewBackend): void {
    this.#backend = backend;
  }

  get backend(): TokenReviewBackend | undefined {
    return this.#backend;
  }
}

function stringList(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

/** The metadata the original echoes: what the client sent, without what the create path filled in. */
function echoedMetadata(obj: KObject): KObject['metadata'] {
  const { uid: _uid, creationTimestamp: _ct, managedFields: _mf, generation: _g, resourceVersion: _rv, ...rest } = obj.metadata;
  return { ...rest, creationTimestamp: null };
}

function tokenReviewStrategy(slot: TokenReviewSlot): Strategy {
  return {
    async answerCreate(obj: KObject, _ctx: StrategyContext): Promise<KObject> {
      const spec = obj['spec'];
      const specObj = spec !== null && typeof spec === 'object' && !Array.isArray(spec) ? (spec as Record<string, unknown>) : {};
      const token = typeof specObj['token'] === 'string' ? specObj['token'] : '';
      if (token === '') throw errors.badRequest('token is required for TokenReview in authentication');
      const answer: KObject = { ...obj, metadata: echoedMetadata(obj) };
      const backend = slot.backend;
      if (backend === undefined) return answer;
      let result: TokenReviewAnswer;
      try {
        result = await backend.review(token, stringList(specObj['audiences']));
      } catch (err) {
        if (err instanceof AudienceValidationError) throw errors.internal(err.message);
        throw err;
      }
      const status: Record<string, unknown> = { authenticated: result.authenticated };
      if (result.user !== undefined) {
        status['user'] = {
          username: result.user.name,
          ...(result.user.uid !== undefined && result.user.uid !== '' ? { uid: result.user.uid } : {}),
          groups: [...result.user.groups],
          ...(result.user.extra !== undefined ? { extra: result.user.extra } : {}),
        };
        if (result.audiences !== undefined) status['audiences'] = [...result.audiences];
      } else {
        status['user'] = {};
      }
      if (result.error !== undefined && result.error !== '') status['error'] = result.error;
      answer['status'] = status;
      return answer;
    },
  };
}

/** The TokenReview types of both versions, answered through `slot`. */
export function tokenReviewTypes(slot: TokenReviewSlot): ResourceTypeDef[] {
  const group = apiGroup('authentication');
  const strategy = tokenReviewStrategy(slot);
  const def = { group, resource: 'tokenreviews', kind: 'TokenReview', singularName: 'tokenreview', namespaced: false, verbs: ['create' as const], virtual: true, strategy };
  return [
    { ...def, version: 'v1' },
    {
      ...def,
      version: 'v1beta1',
      // The original's wording for a served deprecated version (it removed this one in 1.22; the spec keeps it).
      deprecated: { since: '1.19', removed: '1.22', replacement: { group, version: 'v1', kind: 'TokenReview' } },
    },
  ];
}
