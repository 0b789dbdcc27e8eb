/**
 * Errors of the filter layer. Compile errors carry SUBSCRIPTION_PARSE_FAILED so the broker answers a
 * bad subscription with upstream's code straight from the thrown error.
 */
import { ErrorCode, RocketMQError } from '../common/errors.js';

/** ResponseCode.SUBSCRIPTION_PARSE_FAILED (the filter layer may not import remoting). */
export const SUBSCRIPTION_PARSE_FAILED = 23;

/** A subscription expression that cannot be turned into a filter (bad tags, unknown type, bad SQL92). */
export class FilterCompileError extends RocketMQError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, SUBSCRIPTION_PARSE_FAILED, { ...options, code: ErrorCode.FILTER_COMPILE });
  }
}

/**
 * What went wrong in an SQL92 expression: `lexical` a character no token starts with, `syntax` a token
 * the grammar does not allow there, `semantic` a construct upstream's expression factories refuse (such
 * as `'a' > 1` or `BETWEEN 10 AND 0`), `limit` the length or nesting bound.
 */
export type SqlErrorKind = 'lexical' | 'syntax' | 'semantic' | 'limit';

/** An SQL92 expression upstream's SelectorParser would refuse, or one over our size limits. */
export class SqlParseError extends FilterCompileError {
  readonly kind: SqlErrorKind;
  /** UTF-16 offset of the offending character or token in the expression. */
  readonly offset: number;
  /** 1-based line and column of `offset` (a tab counts as one column). */
  readonly line: number;
  readonly column: number;
  /** The message without the position. */
  readonly reason: string;

  constructor(kind: SqlErrorKind, reason: string, text: string, offset: number) {
    const { line, column } = lineColumn(text, offset);
    super(`Invalid SQL92 expression: ${reason} at line ${line}, column ${column}`);
    this.kind = kind;
    this.offset = offset;
    this.line = line;
    this.column = column;
    this.reason = reason;
  }
}

/**
 * Upstream's evaluation threw (a property that is not a number compared with a number, `TRUE = prop`...).
 * The broker's filters treat it as "no match"; it never escapes them.
 */
export class FilterEvaluationError extends RocketMQError {
  constructor(message: string, options?: ErrorOptions) {
    super(message, 1, { ...options, code: ErrorCode.FILTER_EVALUATION });
  }
}

function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    const c = text.charCodeAt(i);
    // \r\n is one line break, as JavaCC's SimpleCharStream counts it.
    if (c === 0x0a || (c === 0x0d && text.charCodeAt(i + 1) !== 0x0a)) {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}
