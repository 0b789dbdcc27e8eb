/**
 * Prints a compiled expression back as SQL92 text that parses to the same tree: keywords upper case,
 * one space between tokens, parentheses only where the grammar's precedence needs them.
 *
 * Precedence, loosest first: OR, AND, equality (= <> IS [NOT] NULL), comparison (> >= < <= BETWEEN
 * IN), unary (NOT, unary minus), primary. Note that NOT binds tighter than `=` in this grammar
 * (upstream's, from ActiveMQ): `NOT (a = 1)` needs its parentheses.
 */

import type { SqlNode, SqlValue } from './ast.js';

const OR = 1;
const AND = 2;
const EQUALITY = 3;
const COMPARISON = 4;
const UNARY = 5;
const PRIMARY = 6;

function levelOf(node: SqlNode): number {
  switch (node.kind) {
    case 'or':
      return OR;
    case 'and':
      return AND;
    case 'isNull':
      return EQUALITY;
    case 'comparison':
      return node.operator === '=' || node.operator === '<>' ? EQUALITY : COMPARISON;
    case 'between':
    case 'in':
      return COMPARISON;
    case 'not':
    case 'negate':
      return UNARY;
    default:
      return PRIMARY;
  }
}

/** ConstantExpression.encodeString: quotes doubled. */
export function quoteSqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

export function formatSqlValue(v: SqlValue): string {
  if (v === null) return 'NULL';
  switch (typeof v) {
    case 'boolean':
      return v ? 'TRUE' : 'FALSE';
    case 'string':
      return quoteSqlString(v);
    case 'number':
    case 'bigint':
      return String(v);
    default: {
      // A double must keep a '.' or an exponent, or it would read back as an integer.
      const s = String(v.value);
      return /^-?[0-9]+$/.test(s) ? `${s}.0` : s;
    }
  }
}

function at(node: SqlNode, minLevel: number): string {
  const text = print(node);
  return levelOf(node) < minLevel ? `(${text})` : text;
}

function print(node: SqlNode): string {
  switch (node.kind) {
    case 'constant':
      return formatSqlValue(node.value);
    case 'property':
      return node.name;
    case 'booleanCast':
      return node.operand.name;
    case 'or':
      return node.operands.map((o) => at(o, AND)).join(' OR ');
    case 'and':
      return node.operands.map((o) => at(o, EQUALITY)).join(' AND ');
    case 'not':
      return `NOT ${at(node.operand, UNARY)}`;
    case 'negate': {
      const inner = at(node.operand, UNARY);
      // "--" would open a line comment.
      return inner.startsWith('-') ? `- ${inner}` : `-${inner}`;
    }
    case 'comparison':
      return node.operator === '=' || node.operator === '<>'
        ? `${at(node.left, EQUALITY)} ${node.operator} ${at(node.right, COMPARISON)}`
        : `${at(node.left, COMPARISON)} ${node.operator} ${at(node.right, UNARY)}`;
    case 'isNull':
      return `${at(node.operand, EQUALITY)} IS ${node.not ? 'NOT ' : ''}NULL`;
    case 'between':
      return `${at(node.value, COMPARISON)} ${node.not ? 'NOT ' : ''}BETWEEN ${at(node.low, UNARY)} AND ${at(node.high, UNARY)}`;
    case 'in':
      return `${node.operand.name} ${node.not ? 'NOT ' : ''}IN (${node.values.map(quoteSqlString).join(', ')})`;
  }
}

/** The expression as SQL92 text; parsing it gives back an equal tree. */
export function printSqlNode(node: SqlNode): string {
  return print(node);
}
