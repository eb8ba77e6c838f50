/** Names of the shared meta schemas that operations refer to directly. */
const META = 'io.orch.apimachinery.pkg.apis.meta.v1';

export const META_STATUS = `${META}.Status`;
export const META_DELETE_OPTIONS = `${META}.DeleteOptions`;
export const META_PATCH = `${META}.Patch`;
