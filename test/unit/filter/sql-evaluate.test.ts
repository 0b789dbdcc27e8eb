/** Evaluation: upstream's ExpressionTest, null semantics, type conversions, and hand-picked corners checked against upstream. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { FilterEvaluationError, parseSql92 } from '../../../src/filter/index.js';
import { verdict } from './verdict.js';

function evaluate(text: string, props: Readonly<Record<string, string>> = {}): boolean | null {
  return parseSql92(text).evaluate(new Map(Object.entries(props)));
}

/** ExpressionTest.eval: anything but TRUE counts as false. */
function matches(text: string, props: Readonly<Record<string, string>> = {}): boolean {
  return parseSql92(text).matches(new Map(Object.entries(props)));
}

describe("upstream's ExpressionTest (property values as strings, as messages carry them)", () => {
  const and = 'a=3 and b<>4 And c>5 AND d<=4';
  const or = 'a=3 or b<>4 Or c>5 OR d<=4';

  test('string with quotes', () => {
    assert.equal(matches("TAGS is not null and TAGS='''''tag'''''", { TAGS: "''tag''" }), true);
  });

  test('comparing strings with > throws unless both parse as doubles', () => {
    assert.equal(matches('a between up and low', { a: '3.14' }), false);
    assert.throws(
      () => evaluate('a between up and low', { a: '3.14', up: 'up', low: 'low' }),
      FilterEvaluationError,
    );
    assert.throws(
      () => evaluate('key is not null and key between 0 and 100', { key: 'con' }),
      FilterEvaluationError,
    );
    assert.throws(() => evaluate('a between 0 and 100', { a: 'abc' }), FilterEvaluationError);
    assert.equal(matches('a=b', { a: '3.14', b: '3.14' }), true);
    assert.equal(matches('a<>b', { a: '3.14', b: '3.14' }), false);
    assert.equal(matches('a<>b', { a: '3.14', b: '3.141' }), true);
  });

  test('exponent and float', () => {
    assert.equal(matches('a > 3.1E10', { a: '31415000000' }), true);
    assert.equal(matches('a > 3.14', { a: '3.1415' }), true);
  });

  test('two properties', () => {
    assert.equal(matches('a > b', { a: '10', b: '20' }), false);
    assert.equal(matches('a > b', { a: '20', b: '10' }), true);
  });

  test('null or', () => {
    assert.equal(matches("a is null OR a='hello'"), true);
    assert.equal(matches("a is null OR a='hello'", { a: 'hello' }), true);
    assert.equal(matches("a is null OR a='hello'", { a: 'abc' }), false);
  });

  test('boolean', () => {
    assert.equal(matches('a=TRUE OR b=FALSE', { a: 'true', b: 'false' }), true);
    assert.equal(matches('a=TRUE OR b=FALSE', { a: 'false', b: 'true' }), false);
  });

  test('equal', () => {
    assert.equal(matches("a is not null and a='hello'", { a: 'hello' }), true);
    assert.equal(matches("a is not null and a='hello'"), false);
  });

  test('and', () => {
    assert.equal(matches(and, { a: '3', b: '5', c: '6', d: '1' }), true);
    assert.equal(matches(and, { a: '4', b: '5', c: '6', d: '1' }), false);
  });

  test('or', () => {
    assert.equal(matches(or, { a: '3' }), true);
    assert.equal(matches(or, { a: '4', b: '5' }), true);
    assert.equal(matches(or, { a: '4', b: '4', c: '6' }), true);
    assert.equal(matches(or, { a: '4', b: '4', c: '3', d: '2' }), true);
    assert.equal(matches(or, { a: '4', b: '4', c: '3', d: '10' }), false);
  });

  test('in / not in', () => {
    for (const a of ['3', '4', '5']) {
      assert.equal(matches("a in ('3', '4', '5')", { a }), true);
      assert.equal(matches("a not in ('3', '4', '5')", { a }), false);
    }
    assert.equal(matches("a in ('3', '4', '5')", { a: '8' }), false);
    assert.equal(matches("a not in ('3', '4', '5')", { a: '8' }), true);
  });

  test('between / not between', () => {
    for (const a of ['2', '10', '3']) {
      assert.equal(matches('a between 2 and 10', { a }), true);
      assert.equal(matches('a not between 2 and 10', { a }), false);
    }
    for (const a of ['1', '11']) {
      assert.equal(matches('a between 2 and 10', { a }), false);
      assert.equal(matches('a not between 2 and 10', { a }), true);
    }
  });

  test('is null / is not null', () => {
    assert.equal(matches('a is null', { abc: '2' }), true);
    assert.equal(matches('a is null', { a: '2' }), false);
    assert.equal(matches('a is not null', { a: '2' }), true);
    assert.equal(matches('a is not null', { abc: '2' }), false);
  });
});

