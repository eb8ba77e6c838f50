/**
 * Checks a value against its schema, as the original does before it merges
 * an applied configuration: scalars of the declared kind, no undeclared
 * struct fields, list items that have keys, no duplicated keys. Messages and
 * paths follow the original's ValidationErrors.
 */
import { elementString, indexElement, type PathElement } from './path.ts';
import type { ListSchema, MapSchema, ScalarKind, SchemaType } from './schema.ts';
import { ItemError, itemElement, partOf } from './typed.ts';
import { fieldElement } from './path.ts';
import { compareStrings, goFloat, isList, isMap, type Json, type JsonList, type JsonMap } from './value.ts';

export interface ValidationError {
  /** Where: `.spec.containers[name="a"].ports`; empty for the root. */
  readonly path: string;
  readonly message: string;
}

export interface ValidateOptions {
  /** Live objects may hold duplicated list keys; configurations may not. */
  readonly allowDuplicates?: boolean;
}

export function validate(v: Json, t: SchemaType, opts: ValidateOptions = {}): ValidationError[] {
  const errs: ValidationError[] = [];
  check(v, t, '', opts.allowDuplicates === true, errs);
  return errs;
}

/** The original's rendering: one error as `path: message`, several under `errors:`. */
export function validationMessage(errs: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path === '' ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0]!);
  return ['errors:', ...errs.map((e) => '  ' + one(e))].join('\n');
}

function check(v: Json, t: SchemaType, path: string, dups: boolean, errs: ValidationError[]): void {
  switch (partOf(t, v)) {
    case 'scalar':
      checkScalar(t.scalar!, v, path, errs);
      return;
    case 'list':
      if (v === null) return;
      if (!isList(v)) errs.push({ path, message: `expected list, got ${goPointerV(v)}` });
      else checkList(t.list!, v, path, dups, errs);
      return;
    case 'map':
      if (v === null) return;
      if (!isMap(v)) errs.push({ path, message: `expected map, got ${goPointerV(v)}` });
      else checkMap(t.map!, v, path, dups, errs);
      return;
    default:
      errs.push({ path, message: 'schema error: invalid atom: inlined' });
  }
}

function checkScalar(kind: ScalarKind, v: Json, path: string, errs: ValidationError[]): void {
  if (v === null) return;
  switch (kind) {
    case 'numeric':
      if (typeof v !== 'number') errs.push({ path, message: `expected numeric (int or float), got ${goTypeName(v)}` });
      return;
    case 'string':
      if (typeof v !== 'string') errs.push({ path, message: `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}` });
      return;
    case 'boolean':
      if (typeof v !== 'boolean') errs.push({ path, message: `expected boolean, got ${goPointerV(v)}` });
      return;
    default:
      if (typeof v === 'object') errs.push({ path, message: `expected any scalar, got ${goPointerV(v)}` });
  }
}

function checkList(list: ListSchema, items: JsonList, path: string, dups: boolean, errs: ValidationError[]): void {
  const seen = new Set<string>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    if (list.atomic) pe = indexElement(i);
    else {
      try {
        pe = itemElement(list, items[i]!);
      } catch (err) {
        if (!(err instanceof ItemError)) throw err;
        errs.push({ path, message: `element ${i}: ${err.message}` });
        return;
      }
      if (seen.has(pe.id) && !dups) errs.push({ path, message: `duplicate entries for key ${elementString(pe)}` });
      seen.add(pe.id);
    }
    check(items[i]!, list.element, path + elementString(pe), dups, errs);
  }
}

function checkMap(map: MapSchema, m: JsonMap, path: string, dups: boolean, errs: ValidationError[]): void {
  for (const key of Object.keys(m)) {
    const childPath = path + elementString(fieldElement(key));
    const t = map.field(key) ?? map.element;
    if (t === undefined) {
      errs.push({ path: childPath, message: 'field not declared in schema' });
      return;
    }
    check(m[key]!, t, childPath, dups, errs);
  }
}

/** reflect's type name of a decoded JSON value (`%T`). */
function goTypeName(v: Json): string {
  if (typeof v === 'number') return Number.isInteger(v) ? 'int64' : 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (typeof v === 'string') return 'string';
  if (isList(v)) return '[]interface {}';
  return 'map[string]interface {}';
}

/** `%v` of a decoded value. */
function goV(v: Json): string {
  if (v === null) return '<nil>';
  if (typeof v === 'number') return goFloat(v);
  if (typeof v !== 'object') return String(v);
  if (isList(v)) return `[${v.map(goV).join(' ')}]`;
  return `map[${Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${k}:${goV((v as JsonMap)[k]!)}`)
    .join(' ')}]`;
}

/** `%v` of the original's value wrapper: `&{...}`. */
function goPointerV(v: Json): string {
  return `&{${goV(v)}}`;
}

/** `%#v` of a decoded value, as far as these messages need it. */
function goSharpV(v: Json): string {
  if (typeof v === 'number') return goFloat(v);
  if (typeof v === 'boolean') return String(v);
  if (typeof v === 'string' || v === null) return JSON.stringify(v);
  if (isList(v)) return `[]interface {}{${v.map(goSharpV).join(', ')}}`;
  return `map[string]interface {}{${Object.keys(v)
    .sort(compareStrings)
    .map((k) => `${JSON.stringify(k)}:${goSharpV((v as JsonMap)[k]!)}`)
    .join(', ')}}`;
}
