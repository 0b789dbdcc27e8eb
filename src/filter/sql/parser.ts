/**
 * A recursive-descent parser for upstream's SQL92 selector grammar (`filter/.../parser/SelectorParser.jj`,
 * 4.9.8), with the checks upstream's expression factories make while building (ComparisonExpression,
 * ConstantExpression, UnaryExpression), so exactly the expressions upstream refuses are refused:
 *
 *   selector   := or
 *   or         := and (OR and)*
 *   and        := equality (AND equality)*
 *   equality   := comparison ( '=' comparison | '<>' comparison | IS NULL | IS NOT NULL )*
 *   comparison := unary ( ('>'|'>='|'<'|'<=') unary | [NOT] BETWEEN unary AND unary
 *                        | [NOT] IN '(' string (',' string)* ')' )*
 *   unary      := '+' unary | '-' unary | NOT unary | primary
 *   primary    := literal | property | '(' or ')'
 *
 * Like upstream, nothing requires the end of the text after the selector: `a = 1 b` selects on
 * `a = 1` (only the token right after is read, and it must lex). `rejectTrailingInput` refuses that.
 * Our own bounds: the text length, and the nesting of parentheses and unary operators together with
 * the depth of the resulting tree, so neither the parser nor the evaluator can recurse without limit.
 */

import { SqlParseError } from '../errors.js';
import {
  type BooleanNode,
  type ComparisonOperator,
  type ConstantNode,
  isBooleanNode,
  type LogicNode,
  type PropertyNode,
  SqlDouble,
  type SqlNode,
  type SqlValue,
} from './ast.js';
import { javaCompare } from './compare.js';
import { Lexer, TOKEN_NAMES, type Token, TokenKind } from './lexer.js';
import { formatSqlValue, printSqlNode } from './print.js';

/** Longest expression accepted, in UTF-16 units. */
export const DEFAULT_SQL_MAX_LENGTH = 65_536;
/** Deepest nesting of parentheses and unary operators, and deepest tree, accepted. */
export const DEFAULT_SQL_MAX_DEPTH = 100;

export interface SqlParseOptions {
  readonly maxLength?: number;
  readonly maxDepth?: number;
  /** Refuse text after a complete expression (upstream ignores it). Default false. */
  readonly rejectTrailingInput?: boolean;
}

interface Parsed {
  readonly node: SqlNode;
  /** Offset where the expression's text starts, for error positions. */
  readonly start: number;
  /** Height of the node's tree. */
  readonly depth: number;
}

const LONG_MAX = (1n << 63n) - 1n;
const INT_MIN = -2147483648n;
const INT_MAX = 2147483647n;
const DOUBLE_MIN_VALUE = 5e-324;

