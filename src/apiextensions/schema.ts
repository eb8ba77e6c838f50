/**
 * A CustomResourceDefinition's OpenAPI v3 schema (JSONSchemaProps) and what
 * the server does with it, in the manner of the original's
 * apiextensions-apiserver/pkg/apiserver/schema: the structural check (with
 * the original's messages), validation of custom resources (types, formats,
 * enum, pattern, bounds, required, nullable, items, additionalProperties),
 * pruning of fields the schema does not declare, and defaulting.
 *
 * Vendor markers are read with this flavor's prefix (`x-kubernetes-*` in the
 * kubernetes flavor, the spec's own prefix otherwise): see MARK below.
 */
import { names } from '../naming/index.ts';
import type { FieldError } from '../registry/strategy.ts';
import { fieldErrors } from '../registry/strategy.ts';
import { RE2JS } from 're2js';

/** A JSON schema as a CRD holds it: plain JSON, read through the accessors below. */
export type JSONSchemaProps = Record<string, unknown>;

const P = names.openApiExtensionPrefix;
/** The vendor markers, in this flavor's spelling. */
export const MARK = {
  intOrString: `${P}int-or-string`,
  preserveUnknownFields: `${P}preserve-unknown-fields`,
  embeddedResource: `${P}embedded-resource`,
  listType: `${P}list-type`,
  listMapKeys: `${P}list-map-keys`,
  mapType: `${P}map-type`,
} as const;

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export const schemaOf = {
  type: (s: JSONSchemaProps): string => (typeof s['type'] === 'string' ? s['type'] : ''),
  properties: (s: JSONSchemaProps): Record<string, JSONSchemaProps> | undefined => (isObj(s['properties']) ? (s['properties'] as Record<string, JSONSchemaProps>) : undefined),
  items: (s: JSONSchemaProps): JSONSchemaProps | undefined => (isObj(s['items']) ? s['items'] : undefined),
  /** additionalProperties: a schema, `true` (any), `false`, or undefined. */
  additional: (s: JSONSchemaProps): JSONSchemaProps | boolean | undefined => {
    const a = s['additionalProperties'];
    return isObj(a) ? a : typeof a === 'boolean' ? a : undefined;
  },
  flag: (s: JSONSchemaProps, mark: string): boolean => s[mark] === true,
};

// ---------------------------------------------------------------------------
// Structural check (validation.go's ValidateStructural).
// ---------------------------------------------------------------------------

type Level = 'root' | 'item' | 'field';

/** Field path in the original's notation: `a.b`, `properties[spec]`, `allOf[0]`. */
const child = (path: string, name: string): string => `${path}.${name}`;
const key = (path: string, k: string): string => `${path}[${k}]`;
const index = (path: string, i: number): string => `${path}[${i}]`;

/** Keys a structural schema may hold outside value validations; everything else is checked below. */
const JUNCTORS = ['allOf', 'anyOf', 'oneOf', 'not'] as const;

/**
 * Errors that make `schema` non-structural (empty when it is structural),
 * sorted by message as the original sorts them.
 */
export function validateStructural(path: string, schema: JSONSchemaProps): FieldError[] {
  const errs: FieldError[] = [];
  structuralInvariants(schema, 'root', path, errs);
  return errs.sort((a, b) => (fullMessage(a) < fullMessage(b) ? -1 : fullMessage(a) > fullMessage(b) ? 1 : 0));
}

export function fullMessage(e: FieldError): string {
  return `${e.field}: ${e.message}`;
}

