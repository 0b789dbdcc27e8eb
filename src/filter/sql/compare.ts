/**
 * Upstream's `ComparisonExpression.__compare` with convertStringExpressions on (SelectorParser.parse
 * always turns it on): values of different types are converted the way Java does before compareTo,
 * a string operand is parsed to the other side's type (failure is an error, not a mismatch), and
 * unrelated types compare as -1. Only the sign of the result matters.
 */

import { FilterEvaluationError } from '../errors.js';
import { SqlDouble, type SqlValue } from './ast.js';
import { javaParseBoolean, javaParseDouble, javaParseInt, javaParseLong } from './java-number.js';

type NonNull = Exclude<SqlValue, null>;

/** Double.compare: -0.0 < 0.0, NaN equals itself and is above everything. */
export function javaDoubleCompare(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) {
    if (a !== 0) return 0;
    const negA = Object.is(a, -0);
    const negB = Object.is(b, -0);
    return negA === negB ? 0 : negA ? -1 : 1;
  }
  const nanA = Number.isNaN(a);
  const nanB = Number.isNaN(b);
  return nanA === nanB ? 0 : nanA ? 1 : -1;
}

function sign(a: number | bigint | string | boolean, b: number | bigint | string | boolean): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The Java class name of a value, for messages. */
export function javaTypeName(v: SqlValue): string {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return 'Boolean';
    case 'string':
      return 'String';
    case 'number':
      return 'Integer';
    case 'bigint':
      return 'Long';
    default:
      return 'Double';
  }
}

function numberFormat(s: string, type: string): FilterEvaluationError {
  return new FilterEvaluationError(`NumberFormatException: "${s}" is not a valid ${type}`);
}

function toInt(s: string): number {
  const v = javaParseInt(s);
  if (v === undefined) throw numberFormat(s, 'Integer');
  return v;
}

function toLong(s: string): bigint {
  const v = javaParseLong(s);
  if (v === undefined) throw numberFormat(s, 'Long');
  return v;
}

export function toDouble(s: string): number {
  const v = javaParseDouble(s);
  if (v === undefined) throw numberFormat(s, 'Double');
  return v;
}

/** Java `lv.equals(rv)`: same class and same value (Double.equals: NaN equals NaN, 0.0 is not -0.0). */
export function javaEquals(lv: NonNull, rv: NonNull): boolean {
  if (lv instanceof SqlDouble) return rv instanceof SqlDouble && Object.is(lv.value, rv.value);
  return lv === rv;
}

export function javaCompare(lv: NonNull, rv: NonNull): number {
  switch (typeof lv) {
    case 'string':
      switch (typeof rv) {
        case 'string':
          return sign(lv, rv);
        case 'boolean':
          return sign(javaParseBoolean(lv), rv);
        case 'number':
          return sign(toInt(lv), rv);
        case 'bigint':
          return sign(toLong(lv), rv);
        default:
          return javaDoubleCompare(toDouble(lv), rv.value);
      }
    case 'number':
      switch (typeof rv) {
        case 'number':
          return sign(lv, rv);
        case 'bigint':
          return sign(BigInt(lv), rv);
        case 'string':
          return sign(lv, toInt(rv));
        case 'boolean':
          return -1;
        default:
          return javaDoubleCompare(lv, rv.value);
      }
    case 'bigint':
      switch (typeof rv) {
        case 'bigint':
          return sign(lv, rv);
        case 'number':
          return sign(lv, BigInt(rv));
        case 'string':
          return sign(lv, toLong(rv));
        case 'boolean':
          return -1;
        default:
          return javaDoubleCompare(Number(lv), rv.value);
      }
    case 'boolean':
      if (typeof rv === 'boolean') return sign(lv, rv);
      // Upstream casts the Boolean to String here: a ClassCastException, not a comparison.
      if (typeof rv === 'string') {
        throw new FilterEvaluationError('ClassCastException: a Boolean cannot be compared with a String');
      }
      return -1;
    default:
      switch (typeof rv) {
        case 'string':
          return javaDoubleCompare(lv.value, toDouble(rv));
        case 'number':
          return javaDoubleCompare(lv.value, rv);
        case 'bigint':
          return javaDoubleCompare(lv.value, Number(rv));
        case 'boolean':
          return -1;
        default:
          return javaDoubleCompare(lv.value, rv.value);
      }
  }
}
