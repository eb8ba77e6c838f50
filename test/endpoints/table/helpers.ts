/** Shared fixtures for the Table tests: a fixed clock and one-call table builders. */
import { toTable, type Cell, type JsonObject, type KindInfo, type Table, type TableOptions } from '../../../src/endpoints/table/index.ts';

export const NOW = new Date('2025-06-01T12:00:00Z');

/** An RFC 3339 timestamp `seconds` before NOW, at second precision as stored. */
export function ago(seconds: number): string {
  return new Date(NOW.getTime() - seconds * 1000).toISOString().replace('.000Z', 'Z');
}

export function kindOf(group: string, version: string, kind: string, resource: string): KindInfo {
  return { group, version, kind, resource };
}

export const POD = kindOf('', 'v1', 'Pod', 'pods');

export function tableOf(kind: KindInfo, objects: JsonObject[], opts: Partial<TableOptions> = {}): Table {
  return toTable(kind, objects, { resourceVersion: '100' }, {
    includeObject: 'Metadata',
    tableGroup: 'meta.k8s.io',
    tableVersion: 'v1',
    now: NOW,
    ...opts,
  });
}

/** The cells of the single row a one-object table has. */
export function cellsOf(kind: KindInfo, object: JsonObject): Cell[] {
  const t = tableOf(kind, [object]);
  if (t.rows.length !== 1) throw new Error(`expected one row, got ${t.rows.length}`);
  return t.rows[0]!.cells;
}

/** Column headers as kubectl prints them: upper-cased, wide ones only when asked. */
export function headers(t: Table, wide = false): string[] {
  return t.columnDefinitions.filter((c) => wide || c.priority === 0).map((c) => c.name.toUpperCase());
}

/** `{ metadata: { name, creationTimestamp } }` plus the given fields. */
export function object(name: string, age: number, fields: JsonObject = {}, meta: JsonObject = {}): JsonObject {
  return { metadata: { name, namespace: 'default', creationTimestamp: ago(age), ...meta }, ...fields };
}