function structuralInvariants(s: JSONSchemaProps, lvl: Level, path: string, errs: FieldError[]): void {
  const type = schemaOf.type(s);
  if (typeof s['$ref'] === 'string') errs.push(fieldErrors.forbidden(child(path, '$ref'), '$ref is not supported'));
  if (type === 'array' && schemaOf.items(s) === undefined) errs.push(fieldErrors.required(child(path, 'items'), 'must be specified'));
  if (Array.isArray(s['items'])) errs.push(fieldErrors.forbidden(child(path, 'items'), 'items must be a schema object and not an array'));
  const items = schemaOf.items(s);
  if (items !== undefined) structuralInvariants(items, 'item', child(path, 'items'), errs);
  const props = schemaOf.properties(s);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (isObj(v)) structuralInvariants(v, 'field', key(child(path, 'properties'), k), errs);
  }
  const additional = schemaOf.additional(s);
  if (additional !== undefined) {
    if (lvl === 'root') errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'must not be used at the root'));
    if (isObj(additional)) structuralInvariants(additional, 'field', child(path, 'additionalProperties'), errs);
    if (props !== undefined && Object.keys(props).length > 0 && additional !== true) {
      errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'additionalProperties and properties are mutual exclusive'));
    }
  }
  const intOrString = schemaOf.flag(s, MARK.intOrString);
  const preserve = s[MARK.preserveUnknownFields];
  const embedded = schemaOf.flag(s, MARK.embeddedResource);
  if (preserve === false) errs.push(fieldErrors.invalid(child(path, MARK.preserveUnknownFields), false, 'must be true or undefined'));
  if (intOrString && preserve === true) errs.push(fieldErrors.invalid(child(path, MARK.preserveUnknownFields), true, 'must be false if x-kubernetes-int-or-string is true'.replace('x-kubernetes-', P)));
  if (intOrString && embedded) errs.push(fieldErrors.invalid(child(path, MARK.embeddedResource), true, 'must be false if x-kubernetes-int-or-string is true'.replace('x-kubernetes-', P)));
  if (s['uniqueItems'] === true) errs.push(fieldErrors.forbidden(child(path, 'uniqueItems'), 'uniqueItems cannot be set to true since the runtime complexity becomes quadratic'));

  const skipAnyOf = isIntOrStringAnyOf(s['anyOf']);
  const allOf = Array.isArray(s['allOf']) ? s['allOf'] : [];
  const skipFirstAllOfAnyOf = allOf.length >= 1 && isObj(allOf[0]) && isIntOrStringAnyOf(allOf[0]['anyOf']);
  valueValidation(s, skipAnyOf, skipFirstAllOfAnyOf, lvl, path, errs);

  if (embedded && type !== 'object') {
    if (type === '') errs.push(fieldErrors.required(child(path, 'type'), `must be object if ${MARK.embeddedResource} is true`));
    else errs.push(fieldErrors.invalid(child(path, 'type'), type, `must be object if ${MARK.embeddedResource} is true`));
  } else if (type === '' && !intOrString && preserve !== true) {
    const detail = lvl === 'root' ? 'must not be empty at the root' : lvl === 'item' ? 'must not be empty for specified array items' : 'must not be empty for specified object fields';
    errs.push(fieldErrors.required(child(path, 'type'), detail));
  }
  if (embedded && additional !== undefined) errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), `must not be used if ${MARK.embeddedResource} is set`));
  if (lvl === 'root' && type !== '' && type !== 'object') errs.push(fieldErrors.invalid(child(path, 'type'), type, 'must be object at the root'));

  const checkMetadata = lvl === 'root' || embedded;
  const kind = props?.['kind'];
  if (checkMetadata && isObj(kind) && schemaOf.type(kind) !== 'string') errs.push(fieldErrors.invalid(child(key(child(path, 'properties'), 'kind'), 'type'), schemaOf.type(kind), 'must be string'));
  const apiVersion = props?.['apiVersion'];
  if (checkMetadata && isObj(apiVersion) && schemaOf.type(apiVersion) !== 'string') errs.push(fieldErrors.invalid(child(key(child(path, 'properties'), 'apiVersion'), 'type'), schemaOf.type(apiVersion), 'must be string'));
  const metadata = props?.['metadata'];
  if (checkMetadata && isObj(metadata) && schemaOf.type(metadata) !== 'object') errs.push(fieldErrors.invalid(child(key(child(path, 'properties'), 'metadata'), 'type'), schemaOf.type(metadata), 'must be object'));
  if (lvl === 'root' && isObj(metadata)) {
    // Only name and generateName may be restricted; anything else (but type and a default) is too much.
    const rest = Object.keys(metadata).filter((k) => k !== 'type' && k !== 'default' && k !== 'properties' && k !== 'description');
    const metaProps = Object.keys(schemaOf.properties(metadata) ?? {});
    if (rest.length > 0 || metaProps.some((k) => k !== 'name' && k !== 'generateName')) {
      errs.push(fieldErrors.forbidden(key(child(path, 'properties'), 'metadata'), 'must not specify anything other than name and generateName, but metadata is implicitly specified'));
    }
  }
  if (embedded && preserve !== true && (props === undefined || Object.keys(props).length === 0)) {
    errs.push(fieldErrors.required(child(path, 'properties'), `must not be empty if ${MARK.embeddedResource} is true without ${MARK.preserveUnknownFields}`));
  }
  const listType = s[MARK.listType];
  if (listType !== undefined) {
    if (type !== 'array') errs.push(fieldErrors.invalid(child(path, MARK.listType), listType, 'must only be used on array types'));
    else if (listType !== 'atomic' && listType !== 'set' && listType !== 'map') errs.push(fieldErrors.notSupported(child(path, MARK.listType), listType, ['atomic', 'set', 'map']));
    else if (listType === 'map') listMapChecks(s, path, errs);
    else if (listType === 'set' && items !== undefined && schemaOf.type(items) === 'object') errs.push(fieldErrors.invalid(child(child(path, 'items'), 'type'), 'object', 'must be a scalar type if parent array type is set'));
  }
  if (s[MARK.listMapKeys] !== undefined && listType !== 'map') {
    errs.push(fieldErrors.forbidden(child(path, MARK.listMapKeys), `must be set only if ${MARK.listType} is map`.replace(MARK.listType, `${MARK.listType}`)));
  }
}

