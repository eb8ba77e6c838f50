/**
 * PartialObjectMetadata: an object reduced to its metadata, as Table rows
 * carry it by default and as client-go's metadata client asks for with
 * `as=PartialObjectMetadata[List]`. The metadata is the object's own
 * (managedFields included, as the original copies the whole ObjectMeta),
 * shared by reference.
 */
import { StatusError } from '../../api/status.ts';
import { metadataOf } from './json.ts';
import type { JsonObject, ListMeta, MetaGroup, MetaVersion, PartialObjectMetadata, PartialObjectMetadataList, TableListMeta } from './types.ts';

/** One object as PartialObjectMetadata in the given meta group version (`meta.k8s.io/v1`). */
export function partialObjectMetadata(o: JsonObject, apiVersion: string): PartialObjectMetadata {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: metadataOf(o) };
}

/** A list as PartialObjectMetadataList (list metadata as in spec 2.2). */
export function partialObjectMetadataList(
  objects: readonly JsonObject[],
  listMeta: ListMeta,
  group: MetaGroup,
  version: MetaVersion,
): PartialObjectMetadataList {
  const apiVersion = `${group}/${version}`;
  const metadata: TableListMeta = {};
  if (listMeta.resourceVersion !== '') metadata.resourceVersion = listMeta.resourceVersion;
  if (listMeta.continue) metadata.continue = listMeta.continue;
  if (listMeta.remainingItemCount !== undefined) metadata.remainingItemCount = listMeta.remainingItemCount;
  const items = new Array<PartialObjectMetadata>(objects.length);
  for (let i = 0; i < objects.length; i++) items[i] = partialObjectMetadata(objects[i]!, apiVersion);
  return { kind: 'PartialObjectMetadataList', apiVersion, metadata, items };
}

/**
 * The original's 406 when the conversion does not fit the request:
 * PartialObjectMetadata asked of a list, or PartialObjectMetadataList of a
 * single object. `kind` names what was requested (`PodList`, `Pod`).
 */
export function partialMetadataMismatch(askedList: boolean, isList: boolean, kind: string): StatusError | undefined {
  if (askedList === isList) return undefined;
  const message = askedList
    ? `you requested PartialObjectMetadataList, but the requested object is not a list (${kind})`
    : `you requested PartialObjectMetadata, but the requested object is a list (${kind})`;
  return new StatusError(406, 'NotAcceptable', message);
}
