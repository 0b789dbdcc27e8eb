/** A compiled SQL92 selector: upstream's BooleanExpression returned by SelectorParser.parse. */

import { FilterEvaluationError } from '../errors.js';
import type { BooleanNode } from './ast.js';
import { type EvaluationContext, evaluateBoolean } from './evaluate.js';
import { parseSqlSelector, type SqlParseOptions } from './parser.js';
import { printSqlNode } from './print.js';

export class SqlExpression {
  readonly type = 'SQL92';

  constructor(
    /** The expression as the consumer wrote it. */
    readonly text: string,
    readonly root: BooleanNode,
  ) {}

  /**
   * true, false or null (unknown, e.g. a missing property compared with a value). Throws
   * FilterEvaluationError where upstream's evaluation throws.
   */
  evaluate(ctx?: EvaluationContext): boolean | null {
    return evaluateBoolean(this.root, ctx);
  }

  /** The broker's rule: a message matches only when the expression is TRUE; an evaluation error is no match. */
  matches(ctx?: EvaluationContext): boolean {
    try {
      return evaluateBoolean(this.root, ctx) === true;
    } catch (error) {
      if (error instanceof FilterEvaluationError) return false;
      throw error;
    }
  }

  /** Canonical text: parses back to an equal tree. */
  toString(): string {
    return printSqlNode(this.root);
  }
}

/** SelectorParser.parse without the cache: throws SqlParseError with the position of the problem. */
export function parseSql92(text: string, options?: SqlParseOptions): SqlExpression {
  return new SqlExpression(text, parseSqlSelector(text, options));
}
