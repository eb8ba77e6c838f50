/**
 * The body of an `application/apply-patch+yaml` request. The original reads
 * it with Go's YAML 1.1 library (JSON is YAML too), so `yes` is true and
 * `010` is eight; timestamps stay strings, a repeated key keeps its last
 * value, and only the first document counts. Errors are the original's 400.
 *
 * Hostile bodies are refused before they can hurt: nesting past the limit
 * (the YAML library recurses per level, and its pretty error messages run a
 * regular expression that exhausts memory on deep input), and aliases that
 * expand without bound (billion laughs). JSON bodies, what kubectl sends,
 * are parsed as JSON: the same value, faster, with no recursion.
 */
import { parseAllDocuments, type Tags } from 'yaml';
import { StatusError } from '../endpoints/status.ts';
import { jsonDepthExceeded, MAX_NESTING_DEPTH, valueDepthExceeded, yamlFlowDepthExceeded } from '../typed/index.ts';

const OPTIONS = {
  version: '1.1' as const,
  uniqueKeys: false,
  // Plain messages: the pretty ones quote context with a regular expression that deep input makes explode.
  prettyErrors: false,
  // Go's library has no timestamp or base-60 scalars: keep them as strings.
  customTags: (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || (t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME')),
};

/** go-yaml's alias budget is relative to document size; a flat cap of alias uses is enough for real objects. */
const MAX_ALIAS_COUNT = 100;

/** The parsed body (any JSON value; FieldManager.apply checks its shape). */
export function decodeApplyBody(body: Uint8Array | string): unknown {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const json = parseIfJson(text, bytes);
  if (json !== undefined) return json.value;
  if (yamlFlowDepthExceeded(text) >= 0) throw tooDeep();
  let value: unknown;
  try {
    const docs = parseAllDocuments(text, OPTIONS);
    if (!Array.isArray(docs)) return null;
    const doc = docs[0];
    if (doc === undefined) return null;
    if (doc.errors.length > 0) throw decodeError(doc.errors[0]!.message);
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof RangeError) throw tooDeep();
    if (err instanceof Error && /alias/i.test(err.message)) throw decodeError('yaml: document contains excessive aliasing');
    throw decodeError(err instanceof Error ? err.message : String(err));
  }
  if (valueDepthExceeded(value, 0)) throw tooDeep();
  return value;
}

/** A body that is a JSON object, parsed as JSON (after the nesting check); undefined when it is not JSON. */
function parseIfJson(text: string, bytes: Uint8Array): { value: unknown } | undefined {
  const start = text.trimStart();
  if (!start.startsWith('{')) return undefined;
  if (jsonDepthExceeded(bytes) >= 0) throw tooDeep();
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

function decodeError(message: string): StatusError {
  return new StatusError(400, 'BadRequest', `error decoding patch: ${message}`);
}

/** go-yaml's words, with this server's limit (see src/typed/depth.ts). */
function tooDeep(): StatusError {
  return decodeError(`yaml: exceeded max depth of ${MAX_NESTING_DEPTH}`);
}
