/**
 * The body of an `application/apply-patch+yaml` request. The original reads
 * it with Go's YAML 1.1 library (JSON is YAML too), so `yes` is true and
 * `010` is eight; timestamps stay strings, a repeated key keeps its last
 * value, and only the first document counts. Errors are the original's 400.
 */
import { parseAllDocuments, type Tags } from 'yaml';
import { StatusError } from '../endpoints/status.ts';

const OPTIONS = {
  version: '1.1' as const,
  uniqueKeys: false,
  // Go's library has no timestamp or base-60 scalars: keep them as strings.
  customTags: (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || (t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME')),
};

/** The parsed body (any JSON value; FieldManager.apply checks its shape). */
export function decodeApplyBody(body: Uint8Array | string): unknown {
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const docs = parseAllDocuments(text, OPTIONS);
  if (!Array.isArray(docs)) return null;
  const doc = docs[0];
  if (doc === undefined) return null;
  if (doc.errors.length > 0) throw new StatusError(400, 'BadRequest', `error decoding patch: ${doc.errors[0]!.message}`);
  return doc.toJS({ maxAliasCount: 100 }) as unknown;
}
