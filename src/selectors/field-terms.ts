/**
 * The lexical side of field selectors, ported from k8s.io/apimachinery
 * pkg/fields/selector.go: splitting on unescaped commas, splitting a term at
 * its operator, and the value escaping. Only `\\`, `\,` and `\=` are escapes;
 * an unescaped `=` in a value is an error (so is an unescaped `,`, which the
 * term split already consumed). `!` needs no escape.
 */
import { SelectorError } from './errors.ts';

const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const EQUALS = 0x3d;
const BANG = 0x21;

/** Terms split on unescaped commas; escapes stay in place. `""` has no terms. */
export function splitTerms(selector: string): string[] {
  if (selector.length === 0) return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < selector.length; i++) {
    const c = selector.charCodeAt(i);
    if (inSlash) inSlash = false;
    else if (c === BACKSLASH) inSlash = true;
    else if (c === COMMA) {
      terms.push(selector.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(selector.slice(start));
  return terms;
}

export interface Term {
  readonly lhs: string;
  readonly op: '=' | '==' | '!=';
  /** Still escaped. */
  readonly rhs: string;
}

/**
 * Split at the first operator. The field name has no escaping, so the first
 * `!=`, `==` or `=` wins, checked in that order at each position.
 */
export function splitTerm(term: string): Term | undefined {
  for (let i = 0; i < term.length; i++) {
    const c = term.charCodeAt(i);
    if (c === BANG && term.charCodeAt(i + 1) === EQUALS) {
      return { lhs: term.slice(0, i), op: '!=', rhs: term.slice(i + 2) };
    }
    if (c === EQUALS) {
      return term.charCodeAt(i + 1) === EQUALS
        ? { lhs: term.slice(0, i), op: '==', rhs: term.slice(i + 2) }
        : { lhs: term.slice(0, i), op: '=', rhs: term.slice(i + 1) };
    }
  }
  return undefined;
}

/** fields.EscapeValue: prefix `\`, `,` and `=` with a backslash. */
export function escapeFieldValue(value: string): string {
  let out = '';
  let from = 0;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === BACKSLASH || c === COMMA || c === EQUALS) {
      out += value.slice(from, i) + '\\';
      from = i;
    }
  }
  return out + value.slice(from);
}

/** fields.UnescapeValue; throws SelectorError with Kubernetes' message. */
export function unescapeFieldValue(value: string): string {
  if (!/[\\,=]/.test(value)) return value;
  let out = '';
  let inSlash = false;
  for (const ch of value) {
    if (inSlash) {
      if (ch !== '\\' && ch !== ',' && ch !== '=') {
        throw new SelectorError('field', `invalid field selector: invalid escape sequence: \\${ch}`);
      }
      out += ch;
      inSlash = false;
    } else if (ch === '\\') {
      inSlash = true;
    } else if (ch === ',' || ch === '=') {
      // Go prints the rune with %v, i.e. as its code point number.
      throw new SelectorError('field', `invalid field selector: unescaped character in value: ${ch.codePointAt(0)}`);
    } else {
      out += ch;
    }
  }
  if (inSlash) throw new SelectorError('field', 'invalid field selector: invalid escape sequence: \\');
  return out;
}
