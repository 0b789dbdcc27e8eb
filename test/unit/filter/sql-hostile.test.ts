/**
 * Expressions built to be expensive or to make error messages huge: each is refused (or evaluated) in
 * time that does not grow with the attacker's effort beyond the text's length, and no error message
 * echoes more than a short excerpt of the text. Also the cost of the sets the broker filters with.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import {
  buildSubscriptionData,
  DEFAULT_SQL_MAX_DEPTH,
  DEFAULT_SQL_MAX_LENGTH,
  ExpressionMessageFilter,
  FilterFactory,
  parseSql92,
  parseSqlSelector,
  SqlParseError,
  type SqlParseOptions,
} from '../../../src/filter/index.js';

/** Parses, expects a refusal, and returns it with the time it took. */
function refusal(text: string, options: SqlParseOptions = {}): { error: SqlParseError; ms: number } {
  const started = performance.now();
  try {
    parseSqlSelector(text, options);
  } catch (error) {
    const ms = performance.now() - started;
    assert.ok(error instanceof SqlParseError, String(error));
    return { error, ms };
  }
  assert.fail(`parsed: ${text.slice(0, 60)}`);
}

/** Best of a few runs: a refusal's own cost, without a stray GC pause or a cold JIT. */
function bestRefusalMs(text: string, options: SqlParseOptions = {}): number {
  let best = Number.POSITIVE_INFINITY;
  for (let i = 0; i < 3; i++) best = Math.min(best, refusal(text, options).ms);
  return best;
}

const SHORT = 300;

describe('refusals take milliseconds', () => {
  test('10,000 nested parentheses stop at the limit, before anything deeper is read', () => {
    const text = `${'('.repeat(10_000)}a > 5${')'.repeat(10_000)}`;
    const { error } = refusal(text);
    assert.equal(error.kind, 'limit');
    assert.equal(error.offset, DEFAULT_SQL_MAX_DEPTH);
    assert.ok(bestRefusalMs(text) < 20);
    // A million of them cost the same: the parser never looks past the limit.
    const million = `${'('.repeat(1_000_000)}a`;
    assert.ok(bestRefusalMs(million, { maxLength: 2_000_000 }) < 20);
  });

  test('an IN list of 100,000 items is refused by its length before it is read', () => {
    const text = `a IN (${Array.from({ length: 100_000 }, (_, i) => `'v${i}'`).join(',')})`;
    const { error } = refusal(text);
    assert.equal(error.kind, 'limit');
    assert.match(error.message, /longer than 65536 characters/);
    assert.ok(bestRefusalMs(text) < 5);
  });

  test('a run of minus signs with no line break is read once, not once per sign', () => {
    // `--` starts a comment only if a line break follows somewhere; each minus sign used to rescan
    // the rest of the text for one, so the run cost depth x length.
    const text = `a = ${'-'.repeat(1_000_000)}1`;
    const options = { maxLength: 1 << 20, maxDepth: 256 };
    const { error } = refusal(text, options);
    assert.equal(error.kind, 'limit');
    assert.ok(bestRefusalMs(text, options) < 50);
    // A comment that does end still works, after a run of them too.
    assert.equal(parseSql92('a = --x\n 1').toString(), 'a = 1');
    const twice = parseSql92('a = - - 1').toString();
    assert.equal(parseSql92('a = - - --x\n1').toString(), twice);
    assert.equal(parseSql92('a = --1 --').toString(), twice);
  });

  test('an integer literal of 65,000 digits is refused without converting it', () => {
    const text = `a = ${'9'.repeat(65_000)}`;
    const { error } = refusal(text);
    assert.equal(error.kind, 'semantic');
    assert.match(
      error.message,
      /^Invalid SQL92 expression: integer literal 9+\.\.\. is out of the long range/,
    );
    assert.ok(error.message.length < SHORT, `${error.message.length} chars`);
    assert.ok(bestRefusalMs(text) < 20);
    // The boundary is unchanged.
    assert.ok(parseSql92('a = 9223372036854775807'));
    assert.equal(refusal('a = 9223372036854775808').error.kind, 'semantic');
    assert.equal(refusal('a = 10000000000000000000').error.kind, 'semantic');
  });
});

