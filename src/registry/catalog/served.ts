/**
 * Every resource type this server can serve, before `--runtime-config` picks:
 * the catalog, the reviews answered by the serving thread's authenticator
 * (bound later) and CustomResourceDefinitions. What the flag's keys are checked against.
 */
import type { ResourceTypeDef } from '../resource-type.ts';
import { TokenReviewSlot, tokenReviewTypes } from '../reviews/token-review.ts';
import { builtinResourceTypes } from './index.ts';
import { crdResourceTypes } from '../../apiextensions/crd-types.ts';
import type { KnownResource } from '../../versions/runtime-config.ts';
import { defaultEnabledFor } from '../../versions/runtime-config.ts';

export function servableResourceTypes(): ResourceTypeDef[] {
  return [...builtinResourceTypes, ...tokenReviewTypes(new TokenReviewSlot()), ...crdResourceTypes];
}

export function knownResources(defs: readonly ResourceTypeDef[] = servableResourceTypes()): KnownResource[] {
  return defs.map((d) => ({ group: d.group, version: d.version, resource: d.resource, defaultEnabled: d.defaultEnabled ?? defaultEnabledFor(d.version) }));
}
