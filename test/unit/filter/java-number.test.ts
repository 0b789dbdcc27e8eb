/** Java's string conversions used on property values: Integer/Long/Double/Boolean.valueOf and Character.digit. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  javaDigit,
  javaParseBoolean,
  javaParseDouble,
  javaParseInt,
  javaParseLong,
  javaTrim,
} from '../../../src/filter/sql/java-number.js';

describe('Integer.valueOf / Long.valueOf', () => {
  test('sign, digits, range', () => {
    assert.equal(javaParseInt('0'), 0);
    assert.equal(javaParseInt('-0'), 0);
    assert.equal(javaParseInt('+42'), 42);
    assert.equal(javaParseInt('00042'), 42);
    assert.equal(javaParseInt('2147483647'), 2147483647);
    assert.equal(javaParseInt('-2147483648'), -2147483648);
    assert.equal(javaParseInt('2147483648'), undefined);
    assert.equal(javaParseInt('-2147483649'), undefined);
    assert.equal(javaParseLong('9223372036854775807'), 9223372036854775807n);
    assert.equal(javaParseLong('-9223372036854775808'), -9223372036854775808n);
    assert.equal(javaParseLong('9223372036854775808'), undefined);
    assert.equal(javaParseLong(`${'0'.repeat(40)}9223372036854775807`), 9223372036854775807n);
    assert.equal(javaParseLong('1'.repeat(400)), undefined);
  });

  test('exact beyond 2^53 (a double accumulator would round)', () => {
    assert.equal(javaParseLong('9007199254740993'), 9007199254740993n);
    assert.equal(javaParseLong('9223372036854775806'), 9223372036854775806n);
  });

  test('refused: empty, lone sign, spaces, decimals, suffixes, separators', () => {
    for (const s of ['', '-', '+', ' 1', '1 ', '1.0', '1L', '1_000', '0x10', '1e3', '--1', '\u0661\u0662x']) {
      assert.equal(javaParseInt(s), undefined, JSON.stringify(s));
      assert.equal(javaParseLong(s), undefined, JSON.stringify(s));
    }
  });

  test('any Unicode decimal digit counts, as Character.digit does', () => {
    assert.equal(javaParseInt('\u0661\u0662'), 12);
    assert.equal(javaParseInt('\uff19\uff10'), 90);
    assert.equal(javaParseInt('\u0969'), 3);
    assert.equal(javaDigit(0x0660), 0);
    assert.equal(javaDigit(0x0669), 9);
    assert.equal(javaDigit(0x00b2), -1);
    assert.equal(javaDigit(0xd835), -1);
  });
});

describe('Double.valueOf', () => {
  test('decimal forms, trimmed, with an optional f/F/d/D suffix', () => {
    for (const [s, v] of [
      ['1', 1],
      ['-1.5', -1.5],
      ['+.5', 0.5],
      ['5.', 5],
      ['1e3', 1000],
      ['1E-3', 0.001],
      ['2.5e+2', 250],
      [' \t7\n', 7],
      ['\u00017\u0020', 7],
      ['1.5f', 1.5],
      ['1.5D', 1.5],
      ['1e400', Number.POSITIVE_INFINITY],
      ['-1e400', Number.NEGATIVE_INFINITY],
      ['1e-400', 0],
      ['0.1', 0.1],
      ['9007199254740993', 9007199254740992],
    ] as const) {
      assert.equal(javaParseDouble(s), v, JSON.stringify(s));
    }
    assert.ok(Object.is(javaParseDouble('-0'), -0));
  });

  test('NaN and Infinity, signed', () => {
    assert.ok(Number.isNaN(javaParseDouble('NaN')));
    assert.ok(Number.isNaN(javaParseDouble('-NaN')));
    assert.equal(javaParseDouble('Infinity'), Number.POSITIVE_INFINITY);
    assert.equal(javaParseDouble('-Infinity'), Number.NEGATIVE_INFINITY);
    assert.equal(javaParseDouble('+Infinity'), Number.POSITIVE_INFINITY);
  });

  test('hexadecimal with a binary exponent, correctly rounded', () => {
    assert.equal(javaParseDouble('0x1p3'), 8);
    assert.equal(javaParseDouble('0X1.8P1'), 3);
    assert.equal(javaParseDouble('-0x.8p1'), -1);
    assert.equal(javaParseDouble('0x1.fffffffffffffp1023'), Number.MAX_VALUE);
    assert.equal(javaParseDouble('0x1p1024'), Number.POSITIVE_INFINITY);
    assert.equal(javaParseDouble('0x1p-1074'), 5e-324);
    assert.equal(javaParseDouble('0x1p-1075'), 0);
    assert.equal(javaParseDouble('0x1.8p-1075'), 5e-324);
    assert.equal(javaParseDouble('0x1.00000000000008p0'), 1);
    assert.equal(javaParseDouble('0x1.00000000000018p0'), 1 + 2 ** -51);
    assert.equal(javaParseDouble('0x0p99999999999'), 0);
    assert.equal(javaParseDouble('0x1p99999999999'), Number.POSITIVE_INFINITY);
    assert.equal(javaParseDouble('0x1p-99999999999'), 0);
    assert.equal(javaParseDouble('0x1.4p2d'), 5);
  });

  test('refused', () => {
    for (const s of [
      '',
      ' ',
      '.',
      'e5',
      '1e',
      '1e+',
      '0x',
      '0x1',
      '0x1.8',
      'inf',
      'nan',
      'Infinityf',
      '1_0',
      '1.5.2',
      '1 2',
      '1ff',
    ]) {
      assert.equal(javaParseDouble(s), undefined, JSON.stringify(s));
    }
  });
});

describe('Boolean.valueOf and String.trim', () => {
  test('only a case-insensitive "true" is true', () => {
    assert.equal(javaParseBoolean('true'), true);
    assert.equal(javaParseBoolean('TrUe'), true);
    assert.equal(javaParseBoolean(' true'), false);
    assert.equal(javaParseBoolean('yes'), false);
    assert.equal(javaParseBoolean(''), false);
  });
  test('trim drops chars <= U+0020 only', () => {
    assert.equal(javaTrim('\u0000 a b\u001f'), 'a b');
    assert.equal(javaTrim('\u00a0a\u00a0'), '\u00a0a\u00a0');
    assert.equal(javaTrim('   '), '');
  });
});
