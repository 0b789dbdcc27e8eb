/**
 * Evaluation with upstream's semantics: three-valued logic (null = unknown), a missing property is
 * null, and the Java exceptions upstream's expressions throw (a non-numeric string compared with a
 * number, two non-numeric properties compared with >, `TRUE = prop`) become FilterEvaluationError,
 * which aborts the whole expression just as the Java exception does; the broker's filter then treats
 * the message as not matching.
 */

import { FilterEvaluationError } from '../errors.js';
import {
  type BetweenNode,
  type ComparisonNode,
  type ComparisonOperator,
  SqlDouble,
  type SqlNode,
  type SqlValue,
} from './ast.js';
import { javaCompare, javaDoubleCompare, javaEquals, javaTypeName, toDouble } from './compare.js';

/** Where property values come from: a message's properties (a Map<string, string> fits). */
export interface EvaluationContext {
  get(name: string): string | undefined;
}

const NO_PROPERTIES: EvaluationContext = { get: () => undefined };

function orderingHolds(operator: ComparisonOperator, answer: number): boolean {
  switch (operator) {
    case '>':
      return answer > 0;
    case '>=':
      return answer >= 0;
    case '<':
      return answer < 0;
    default:
      return answer <= 0;
  }
}

/** doCreateEqual: null on the left only gives null, null on the right only gives false, two nulls are equal. */
function equal(left: SqlNode, right: SqlNode, ctx: EvaluationContext): boolean | null {
  const lv = evaluateNode(left, ctx);
  const rv = evaluateNode(right, ctx);
  if (lv === null || rv === null) {
    if (lv === null && rv === null) return true;
    return lv === null ? null : false;
  }
  if (javaEquals(lv, rv)) return true;
  return javaCompare(lv, rv) === 0;
}

/** ComparisonExpression.evaluate for > >= < <=: the right side is not evaluated when the left is null. */
function ordering(
  operator: ComparisonOperator,
  left: SqlNode,
  right: SqlNode,
  ctx: EvaluationContext,
): boolean | null {
  const lv = evaluateNode(left, ctx);
  if (lv === null) return null;
  const rv = evaluateNode(right, ctx);
  if (rv === null) return null;
  if (typeof lv === 'string' && typeof rv === 'string') {
    let l: number;
    let r: number;
    try {
      l = toDouble(lv);
      r = toDouble(rv);
    } catch (error) {
      throw new FilterEvaluationError(
        `It's illegal to compare string by '>=', '>', '<', '<='. lv=${lv}, rv=${rv}`,
        { cause: error },
      );
    }
    return orderingHolds(operator, javaDoubleCompare(l, r));
  }
  return orderingHolds(operator, javaCompare(lv, rv));
}

function comparison(node: ComparisonNode, ctx: EvaluationContext): boolean | null {
  switch (node.operator) {
    case '=':
      return equal(node.left, node.right, ctx);
    case '<>': {
      const v = equal(node.left, node.right, ctx);
      return v === null ? null : !v;
    }
    default:
      return ordering(node.operator, node.left, node.right, ctx);
  }
}

/** BETWEEN is `>= low AND <= high`, NOT BETWEEN is `< low OR > high`, with AND/OR's null rules. */
function between(node: BetweenNode, ctx: EvaluationContext): boolean | null {
  if (node.not) {
    const l = ordering('<', node.value, node.low, ctx);
    if (l === true) return true;
    const r = ordering('>', node.value, node.high, ctx);
    if (r === true) return true;
    return l === null || r === null ? null : false;
  }
  const l = ordering('>=', node.value, node.low, ctx);
  if (l === false) return false;
  const r = ordering('<=', node.value, node.high, ctx);
  if (r === false) return false;
  return l === null || r === null ? null : true;
}

function negate(v: SqlValue): SqlValue {
  switch (typeof v) {
    case 'number':
      return -v | 0;
    case 'bigint':
      return BigInt.asIntN(64, -v);
    case 'object':
      return v instanceof SqlDouble ? new SqlDouble(-v.value) : null;
    default:
      return null;
  }
}

function asBoolean(v: SqlValue): boolean | null {
  if (v === null || typeof v === 'boolean') return v;
  // The parser only puts boolean expressions where a boolean is read; this is Java's ClassCastException.
  throw new FilterEvaluationError(`ClassCastException: ${javaTypeName(v)} is not a Boolean`);
}

export function evaluateNode(node: SqlNode, ctx: EvaluationContext): SqlValue {
  switch (node.kind) {
    case 'constant':
      return node.value;
    case 'property':
      return ctx.get(node.name) ?? null;
    case 'and': {
      let unknown = false;
      for (const operand of node.operands) {
        const v = asBoolean(evaluateNode(operand, ctx));
        if (v === false) return false;
        if (v === null) unknown = true;
      }
      return unknown ? null : true;
    }
    case 'or': {
      let unknown = false;
      for (const operand of node.operands) {
        const v = asBoolean(evaluateNode(operand, ctx));
        if (v === true) return true;
        if (v === null) unknown = true;
      }
      return unknown ? null : false;
    }
    case 'not': {
      const v = asBoolean(evaluateNode(node.operand, ctx));
      return v === null ? null : !v;
    }
    case 'booleanCast': {
      const v = evaluateNode(node.operand, ctx);
      if (v === null) return null;
      return typeof v === 'boolean' ? v : false;
    }
    case 'negate': {
      const v = evaluateNode(node.operand, ctx);
      return v === null ? null : negate(v);
    }
    case 'comparison':
      return comparison(node, ctx);
    case 'isNull': {
      const isNull = evaluateNode(node.operand, ctx) === null;
      return node.not ? !isNull : isNull;
    }
    case 'between':
      return between(node, ctx);
    case 'in': {
      const v = evaluateNode(node.operand, ctx);
      if (typeof v !== 'string') return null;
      return node.valueSet.has(v) !== node.not;
    }
  }
}

/**
 * The expression's value for one message: true, false, or null (unknown). Throws FilterEvaluationError
 * where upstream's evaluation throws.
 */
export function evaluateBoolean(root: SqlNode, ctx: EvaluationContext | undefined): boolean | null {
  return asBoolean(evaluateNode(root, ctx ?? NO_PROPERTIES));
}
