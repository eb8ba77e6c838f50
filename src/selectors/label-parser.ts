/**
 * The label selector grammar, a port of the lexer and recursive-descent parser
 * in k8s.io/apimachinery pkg/labels/selector.go. It is kept structurally
 * close to the Go code on purpose: which inputs are accepted, and which error
 * is reported first, falls out of that structure (e.g. `in` is a keyword only
 * where an operator may stand, `x in (a,,)` holds the empty value, a NUL byte
 * ends the input).
 *
 *   <selector>    ::= <requirement> | <requirement> "," <selector>
 *   <requirement> ::= [!] KEY [ <set-based> | <exact-match> ]
 *   <set-based>   ::= ("in" | "notin") "(" VALUE { "," VALUE } ")"
 *   <exact-match> ::= ("=" | "==" | "!=" | ">" | "<") VALUE
 */
import { SelectorError } from './errors.ts';
import { compareGo } from './go-format.ts';
import {
  labelKeyError,
  requirementError,
  type LabelOperator,
  type LabelRequirement,
} from './label-requirement.ts';

// Token kinds (numbers rather than a const enum: tsx compiles files in isolation).
const ERROR = 0;
const EOS = 1;
const CLOSE_PAR = 2;
const COMMA = 3;
const NOT = 4;
const DOUBLE_EQUALS = 5;
const EQUALS = 6;
const GREATER = 7;
const IDENT = 8;
const IN = 9;
const LESS = 10;
const NOT_EQUALS = 11;
const NOT_IN = 12;
const OPEN_PAR = 13;
type Token = number;

const literalTokens: ReadonlyMap<string, Token> = new Map([
  [')', CLOSE_PAR],
  [',', COMMA],
  ['!', NOT],
  ['==', DOUBLE_EQUALS],
  ['=', EQUALS],
  ['>', GREATER],
  ['in', IN],
  ['<', LESS],
  ['!=', NOT_EQUALS],
  ['notin', NOT_IN],
  ['(', OPEN_PAR],
]);

/** Kubernetes lists the binary operators by their selection.Operator names. */
const binaryOperators = 'in, notin, =, ==, !=, gt, lt';

interface Item {
  readonly tok: Token;
  readonly lit: string;
}

function isWhitespace(ch: number): boolean {
  return ch === 0x20 || ch === 0x09 || ch === 0x0d || ch === 0x0a;
}

function isSpecial(ch: number): boolean {
  switch (ch) {
    case 0x3d /* = */:
    case 0x21 /* ! */:
    case 0x28 /* ( */:
    case 0x29 /* ) */:
    case 0x2c /* , */:
    case 0x3e /* > */:
    case 0x3c /* < */:
      return true;
  }
  return false;
}

class Lexer {
  private pos = 0;
  constructor(private readonly s: string) {}

  /** Go's lexer reads bytes and uses 0 for "end"; an actual NUL reads the same way. */
  private read(): number {
    return this.pos < this.s.length ? this.s.charCodeAt(this.pos++) : 0;
  }

  private unread(): void {
    this.pos--;
  }

  lex(): Item {
    let ch = this.read();
    while (isWhitespace(ch)) ch = this.read();
    if (ch === 0) return { tok: EOS, lit: '' };
    this.unread();
    return isSpecial(ch) ? this.scanSpecialSymbol() : this.scanIdOrKeyword();
  }

  private scanIdOrKeyword(): Item {
    const start = this.pos;
    let end = start;
    for (;;) {
      const ch = this.read();
      if (ch === 0) break;
      if (isSpecial(ch) || isWhitespace(ch)) {
        this.unread();
        break;
      }
      end = this.pos;
    }
    const lit = this.s.slice(start, end);
    return { tok: literalTokens.get(lit) ?? IDENT, lit };
  }

  /** Longest run of special characters that is still a token: `!=` over `!`. */
  private scanSpecialSymbol(): Item {
    let buffer = '';
    let last: Item | undefined;
    for (;;) {
      const ch = this.read();
      if (ch === 0) break;
      if (!isSpecial(ch)) {
        this.unread();
        break;
      }
      buffer += String.fromCharCode(ch);
      const tok = literalTokens.get(buffer);
      if (tok !== undefined) {
        last = { tok, lit: buffer };
      } else if (last !== undefined) {
        this.unread();
        break;
      }
    }
    return last ?? { tok: ERROR, lit: `error expected: keyword found '${buffer}'` };
  }
}

/** Where a token is read: after an operator, `in` / `notin` are plain values. */
const KEY_AND_OPERATOR = 0;
const VALUES = 1;
type Context = number;

function fail(message: string): never {
  throw new SelectorError('label', message);
}

class Parser {
  private readonly items: Item[] = [];
  private position = 0;

  constructor(text: string) {
    const lexer = new Lexer(text);
    for (;;) {
      const item = lexer.lex();
      this.items.push(item);
      if (item.tok === EOS) break;
    }
  }

  private lookahead(ctx: Context): Item {
    return this.relabel(this.items[Math.min(this.position, this.items.length - 1)]!, ctx);
  }

  private consume(ctx: Context): Item {
    const item = this.lookahead(ctx);
    this.position++;
    return item;
  }

