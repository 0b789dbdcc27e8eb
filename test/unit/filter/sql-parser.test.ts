/** The SQL92 selector parser: upstream's ParserTest, tokens and literals, precedence, printing, errors with positions. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type BooleanNode,
  FilterCompileError,
  parseSql92,
  parseSqlSelector,
  SqlDouble,
  type SqlNode,
  SqlParseError,
} from '../../../src/filter/index.js';

function print(text: string): string {
  return parseSql92(text).toString();
}

function root(text: string): BooleanNode {
  return parseSqlSelector(text);
}

/** The right operand of a top-level comparison, e.g. the literal in `a = <literal>`. */
function rightOf(text: string): SqlNode {
  const r = root(text);
  assert.equal(r.kind, 'comparison');
  return r.kind === 'comparison' ? r.right : r;
}

function parseError(text: string, options = {}): SqlParseError {
  try {
    parseSqlSelector(text, options);
  } catch (error) {
    assert.ok(error instanceof SqlParseError, `expected SqlParseError, got ${String(error)}`);
    return error;
  }
  assert.fail(`"${text}" parsed`);
}

describe("upstream's ParserTest", () => {
  test('valid expressions parse', () => {
    for (const e of [
      'a=3 and b<>4 And c>5 AND d<=4',
      'a=3 or b<>4 Or c>5 OR d<=4',
      "a in ('3', '4', '5')",
      "(a not in ('6', '4', '5')) or (b in ('3', '4', '5'))",
      '(a between 2 and 10) AND (b not between 6 and 9)',
      'a is null',
      'a is not null',
      'a <= now',
    ]) {
      assert.ok(parseSql92(e).root);
    }
  });

  test('invalid ones are refused: a missing operand, overflowing literals, reversed BETWEEN', () => {
    assert.throws(() => parseSql92('a and between 2 and 10'), SqlParseError);
    assert.throws(() => parseSql92('a > 100000000000000000000000'), SqlParseError);
    assert.throws(() => parseSql92(' a between 10 and 0'), SqlParseError);
    const huge = `1${'1'.repeat(2048 * 51)}.${'1'.repeat(2048 * 51)}`;
    assert.throws(() => parseSql92(`a > ${huge}`, { maxLength: 1_000_000 }), /greater than/);
  });

  test('equal expressions print equally whatever the spacing; different ones differ', () => {
    const a = print('a=3 and b<>4 And c>5 AND d<=4');
    assert.equal(print('a=3  and    b<>4 And c>5 AND d<=4'), a);
    assert.notEqual(print('a=3 or b<>4 Or c>5 OR d<=4'), a);
    assert.equal(a, 'a = 3 AND b <> 4 AND c > 5 AND d <= 4');
  });
});