function listMapChecks(s: JSONSchemaProps, path: string, errs: FieldError[]): void {
  const keys = s[MARK.listMapKeys];
  const items = schemaOf.items(s);
  if (!Array.isArray(keys) || keys.length === 0) {
    errs.push(fieldErrors.required(child(path, MARK.listMapKeys), `must not be empty if ${MARK.listType} is map`));
    return;
  }
  if (items === undefined || schemaOf.type(items) !== 'object') {
    errs.push(fieldErrors.invalid(child(child(path, 'items'), 'type'), items === undefined ? '' : schemaOf.type(items), 'must be object if parent array\'s x-kubernetes-list-type is map'.replace('x-kubernetes-list-type', MARK.listType)));
    return;
  }
  const props = schemaOf.properties(items) ?? {};
  keys.forEach((k, i) => {
    const p = typeof k === 'string' ? props[k] : undefined;
    if (p === undefined) errs.push(fieldErrors.required(index(child(path, MARK.listMapKeys), i), 'entries must all be names of item properties'));
    else if (!['string', 'integer', 'number', 'boolean'].includes(schemaOf.type(p))) errs.push(fieldErrors.invalid(index(child(path, MARK.listMapKeys), i), k, 'must be a scalar type'));
  });
}

function isIntOrStringAnyOf(v: unknown): boolean {
  if (!Array.isArray(v) || v.length !== 2) return false;
  const [a, b] = v as unknown[];
  return isObj(a) && isObj(b) && Object.keys(a).length === 1 && a['type'] === 'integer' && Object.keys(b).length === 1 && b['type'] === 'string';
}

function valueValidation(s: JSONSchemaProps, skipAnyOf: boolean, skipFirstAllOfAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  for (const j of JUNCTORS) {
    const v = s[j];
    if (j === 'not') {
      if (isObj(v)) nestedValueValidation(v, false, lvl, child(path, 'not'), errs);
      continue;
    }
    if (!Array.isArray(v)) continue;
    if (j === 'anyOf' && skipAnyOf) continue;
    v.forEach((n, i) => {
      if (isObj(n)) nestedValueValidation(n, j === 'allOf' && i === 0 && skipFirstAllOfAnyOf, lvl, index(child(path, j), i), errs);
    });
  }
  const pattern = s['pattern'];
  if (typeof pattern === 'string') {
    const compiled = compilePattern(pattern);
    if (typeof compiled === 'string') errs.push(fieldErrors.invalid(child(path, 'pattern'), pattern, `must be a valid regular expression, but isn't: ${compiled}`));
  }
}

