/**
 * The compiled form of an SQL92 selector. Node kinds follow upstream's expression classes
 * (`filter/.../expression/`), with two liberties that do not change any result: chains of AND or OR
 * are flattened into one n-ary node (same evaluation order, same short-circuit, same null rules, so a
 * chain of thousands of ORs does not make a deep tree), and BETWEEN keeps its own node instead of the
 * AND/OR of two comparisons upstream builds, so it prints back as written.
 */

/**
 * A Java `Double`. Integer constants are JS numbers (Java `Integer`, always int32) and long constants
 * are bigints (Java `Long`); doubles need their own box because upstream compares an Integer and a
 * Double differently (the string operand is parsed with Integer.valueOf vs Double.valueOf).
 */
export class SqlDouble {
  constructor(readonly value: number) {}
}

/**
 * A value during evaluation: null, Boolean, String, Integer (number), Long (bigint) or Double.
 * Message properties are always strings.
 */
export type SqlValue = null | boolean | string | number | bigint | SqlDouble;

/** A literal: upstream's ConstantExpression (strings, numbers) or BooleanConstantExpression (TRUE, FALSE, NULL). */
export interface ConstantNode {
  readonly kind: 'constant';
  readonly value: SqlValue;
}

/** A message property by name (PropertyExpression). */
export interface PropertyNode {
  readonly kind: 'property';
  readonly name: string;
}

/** AND / OR (LogicExpression), flattened: two or more operands, evaluated left to right. */
export interface LogicNode {
  readonly kind: 'and' | 'or';
  readonly operands: readonly BooleanNode[];
}

export interface NotNode {
  readonly kind: 'not';
  readonly operand: BooleanNode;
}

/** A property used where a boolean is needed (UnaryExpression.createBooleanCast). */
export interface BooleanCastNode {
  readonly kind: 'booleanCast';
  readonly operand: PropertyNode;
}

/** Unary minus (UnaryExpression.createNegate): a number is negated, anything else gives null. */
export interface NegateNode {
  readonly kind: 'negate';
  readonly operand: SqlNode;
}

export type ComparisonOperator = '=' | '<>' | '>' | '>=' | '<' | '<=';

/** `=` and `<>` (doCreateEqual, NOT of it) and the ordering comparisons (ComparisonExpression). */
export interface ComparisonNode {
  readonly kind: 'comparison';
  readonly operator: ComparisonOperator;
  readonly left: SqlNode;
  readonly right: SqlNode;
}

/** `IS NULL` / `IS NOT NULL` (equality with the NULL constant, NOT of it). */
export interface IsNullNode {
  readonly kind: 'isNull';
  readonly not: boolean;
  readonly operand: SqlNode;
}

/** `BETWEEN low AND high` = `>= low AND <= high`; `NOT BETWEEN` = `< low OR > high`. */
export interface BetweenNode {
  readonly kind: 'between';
  readonly not: boolean;
  readonly value: SqlNode;
  readonly low: SqlNode;
  readonly high: SqlNode;
}

/** `prop IN ('a', 'b')` / `NOT IN` (UnaryInExpression); only a property on the left, only strings in the list. */
export interface InNode {
  readonly kind: 'in';
  readonly not: boolean;
  readonly operand: PropertyNode;
  /** The list as written (duplicates kept, for printing). */
  readonly values: readonly string[];
  readonly valueSet: ReadonlySet<string>;
}

/** Nodes upstream types as BooleanExpression: they evaluate to true, false or null. */
export type BooleanNode =
  | ConstantNode
  | LogicNode
  | NotNode
  | BooleanCastNode
  | ComparisonNode
  | IsNullNode
  | BetweenNode
  | InNode;

export type SqlNode = BooleanNode | PropertyNode | NegateNode;

/** Upstream's `instanceof BooleanExpression`. */
export function isBooleanNode(node: SqlNode): node is BooleanNode {
  switch (node.kind) {
    case 'constant': {
      const v = node.value;
      // Only TRUE, FALSE and NULL are BooleanConstantExpressions.
      return v === null || typeof v === 'boolean';
    }
    case 'property':
    case 'negate':
      return false;
    default:
      return true;
  }
}
