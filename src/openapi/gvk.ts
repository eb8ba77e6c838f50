/**
 * Group/version/kind helpers shared by the documents: the JSON shape of the
 * GVK extension, and the name parts the original derives from a group.
 */
import type { GroupVersionKind } from './schema-dsl.ts';
import type { JsonObject } from './extensions.ts';
import { names } from '../naming/index.ts';

/** `{group, kind, version}` with all three keys: kubectl's explain compares these maps for equality. */
export function gvkJson(gvk: GroupVersionKind): JsonObject {
  return { group: gvk.group, kind: gvk.kind, version: gvk.version };
}

/** `api/v1` or `apis/<group>/<version>`: the key of a group/version in /openapi/v3. */
export function groupVersionPath(group: string, version: string): string {
  return group === '' ? `api/${version}` : `apis/${group}/${version}`;
}

/** The short package name of a group: `` -> core, `rbac.authorization.<suffix>` -> rbac, `flowcontrol.apiserver.<suffix>` -> flowcontrol. */
export function groupPackage(group: string): string {
  return group === '' ? 'core' : group.split('.')[0]!;
}

/** Operation ID part for a group/version: `CoreV1`, `AppsV1`, `RbacAuthorizationV1`. */
export function operationGroupVersion(group: string, version: string): string {
  const words = group === '' ? ['core'] : withoutGroupSuffix(group).split('.');
  return words.map(capitalize).join('') + capitalize(version);
}

/** `rbac.authorization.<suffix>` -> `rbac.authorization`; other groups unchanged. */
function withoutGroupSuffix(group: string): string {
  const suffix = `.${names.apiGroupSuffix}`;
  return group.endsWith(suffix) ? group.slice(0, -suffix.length) : group;
}

export function capitalize(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}
