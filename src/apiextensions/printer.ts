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

/** A version without columns shows its age, as the original serves custom resources (NAME, AGE). */
const DEFAULT_CRD_COLUMNS: readonly PrinterColumn[] = [
  { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp', description: 'CreationTimestamp is a timestamp representing the server time when this object was created. It is not guaranteed to be set in happens-before order across separate operations. Clients may not set this value. It is represented in RFC3339 form and is in UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata' },
];

export function printerFor(given: readonly PrinterColumn[]): Printer {
  const columns = given.length === 0 ? DEFAULT_CRD_COLUMNS : given;
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
