/**
 * Tokens of upstream's SelectorParser.jj (4.9.8), matched the JavaCC way: longest match wins, a
 * keyword beats an identifier of the same length, and tokens are read only as the parser asks for
 * them (so text after a complete expression is never looked at, as upstream).
 *
 * - skipped: space, \t, \n, \r, \f; `-- ...` up to and including a line break (without a line break
 *   it is not a comment but two minus signs); `/* ... *\/`.
 * - keywords, any case: NOT AND OR BETWEEN IN TRUE FALSE NULL IS.
 * - identifiers: [A-Za-z_$][A-Za-z0-9_$]* (ASCII only).
 * - DECIMAL: `0` or [1-9][0-9]* with an optional l/L; FLOAT: `1.`, `1.5`, `.5`, `1e5`, `1.5E-3`...;
 *   no hex or octal (upstream removed them), no sign (a minus is an operator).
 * - STRING: '...' with '' for a quote.
 * - operators: = <> > >= < <= ( , ) + -
 */

import { SqlParseError } from '../errors.js';

export const TokenKind = {
  EOF: 0,
  NOT: 1,
  AND: 2,
  OR: 3,
  BETWEEN: 4,
  IN: 5,
  TRUE: 6,
  FALSE: 7,
  NULL: 8,
  IS: 9,
  DECIMAL: 10,
  FLOAT: 11,
  STRING: 12,
  ID: 13,
  EQ: 14,
  NE: 15,
  GT: 16,
  GE: 17,
  LT: 18,
  LE: 19,
  LPAREN: 20,
  COMMA: 21,
  RPAREN: 22,
  PLUS: 23,
  MINUS: 24,
} as const;

export type TokenKind = (typeof TokenKind)[keyof typeof TokenKind];

/** How a token kind is named in error messages. */
export const TOKEN_NAMES: Readonly<Record<TokenKind, string>> = {
  [TokenKind.EOF]: 'end of expression',
  [TokenKind.NOT]: 'NOT',
  [TokenKind.AND]: 'AND',
  [TokenKind.OR]: 'OR',
  [TokenKind.BETWEEN]: 'BETWEEN',
  [TokenKind.IN]: 'IN',
  [TokenKind.TRUE]: 'TRUE',
  [TokenKind.FALSE]: 'FALSE',
  [TokenKind.NULL]: 'NULL',
  [TokenKind.IS]: 'IS',
  [TokenKind.DECIMAL]: 'an integer literal',
  [TokenKind.FLOAT]: 'a decimal literal',
  [TokenKind.STRING]: 'a string literal',
  [TokenKind.ID]: 'a property name',
  [TokenKind.EQ]: '"="',
  [TokenKind.NE]: '"<>"',
  [TokenKind.GT]: '">"',
  [TokenKind.GE]: '">="',
  [TokenKind.LT]: '"<"',
  [TokenKind.LE]: '"<="',
  [TokenKind.LPAREN]: '"("',
  [TokenKind.COMMA]: '","',
  [TokenKind.RPAREN]: '")"',
  [TokenKind.PLUS]: '"+"',
  [TokenKind.MINUS]: '"-"',
};

const KEYWORDS: ReadonlyMap<string, TokenKind> = new Map<string, TokenKind>([
  ['NOT', TokenKind.NOT],
  ['AND', TokenKind.AND],
  ['OR', TokenKind.OR],
  ['BETWEEN', TokenKind.BETWEEN],
  ['IN', TokenKind.IN],
  ['TRUE', TokenKind.TRUE],
  ['FALSE', TokenKind.FALSE],
  ['NULL', TokenKind.NULL],
  ['IS', TokenKind.IS],
]);

export interface Token {
  readonly kind: TokenKind;
  /** Offsets of the token's text: [start, end). */
  readonly start: number;
  readonly end: number;
  /** Identifier as written, decoded string literal, or number image (without an l/L suffix). */
  readonly text: string;
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isIdStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x24;
}

function isIdPart(c: number): boolean {
  return isIdStart(c) || isDigit(c);
}

/** Index after an exponent `[eE][+-]?[0-9]+` at `i`, or -1 when there is none. */
function exponentEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c !== 0x65 && c !== 0x45) return -1;
  let j = i + 1;
  const sign = s.charCodeAt(j);
  if (sign === 0x2b || sign === 0x2d) j++;
  if (!isDigit(s.charCodeAt(j))) return -1;
  while (isDigit(s.charCodeAt(j))) j++;
  return j;
}

export class Lexer {
  private pos = 0;
  /**
   * Where a `--` was last found with no line break after it (-1: none yet). Any later `--` has none
   * either; remembering it keeps a run of minus signs from rescanning the rest of the text at each.
   */
  private unendedCommentAt = -1;

  constructor(private readonly s: string) {}

