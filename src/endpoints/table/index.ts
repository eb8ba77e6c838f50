/**
 * Table representation (spec 2.3): the public surface the HTTP handlers
 * use. Negotiate first (../negotiate.ts); when it answers `table`, build
 * the body here:
 *
 *   list:   toTable(kindInfo, items, { resourceVersion, continue, remainingItemCount },
 *                   { includeObject, tableGroup: n.group, tableVersion: n.version, now: new Date() })
 *   get:    objectTable(kindInfo, obj, sameOpts)
 *   watch:  const enc = tableWatchEncoder(kindInfo, { includeObject, tableGroup, tableVersion });
 *           each event: { type, object: enc(event.object) }
 *
 * and write it as JSON with Content-Type `application/json`.
 */
export { toTable, objectTable, tableWatchEncoder } from './build.ts';
export { partialObjectMetadata, partialObjectMetadataList, partialMetadataMismatch } from './partial-metadata.ts';
export { printerFor, printedKinds } from './registry.ts';
export { humanDuration } from './format.ts';
export type {
  Cell,
  IncludeObject,
  JsonObject,
  KindInfo,
  ListMeta,
  MetaGroup,
  MetaVersion,
  PartialObjectMetadata,
  PartialObjectMetadataList,
  Table,
  TableColumnDefinition,
  TableListMeta,
  TableOptions,
  TableRow,
  TableRowCondition,
} from './types.ts';
