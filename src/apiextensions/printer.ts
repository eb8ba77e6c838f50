/**
 * The Table of a custom resource with `additionalPrinterColumns`: Name, then
 * each column from its JSONPath, typed as the original's CRD table
 * convertor types cells (dates as ages, integers, numbers, booleans; string
 * columns print the first result).
 */
import type { Printer } from '../endpoints/table/printer.ts';
import type { Cell, TableColumnDefinition } from '../endpoints/table/types.ts';
import { NAME } from '../endpoints/table/columns.ts';
import { findResults } from './jsonpath.ts';

export interface PrinterColumn {
  name: string;
  type: string;
  format?: string;
  description?: string;
  priority?: number;
  jsonPath: string;
}

export function printerFor(columns: readonly PrinterColumn[]): Printer | undefined {
  if (columns.length === 0) return undefined;
  const defs: TableColumnDefinition[] = [
    NAME,
    ...columns.map((c) => ({
      name: c.name,
      type: (['string', 'integer', 'number', 'boolean', 'date'].includes(c.type) ? c.type : 'string') as TableColumnDefinition['type'],
      format: c.format ?? '',
      description: c.description ?? '',
      priority: c.priority ?? 0,
    })),
  ];
  return {
    columns: defs,
    cells(o, clock): Cell[] {
      const meta = (o['metadata'] ?? {}) as Record<string, unknown>;
      const cells: Cell[] = [typeof meta['name'] === 'string' ? meta['name'] : ''];
      for (const c of columns) {
        let results: unknown[];
        try {
          results = findResults(o, c.jsonPath);
        } catch {
          results = [];
        }
        if (results.length === 0) {
          cells.push(null);
          continue;
        }
        const v = results[0];
        switch (c.type) {
          case 'date':
            cells.push(typeof v === 'string' ? clock.since(v) : null);
            break;
          case 'integer':
            cells.push(typeof v === 'number' && Number.isInteger(v) ? v : null);
            break;
          case 'number':
            cells.push(typeof v === 'number' ? v : null);
            break;
          case 'boolean':
            cells.push(typeof v === 'boolean' ? v : null);
            break;
          default:
            cells.push(typeof v === 'string' ? v : v === null || v === undefined ? null : JSON.stringify(v));
        }
      }
      return cells;
    },
  };
}
