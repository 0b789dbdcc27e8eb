/** FilterAPI (building TAG / SQL92 subscriptions), the client's tag re-check, and the tag path of the broker filter. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import { tagsString2tagsCode } from '../../../src/common/message/index.js';
import {
  build,
  buildSubscriptionData,
  ExpressionMessageFilter,
  FilterAPI,
  FilterCompileError,
  isTagMatched,
} from '../../../src/filter/index.js';

const V = { subVersion: 1700000000000n };

describe('FilterAPI.buildSubscriptionData', () => {
  test("upstream's FilterAPITest: TAG1 || Tag2 || tag3", () => {
    const s = buildSubscriptionData('FooBar', 'TAG1 || Tag2 || tag3', V);
    assert.equal(s.topic, 'FooBar');
    assert.equal(s.subString, 'TAG1 || Tag2 || tag3');
    assert.deepEqual(new Set(s.tagsSet), new Set(['TAG1', 'Tag2', 'tag3']));
    assert.deepEqual(new Set(s.codeSet), new Set([2567159, 2598904, 3552217]));
    assert.equal(s.expressionType, 'TAG');
    assert.equal(s.classFilterMode, false);
    assert.equal(s.subVersion, 1700000000000n);
  });

  test('absent, empty and * subscribe to everything with subString *', () => {
    for (const sub of [undefined, '', '*']) {
      const s = buildSubscriptionData('T', sub, V);
      assert.equal(s.subString, '*');
      assert.deepEqual(s.tagsSet, []);
      assert.deepEqual(s.codeSet, []);
    }
  });

  test('pieces are trimmed the Java way (chars <= U+0020 only) and empty pieces skipped', () => {
    const s = buildSubscriptionData('T', ' A ||\tB\n|| ||||\u00a0C\u00a0', V);
    assert.deepEqual(new Set(s.tagsSet), new Set(['A', 'B', '\u00a0C\u00a0']));
    assert.equal(s.subString, ' A ||\tB\n|| ||||\u00a0C\u00a0');
  });

  test('split is left to right and non-overlapping, like String.split("\\\\|\\\\|")', () => {
    assert.deepEqual(buildSubscriptionData('T', 'a|||b', V).tagsSet.sort(), ['a', '|b']);
    assert.deepEqual(buildSubscriptionData('T', 'a|b', V).tagsSet, ['a|b']);
    assert.deepEqual(buildSubscriptionData('T', '||a', V).tagsSet, ['a']);
    // "*" inside a list is just a tag named "*".
    assert.deepEqual(buildSubscriptionData('T', 'a || *', V).tagsSet.sort(), ['*', 'a']);
  });

  test('only separators: Java split leaves nothing and upstream throws', () => {
    for (const sub of ['||', '||||', '|| ||'.replace(' ', '')]) {
      assert.throws(() => buildSubscriptionData('T', sub, V), FilterCompileError);
    }
    // Blank pieces survive the split, so this one is accepted with no tags (and so matches nothing by hash).
    const blank = buildSubscriptionData('T', ' || ', V);
    assert.deepEqual(blank.tagsSet, []);
    assert.equal(blank.subString, ' || ');
  });

  test('duplicates collapse; both sets iterate in Java HashSet order', () => {
    const s = buildSubscriptionData('T', 'C || A || B || A', V);
    // Buckets of a 16-slot table: A=65 -> 1, B=66 -> 2, C=67 -> 3.
    assert.deepEqual(s.tagsSet, ['A', 'B', 'C']);
    assert.deepEqual(s.codeSet, [65, 66, 67]);
    // "Aa" and "BB" collide: one code, two tags, kept in insertion order within the bucket.
    const c = buildSubscriptionData('T', 'BB || Aa', V);
    assert.deepEqual(c.tagsSet, ['BB', 'Aa']);
    assert.deepEqual(c.codeSet, [2112]);
  });

  test('codes are Java String.hashCode, negative ones included', () => {
    const s = buildSubscriptionData('T', 'polygenelubricants || \u00e9t\u00e9', V);
    assert.ok(s.codeSet.includes(-2147483648));
    assert.ok(s.codeSet.includes(javaStringHashCode('\u00e9t\u00e9')));
  });

  test('subVersion defaults to the current time', () => {
    const before = BigInt(Date.now());
    const s = buildSubscriptionData('T', 'a');
    assert.ok(s.subVersion >= before && s.subVersion <= BigInt(Date.now()));
  });
});

describe('FilterAPI.build', () => {
  test("TAG or no type takes the tag path (upstream's testBuildTagSome)", () => {
    for (const type of ['TAG', undefined]) {
      const s = build('TOPIC', 'A || B', type, V);
      assert.equal(s.expressionType, 'TAG');
      assert.deepEqual(s.tagsSet, ['A', 'B']);
    }
  });

  test("SQL92 keeps the expression as is (upstream's testBuildSQL)", () => {
    const s = FilterAPI.build('TOPIC', 'a is not null', 'SQL92', V);
    assert.equal(s.topic, 'TOPIC');
    assert.equal(s.expressionType, 'SQL92');
    assert.equal(s.subString, 'a is not null');
    assert.deepEqual(s.tagsSet, []);
    assert.deepEqual(s.codeSet, []);
  });

  test('a non-TAG type needs an expression', () => {
    assert.throws(() => build('T', undefined, 'SQL92', V), { name: 'FilterCompileError', responseCode: 23 });
    assert.throws(() => build('T', '', 'SQL92', V), /Expression can't be null! SQL92/);
  });

  test('an empty type is not TAG to build, but is kept and reads as TAG later', () => {
    const s = build('T', 'A || B', '', V);
    assert.equal(s.expressionType, '');
    assert.equal(s.subString, 'A || B');
    assert.deepEqual(s.tagsSet, []);
  });
});

describe('client tag re-check (PullAPIWrapper)', () => {
  const sub = buildSubscriptionData('T', 'A || B', V);
  test('only messages whose TAGS is in tagsSet pass; a message without TAGS does not', () => {
    assert.equal(isTagMatched(sub, 'A'), true);
    assert.equal(isTagMatched(sub, 'B'), true);
    assert.equal(isTagMatched(sub, 'C'), false);
    assert.equal(isTagMatched(sub, 'a'), false);
    assert.equal(isTagMatched(sub, undefined), false);
  });
  test('hash collisions are caught here: Aa and BB share a code', () => {
    const s = buildSubscriptionData('T', 'Aa', V);
    const f = new ExpressionMessageFilter(s, undefined);
    assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('BB')), true);
    assert.equal(isTagMatched(s, 'BB'), false);
  });
  test('* or class-filter mode keeps everything', () => {
    const all = buildSubscriptionData('T', '*', V);
    assert.equal(isTagMatched(all, undefined), true);
    assert.equal(isTagMatched({ ...sub, classFilterMode: true }, 'C'), true);
  });
});

describe('ExpressionMessageFilter, tag path', () => {
  const sub = buildSubscriptionData('T', 'A || polygenelubricants', V);
  const f = new ExpressionMessageFilter(sub, undefined);

  test('codeSet contains (int) tagsCode', () => {
    assert.equal(f.isMatchedByConsumeQueue(65n), true);
    assert.equal(f.isMatchedByConsumeQueue(66n), false);
    assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('polygenelubricants')), true);
  });

  test('only the low 32 bits of the stored long count', () => {
    assert.equal(f.isMatchedByConsumeQueue((1n << 32n) + 65n), true);
    assert.equal(f.isMatchedByConsumeQueue(-(1n << 40n) + 65n), true);
    // Integer.MIN_VALUE, whether stored sign-extended or not.
    assert.equal(f.isMatchedByConsumeQueue(-2147483648n), true);
    assert.equal(f.isMatchedByConsumeQueue(2147483648n), true);
    assert.equal(f.isMatchedByConsumeQueue(2147483647n), false);
    assert.equal(f.isMatchedByConsumeQueue(0n), false);
  });

  test('an absent tagsCode passes, and the commit log check passes for TAG', () => {
    assert.equal(f.isMatchedByConsumeQueue(undefined), true);
    assert.equal(f.isMatchedByCommitLog(undefined), true);
    assert.equal(f.isMatchedByCommitLog(Buffer.from('not a record')), true);
  });

  test('subString * passes every code; no subscription or class-filter mode passes everything', () => {
    const all = new ExpressionMessageFilter(buildSubscriptionData('T', '*', V), undefined);
    assert.equal(all.isMatchedByConsumeQueue(12345n), true);
    assert.equal(new ExpressionMessageFilter(undefined, undefined).isMatchedByConsumeQueue(1n), true);
    const cf = new ExpressionMessageFilter({ ...sub, classFilterMode: true }, undefined);
    assert.equal(cf.isMatchedByConsumeQueue(1n), true);
  });

  test('a subscription whose tags were all blank matches no tagged message', () => {
    const blank = new ExpressionMessageFilter(buildSubscriptionData('T', ' || ', V), undefined);
    assert.equal(blank.isMatchedByConsumeQueue(65n), false);
    assert.equal(blank.isMatchedByConsumeQueue(undefined), true);
  });
});