/** Inside a logic junctor: value validations only, no generics or extensions. */
function nestedValueValidation(v: JSONSchemaProps, skipAnyOf: boolean, lvl: Level, path: string, errs: FieldError[]): void {
  valueValidation(v, skipAnyOf, false, lvl, path, errs);
  const items = schemaOf.items(v);
  if (items !== undefined) nestedValueValidation(items, false, lvl, child(path, 'items'), errs);
  for (const [k, p] of Object.entries(schemaOf.properties(v) ?? {})) if (isObj(p)) nestedValueValidation(p, false, 'field', key(child(path, 'properties'), k), errs);
  if (typeof v['type'] === 'string' && v['type'] !== '') errs.push(fieldErrors.forbidden(child(path, 'type'), 'must be empty to be structural'));
  if (v['additionalProperties'] !== undefined) errs.push(fieldErrors.forbidden(child(path, 'additionalProperties'), 'must be undefined to be structural'));
  if (v['default'] !== undefined) errs.push(fieldErrors.forbidden(child(path, 'default'), 'must be undefined to be structural'));
  if (typeof v['title'] === 'string' && v['title'] !== '') errs.push(fieldErrors.forbidden(child(path, 'title'), 'must be empty to be structural'));
  if (typeof v['description'] === 'string' && v['description'] !== '') errs.push(fieldErrors.forbidden(child(path, 'description'), 'must be empty to be structural'));
  if (v['nullable'] === true) errs.push(fieldErrors.forbidden(child(path, 'nullable'), 'must be false to be structural'));
  if (v[MARK.preserveUnknownFields] === true) errs.push(fieldErrors.forbidden(child(path, MARK.preserveUnknownFields), 'must be false to be structural'));
  if (v[MARK.embeddedResource] === true) errs.push(fieldErrors.forbidden(child(path, MARK.embeddedResource), 'must be false to be structural'));
  if (v[MARK.intOrString] === true) errs.push(fieldErrors.forbidden(child(path, MARK.intOrString), 'must be false to be structural'));
  if (Array.isArray(v[MARK.listMapKeys]) && (v[MARK.listMapKeys] as unknown[]).length > 0) errs.push(fieldErrors.forbidden(child(path, MARK.listMapKeys), 'must be empty to be structural'));
  if (v[MARK.listType] !== undefined) errs.push(fieldErrors.forbidden(child(path, MARK.listType), 'must be undefined to be structural'));
  if (schemaOf.properties(v)?.['metadata'] !== undefined) errs.push(fieldErrors.forbidden(key(child(path, 'properties'), 'metadata'), 'must not be specified in a nested context'));
}

// ---------------------------------------------------------------------------
// Validation of custom resources (kube-openapi's validate, with the original's messages).
// ---------------------------------------------------------------------------

/** Go's name for a JSON value's type, as the original's "must be of type" messages print it. */
function jsonTypeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

const FORMATS: Readonly<Record<string, (v: string) => boolean>> = {
  'date-time': (v) => /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/.test(v),
  date: (v) => /^\d{4}-\d{2}-\d{2}$/.test(v),
  byte: (v) => /^[A-Za-z0-9+/]*={0,2}$/.test(v) && v.length % 4 === 0,
  uuid: (v) => /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i.test(v),
  email: (v) => /^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(v),
  ipv4: (v) => /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/.test(v),
  hostname: (v) => v.length <= 253 && /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/i.test(v),
  duration: (v) => /^(\d+(\.\d+)?(ns|us|µs|ms|s|m|h))+$/.test(v) || v === '0',
};

const INT32 = [-2147483648, 2147483647] as const;

/**
 * Patterns are RE2 expressions, as in the original (Go's regexp): matched in
 * linear time whatever the pattern, so a definition cannot make a request
 * backtrack for ever. Compiled once per pattern (bounded cache); a string is
 * the syntax error.
 */