describe('tokens and literals', () => {
  test('keywords in any case; identifiers are case-sensitive and may hold _ $ and digits', () => {
    assert.equal(print("a iS nOt NuLl AnD b In ('x') oR NoT c"), "a IS NOT NULL AND b IN ('x') OR NOT c");
    assert.equal(print('$a_1 = _B$ and notx = 1 and ISa = 2'), '$a_1 = _B$ AND notx = 1 AND ISa = 2');
    assert.throws(() => parseSql92('and = 1'), SqlParseError);
    assert.throws(() => parseSql92('1a = 1 and (x'), SqlParseError);
  });

  test('integers are Integer within int range and Long beyond; l/L is allowed except on 0', () => {
    assert.deepEqual(rightOf('a = 0'), { kind: 'constant', value: 0 });
    assert.deepEqual(rightOf('a = 2147483647'), { kind: 'constant', value: 2147483647 });
    assert.deepEqual(rightOf('a = 2147483648'), { kind: 'constant', value: 2147483648n });
    assert.deepEqual(rightOf('a = 9223372036854775807'), { kind: 'constant', value: 9223372036854775807n });
    assert.deepEqual(rightOf('a = 10L'), { kind: 'constant', value: 10 });
    assert.deepEqual(rightOf('a = 3000000000l'), { kind: 'constant', value: 3000000000n });
    assert.throws(() => parseSql92('a = 9223372036854775808'), /out of the long range/);
    // "0L" is the literal 0 followed by the identifier L (which ends the selector, see below).
    assert.equal(print('a = 0L'), 'a = 0');
  });

  test('decimals are Double; a literal that is zero or infinite is refused as upstream refuses it', () => {
    for (const [text, value] of [
      ['3.14', 3.14],
      ['5.', 5],
      ['.5', 0.5],
      ['1e3', 1000],
      ['2.5E+2', 250],
      ['1.5e-3', 0.0015],
      ['007.5', 7.5],
      ['5e-324', 5e-324],
      ['1.7976931348623157e308', Number.MAX_VALUE],
    ] as const) {
      assert.deepEqual(rightOf(`a = ${text}`), { kind: 'constant', value: new SqlDouble(value) }, text);
    }
    for (const text of ['0.0', '0.', '.0', '0e5', '1e-400', '1e400', '1.8e308']) {
      const e = parseError(`a = ${text}`);
      assert.equal(e.kind, 'semantic', text);
      assert.equal(e.offset, 4, text);
    }
  });

  test('no hex, octal or signed literals: 0x10 is 0 then an identifier, -5 is minus 5', () => {
    assert.equal(print('a = 0x10'), 'a = 0');
    assert.equal(print('a = 007'), 'a = 0');
    assert.deepEqual(rightOf('a = -5'), { kind: 'negate', operand: { kind: 'constant', value: 5 } });
  });

  test("strings: '' is a quote, anything else is kept, an unclosed one is refused", () => {
    assert.deepEqual(rightOf("a = 'it''s'"), { kind: 'constant', value: "it's" });
    assert.deepEqual(rightOf("a = ''''"), { kind: 'constant', value: "'" });
    assert.deepEqual(rightOf("a = ''"), { kind: 'constant', value: '' });
    assert.deepEqual(rightOf("a = 'x\ny -- /* \u00e9 \u{1f600}'"), {
      kind: 'constant',
      value: 'x\ny -- /* \u00e9 \u{1f600}',
    });
    assert.equal(print("TAGS='''''tag'''''"), "TAGS = '''''tag'''''");
    const e = parseError("a = 'abc");
    assert.equal(e.kind, 'lexical');
    assert.equal(e.offset, 4);
  });

  test('an unclosed string after a doubled quote closes at the last quote that can close it', () => {
    // 'a'' is the literal 'a' followed by an unclosed quote, which the lexer reaches next.
    const e = parseError("x = 'a''");
    assert.equal(e.kind, 'lexical');
    assert.equal(e.offset, 7);
  });

  test('comments: /* */ anywhere, -- up to a line break; -- without a line break is two minus signs', () => {
    assert.equal(print('/* x */ a /**/=/* * / */1 -- c\n'), 'a = 1');
    assert.equal(print('a = 1 -- c\r\n OR b = 2'), 'a = 1 OR b = 2');
    assert.equal(print('a = 1 -- c\r OR b = 2'), 'a = 1 OR b = 2');
    assert.deepEqual(rightOf('a = --5'), {
      kind: 'negate',
      operand: { kind: 'negate', operand: { kind: 'constant', value: 5 } },
    });
    assert.equal(parseError('a = 1 /* open').kind, 'lexical');
  });

  test('whitespace is space, tab, CR, LF and FF only', () => {
    assert.equal(print('a\t=\r\n1\f'), 'a = 1');
    assert.equal(parseError('a\u00a0= 1').kind, 'lexical');
    assert.equal(parseError('a =\u000b1').kind, 'lexical');
  });

  test('unary plus is dropped; TRUE, FALSE and NULL are boolean constants', () => {
    assert.deepEqual(rightOf("a = +'x'"), { kind: 'constant', value: 'x' });
    assert.deepEqual(root('TRUE'), { kind: 'constant', value: true });
    assert.deepEqual(root('false'), { kind: 'constant', value: false });
    assert.deepEqual(root('NULL'), { kind: 'constant', value: null });
  });
});

