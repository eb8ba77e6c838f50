/**
 * Checks a value against its schema, as the original does before it merges
 * an applied configuration: scalars of the declared kind, no undeclared
 * struct fields, list items that have keys, no duplicated keys. Messages and
 * paths follow the original's ValidationErrors.
 */
import { elementString, fieldElement, indexElement, pathString, type PathElement } from './path.ts';
import type { ListSchema, MapSchema, ScalarKind, SchemaType } from './schema.ts';
import { ItemError, itemElement, partOf, tryItemElement } from './typed.ts';
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
  check(v, t, [], opts.allowDuplicates === true, errs);
  return errs;
}

/** Paths are kept as elements and printed only for errors: valid objects are the common case. */
type At = PathElement[];

function err(errs: ValidationError[], at: At, message: string): void {
  errs.push({ path: pathString(at), message });
}

/** The original's rendering: one error as `path: message`, several under `errors:`. */
export function validationMessage(errs: readonly ValidationError[]): string {
  const one = (e: ValidationError): string => (e.path === '' ? e.message : `${e.path}: ${e.message}`);
  if (errs.length === 1) return one(errs[0]!);
  return ['errors:', ...errs.map((e) => '  ' + one(e))].join('\n');
}

function check(v: Json, t: SchemaType, at: At, dups: boolean, errs: ValidationError[]): void {
  switch (partOf(t, v)) {
    case 'scalar':
      checkScalar(t.scalar!, v, at, errs);
      return;
    case 'list':
      if (v === null) return;
      if (!isList(v)) err(errs, at, `expected list, got ${goPointerV(v)}`);
      else checkList(t.list!, v, at, dups, errs);
      return;
    case 'map':
      if (v === null) return;
      if (!isMap(v)) err(errs, at, `expected map, got ${goPointerV(v)}`);
      else checkMap(t.map!, v, at, dups, errs);
      return;
    default:
      err(errs, at, 'schema error: invalid atom: inlined');
  }
}

function checkScalar(kind: ScalarKind, v: Json, at: At, errs: ValidationError[]): void {
  if (v === null) return;
  switch (kind) {
    case 'numeric':
      if (typeof v !== 'number') err(errs, at, `expected numeric (int or float), got ${goTypeName(v)}`);
      return;
    case 'string':
      if (typeof v !== 'string') err(errs, at, `expected string, got &value.valueUnstructured{Value:${goSharpV(v)}}`);
      return;
    case 'boolean':
      if (typeof v !== 'boolean') err(errs, at, `expected boolean, got ${goPointerV(v)}`);
      return;
    default:
      if (typeof v === 'object') err(errs, at, `expected any scalar, got ${goPointerV(v)}`);
  }
}

function checkList(list: ListSchema, items: JsonList, at: At, dups: boolean, errs: ValidationError[]): void {
  const seen = list.atomic ? undefined : new Set<string>();
  for (let i = 0; i < items.length; i++) {
    let pe: PathElement;
    if (seen === undefined) pe = indexElement(i);
    else {
      const item = tryItemElement(list, items[i]!);
      if (item === undefined) {
        try {
          itemElement(list, items[i]!);
        } catch (e) {
          if (!(e instanceof ItemError)) throw e;
          err(errs, at, `element ${i}: ${e.message}`);
          return;
        }
      }
      pe = item!;
      if (seen.has(pe.id) && !dups) err(errs, at, `duplicate entries for key ${elementString(pe)}`);
      seen.add(pe.id);
    }
    at.push(pe);
    check(items[i]!, list.element, at, dups, errs);
    at.pop();
  }
}

function checkMap(map: MapSchema, m: JsonMap, at: At, dups: boolean, errs: ValidationError[]): void {
  for (const key of Object.keys(m)) {
    at.push(fieldElement(key));
    const t = map.field(key) ?? map.element;
    if (t === undefined) {
      err(errs, at, 'field not declared in schema');
      at.pop();
      return;
    }
    check(m[key]!, t, at, dups, errs);
    at.pop();
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
