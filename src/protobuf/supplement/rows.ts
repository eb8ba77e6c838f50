/**
 * One field of a supplement message: JSON name, the original's field number,
 * and its type: `string`, `int32`, `int64`, `bool`, `double`, `bytes`, a
 * well-known name (`quantity`, `int-or-string`, `time`, `micro-time`,
 * `fields-v1`, `raw-extension`) or a message's full name; `[]T` for a
 * repeated field, `{}T` for a map with string keys.
 */
export type FieldRow = readonly [jsonName: string, number: number, type: string];