  /** The next token; throws SqlParseError (lexical) at a character no token can start with. */
  next(): Token {
    const s = this.s;
    this.skipIgnored();
    const start = this.pos;
    if (start >= s.length) return { kind: TokenKind.EOF, start, end: start, text: '' };
    const c = s.charCodeAt(start);
    if (isIdStart(c)) {
      let end = start + 1;
      while (end < s.length && isIdPart(s.charCodeAt(end))) end++;
      const text = s.slice(start, end);
      this.pos = end;
      return { kind: KEYWORDS.get(text.toUpperCase()) ?? TokenKind.ID, start, end, text };
    }
    if (isDigit(c) || c === 0x2e) return this.number(start);
    if (c === 0x27) return this.string(start);
    let kind: TokenKind;
    let end = start + 1;
    const n = s.charCodeAt(start + 1);
    switch (c) {
      case 0x3d:
        kind = TokenKind.EQ;
        break;
      case 0x3c:
        if (n === 0x3e) {
          kind = TokenKind.NE;
          end++;
        } else if (n === 0x3d) {
          kind = TokenKind.LE;
          end++;
        } else {
          kind = TokenKind.LT;
        }
        break;
      case 0x3e:
        if (n === 0x3d) {
          kind = TokenKind.GE;
          end++;
        } else {
          kind = TokenKind.GT;
        }
        break;
      case 0x28:
        kind = TokenKind.LPAREN;
        break;
      case 0x2c:
        kind = TokenKind.COMMA;
        break;
      case 0x29:
        kind = TokenKind.RPAREN;
        break;
      case 0x2b:
        kind = TokenKind.PLUS;
        break;
      case 0x2d:
        kind = TokenKind.MINUS;
        break;
      default:
        throw this.lexicalError(start);
    }
    this.pos = end;
    return { kind, start, end, text: s.slice(start, end) };
  }

  private skipIgnored(): void {
    const s = this.s;
    for (;;) {
      const c = s.charCodeAt(this.pos);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x0c) {
        this.pos++;
      } else if (c === 0x2d && s.charCodeAt(this.pos + 1) === 0x2d) {
        // LINE_COMMENT must end with a line break; without one the text lexes as "-" "-" ...
        if (this.unendedCommentAt >= 0 && this.pos >= this.unendedCommentAt) return;
        let j = this.pos + 2;
        while (j < s.length && s.charCodeAt(j) !== 0x0a && s.charCodeAt(j) !== 0x0d) j++;
        if (j >= s.length) {
          this.unendedCommentAt = this.pos;
          return;
        }
        this.pos = s.charCodeAt(j) === 0x0d && s.charCodeAt(j + 1) === 0x0a ? j + 2 : j + 1;
      } else if (c === 0x2f && s.charCodeAt(this.pos + 1) === 0x2a) {
        const close = s.indexOf('*/', this.pos + 2);
        // An unclosed comment leaves a "/", which starts no token.
        if (close < 0) throw this.lexicalError(this.pos);
        this.pos = close + 2;
      } else {
        return;
      }
    }
  }

  private number(start: number): Token {
    const s = this.s;
    let digitsEnd = start;
    while (isDigit(s.charCodeAt(digitsEnd))) digitsEnd++;
    // Longest of DECIMAL and FLOATING_POINT_LITERAL.
    let decimalEnd = -1;
    if (digitsEnd > start) {
      if (s.charCodeAt(start) === 0x30) {
        decimalEnd = start + 1;
      } else {
        const suffix = s.charCodeAt(digitsEnd);
        decimalEnd = suffix === 0x6c || suffix === 0x4c ? digitsEnd + 1 : digitsEnd;
      }
    }
    let floatEnd = -1;
    if (s.charCodeAt(digitsEnd) === 0x2e) {
      let j = digitsEnd + 1;
      while (isDigit(s.charCodeAt(j))) j++;
      // "." alone needs digits after it; "5." is a float.
      if (digitsEnd > start || j > digitsEnd + 1) {
        const e = exponentEnd(s, j);
        floatEnd = e < 0 ? j : e;
      }
    } else if (digitsEnd > start) {
      floatEnd = exponentEnd(s, digitsEnd);
    }
    if (floatEnd < 0 && decimalEnd < 0) throw this.lexicalError(start);
    if (floatEnd > decimalEnd) {
      this.pos = floatEnd;
      return { kind: TokenKind.FLOAT, start, end: floatEnd, text: s.slice(start, floatEnd) };
    }
    this.pos = decimalEnd;
    const hasSuffix = decimalEnd > digitsEnd;
    return {
      kind: TokenKind.DECIMAL,
      start,
      end: decimalEnd,
      text: s.slice(start, hasSuffix ? decimalEnd - 1 : decimalEnd),
    };
  }

  private string(start: number): Token {
    const s = this.s;
    let value = '';
    let chunk = start + 1;
    // Where the longest complete literal seen so far ends: a quote that is followed by another quote
    // may still close the literal if nothing later does (JavaCC keeps the last accepting position).
    let lastClose = -1;
    let lastValue = '';
    let i = start + 1;
    while (i < s.length) {
      if (s.charCodeAt(i) === 0x27) {
        if (s.charCodeAt(i + 1) !== 0x27) {
          this.pos = i + 1;
          return { kind: TokenKind.STRING, start, end: i + 1, text: value + s.slice(chunk, i) };
        }
        lastClose = i + 1;
        lastValue = value + s.slice(chunk, i);
        value = `${lastValue}'`;
        i += 2;
        chunk = i;
      } else {
        i++;
      }
    }
    if (lastClose < 0) {
      throw new SqlParseError('lexical', 'unterminated string literal', s, start);
    }
    this.pos = lastClose;
    return { kind: TokenKind.STRING, start, end: lastClose, text: lastValue };
  }

  private lexicalError(at: number): SqlParseError {
    const cp = this.s.codePointAt(at) ?? 0;
    const shown =
      cp >= 0x20 && cp < 0x7f
        ? `"${String.fromCodePoint(cp)}"`
        : `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    return new SqlParseError('lexical', `unexpected character ${shown}`, this.s, at);
  }
}
