/**
 * Filters applied to field sets before they are recorded: the fields a
 * strategy resets (the original's reset fields) are never owned. For the
 * main resource of a type with a status subresource that is `status`; for
 * the status subresource it is everything but `status`.
 */
import { FieldSet } from './field-set.ts';
import { fieldElement } from './path.ts';

export type FieldFilter = (set: FieldSet) => FieldSet;

/** Drops `exclude` and everything below its members. */
export function excludeFilter(exclude: FieldSet): FieldFilter {
  return (set) => set.recursiveDifference(exclude);
}

/** Keeps only the top-level fields named, with everything below them. */
export function includeFieldsFilter(names: readonly string[]): FieldFilter {
  const pes = names.map(fieldElement);
  return (set) => {
    const members = set.members.filter((m) => pes.some((pe) => pe.id === m.id));
    const children = set.children.filter((c) => pes.some((pe) => pe.id === c.pe.id));
    return new FieldSet(members, children);
  };
}

/** Leaves `status` unowned: the main resource of a type with a status subresource. */
export const IGNORE_STATUS: FieldFilter = excludeFilter(FieldSet.of([fieldElement('status')]));

/** Owns only `status`: the status subresource. */
export const ONLY_STATUS: FieldFilter = includeFieldsFilter(['status']);
