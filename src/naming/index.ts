/**
 * The names this process speaks, resolved once when first imported (no
 * per-request cost). The flavor must be fixed before this module loads:
 * main.ts sets it from `--api-flavor`, a test file from its first import.
 */
import { processApiFlavor, type ApiFlavor } from './flavor.ts';
import { NAMING_TABLES, type NamingTable } from './table.ts';

export { API_FLAVORS, API_FLAVOR_ENV, API_FLAVOR_FLAG, DEFAULT_API_FLAVOR, ApiFlavorError, apiFlavorFromArgv, isApiFlavor, processApiFlavor, type ApiFlavor } from './flavor.ts';
export { NAMING_TABLES, type NamingTable } from './table.ts';

export const API_FLAVOR: ApiFlavor = processApiFlavor();
export const names: NamingTable = NAMING_TABLES[API_FLAVOR];

/** A named API group in this flavor: `apiGroup('rbac.authorization')` -> `rbac.authorization.<suffix>`. */
export function apiGroup(prefix: string): string {
  return `${prefix}.${names.apiGroupSuffix}`;
}

/**
 * Prefix of the schema names used inside the server (the schema DSL, the
 * Protobuf plans and proto/ packages). They are identifiers, never on the
 * wire: Protobuf carries field numbers and the envelope's apiVersion/kind,
 * and OpenAPI output renames them to the flavor's `schemaPrefix`
 * (publicSchemaName). Fixed, so proto/ and the supplement tables need no
 * regeneration per flavor.
 */
export const INTERNAL_SCHEMA_PREFIX = 'io.orch';

/** An internal schema name as this flavor publishes it (`io.orch.api.core.v1.Pod` -> `io.k8s.api.core.v1.Pod`). */
export function publicSchemaName(internal: string): string {
  return internal.startsWith(`${INTERNAL_SCHEMA_PREFIX}.`) ? `${names.schemaPrefix}${internal.slice(INTERNAL_SCHEMA_PREFIX.length)}` : internal;
}

/** A group of the original's spelling (`*.k8s.io`) in this flavor's (identity in the kubernetes flavor). */
export function fromOriginalGroup(group: string): string {
  const original = '.k8s.io';
  return group.endsWith(original) ? apiGroup(group.slice(0, -original.length)) : group;
}
