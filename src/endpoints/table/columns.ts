/**
 * Column definitions: the constructors printers declare their columns with,
 * and the columns most printers share (Name, Age, the wide Containers /
 * Images / Selector trio).
 */
import { CREATION_TIMESTAMP_DOC, FIELD_DOCS, OBJECT_NAME_DOC, type FieldDocKey } from './descriptions.ts';
import type { TableColumnDefinition } from './types.ts';

type ColumnType = TableColumnDefinition['type'];

/** A column; `description` is either a FIELD_DOCS key or literal text. */
export function column(
  name: string,
  type: ColumnType,
  description: FieldDocKey | { text: string },
  extra: { priority?: number; format?: string } = {},
): TableColumnDefinition {
  return Object.freeze({
    name,
    type,
    format: extra.format ?? '',
    description: typeof description === 'string' ? FIELD_DOCS[description] : description.text,
    priority: extra.priority ?? 0,
  });
}

/** Literal description text, for columns the original describes in its own words. */
export function text(t: string): { text: string } {
  return { text: t };
}

/** The wide (priority 1) variant of `column`. */
export function wide(name: string, type: ColumnType, description: FieldDocKey | { text: string }): TableColumnDefinition {
  return column(name, type, description, { priority: 1 });
}

export const NAME: TableColumnDefinition = column('Name', 'string', text(OBJECT_NAME_DOC), { format: 'name' });
export const AGE: TableColumnDefinition = column('Age', 'string', text(CREATION_TIMESTAMP_DOC));

export const CONTAINERS: TableColumnDefinition = wide('Containers', 'string', text('Names of each container in the template.'));
export const IMAGES: TableColumnDefinition = wide('Images', 'string', text('Images referenced by each container in the template.'));

/** The default table of spec 2.3 (the original's DefaultTableConvertor). */
export const DEFAULT_COLUMNS: readonly TableColumnDefinition[] = Object.freeze([
  NAME,
  column('Created At', 'date', text(CREATION_TIMESTAMP_DOC)),
]);