describe('precedence and shape', () => {
  test('AND binds tighter than OR; chains are flattened in order', () => {
    const r = root('a OR b AND c OR d');
    assert.equal(r.kind, 'or');
    if (r.kind !== 'or') return;
    assert.deepEqual(
      r.operands.map((o) => o.kind),
      ['booleanCast', 'and', 'booleanCast'],
    );
    assert.equal(print('(a OR b) OR (c OR d)'), 'a OR b OR c OR d');
    assert.equal(print('(a OR b) AND c'), '(a OR b) AND c');
  });

  test('NOT binds tighter than =, as in upstream: NOT a = 1 is (NOT a) = 1', () => {
    const r = root('NOT a = 1');
    assert.equal(r.kind, 'comparison');
    if (r.kind !== 'comparison') return;
    assert.equal(r.left.kind, 'not');
    assert.equal(print('NOT (a = 1)'), 'NOT (a = 1)');
  });

  test('comparisons bind tighter than equality, which chains to the left', () => {
    const r = root('a > 1 = b < 2');
    assert.equal(r.kind, 'comparison');
    if (r.kind === 'comparison') {
      assert.equal(r.operator, '=');
      assert.equal(r.left.kind, 'comparison');
    }
    assert.equal(print('a = 1 = 2'), 'a = 1 = 2');
    assert.equal(print('a = (1 = 2)'), 'a = (1 = 2)');
    assert.equal(print('a IS NULL IS NOT NULL'), 'a IS NULL IS NOT NULL');
  });

  test('a property in boolean position becomes a boolean cast', () => {
    assert.deepEqual(root('a'), { kind: 'booleanCast', operand: { kind: 'property', name: 'a' } });
    assert.deepEqual(root('NOT (a)'), {
      kind: 'not',
      operand: { kind: 'booleanCast', operand: { kind: 'property', name: 'a' } },
    });
  });

  test('parenthesised properties stay properties (IN accepts them)', () => {
    assert.equal(print("(a) IN ('x')"), "a IN ('x')");
  });

  test('printing keeps what the grammar needs and nothing more', () => {
    for (const [input, output] of [
      ['-(a = 1) IS NULL', '-(a = 1) IS NULL'],
      ['- -5 > a', '- -5 > a'],
      ['-(-5) > a', '- -5 > a'],
      ['a BETWEEN -1 AND (2)', 'a BETWEEN -1 AND 2'],
      ["a NOT IN ('x','y')", "a NOT IN ('x', 'y')"],
      ['NOT NOT TRUE', 'NOT NOT TRUE'],
      ['a > 1.0E10 AND b < 2.5 AND c = 1e21', 'a > 10000000000.0 AND b < 2.5 AND c = 1e+21'],
      ['(a = 1 OR b = 2) AND NOT (c = 3 AND d = 4)', '(a = 1 OR b = 2) AND NOT (c = 3 AND d = 4)'],
    ] as const) {
      assert.equal(print(input), output, input);
      assert.equal(print(output), output, output);
    }
  });
});

describe('what upstream accepts after the selector', () => {
  test('text after a complete selector is ignored, as long as the next token lexes', () => {
    assert.equal(print('a = 1 b = 2'), 'a = 1');
    assert.equal(print('a = 1 )'), 'a = 1');
    assert.equal(print('TRUE x #'), 'TRUE');
    assert.equal(parseError('TRUE #').kind, 'lexical');
  });

  test('rejectTrailingInput refuses it, with the position of the first extra token', () => {
    const e = parseError('a = 1 b = 2', { rejectTrailingInput: true });
    assert.equal(e.kind, 'syntax');
    assert.equal(e.offset, 6);
    assert.equal(parseSqlSelector('a = 1 -- c\n', { rejectTrailingInput: true }).kind, 'comparison');
  });
});

