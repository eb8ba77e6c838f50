/** authorization.<suffix> v1 and v1beta1: the access reviews (virtual, create-only; src/registry/access-reviews/). */
import type { ResourceTypeDef } from '../resource-type.ts';
import { accessReviewTypes } from '../access-reviews/index.ts';

export const authorizationTypes: ResourceTypeDef[] = accessReviewTypes();
