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
import { StatusError } from '../api/status.ts';
import { jsonDepthExceeded, MAX_NESTING_DEPTH, scanJson, valueDepthExceeded, yamlFlowDepthExceeded } from '../typed/index.ts';

const OPTIONS = {
  version: '1.1' as const,
  // Repeated keys are reported (DUPLICATE_KEY) for fieldValidation; the value keeps the last, as Go's library does.
  uniqueKeys: true,
  // Plain messages: the pretty ones quote context with a regular expression that deep input makes explode.
  prettyErrors: false,
  // Go's library has no timestamp or base-60 scalars: keep them as strings.
  customTags: (tags: Tags): Tags => tags.filter((t) => typeof t === 'string' || (t.tag !== 'tag:yaml.org,2002:timestamp' && t.format !== 'TIME')),
  // Client input must not write to the process's stderr: the library warns there (process.emitWarning)
  // about every collection used as a map key, once per request. Errors still throw.
  logLevel: 'error' as const,
};

/** go-yaml's alias budget is relative to document size; a flat cap of alias uses is enough for real objects. */
const MAX_ALIAS_COUNT = 100;

/** The parsed body (any JSON value; FieldManager.apply checks its shape). */
export function decodeApplyBody(body: Uint8Array | string): unknown {
  return decodeApplyBodyChecked(body).value;
}

export interface DecodedApplyBody {
  readonly value: unknown;
  /**
   * go-yaml's strict error for keys repeated in a map, as the original
   * reports it under fieldValidation Strict (400) and Warn (a warning):
   * `yaml: unmarshal errors:\n  line 5: key "a" already set in map`.
   */
  readonly duplicates: string | undefined;
}

/** The parsed body and its repeated keys. */
export function decodeApplyBodyChecked(body: Uint8Array | string): DecodedApplyBody {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const text = typeof body === 'string' ? body : new TextDecoder().decode(body);
  const json = parseIfJson(text, bytes);
  if (json !== undefined) {
    return { value: json.value, duplicates: unmarshalErrors(scanJson(bytes).duplicateKeys, (at) => lineOfByte(bytes, at)) };
  }
  if (yamlFlowDepthExceeded(text) >= 0) throw tooDeep();
  let value: unknown;
  const repeated: { at: number; key: string }[] = [];
  try {
    const docs = parseAllDocuments(text, OPTIONS);
    if (!Array.isArray(docs)) return { value: null, duplicates: undefined };
    const doc = docs[0];
    if (doc === undefined) return { value: null, duplicates: undefined };
    for (const e of doc.errors) {
      if (e.code === 'DUPLICATE_KEY') repeated.push({ at: e.pos[0], key: keyAt(text, e.pos[0]) });
      else throw decodeError(e.message);
    }
    value = doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }) as unknown;
  } catch (err) {
    if (err instanceof StatusError) throw err;
    if (err instanceof RangeError) throw tooDeep();
    if (err instanceof Error && /alias/i.test(err.message)) throw decodeError('yaml: document contains excessive aliasing');
    throw decodeError(err instanceof Error ? err.message : String(err));
  }
  if (valueDepthExceeded(value, 0)) throw tooDeep();
  return { value, duplicates: unmarshalErrors(repeated, (at) => lineOf(text, at)) };
}

/** go-yaml's `unmarshal errors` text for repeated keys, or undefined when there are none. */
function unmarshalErrors(repeated: readonly { at: number; key: string }[], line: (at: number) => number): string | undefined {
  if (repeated.length === 0) return undefined;
  const lines = repeated.map(({ at, key }) => `  line ${line(at)}: key ${JSON.stringify(key)} already set in map`);
  return ['yaml: unmarshal errors:', ...lines].join('\n');
}

function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = 0; i < at && i < text.length; i++) if (text.charCodeAt(i) === 0x0a) line++;
  return line;
}

function lineOfByte(b: Uint8Array, at: number): number {
  let line = 1;
  for (let i = 0; i < at && i < b.length; i++) if (b[i] === 0x0a) line++;
  return line;
}

/** The key written at `at`: a quoted or plain scalar up to its `:`. */
function keyAt(text: string, at: number): string {
  const m = /^(?:"((?:[^"\\]|\\.)*)"|'((?:[^']|'')*)'|([^:\n]*))/.exec(text.slice(at, at + 1100));
  if (m === null) return '';
  if (m[1] !== undefined) {
    try {
      return JSON.parse(`"${m[1]}"`) as string;
    } catch {
      return m[1];
    }
  }
  if (m[2] !== undefined) return m[2].replace(/''/g, "'");
  return (m[3] ?? '').trim();
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