describe('three-valued logic', () => {
  test('a missing property makes comparisons unknown; AND/OR/NOT follow Kleene logic', () => {
    assert.equal(evaluate('a > 1'), null);
    assert.equal(evaluate('NOT (a > 1)'), null);
    assert.equal(evaluate('a > 1 AND FALSE'), false);
    assert.equal(evaluate('a > 1 AND TRUE'), null);
    assert.equal(evaluate('a > 1 OR TRUE'), true);
    assert.equal(evaluate('a > 1 OR FALSE'), null);
    assert.equal(evaluate('NULL'), null);
    assert.equal(evaluate('NOT NULL'), null);
    assert.equal(evaluate("a IN ('x')"), null);
    assert.equal(evaluate("a NOT IN ('x')"), null);
    assert.equal(evaluate('a BETWEEN 1 AND 2'), null);
    assert.equal(evaluate('a NOT BETWEEN 1 AND 2'), null);
  });

  test('= is asymmetric about null, as doCreateEqual is: null = x is unknown, x = null is false', () => {
    assert.equal(evaluate("b = 'x'"), null);
    assert.equal(evaluate("'x' = b"), false);
    assert.equal(evaluate("NOT ('x' = b)"), true);
    assert.equal(evaluate('a = b'), true);
    assert.equal(evaluate('a <> b'), false);
  });

  test('matches() is true only for TRUE', () => {
    assert.equal(matches('a > 1'), false);
    assert.equal(matches('NOT (a > 1)'), false);
    assert.equal(matches('TRUE'), true);
  });

  test('short-circuit: a failing operand after a decisive one is never evaluated', () => {
    assert.equal(evaluate("b = 'x' OR x > 5", { x: 'abc', b: 'x' }), true);
    assert.throws(() => evaluate("x > 5 OR b = 'x'", { x: 'abc', b: 'x' }), FilterEvaluationError);
    assert.equal(evaluate('FALSE AND x > 5', { x: 'abc' }), false);
    // The right side of > is not evaluated when the left is null.
    assert.equal(evaluate('a > -(x = 5)', { x: 'abc' }), null);
    assert.throws(() => evaluate('a > -(x = 5)', { a: '1', x: 'abc' }), FilterEvaluationError);
  });

  test('an error anywhere aborts the whole expression, and matches() turns it into no match', () => {
    assert.throws(() => evaluate("a = 5 OR b = 'x'", { a: 'abc', b: 'x' }), /NumberFormatException/);
    assert.equal(matches("a = 5 OR b = 'x'", { a: 'abc', b: 'x' }), false);
  });
});

