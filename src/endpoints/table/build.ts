/**
 * Builds the Table for a list, a single object or a watch event: the kind's
 * printer (or the default Name / Created At columns), one row per object,
 * each row's `object` as includeObject asks, and the list metadata.
 *
 * Rows share the input objects' `metadata` (and, for includeObject=Object,
 * the objects themselves) by reference: the Table is meant to be
 * serialised, not kept, and copying 50,000 metadata blocks would cost more
 * than printing them.
 */
import { DEFAULT_COLUMNS } from './columns.ts';
import { Clock } from './format.ts';
import { isObj, metadataOf, str } from './json.ts';
import { partialObjectMetadata } from './partial-metadata.ts';
import type { Printer } from './printer.ts';
import { printerFor } from './registry.ts';
import type { Cell, JsonObject, KindInfo, ListMeta, Table, TableListMeta, TableOptions, TableRow } from './types.ts';
import { names } from '../../naming/index.ts';

/**
 * Objects that close the initial events of a watch-list carry this
 * annotation; the original shows them as metadata even when the full
 * object was asked for. Ours and the original's spelling.
 */
const INITIAL_EVENTS_END = names.initialEventsEndAnnotations;

const RFC3339_SECONDS = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

/** The default table's `Created At`: RFC 3339 in UTC at second precision; the zero time when absent. */
function createdAt(ts: unknown, clock: Clock): string {
  if (typeof ts === 'string' && RFC3339_SECONDS.test(ts)) return ts;
  const ms = clock.parse(ts);
  if (ms === undefined) return '0001-01-01T00:00:00Z';
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function defaultCells(o: JsonObject, clock: Clock): Cell[] {
  const meta = metadataOf(o);
  return [str(meta['name']), createdAt(meta['creationTimestamp'], clock)];
}

function endsInitialEvents(o: JsonObject): boolean {
  const annotations = metadataOf(o)['annotations'];
  return isObj(annotations) && INITIAL_EVENTS_END.some((a) => annotations[a] === 'true');
}

type RowObject = TableRow['object'];

/** How each row's `object` is filled, decided once per table. */
function rowObjectMaker(kindInfo: KindInfo, opts: TableOptions): (o: JsonObject) => RowObject {
  const metaApiVersion = `${opts.tableGroup}/${opts.tableVersion}`;
  const asMetadata = (o: JsonObject): RowObject => partialObjectMetadata(o, metaApiVersion);
  switch (opts.includeObject) {
    case 'None':
      return () => null;
    case 'Metadata':
      return asMetadata;
    case 'Object': {
      const apiVersion = kindInfo.group === '' ? kindInfo.version : `${kindInfo.group}/${kindInfo.version}`;
      return (o) => {
        if (endsInitialEvents(o)) return asMetadata(o);
        // List items are stored without kind and apiVersion; an embedded object needs both.
        if (typeof o['kind'] === 'string' && typeof o['apiVersion'] === 'string') return o;
        return { ...o, kind: kindInfo.kind, apiVersion };
      };
    }
  }
}

function tableListMeta(listMeta: ListMeta): TableListMeta {
  const out: TableListMeta = {};
  if (listMeta.resourceVersion !== '') out.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) out.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) out.remainingItemCount = listMeta.remainingItemCount;
  return out;
}

function row(printer: Printer | undefined, o: JsonObject, clock: Clock, objectOf: (o: JsonObject) => RowObject): TableRow {
  if (printer === undefined) return { cells: defaultCells(o, clock), object: objectOf(o) };
  const cells = printer.cells(o, clock);
  const conditions = printer.conditions?.(o);
  // Field order as the original writes it: cells, conditions, object.
  return conditions === undefined ? { cells, object: objectOf(o) } : { cells, conditions, object: objectOf(o) };
}

/**
 * The Table of a list (or of one object: pass `[obj]` and the object's
 * resourceVersion, or use objectTable). Objects are in their served shape.
 */
export function toTable(kindInfo: KindInfo, objects: readonly JsonObject[], listMeta: ListMeta, opts: TableOptions): Table {
  const printer = kindInfo.printer ?? printerFor(kindInfo.group, kindInfo.kind);
  const clock = new Clock(opts.now);
  const objectOf = rowObjectMaker(kindInfo, opts);
  const rows: TableRow[] = new Array<TableRow>(objects.length);
  for (let i = 0; i < objects.length; i++) rows[i] = row(printer, objects[i]!, clock, objectOf);
  return {
    kind: 'Table',
    apiVersion: `${opts.tableGroup}/${opts.tableVersion}`,
    metadata: tableListMeta(listMeta),
    columnDefinitions: opts.noHeaders === true ? [] : [...(printer?.columns ?? DEFAULT_COLUMNS)],
    rows,
  };
}

/** The Table of a single object (GET of a named resource): its own resourceVersion. */
export function objectTable(kindInfo: KindInfo, object: JsonObject, opts: TableOptions): Table {
  return toTable(kindInfo, [object], { resourceVersion: str(metadataOf(object)['resourceVersion']) }, opts);
}

/**
 * Converts watch event objects to one-row Tables, with column definitions
 * only on the first (the original's watch encoder drops them afterwards).
 * Status objects (ERROR events) pass through unchanged, as in the original.
 */
export function tableWatchEncoder(
  kindInfo: KindInfo,
  opts: Omit<TableOptions, 'now' | 'noHeaders'> & { now?: () => Date },
): (object: JsonObject) => Table | JsonObject {
  let headersSent = false;
  const now = opts.now ?? (() => new Date());
  return (object) => {
    if (object['kind'] === 'Status' && object['apiVersion'] === 'v1') return object;
    const table = objectTable(kindInfo, object, { ...opts, now: now(), noHeaders: headersSent });
    headersSent = true;
    return table;
  };
}
