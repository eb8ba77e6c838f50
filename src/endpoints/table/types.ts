/**
 * The Table representation (spec 2.3) as JSON, shaped like the original's
 * metav1.Table so JSON field order and presence match what it writes.
 */
import type { IncludeObject, MetaGroup, MetaVersion } from '../negotiate.ts';
import type { Printer } from './printer.ts';

export type { IncludeObject, MetaGroup, MetaVersion };

/** A JSON object as read from storage or a request. */
export type JsonObject = Record<string, unknown>;

/** A cell: the original's cells are strings, int64s, booleans (and nil). */
export type Cell = string | number | boolean | null;

export interface TableColumnDefinition {
  name: string;
  /** OpenAPI type: `string`, `integer`, `number`, `boolean`, `date`. */
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  /** `name` marks the column holding the object's name (kubectl prefixes kinds there). */
  format: string;
  description: string;
  /** 0: always shown; 1 and above: only in wide output (`kubectl get -o wide`). */
  priority: number;
}

export interface TableRowCondition {
  type: 'Completed';
  status: 'True' | 'False' | 'Unknown';
  reason?: string;
  message?: string;
}

export interface PartialObjectMetadata {
  kind: 'PartialObjectMetadata';
  apiVersion: string;
  metadata: JsonObject;
}

export interface PartialObjectMetadataList {
  kind: 'PartialObjectMetadataList';
  apiVersion: string;
  metadata: TableListMeta;
  items: PartialObjectMetadata[];
}

export interface TableRow {
  cells: Cell[];
  conditions?: TableRowCondition[];
  /** Per includeObject: the object, its PartialObjectMetadata, or null for None. */
  object: JsonObject | PartialObjectMetadata | null;
}

export interface TableListMeta {
  resourceVersion?: string;
  continue?: string;
  remainingItemCount?: number;
}

export interface Table {
  kind: 'Table';
  apiVersion: `${MetaGroup}/${MetaVersion}`;
  metadata: TableListMeta;
  columnDefinitions: TableColumnDefinition[];
  rows: TableRow[];
}

/** The resource the objects belong to, as served (not as stored). */
export interface KindInfo {
  /** `''` for the core group. */
  group: string;
  version: string;
  kind: string;
  resource: string;
  /** A custom resource's columns (its definition's additionalPrinterColumns); else the kind's registered printer. */
  printer?: Printer | undefined;
}

/** List metadata of the list being shown (spec 2.2); for one object, its resourceVersion. */
export interface ListMeta {
  resourceVersion: string;
  continue?: string | undefined;
  remainingItemCount?: number | undefined;
}

export interface TableOptions {
  includeObject: IncludeObject;
  /** The group and version the client asked the Table in (negotiate's answer). */
  tableGroup: MetaGroup;
  tableVersion: MetaVersion;
  /** The clock ages are computed against. */
  now: Date;
  /** Leave out column definitions (watch events after the first, as the original does). */
  noHeaders?: boolean;
}