describe('conversions of property strings (convertStringExpressions)', () => {
  test('against an Integer constant the property is parsed with Integer.valueOf', () => {
    assert.equal(evaluate('a = 5', { a: '5' }), true);
    assert.equal(evaluate('a = 5', { a: '+5' }), true);
    assert.equal(evaluate('a = 5', { a: '005' }), true);
    assert.equal(evaluate('a = 5', { a: '\u0665' }), true);
    assert.equal(evaluate('a = 5', { a: '\uff15' }), true);
    for (const a of ['5.0', ' 5', '5L', '', '-', '3000000000', 'abc']) {
      assert.throws(() => evaluate('a = 5', { a }), FilterEvaluationError, a);
    }
    assert.equal(evaluate('a > -2147483648', { a: '-2147483648' }), false);
  });

  test('against a Long constant, Long.valueOf', () => {
    assert.equal(evaluate('a = 3000000000', { a: '3000000000' }), true);
    assert.equal(evaluate('a < 3000000000', { a: '-9223372036854775808' }), true);
    assert.equal(evaluate('a <> 3000000000', { a: '9223372036854775807' }), true);
    assert.throws(() => evaluate('a = 3000000000', { a: '9223372036854775808' }), FilterEvaluationError);
  });

  test('against a Double constant, Double.valueOf: trimmed, suffixes, NaN, Infinity, hex', () => {
    assert.equal(evaluate('a = 5.0', { a: ' 5 ' }), true);
    assert.equal(evaluate('a = 5.0', { a: '5d' }), true);
    assert.equal(evaluate('a = 5.0', { a: '5F' }), true);
    assert.equal(evaluate('a = 5.0', { a: '0x1.4p2' }), true);
    assert.equal(evaluate('a = 5.0', { a: '50e-1' }), true);
    assert.equal(evaluate('a > 5.5', { a: 'NaN' }), true);
    assert.equal(evaluate('a > 5.5', { a: 'Infinity' }), true);
    assert.equal(evaluate('a > 5.5', { a: '-Infinity' }), false);
    for (const a of ['5e', '0x5', 'inf', '1_0', '']) {
      assert.throws(() => evaluate('a = 5.0', { a }), FilterEvaluationError, a);
    }
  });

  test('two properties with > are both parsed as doubles, with Double.compare order', () => {
    assert.equal(evaluate('a > b', { a: 'NaN', b: '1' }), true);
    assert.equal(evaluate('a < b', { a: '-0.0', b: '0' }), true);
    assert.equal(evaluate('a >= b', { a: '-0.0', b: '0.0' }), false);
    assert.equal(evaluate('a = b', { a: '1', b: '1.0' }), false);
    assert.throws(() => evaluate('a > b', { a: 'x', b: '1' }), /illegal to compare string/);
  });

  test('booleans: a = TRUE parses the property with Boolean.valueOf; TRUE = a throws', () => {
    assert.equal(evaluate('a = TRUE', { a: 'tRuE' }), true);
    assert.equal(evaluate('a = FALSE', { a: 'yes' }), true);
    assert.throws(() => evaluate('TRUE = a', { a: 'true' }), /ClassCastException/);
    assert.equal(evaluate('TRUE = a'), false);
    assert.equal(evaluate('5 = TRUE'), false);
  });

  test('a bare property is a boolean cast: a string is never TRUE', () => {
    assert.equal(evaluate('a', { a: 'true' }), false);
    assert.equal(evaluate('NOT a', { a: 'true' }), true);
    assert.equal(evaluate('a'), null);
  });

  test('unary minus: numbers are negated, a property or string gives null', () => {
    assert.equal(evaluate('a = -5', { a: '-5' }), true);
    assert.equal(evaluate('a = -3000000000', { a: '-3000000000' }), true);
    assert.equal(evaluate('a = -2.5', { a: '-2.5' }), true);
    assert.equal(evaluate('-a > 1', { a: '5' }), null);
    assert.equal(evaluate("- 'x' = a", { a: 'x' }), null);
  });

  test('IN compares strings only, exactly', () => {
    assert.equal(evaluate("a IN ('5')", { a: '5' }), true);
    assert.equal(evaluate("a IN ('5')", { a: '5.0' }), false);
    assert.equal(evaluate("a IN ('x', 'x', 'y', 'z', 'w', 'v')", { a: 'v' }), true);
  });

  test('strings compare by UTF-16 code units in =', () => {
    assert.equal(evaluate("a = '\u00e9'", { a: '\u00e9' }), true);
    assert.equal(evaluate("a = '\u00e9'", { a: 'e\u0301' }), false);
  });
});