const patterns = new Map<string, RE2JS | string>();
const MAX_PATTERNS = 4096;

export function compilePattern(pattern: string): RE2JS | string {
  let re = patterns.get(pattern);
  if (re === undefined) {
    try {
      re = RE2JS.compile(pattern);
    } catch (err) {
      re = err instanceof Error ? err.message : String(err);
    }
    if (patterns.size >= MAX_PATTERNS) patterns.clear();
    patterns.set(pattern, re);
  }
  return re;
}

/**
 * Validates `value` at `path` against `s`; errors are pushed in the
 * original's wording (`spec.replicas in body must be of type integer: "string"`).
 */
export function validateValue(s: JSONSchemaProps, value: unknown, path: string, errs: FieldError[]): void {
  if (value === null) {
    if (s['nullable'] === true || schemaOf.flag(s, MARK.preserveUnknownFields) && schemaOf.type(s) === '') return;
    const t = schemaOf.type(s);
    if (t !== '') errs.push(fieldErrors.invalid(path, 'null', `${path} in body must be of type ${t}: "null"`));
    return;
  }
  const type = schemaOf.type(s);
  if (schemaOf.flag(s, MARK.intOrString)) {
    if (!(typeof value === 'string' || (typeof value === 'number' && Number.isInteger(value)))) {
      errs.push(fieldErrors.invalid(path, jsonTypeName(value), `${path} in body must be of type integer,string: "${jsonTypeName(value)}"`));
      return;
    }
  } else if (type !== '' && !typeMatches(type, value)) {
    errs.push(fieldErrors.invalid(path, jsonTypeName(value), `${path} in body must be of type ${type}: "${jsonTypeName(value)}"`));
    return;
  }
  const en = s['enum'];
  if (Array.isArray(en) && !en.some((e) => JSON.stringify(e) === JSON.stringify(value))) {
    errs.push(fieldErrors.notSupported(path, value, en.map((e) => (typeof e === 'string' ? e : JSON.stringify(e)))));
  }
  if (typeof value === 'string') stringChecks(s, value, path, errs);
  if (typeof value === 'number') numberChecks(s, value, path, errs);
  if (Array.isArray(value)) {
    if (typeof s['minItems'] === 'number' && value.length < s['minItems']) errs.push(fieldErrors.invalid(path, value.length, `${path} in body should have at least ${s['minItems']} items`));
    if (typeof s['maxItems'] === 'number' && value.length > s['maxItems']) errs.push({ field: path, type: 'FieldValueTooMany', message: `Too many: ${value.length}: must have at most ${s['maxItems']} items` });
    const items = schemaOf.items(s);
    if (items !== undefined) value.forEach((v, i) => validateValue(items, v, `${path}[${i}]`, errs));
    listUniqueness(s, value, path, errs);
  }
  if (isObj(value)) {
    const required = Array.isArray(s['required']) ? (s['required'] as unknown[]) : [];
    for (const r of required) if (typeof r === 'string' && !(r in value)) errs.push(fieldErrors.required(path === '' ? r : `${path}.${r}`, ''));
    const n = Object.keys(value).length;
    if (typeof s['minProperties'] === 'number' && n < s['minProperties']) errs.push(fieldErrors.invalid(path, n, `${path} in body should have at least ${s['minProperties']} properties`));
    if (typeof s['maxProperties'] === 'number' && n > s['maxProperties']) errs.push({ field: path, type: 'FieldValueTooMany', message: `Too many: ${n}: must have at most ${s['maxProperties']} items` });
    const props = schemaOf.properties(s);
    const additional = schemaOf.additional(s);
    for (const [k, v] of Object.entries(value)) {
      const p = props?.[k];
      const at = path === '' ? k : `${path}.${k}`;
      if (p !== undefined) validateValue(p, v, at, errs);
      else if (isObj(additional)) validateValue(additional, v, at, errs);
    }
  }
  for (const j of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = s[j];
    if (!Array.isArray(list)) continue;
    const results = list.filter(isObj).map((sub) => {
      const e: FieldError[] = [];
      validateValue(sub, value, path, e);
      return e;
    });
    if (j === 'allOf') for (const e of results) errs.push(...e);
    else if (j === 'anyOf' && !results.some((e) => e.length === 0) && results.length > 0) errs.push(fieldErrors.invalid(path, value, `${path} in body must match at least one schema in anyOf`));
    else if (j === 'oneOf' && results.filter((e) => e.length === 0).length !== 1 && results.length > 0) errs.push(fieldErrors.invalid(path, value, `${path} in body must match exactly one schema in oneOf`));
  }
  if (isObj(s['not'])) {
    const e: FieldError[] = [];
    validateValue(s['not'], value, path, e);
    if (e.length === 0) errs.push(fieldErrors.invalid(path, value, `${path} in body must not match the schema`));
  }
}