/** Text for an error message, cut short: the expression (and one literal in it) may be 64K long. */
function clip(text: string): string {
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function excerpt(node: SqlNode): string {
  return clip(printSqlNode(node));
}

function shownValue(v: SqlValue): string {
  return clip(formatSqlValue(v));
}

class Parser {
  private readonly lexer: Lexer;
  /** Tokens read but not consumed (at most two: the grammar looks two ahead). */
  private readonly ahead: Token[] = [];
  private nesting = 0;
  private readonly maxDepth: number;

  constructor(
    private readonly text: string,
    options: SqlParseOptions,
  ) {
    this.lexer = new Lexer(text);
    this.maxDepth = options.maxDepth ?? DEFAULT_SQL_MAX_DEPTH;
  }

  peek(k = 0): Token {
    while (this.ahead.length <= k) this.ahead.push(this.lexer.next());
    return this.ahead[k] as Token;
  }

  private consume(): Token {
    const t = this.peek();
    this.ahead.shift();
    return t;
  }

  private expect(kind: TokenKind): Token {
    const t = this.peek();
    if (t.kind !== kind) throw this.unexpected(t, TOKEN_NAMES[kind]);
    return this.consume();
  }

  private unexpected(t: Token, expected: string): SqlParseError {
    const image = this.text.slice(t.start, Math.min(t.end, t.start + 40));
    const found =
      t.kind === TokenKind.EOF
        ? 'the end of the expression'
        : `"${image}${t.end - t.start > 40 ? '...' : ''}"`;
    return new SqlParseError('syntax', `unexpected ${found}, expecting ${expected}`, this.text, t.start);
  }

  private semantic(reason: string, at: number): SqlParseError {
    return new SqlParseError('semantic', reason, this.text, at);
  }

  /** A node over `children` (few); its depth is checked against the limit. */
  private make(node: SqlNode, start: number, ...children: Parsed[]): Parsed {
    let depth = 0;
    for (const c of children) if (c.depth > depth) depth = c.depth;
    return this.withDepth(node, start, depth + 1);
  }

  private withDepth(node: SqlNode, start: number, depth: number): Parsed {
    if (depth > this.maxDepth) {
      throw new SqlParseError(
        'limit',
        `expression nested deeper than ${this.maxDepth} levels`,
        this.text,
        start,
      );
    }
    return { node, start, depth };
  }

  // ---- upstream's checks ---------------------------------------------------------------------------

  /** SelectorParser.asBooleanExpression: a property becomes a boolean cast, a non-boolean is refused. */
  private asBoolean(p: Parsed): Parsed & { node: BooleanNode } {
    const node = p.node;
    if (isBooleanNode(node)) return { ...p, node };
    if (node.kind === 'property')
      return this.make({ kind: 'booleanCast', operand: node }, p.start, p) as Parsed & { node: BooleanNode };
    throw this.semantic(`expression will not result in a boolean value: ${excerpt(node)}`, p.start);
  }

  /** checkLessThanOperand: only numbers among constants; no boolean expression. */
  private checkLessThanOperand(p: Parsed, at: number): void {
    const node = p.node;
    if (node.kind === 'constant') {
      const v = node.value;
      if (typeof v === 'number' || typeof v === 'bigint' || v instanceof SqlDouble) return;
      throw this.semantic(`value ${shownValue(v)} cannot be compared`, at);
    }
    if (isBooleanNode(node)) throw this.semantic(`value ${excerpt(node)} cannot be compared`, at);
  }

  /** checkEqualOperand (no NULL literal) and checkEqualOperandCompatability (no TRUE = 'x'). */
  private checkEqualOperands(left: Parsed, right: Parsed, at: number): void {
    for (const p of [left, right]) {
      if (p.node.kind === 'constant' && p.node.value === null)
        throw this.semantic('NULL cannot be compared', at);
    }
    const l = left.node;
    const r = right.node;
    // Only TRUE/FALSE can be on the left here (NULL was refused above); a non-boolean constant on the right.
    if (
      l.kind === 'constant' &&
      r.kind === 'constant' &&
      typeof l.value === 'boolean' &&
      typeof r.value !== 'boolean'
    ) {
      throw this.semantic(`${shownValue(l.value)} cannot be compared with ${shownValue(r.value)}`, at);
    }
  }

  /** ComparisonExpression.createBetween's check: constant bounds must be non-null and low <= high. */
  private checkBetweenBounds(low: Parsed, high: Parsed, at: number): void {
    const l = low.node;
    const h = high.node;
    if (l.kind !== 'constant' || h.kind !== 'constant') return;
    if (l.value === null || h.value === null) throw this.semantic('BETWEEN bounds cannot be NULL', at);
    let answer: number;
    try {
      answer = javaCompare(h.value, l.value);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw this.semantic(`BETWEEN bounds cannot be compared: ${clip(reason)}`, at);
    }
    if (answer < 0) {
      throw this.semantic(
        `BETWEEN low value ${shownValue(l.value)} must be less than or equal to high value ${shownValue(h.value)}`,
        at,
      );
    }
  }

  // ---- grammar -------------------------------------------------------------------------------------

  selector(rejectTrailingInput: boolean): BooleanNode {
    const p = this.or();
    if (rejectTrailingInput) {
      const t = this.peek();
      if (t.kind !== TokenKind.EOF) throw this.unexpected(t, 'the end of the expression');
    }
    return this.asBoolean(p).node;
  }

  /** `or` and `and`: the chain is built into one flattened node, operands checked as upstream does. */
  private logic(kind: 'or' | 'and'): Parsed {
    const operatorKind = kind === 'or' ? TokenKind.OR : TokenKind.AND;
    const first = kind === 'or' ? this.and() : this.equality();
    if (this.peek().kind !== operatorKind) return first;
    const operands: BooleanNode[] = [];
    const parts: Parsed[] = [];
    const add = (p: Parsed): void => {
      const b = this.asBoolean(p);
      parts.push(b);
      if (b.node.kind === kind) for (const o of (b.node as LogicNode).operands) operands.push(o);
      else operands.push(b.node);
    };
    let pending: Parsed | undefined = first;
    while (this.peek().kind === operatorKind) {
      this.consume();
      const right = kind === 'or' ? this.and() : this.equality();
      // Upstream checks the left operand only after parsing the right one.
      if (pending !== undefined) {
        add(pending);
        pending = undefined;
      }
      add(right);
    }
    // A flattened operand adds no level: its own operands sit directly under the new node.
    let depth = 0;
    for (const p of parts) {
      const d = p.node.kind === kind ? p.depth - 1 : p.depth;
      if (d > depth) depth = d;
    }
    return this.withDepth({ kind, operands } as LogicNode, first.start, depth + 1);
  }

  private or(): Parsed {
    return this.logic('or');
  }

  private and(): Parsed {
    return this.logic('and');
  }

  private equality(): Parsed {
    let left = this.comparison();
    for (;;) {
      const t = this.peek();
      if (t.kind === TokenKind.EQ || t.kind === TokenKind.NE) {
        this.consume();
        const right = this.comparison();
        this.checkEqualOperands(left, right, t.start);
        const operator: ComparisonOperator = t.kind === TokenKind.EQ ? '=' : '<>';
        left = this.make(
          { kind: 'comparison', operator, left: left.node, right: right.node },
          left.start,
          left,
          right,
        );
      } else if (t.kind === TokenKind.IS) {
        const not = this.peek(1).kind !== TokenKind.NULL;
        this.consume();
        if (not) this.expect(TokenKind.NOT);
        this.expect(TokenKind.NULL);
        left = this.make({ kind: 'isNull', not, operand: left.node }, left.start, left);
      } else {
        return left;
      }
    }
  }

  private comparison(): Parsed {
    let left = this.unary();
    for (;;) {
      const t = this.peek();
      switch (t.kind) {
        case TokenKind.GT:
        case TokenKind.GE:
        case TokenKind.LT:
        case TokenKind.LE: {
          this.consume();
          const right = this.unary();
          this.checkLessThanOperand(left, t.start);
          this.checkLessThanOperand(right, t.start);
          const operator = t.text as ComparisonOperator;
          left = this.make(
            { kind: 'comparison', operator, left: left.node, right: right.node },
            left.start,
            left,
            right,
          );
          break;
        }
        case TokenKind.BETWEEN:
          this.consume();
          left = this.between(left, false, t.start);
          break;
        case TokenKind.IN:
          this.consume();
          left = this.in(left, false, t.start);
          break;
        case TokenKind.NOT: {
          const after = this.peek(1);
          if (after.kind === TokenKind.BETWEEN) {
            this.consume();
            this.consume();
            left = this.between(left, true, t.start);
          } else if (after.kind === TokenKind.IN) {
            this.consume();
            this.consume();
            left = this.in(left, true, t.start);
          } else {
            throw this.unexpected(after, 'BETWEEN or IN after NOT');
          }
          break;
        }
        default:
          return left;
      }
    }
  }

  private between(value: Parsed, not: boolean, at: number): Parsed {
    const low = this.unary();
    this.expect(TokenKind.AND);
    const high = this.unary();
    // createBetween checks the bounds first; createNotBetween does not check them at all.
    if (!not) this.checkBetweenBounds(low, high, at);
    this.checkLessThanOperand(value, at);
    this.checkLessThanOperand(low, at);
    this.checkLessThanOperand(high, at);
    return this.make(
      { kind: 'between', not, value: value.node, low: low.node, high: high.node },
      value.start,
      value,
      low,
      high,
    );
  }

  private in(left: Parsed, not: boolean, at: number): Parsed {
    this.expect(TokenKind.LPAREN);
    const values = [this.expect(TokenKind.STRING).text];
    while (this.peek().kind === TokenKind.COMMA) {
      this.consume();
      values.push(this.expect(TokenKind.STRING).text);
    }
    this.expect(TokenKind.RPAREN);
    if (left.node.kind !== 'property') {
      throw this.semantic(`expected a property for IN, got: ${excerpt(left.node)}`, at);
    }
    const operand: PropertyNode = left.node;
    return this.make({ kind: 'in', not, operand, values, valueSet: new Set(values) }, left.start, left);
  }

  private unary(): Parsed {
    const t = this.peek();
    if (++this.nesting > this.maxDepth) {
      throw new SqlParseError(
        'limit',
        `expression nested deeper than ${this.maxDepth} levels`,
        this.text,
        t.start,
      );
    }
    let result: Parsed;
    switch (t.kind) {
      case TokenKind.PLUS: {
        this.consume();
        result = { ...this.unary(), start: t.start };
        break;
      }
      case TokenKind.MINUS: {
        this.consume();
        const operand = this.unary();
        result = this.make({ kind: 'negate', operand: operand.node }, t.start, operand);
        break;
      }
      case TokenKind.NOT: {
        this.consume();
        const operand = this.asBoolean(this.unary());
        result = this.make({ kind: 'not', operand: operand.node }, t.start, operand);
        break;
      }
      default:
        result = this.primary();
    }
    this.nesting--;
    return result;
  }

  private primary(): Parsed {
    const t = this.peek();
    switch (t.kind) {
      case TokenKind.STRING:
        this.consume();
        return this.constant(t.text, t);
      case TokenKind.DECIMAL:
        this.consume();
        return this.constant(this.decimal(t), t);
      case TokenKind.FLOAT:
        this.consume();
        return this.constant(this.float(t), t);
      case TokenKind.TRUE:
        this.consume();
        return this.constant(true, t);
      case TokenKind.FALSE:
        this.consume();
        return this.constant(false, t);
      case TokenKind.NULL:
        this.consume();
        return this.constant(null, t);
      case TokenKind.ID:
        this.consume();
        return { node: { kind: 'property', name: t.text }, start: t.start, depth: 1 };
      case TokenKind.LPAREN: {
        this.consume();
        const inner = this.or();
        this.expect(TokenKind.RPAREN);
        return { ...inner, start: t.start };
      }
      default:
        throw this.unexpected(t, 'a literal, a property name or "("');
    }
  }

  private constant(value: SqlValue, t: Token): Parsed {
    const node: ConstantNode = { kind: 'constant', value };
    return { node, start: t.start, depth: 1 };
  }

  /** ConstantExpression.createFromDecimal: a Long, narrowed to an Integer when it fits. */
  private decimal(t: Token): number | bigint {
    // Without leading zeros, more than 19 digits is past Long.MAX_VALUE: no need to convert 64K digits.
    const v = t.text.length > 19 ? LONG_MAX + 1n : BigInt(t.text);
    if (v > LONG_MAX)
      throw this.semantic(`integer literal ${clip(t.text)} is out of the long range`, t.start);
    return v >= INT_MIN && v <= INT_MAX ? Number(v) : v;
  }

  /** ConstantExpression.createFloat: finite and not below Double.MIN_VALUE (so a literal 0.0 is refused). */
  private float(t: Token): SqlDouble {
    const v = Number(t.text);
    if (v > Number.MAX_VALUE)
      throw this.semantic(`${clip(t.text)} is greater than ${Number.MAX_VALUE}`, t.start);
    if (v < DOUBLE_MIN_VALUE)
      throw this.semantic(`${clip(t.text)} is less than ${DOUBLE_MIN_VALUE}`, t.start);
    return new SqlDouble(v);
  }
}

/**
 * Parses and checks an SQL92 selector (upstream `SelectorParser.parse`, uncached). Throws
 * SqlParseError with the position of the problem.
 */
export function parseSqlSelector(text: string, options: SqlParseOptions = {}): BooleanNode {
  const maxLength = options.maxLength ?? DEFAULT_SQL_MAX_LENGTH;
  if (text.length > maxLength) {
    throw new SqlParseError('limit', `expression longer than ${maxLength} characters`, text, maxLength);
  }
  return new Parser(text, options).selector(options.rejectTrailingInput ?? false);
}