describe('error messages never echo a long text', () => {
  const long = 'x'.repeat(60_000);
  const cases: Array<[string, string, RegExp]> = [
    ['string compared by >', `'${long}' > 1`, /value 'x+\.\.\. cannot be compared/],
    ['TRUE = string', `TRUE = '${long}'`, /TRUE cannot be compared with 'x+\.\.\./],
    ['BETWEEN a string and a number', `a BETWEEN '${long}' AND 5`, /BETWEEN bounds cannot be compared: /],
    ['BETWEEN high < low', `a BETWEEN 'z${long}' AND 'a'`, /BETWEEN low value 'zx+\.\.\. must be/],
    ['huge float', `a = 1${'0'.repeat(400)}.5`, /1000+\.\.\. is greater than/],
    ['tiny float', `a = 0.${'0'.repeat(400)}1`, /0\.000+\.\.\. is less than/],
    [
      'a long identifier where a string goes',
      `a IN (${long})`,
      /unexpected "x{40}\.\.\.", expecting a string literal/,
    ],
    ['an unterminated string', `a = '${long}`, /unterminated string literal/],
    ['not boolean', `'${long}'`, /will not result in a boolean value: 'x+\.\.\./],
  ];
  for (const [name, text, reason] of cases) {
    test(name, () => {
      const { error } = refusal(text);
      assert.match(error.message, reason);
      assert.ok(
        error.message.length < SHORT,
        `${error.message.length} chars: ${error.message.slice(0, 120)}`,
      );
    });
  }
});

describe('evaluation cost', () => {
  test('an IN list is one set lookup: 6,000 items cost what 1 item costs', () => {
    const items = Array.from({ length: 6_000 }, (_, i) => `'v${i}'`);
    const big = parseSql92(`a IN (${items.join(',')})`);
    assert.ok(`a IN (${items.join(',')})`.length < DEFAULT_SQL_MAX_LENGTH);
    const small = parseSql92("a IN ('v5999')");
    const hit = new Map([['a', 'v5999']]);
    const miss = new Map([['a', 'w']]);
    const rate = (e: typeof big): number => {
      let best = Number.POSITIVE_INFINITY;
      for (let round = 0; round < 5; round++) {
        const started = performance.now();
        for (let i = 0; i < 20_000; i++) {
          e.evaluate(hit);
          e.evaluate(miss);
        }
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };
    assert.equal(big.evaluate(hit), true);
    assert.equal(big.evaluate(miss), false);
    const bigMs = rate(big);
    const smallMs = rate(small);
    // A scan of 6,000 items per message would be thousands of times slower.
    assert.ok(
      bigMs < smallMs * 5 + 5,
      `6,000 items ${bigMs.toFixed(2)} ms vs 1 item ${smallMs.toFixed(2)} ms`,
    );
  });

  test('a filter made per pull reuses the tag set of its subscription', () => {
    const tags = Array.from({ length: 100_000 }, (_, i) => `Tag${i}`);
    const sub = buildSubscriptionData('T', tags.join('||'), { subVersion: 1n });
    let best = Number.POSITIVE_INFINITY;
    for (let round = 0; round < 3; round++) {
      const started = performance.now();
      for (let i = 0; i < 100; i++) {
        const f = new ExpressionMessageFilter(sub, undefined);
        assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('Tag99999')), true);
        assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('Other')), false);
      }
      best = Math.min(best, performance.now() - started);
    }
    // Building a 100,000-entry set takes milliseconds; 100 filters must not take 100 times that.
    assert.ok(best < 50, `100 filters over 100,000 tags: ${best.toFixed(2)} ms`);
  });

  test('the broker builds a pull subscription without the Java order, with the same sets', () => {
    const text = 'b || a || c || a || TagX';
    const ordered = buildSubscriptionData('T', text, { subVersion: 1n });
    const plain = buildSubscriptionData('T', text, { subVersion: 1n, javaOrder: false });
    assert.deepEqual([...plain.tagsSet].sort(), [...ordered.tagsSet].sort());
    assert.deepEqual([...plain.codeSet].sort(), [...ordered.codeSet].sort());
    assert.deepEqual(plain.tagsSet, ['b', 'a', 'c', 'TagX']);
    assert.equal(plain.subString, ordered.subString);
  });
});

describe('the compile cache', () => {
  test('keeps neither over-length texts nor their refusals', () => {
    const f = new FilterFactory({ maxLength: 100 });
    const long = `a = '${'x'.repeat(200)}'`;
    for (let i = 0; i < 3; i++) assert.throws(() => f.compile('SQL92', long), /longer than 100 characters/);
    assert.equal(f.cachedCount, 0);
    // Texts within the limit are kept, refusals included.
    assert.ok(f.compile('SQL92', 'a = 1'));
    assert.throws(() => f.compile('SQL92', 'a = ('), SqlParseError);
    assert.equal(f.cachedCount, 2);
  });
});