function typeMatches(type: string, v: unknown): boolean {
  switch (type) {
    case 'object':
      return isObj(v);
    case 'array':
      return Array.isArray(v);
    case 'string':
      return typeof v === 'string';
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'number':
      return typeof v === 'number';
    case 'boolean':
      return typeof v === 'boolean';
    default:
      return true;
  }
}

function stringChecks(s: JSONSchemaProps, v: string, path: string, errs: FieldError[]): void {
  const len = [...v].length;
  if (typeof s['minLength'] === 'number' && len < s['minLength']) errs.push(fieldErrors.invalid(path, v, `${path} in body should be at least ${s['minLength']} chars long`));
  if (typeof s['maxLength'] === 'number' && len > s['maxLength']) errs.push({ field: path, type: 'FieldValueTooLong', message: `Too long: may not be longer than ${s['maxLength']}` });
  const pattern = s['pattern'];
  if (typeof pattern === 'string') {
    const re = compilePattern(pattern);
    if (typeof re !== 'string' && !re.matcher(v).find()) errs.push(fieldErrors.invalid(path, v, `${path} in body should match '${pattern}'`));
  }
  const format = typeof s['format'] === 'string' ? s['format'] : '';
  const check = FORMATS[format];
  if (check !== undefined && !check(v)) errs.push(fieldErrors.invalid(path, v, `${path} in body must be of type ${format}: ${JSON.stringify(v)}`));
}

function numberChecks(s: JSONSchemaProps, v: number, path: string, errs: FieldError[]): void {
  const min = s['minimum'];
  if (typeof min === 'number') {
    if (s['exclusiveMinimum'] === true ? v <= min : v < min) errs.push(fieldErrors.invalid(path, v, `${path} in body should be greater than ${s['exclusiveMinimum'] === true ? '' : 'or equal to '}${min}`));
  }
  const max = s['maximum'];
  if (typeof max === 'number') {
    if (s['exclusiveMaximum'] === true ? v >= max : v > max) errs.push(fieldErrors.invalid(path, v, `${path} in body should be less than ${s['exclusiveMaximum'] === true ? '' : 'or equal to '}${max}`));
  }
  const mult = s['multipleOf'];
  if (typeof mult === 'number' && mult > 0 && Math.abs(v / mult - Math.round(v / mult)) > 1e-9) errs.push(fieldErrors.invalid(path, v, `${path} in body should be a multiple of ${mult}`));
  if (s['format'] === 'int32' && (v < INT32[0] || v > INT32[1])) errs.push(fieldErrors.invalid(path, v, `${path} in body must be of type int32: "${v}"`));
}

/** set: items unique; map: items unique by their keys (the original's list-type validation). */
function listUniqueness(s: JSONSchemaProps, list: unknown[], path: string, errs: FieldError[]): void {
  const t = s[MARK.listType];
  if (t === 'set') {
    const seen = new Set<string>();
    list.forEach((v, i) => {
      const k = JSON.stringify(v);
      if (seen.has(k)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, v));
      seen.add(k);
    });
  } else if (t === 'map') {
    const keys = Array.isArray(s[MARK.listMapKeys]) ? (s[MARK.listMapKeys] as string[]) : [];
    const seen = new Set<string>();
    list.forEach((v, i) => {
      if (!isObj(v)) return;
      const k = JSON.stringify(keys.map((name) => v[name] ?? null));
      if (seen.has(k)) errs.push(fieldErrors.duplicate(`${path}[${i}]`, Object.fromEntries(keys.map((name) => [name, v[name]]))));
      seen.add(k);
    });
  }
}

