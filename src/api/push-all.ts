/**
 * pushAll appends every element of `items` to `target`. `target.push(...items)`
 * passes each element as a call argument, and V8 throws RangeError (stack
 * overflow) past roughly a hundred thousand of them; validation results grow
 * with the request (one error per bad list element), so a big enough body
 * turned that into a 500 (fuzz seed 6, case 50976: 60,000 label-selector
 * requirements).
 */
export function pushAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item);
  return target;
}