describe('semantic checks upstream makes while building', () => {
  const refused: ReadonlyArray<readonly [string, number]> = [
    ['5', 0],
    ["'x'", 0],
    ['NOT 5', 4],
    ['NOT -a', 4],
    ['a = 1 AND 5', 10],
    ["a > 'x'", 2],
    ['a > TRUE', 2],
    ['a > NULL', 2],
    ['(a > 1) > 0', 8],
    ['a = NULL', 2],
    ['NULL = a', 5],
    ["TRUE = 'x'", 5],
    ['FALSE <> 1', 6],
    ['a BETWEEN 5.5 AND 5', 2],
    ["a BETWEEN 'a' AND 'b'", 2],
    ['a BETWEEN TRUE AND 5', 2],
    ['a BETWEEN NULL AND 5', 2],
    ["a BETWEEN 1 AND 'x'", 2],
    ["a NOT BETWEEN 'a' AND 'b'", 2],
    ["a IN ('x') IN ('y')", 11],
    ["'x' IN ('x')", 4],
    ["a = 1 NOT IN ('x')", 6],
  ];
  for (const [text, offset] of refused) {
    test(`refused: ${text}`, () => {
      const e = parseError(text);
      assert.equal(e.kind, 'semantic');
      assert.equal(e.offset, offset);
    });
  }

  const accepted = [
    "'x' = TRUE",
    '5 = TRUE',
    'NULL IS NULL',
    'NOT NULL',
    'NULL AND TRUE',
    'a BETWEEN 5 AND -10',
    'a NOT BETWEEN 10 AND 0',
    "- 'x' = a",
    '-a > 1',
    'a = 1 = 2',
  ];
  for (const text of accepted) {
    test(`accepted: ${text}`, () => {
      assert.ok(parseSql92(text));
    });
  }
});

describe('errors', () => {
  test('each error names its kind, position and line/column, and carries SUBSCRIPTION_PARSE_FAILED', () => {
    const e = parseError('a = 1 AND\n  b IS 5');
    assert.equal(e.kind, 'syntax');
    assert.equal(e.offset, 17);
    assert.equal(e.line, 2);
    assert.equal(e.column, 8);
    assert.equal(e.responseCode, 23);
    assert.ok(e instanceof FilterCompileError);
    assert.match(e.message, /unexpected "5", expecting NOT at line 2, column 8/);
  });

  const syntax: ReadonlyArray<readonly [string, number, RegExp]> = [
    ['', 0, /end of the expression/],
    ['   ', 3, /end of the expression/],
    ['a = 1 OR', 8, /end of the expression/],
    ['(a = 1', 6, /expecting "\)"/],
    ['a NOT x', 6, /BETWEEN or IN after NOT/],
    ['a BETWEEN 1 OR 2', 12, /expecting AND/],
    ['a IN ()', 6, /string literal/],
    ['a IN (1)', 6, /string literal/],
    ["a IN ('x' 'y')", 10, /expecting "\)"/],
    ['a = = 1', 4, /literal, a property name/],
    ['a = 1 OR OR', 9, /literal, a property name/],
  ];
  for (const [text, offset, message] of syntax) {
    test(`syntax error at ${offset}: ${JSON.stringify(text)}`, () => {
      const e = parseError(text);
      assert.equal(e.kind, 'syntax');
      assert.equal(e.offset, offset);
      assert.match(e.message, message);
    });
  }

  const lexical: ReadonlyArray<readonly [string, number]> = [
    ['a # b', 2],
    ['a = "x"', 4],
    ['a = .', 4],
    ['\u00e9 = 1', 0],
    ['a = 1 AND b = ! 2', 14],
    ['a = 1 /* x', 6],
  ];
  for (const [text, offset] of lexical) {
    test(`lexical error at ${offset}: ${JSON.stringify(text)}`, () => {
      const e = parseError(text);
      assert.equal(e.kind, 'lexical');
      assert.equal(e.offset, offset);
    });
  }

  test('CRLF counts as one line break in line numbers', () => {
    const e = parseError('a = 1\r\nAND\r\n#');
    assert.equal(e.line, 3);
    assert.equal(e.column, 1);
  });
});