/** Each row was run through upstream's SelectorParser (rocketmq-filter 4.9.7 = 4.9.8) for its verdict. */
const CHECKED_AGAINST_UPSTREAM: ReadonlyArray<
  readonly [string, ReadonlyArray<Readonly<Record<string, string>>>, string]
> = [
  ['a = 1 = 2', [{ a: '1' }, {}], 'FALSE NULL'],
  ['NULL IS NULL', [{}], 'TRUE'],
  ["'x' = b", [{}, { b: 'x' }], 'FALSE TRUE'],
  ["NOT ('x' = b)", [{}], 'TRUE'],
  ["NOT (b = 'x')", [{}], 'NULL'],
  ['a = b', [{}, { a: '1' }, { a: 'x', b: 'x' }], 'TRUE FALSE TRUE'],
  ['a <> b', [{}], 'FALSE'],
  ['TRUE = a', [{ a: 'true' }, {}], 'EXC FALSE'],
  ['a = TRUE', [{ a: 'true' }, { a: 'yes' }, { a: 'TRUE' }], 'TRUE FALSE TRUE'],
  ['a = FALSE', [{ a: 'yes' }], 'TRUE'],
  ['a > -9223372036854775807', [{ a: '0' }], 'TRUE'],
  ['a > - 9223372036854775808', [], 'ERR'],
  ['a > 9223372036854775808', [], 'ERR'],
  ['a = 2147483648', [{ a: '2147483648' }, { a: '02147483648' }], 'TRUE TRUE'],
  ['a = 5', [{ a: '3000000000' }, { a: '٥' }, { a: '+5' }, { a: '5.0' }], 'EXC TRUE TRUE EXC'],
  ['a = 5.0', [{ a: '5' }, { a: '5d' }, { a: ' 5 ' }, { a: '0x1.4p2' }], 'TRUE TRUE TRUE TRUE'],
  ['a > 5.5', [{ a: 'NaN' }, { a: 'Infinity' }, { a: '-Infinity' }], 'TRUE TRUE FALSE'],
  [
    'a > b',
    [
      { a: 'NaN', b: '1' },
      { a: '-0.0', b: '0' },
      { a: 'x', b: '1' },
    ],
    'TRUE FALSE EXC',
  ],
  [
    'a >= b',
    [
      { a: '-0.0', b: '0.0' },
      { a: '0.0', b: '-0.0' },
    ],
    'FALSE TRUE',
  ],
  ['-a > 1', [{ a: '5' }, {}], 'NULL NULL'],
  ['-(a = 1) IS NULL', [{ a: '1' }], 'TRUE'],
  ['a = 0x10', [{ a: '0' }, { a: '16' }], 'TRUE FALSE'],
  ['a = 1 b = 2', [{ a: '1' }], 'TRUE'],
  ['a = 007', [{ a: '0' }], 'TRUE'],
  ['a = 5 --c', [{ a: '5' }], 'TRUE'],
  ['a = 5 --c\n or a = 6', [{ a: '6' }], 'TRUE'],
  ['a = --5', [{ a: '5' }], 'TRUE'],
  ["a = '' OR a = ''''", [{ a: '' }, { a: "'" }], 'TRUE TRUE'],
  ['a BETWEEN -5 AND -10', [{ a: '-7' }], 'FALSE'],
  ['a BETWEEN 5 AND 5.5', [{ a: '5.2' }], 'EXC'],
  ['a BETWEEN 5.5 AND 5', [], 'ERR'],
  ['a NOT BETWEEN 10 AND 0', [{ a: '5' }], 'TRUE'],
  ["a BETWEEN 'a' AND 'b'", [], 'ERR'],
  ['a BETWEEN TRUE AND 5', [], 'ERR'],
  ['a BETWEEN 5 AND TRUE', [], 'ERR'],
  ['a BETWEEN NULL AND 5', [], 'ERR'],
  ["a BETWEEN 1 AND 'x'", [], 'ERR'],
  ["(a) IN ('x')", [{ a: 'x' }], 'TRUE'],
  ["a IN ('x', 'x', 'y', 'z', 'w', 'v')", [{ a: 'v' }, { a: 'q' }, {}], 'TRUE FALSE NULL'],
  ["a NOT IN ('x')", [{}, { a: 'y' }], 'NULL TRUE'],
  ['a IN ()', [], 'ERR'],
  ['a IN (1)', [], 'ERR'],
  ['NOT a', [{ a: 'true' }, {}], 'TRUE NULL'],
  ['a', [{ a: 'true' }, {}], 'FALSE NULL'],
  ['NOT NOT a', [{ a: 'x' }], 'FALSE'],
  ['NOT a = 1', [{ a: '1' }, {}], 'FALSE NULL'],
  ['NOT 5', [], 'ERR'],
  ['NOT -a', [], 'ERR'],
  ["- 'x' = a", [{ a: 'x' }], 'NULL'],
  ["a > 'x'", [], 'ERR'],
  ['a > TRUE', [], 'ERR'],
  ['(a > 1) > 0', [], 'ERR'],
  ['a IS NULL IS NULL', [{}, { a: '1' }], 'FALSE FALSE'],
  ['a = 0.0', [], 'ERR'],
  ['a = .0e5', [], 'ERR'],
  ['a = 5e-324', [{ a: '4.9e-324' }], 'TRUE'],
  ['a = 2e-324', [], 'ERR'],
  ['a = 1.7976931348623157e308', [{ a: '1.7976931348623157E308' }], 'TRUE'],
  ['a = 1.8e308', [], 'ERR'],
  ['a = 1.5L', [{}], 'NULL'],
  ['a = 0L', [{}], 'NULL'],
  ['a = 10l', [{ a: '10' }], 'TRUE'],
  ["a IS NOT NULL AND a = 'x'", [{ a: 'x' }, {}], 'TRUE FALSE'],
  ['A = 1', [{ a: '1' }, { A: '1' }], 'NULL TRUE'],
  ['and = 1', [], 'ERR'],
  ['a = 1 OR', [], 'ERR'],
  ['(a = 1', [], 'ERR'],
  ['a = 1)', [{ a: '1' }], 'TRUE'],
  ['', [], 'ERR'],
  ['   ', [], 'ERR'],
  ['/* x */ TRUE', [{}], 'TRUE'],
  ['/* x TRUE', [], 'ERR'],
  ['TRUE /* x', [], 'ERR'],
  ['TRUE #', [], 'ERR'],
  ['TRUE x #', [{}], 'TRUE'],
  ["a = 'x' + 'y'", [{ a: 'x' }], 'TRUE'],
  ["a = + 'x'", [{ a: 'x' }], 'TRUE'],
  ['+ a', [{ a: 'true' }], 'FALSE'],
  ['a = 1 AND NOT b = 2 OR c IS NULL', [{ a: '1' }, { a: '1', b: '3', c: '4' }], 'TRUE FALSE'],
  ['a < b AND b < c', [{ a: '1', b: '2', c: '3' }], 'TRUE'],
  ["a = 'é'", [{ a: 'é' }], 'TRUE'],
  ['é = 1', [], 'ERR'],
  ['a = 1', [], 'ERR'],
  ['a\f=\u000b1', [], 'ERR'],
  ['a = 1 -- trailing', [{ a: '1' }], 'TRUE'],
  ['a = 1 -- trailing\r', [{ a: '1' }], 'TRUE'],
  ["x > 5 OR b = 'x'", [{ x: 'abc', b: 'x' }, { b: 'x' }], 'EXC TRUE'],
  ["b = 'x' OR x > 5", [{ x: 'abc', b: 'x' }], 'TRUE'],
  ["x > 5 AND b = 'x'", [{ x: 'abc', b: 'y' }, { x: 'abc' }], 'EXC EXC'],
];

describe('corners checked against upstream', () => {
  for (const [text, contexts, expected] of CHECKED_AGAINST_UPSTREAM) {
    test(JSON.stringify(text), () => {
      assert.equal(verdict(text, contexts, { maxLength: 1_000_000, maxDepth: 1_000_000 }), expected);
    });
  }
});
