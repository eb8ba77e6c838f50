/**
 * The failures of strategic merge patch, worded as the original's
 * mergepatch package words them, each with the status the original's patch
 * handler gives it: its fixed list of format errors is 400, lists of lists
 * 422, and everything else reaches the client as a 500 with the bare message
 * (the original does not classify those; `kubectl patch` users know
 * `map: map[image:foo] does not contain declared merge key: name`).
 */
import { goFormat, goTypeName } from './go-format.ts';
import { badPatch, unclassifiedPatchError, unprocessablePatch, type PatchError } from './patch-error.ts';

export const MAP_TYPE = 'map[string]interface {}';
export const SLICE_TYPE = '[]interface {}';

export const smpErrors = {
  badJsonDoc: (): PatchError => badPatch('invalid JSON document'),
  noListOfLists: (): PatchError => unprocessablePatch('lists of lists are not supported'),
  badPrimitiveList: (): PatchError => badPatch('invalid patch format of primitive list'),
  badRetainKeys: (): PatchError => badPatch('invalid patch format of retainKeys'),
  badSetElementOrder: (): PatchError => badPatch('invalid patch format of setElementOrder list'),
  noMergeKey: (item: unknown, mergeKey: string): PatchError =>
    unclassifiedPatchError(`map: ${goFormat(item)} does not contain declared merge key: ${mergeKey}`),
  /** A value of the wrong JSON type where the algorithm needs a map or a list. */
  badArgType: (expected: typeof MAP_TYPE | typeof SLICE_TYPE, actual: unknown): PatchError =>
    unclassifiedPatchError(`expected a ${expected}, but received a ${goTypeName(actual)}`),
  badPatchType: (directive: unknown, item: unknown): PatchError =>
    unclassifiedPatchError(`unknown patch type: ${goFormat(directive)} in map: ${goFormat(item)}`),
  other: (message: string): PatchError => unclassifiedPatchError(message),
};
