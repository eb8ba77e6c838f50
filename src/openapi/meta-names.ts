/** Names of the shared meta schemas that operations refer to directly. */
import { INTERNAL_SCHEMA_PREFIX } from '../naming/index.ts';
const META = `${INTERNAL_SCHEMA_PREFIX}.apimachinery.pkg.apis.meta.v1`;

export const META_STATUS = `${META}.Status`;
export const META_DELETE_OPTIONS = `${META}.DeleteOptions`;
export const META_PATCH = `${META}.Patch`;