  private relabel(item: Item, ctx: Context): Item {
    if (ctx === VALUES && (item.tok === IN || item.tok === NOT_IN)) return { tok: IDENT, lit: item.lit };
    return item;
  }

  parse(): LabelRequirement[] {
    const requirements: LabelRequirement[] = [];
    for (;;) {
      const { tok, lit } = this.lookahead(VALUES);
      if (tok === EOS) return requirements;
      if (tok !== IDENT && tok !== NOT) fail(`found '${lit}', expected: !, identifier, or 'end of string'`);
      requirements.push(this.parseRequirement());
      const next = this.consume(VALUES);
      if (next.tok === EOS) return requirements;
      if (next.tok !== COMMA) fail(`found '${next.lit}', expected: ',' or 'end of string'`);
      const after = this.lookahead(VALUES);
      if (after.tok !== IDENT && after.tok !== NOT) fail(`found '${after.lit}', expected: identifier after ','`);
    }
  }

  private parseRequirement(): LabelRequirement {
    try {
      const { key, operator: unary } = this.parseKeyAndInferOperator();
      if (unary !== undefined) return build(key, unary, []);
      const operator = this.parseOperator();
      const values = operator === 'in' || operator === 'notin' ? this.parseValues() : this.parseExactValue();
      return build(key, operator, [...values].sort(compareGo));
    } catch (err) {
      if (err instanceof SelectorError) fail('unable to parse requirement: ' + err.message);
      throw err;
    }
  }

  /** A key alone means exists; `!key` means does-not-exist. */
  private parseKeyAndInferOperator(): { key: string; operator: 'exists' | '!' | undefined } {
    let operator: 'exists' | '!' | undefined;
    let item = this.consume(VALUES);
    if (item.tok === NOT) {
      operator = '!';
      item = this.consume(VALUES);
    }
    if (item.tok !== IDENT) fail(`found '${item.lit}', expected: identifier`);
    // Kubernetes checks the key here with a nil field path, hence "<nil>".
    const keyErr = labelKeyError(item.lit, '<nil>');
    if (keyErr !== undefined) fail(keyErr);
    const next = this.lookahead(VALUES).tok;
    if ((next === EOS || next === COMMA) && operator === undefined) operator = 'exists';
    return { key: item.lit, operator };
  }

  private parseOperator(): LabelOperator {
    const { tok, lit } = this.consume(KEY_AND_OPERATOR);
    switch (tok) {
      case IN: return 'in';
      case EQUALS: return '=';
      case DOUBLE_EQUALS: return '==';
      case GREATER: return 'gt';
      case LESS: return 'lt';
      case NOT_IN: return 'notin';
      case NOT_EQUALS: return '!=';
    }
    return fail(`found '${lit}', expected: ${binaryOperators}`);
  }

  /** `( ... )`; `()` is the set holding the empty value. */
  private parseValues(): Set<string> {
    const open = this.consume(VALUES);
    if (open.tok !== OPEN_PAR) fail(`found '${open.lit}' expected: '('`);
    const first = this.lookahead(VALUES);
    if (first.tok === CLOSE_PAR) {
      this.consume(VALUES);
      return new Set(['']);
    }
    if (first.tok !== IDENT && first.tok !== COMMA) {
      fail(`found '${first.lit}', expected: ',', ')' or identifier`);
    }
    const values = this.parseIdentifiersList();
    // parseIdentifiersList only returns with ')' next, as in Kubernetes.
    if (this.consume(VALUES).tok !== CLOSE_PAR) fail(`found '${first.lit}', expected: ')'`);
    return values;
  }

  /** Comma-separated values, any of them possibly empty: `(a,,b)`, `(,a)`, `(a,)`. */
  private parseIdentifiersList(): Set<string> {
    const values = new Set<string>();
    for (;;) {
      const { tok, lit } = this.consume(VALUES);
      if (tok === IDENT) {
        values.add(lit);
        const next = this.lookahead(VALUES);
        if (next.tok === COMMA) continue;
        if (next.tok === CLOSE_PAR) return values;
        fail(`found '${next.lit}', expected: ',' or ')'`);
      }
      if (tok !== COMMA) fail(`found '${lit}', expected: ',', or identifier`);
      if (values.size === 0) values.add(''); // "(,"
      const next = this.lookahead(VALUES).tok;
      if (next === CLOSE_PAR) {
        values.add(''); // ",)"
        return values;
      }
      if (next === COMMA) values.add(''); // ",,"
    }
  }

  /** The value after `=`, `==`, `!=`, `>`, `<`; nothing before `,` or the end is "". */
  private parseExactValue(): Set<string> {
    const next = this.lookahead(VALUES).tok;
    if (next === EOS || next === COMMA) return new Set(['']);
    const { tok, lit } = this.consume(VALUES);
    if (tok !== IDENT) fail(`found '${lit}', expected: identifier`);
    return new Set([lit]);
  }
}

function build(key: string, operator: LabelOperator, values: readonly string[]): LabelRequirement {
  const err = requirementError(key, operator, values);
  if (err !== undefined) fail(err);
  return { key, operator, values };
}

/** Requirements in source order; throws SelectorError with Kubernetes' message. */
export function parseLabelRequirements(text: string): LabelRequirement[] {
  return new Parser(text).parse();
}
