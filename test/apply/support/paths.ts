/**
 * Field paths written the way the original prints them
 * (`.list[name="a"].value[="d"]`, `.foo[0]`, `.ports[containerPort=80,protocol="TCP"]`),
 * read back into path elements, so test tables can state expected field
 * sets as the original's tests do with _P/_KBF/_V, in one readable line.
 */
import { FieldSet } from '../../../src/apply/field-set.ts';
import { fieldElement, indexElement, keyElement, valueElement, type KeyField, type Path, type PathElement } from '../../../src/apply/path.ts';
import type { Json } from '../../../src/apply/value.ts';

export function parsePath(s: string): Path {
  const out: PathElement[] = [];
  let i = 0;
  while (i < s.length) {
    if (s[i] === '.') {
      let j = i + 1;
      while (j < s.length && s[j] !== '.' && s[j] !== '[') j++;
      out.push(fieldElement(s.slice(i + 1, j)));
      i = j;
    } else if (s[i] === '[') {
      i++;
      if (s[i] === '=') {
        const [v, next] = readValue(s, i + 1);
        out.push(valueElement(v));
        i = expect(s, next, ']');
      } else if (/\d/.test(s[i]!)) {
        let j = i;
        while (/\d/.test(s[j]!)) j++;
        out.push(indexElement(Number(s.slice(i, j))));
        i = expect(s, j, ']');
      } else {
        const fields: KeyField[] = [];
        for (;;) {
          const eq = s.indexOf('=', i);
          const name = s.slice(i, eq);
          const [value, next] = readValue(s, eq + 1);
          fields.push({ name, value });
          if (s[next] === ',') i = next + 1;
          else {
            i = expect(s, next, ']');
            break;
          }
        }
        out.push(keyElement(fields));
      }
    } else throw new Error(`bad path ${s} at ${i}`);
  }
  return out;
}

function expect(s: string, i: number, c: string): number {
  if (s[i] !== c) throw new Error(`bad path ${s}: expected ${c} at ${i}`);
  return i + 1;
}

function readValue(s: string, i: number): [Json, number] {
  if (s[i] === '"') {
    let j = i + 1;
    while (s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
    return [JSON.parse(s.slice(i, j + 1)) as Json, j + 1];
  }
  let j = i;
  while (j < s.length && s[j] !== ',' && s[j] !== ']') j++;
  return [JSON.parse(s.slice(i, j)) as Json, j];
}

/** A field set from printed paths. */
export function setOf(...paths: string[]): FieldSet {
  return FieldSet.of(...paths.map(parsePath));
}