// ---------------------------------------------------------------------------
// Pruning and defaulting (structural/pruning and structural/defaulting).
// ---------------------------------------------------------------------------

/**
 * Removes, in place, every field `s` does not declare (unless it preserves
 * unknown fields there); returns their paths. At the root (and in embedded
 * resources) apiVersion, kind and metadata are always kept.
 */
export function prune(value: unknown, s: JSONSchemaProps | undefined, isRoot: boolean, path: string, pruned: string[]): void {
  if (s === undefined) return;
  if (Array.isArray(value)) {
    const items = schemaOf.items(s);
    if (items !== undefined) value.forEach((v, i) => prune(v, items, false, `${path}[${i}]`, pruned));
    return;
  }
  if (!isObj(value)) return;
  const preserve = schemaOf.flag(s, MARK.preserveUnknownFields);
  const embedded = schemaOf.flag(s, MARK.embeddedResource);
  const props = schemaOf.properties(s);
  const additional = schemaOf.additional(s);
  for (const k of Object.keys(value)) {
    const at = path === '' ? k : `${path}.${k}`;
    if ((isRoot || embedded) && (k === 'apiVersion' || k === 'kind' || k === 'metadata')) {
      if (k === 'metadata' && embedded && isObj(value[k])) pruneEmbeddedMetadata(value[k] as Record<string, unknown>);
      continue;
    }
    const p = props?.[k];
    if (p !== undefined) prune(value[k], p, false, at, pruned);
    else if (isObj(additional)) prune(value[k], additional, false, at, pruned);
    else if (additional === true || preserve) continue;
    else {
      pruned.push(at);
      delete value[k];
    }
  }
}

const OBJECT_META_FIELDS = new Set([
  'name', 'generateName', 'namespace', 'selfLink', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'deletionTimestamp',
  'deletionGracePeriodSeconds', 'labels', 'annotations', 'ownerReferences', 'finalizers', 'managedFields',
]);

/** An embedded object's metadata keeps only ObjectMeta's fields. */
function pruneEmbeddedMetadata(meta: Record<string, unknown>): void {
  for (const k of Object.keys(meta)) if (!OBJECT_META_FIELDS.has(k)) delete meta[k];
}

/** Whether any schema node below `s` has a default (custom resources without one skip defaulting on read). */
export function hasDefaults(s: JSONSchemaProps | undefined): boolean {
  if (s === undefined) return false;
  if (s['default'] !== undefined) return true;
  for (const p of Object.values(schemaOf.properties(s) ?? {})) if (isObj(p) && hasDefaults(p)) return true;
  const items = schemaOf.items(s);
  if (items !== undefined && hasDefaults(items)) return true;
  const additional = schemaOf.additional(s);
  return isObj(additional) && hasDefaults(additional);
}

/**
 * Applies `default` values in place: a missing property with a default gets
 * a copy of it (then defaulted further), as the original's structural
 * defaulting does; nulls are defaulted only where the field is not nullable.
 */
export function applyDefaults(value: unknown, s: JSONSchemaProps | undefined): void {
  if (s === undefined) return;
  if (Array.isArray(value)) {
    const items = schemaOf.items(s);
    if (items !== undefined) value.forEach((v) => applyDefaults(v, items));
    return;
  }
  if (!isObj(value)) return;
  const props = schemaOf.properties(s);
  for (const [k, p] of Object.entries(props ?? {})) {
    if (!isObj(p)) continue;
    const d = p['default'];
    if (d !== undefined && (!(k in value) || (value[k] === null && p['nullable'] !== true))) value[k] = structuredClone(d);
    if (k in value) applyDefaults(value[k], p);
  }
  const additional = schemaOf.additional(s);
  if (isObj(additional)) {
    for (const k of Object.keys(value)) if (props?.[k] === undefined) applyDefaults(value[k], additional);
  }
}
