/** Bounds on hostile selectors: length, nesting and tree depth are refused with a typed error, never a crash. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_SQL_MAX_DEPTH,
  DEFAULT_SQL_MAX_LENGTH,
  parseSql92,
  parseSqlSelector,
  SqlParseError,
} from '../../../src/filter/index.js';

function limitError(text: string, options = {}): SqlParseError {
  try {
    parseSqlSelector(text, options);
  } catch (error) {
    assert.ok(error instanceof SqlParseError, String(error));
    assert.equal(error.kind, 'limit', error.message);
    return error;
  }
  assert.fail('parsed');
}

describe('nesting', () => {
  test('10,000 nested parentheses are refused where the limit is crossed', () => {
    const e = limitError(`${'('.repeat(10_000)}a = 1${')'.repeat(10_000)}`);
    assert.equal(e.offset, DEFAULT_SQL_MAX_DEPTH);
    assert.match(e.message, /nested deeper than 100 levels/);
  });

  test('10,000 NOTs, minus signs or plus signs are refused', () => {
    limitError(`${'NOT '.repeat(10_000)}a`);
    limitError(`a = ${'- '.repeat(10_000)}1`);
    limitError(`a = ${'+ '.repeat(10_000)}1`);
  });

  test('a long equality chain builds a deep tree and is refused', () => {
    limitError(`a${' = 1'.repeat(500)}`);
    limitError(`a${' IS NULL'.repeat(500)}`);
  });

  test('up to the limit is fine, one more is not', () => {
    const ok = `${'('.repeat(DEFAULT_SQL_MAX_DEPTH - 1)}a${')'.repeat(DEFAULT_SQL_MAX_DEPTH - 1)}`;
    assert.equal(parseSql92(ok).toString(), 'a');
    limitError(`(${ok})`);
    // NOT ... NOT (cast (a)): the tree is two levels deeper than the NOTs.
    const nots = (n: number): string => `${'NOT '.repeat(n)}a`;
    // A string property casts to FALSE; 98 NOTs leave it FALSE, 97 make it TRUE.
    assert.equal(parseSql92(nots(DEFAULT_SQL_MAX_DEPTH - 2)).evaluate(new Map([['a', 'x']])), false);
    assert.equal(parseSql92(nots(DEFAULT_SQL_MAX_DEPTH - 3)).evaluate(new Map([['a', 'x']])), true);
    limitError(nots(DEFAULT_SQL_MAX_DEPTH - 1));
    assert.ok(parseSql92(nots(18), { maxDepth: 20 }));
    limitError(nots(19), { maxDepth: 20 });
  });

  test('long AND/OR chains are flat, not deep: 4,000 ORs parse and evaluate', () => {
    const text = Array.from({ length: 4000 }, (_, i) => `a = '${i}'`).join(' OR ');
    const e = parseSql92(text);
    assert.equal(e.root.kind, 'or');
    assert.equal(e.evaluate(new Map([['a', '3999']])), true);
    assert.equal(e.evaluate(new Map([['a', 'x']])), false);
    assert.equal(e.evaluate(new Map()), null);
  });
});

describe('length', () => {
  test('an expression over maxLength is refused before it is read', () => {
    const text = `a IN (${Array.from({ length: 20_000 }, (_, i) => `'${i}'`).join(', ')})`;
    assert.ok(text.length > DEFAULT_SQL_MAX_LENGTH);
    const e = limitError(text);
    assert.equal(e.offset, DEFAULT_SQL_MAX_LENGTH);
    limitError('a = 1', { maxLength: 4 });
    assert.ok(parseSql92('a = 1', { maxLength: 5 }));
  });

  test('a large IN list under the limit is one set lookup', () => {
    const values = Array.from({ length: 5000 }, (_, i) => `'v${i}'`);
    const e = parseSql92(`a IN (${values.join(',')})`);
    assert.equal(e.evaluate(new Map([['a', 'v4321']])), true);
    assert.equal(e.evaluate(new Map([['a', 'w']])), false);
  });
});
