/**
 * What a per-kind printer provides: its columns and, per object, the cells
 * of its row. Like the original's server-side conversion, printers always
 * produce every column (wide ones included); clients hide priority > 0
 * columns unless asked for wide output.
 */
import type { Clock } from './format.ts';
import type { Cell, JsonObject, TableColumnDefinition, TableRowCondition } from './types.ts';

export interface Printer {
  readonly columns: readonly TableColumnDefinition[];
  /** One cell per column, in column order. */
  cells(o: JsonObject, clock: Clock): Cell[];
  /** Row conditions (the original marks finished pods `Completed`). */
  conditions?(o: JsonObject): TableRowCondition[] | undefined;
}

/** A printer for one kind in one group, as served. */
export interface Registration {
  /** `''` for the core group; the served group name (`apps`, `rbac.authorization.<suffix>`). */
  group: string;
  kind: string;
  printer: Printer;
}
