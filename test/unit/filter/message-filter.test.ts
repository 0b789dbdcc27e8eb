/**
 * The broker's filters on stored records (SQL92 path, retry variant), the consumer filter registry,
 * and the compile cache.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ConsumerFilterHooks } from '../../../src/broker/client/default-consumer-ids-change-listener.js';
import { createLogger, type LogRecord } from '../../../src/common/logger.js';
import {
  encodeMessage,
  MESSAGE_MAGIC_CODE_V2,
  MessageExt,
  tagsString2tagsCode,
} from '../../../src/common/message/index.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import {
  build,
  buildConsumerFilterData,
  ConsumerFilterManager,
  ExpressionForRetryMessageFilter,
  ExpressionMessageFilter,
  FilterCompileError,
  FilterEvaluationError,
  FilterFactory,
  type MessageFilter,
  readRecordProperties,
  SqlParseError,
} from '../../../src/filter/index.js';
import type { MessageFilter as StoreMessageFilter } from '../../../src/store/message-store.js';

function record(topic: string, props: Readonly<Record<string, string>>, magicCode?: number): Buffer {
  const ext = new MessageExt(topic, Buffer.from('body'));
  ext.properties = new Map(Object.entries(props));
  if (magicCode !== undefined) ext.magicCode = magicCode;
  return encodeMessage(ext);
}

const factory = new FilterFactory();

function sqlFilter(expression: string): { sub: SubscriptionData; filter: ExpressionMessageFilter } {
  const sub = build('T', expression, 'SQL92', { subVersion: 1n });
  const data = buildConsumerFilterData('T', 'g', expression, 'SQL92', 1n, 1000, factory);
  return { sub, filter: new ExpressionMessageFilter(sub, data) };
}

test("the filters fit the store's interface and the manager fits the broker's filter hooks", () => {
  const f: StoreMessageFilter = sqlFilter('a > 1').filter;
  const g: MessageFilter = f;
  assert.equal(typeof g.isMatchedByCommitLog, 'function');
  const hooks: ConsumerFilterHooks = new ConsumerFilterManager();
  assert.equal(typeof hooks.compile, 'function');
});

describe('readRecordProperties', () => {
  test('the properties of a V1 or V2 record, undefined when there are none', () => {
    assert.deepEqual(
      readRecordProperties(record('T', { a: '1', TAGS: 'x' })),
      new Map([
        ['a', '1'],
        ['TAGS', 'x'],
      ]),
    );
    assert.deepEqual(
      readRecordProperties(record('T', { a: '\u00e9' }, MESSAGE_MAGIC_CODE_V2)),
      new Map([['a', '\u00e9']]),
    );
    assert.equal(readRecordProperties(record('T', {})), undefined);
  });
  test('a malformed record is a typed error', () => {
    assert.throws(() => readRecordProperties(Buffer.alloc(10)), { name: 'RemotingCommandError' });
  });
});

describe('ExpressionMessageFilter, SQL92 path', () => {
  const { filter } = sqlFilter("a > 5 AND b = 'x'");

  test('the consume queue passes everything (no bit maps)', () => {
    assert.equal(filter.isMatchedByConsumeQueue(12345n), true);
    assert.equal(filter.isMatchedByConsumeQueue(undefined), true);
  });

  test('the commit log check evaluates the stored properties; only TRUE matches', () => {
    assert.equal(filter.isMatchedByCommitLog(record('T', { a: '6', b: 'x' })), true);
    assert.equal(filter.isMatchedByCommitLog(record('T', { a: '5', b: 'x' })), false);
    assert.equal(filter.isMatchedByCommitLog(record('T', { a: '6' })), false);
    assert.equal(filter.isMatchedByCommitLog(record('T', {})), false);
    // A non-numeric a makes upstream's evaluation throw: no match.
    assert.equal(filter.isMatchedByCommitLog(record('T', { a: 'abc', b: 'x' })), false);
  });

  test('a record that cannot be read does not match; no record evaluates with no properties', () => {
    assert.equal(filter.isMatchedByCommitLog(Buffer.alloc(12)), false);
    assert.equal(filter.isMatchedByCommitLog(undefined), false);
    assert.equal(sqlFilter('a IS NULL').filter.isMatchedByCommitLog(undefined), true);
  });

  test('without compiled filter data everything passes; class-filter mode uses the filter data', () => {
    const { sub } = sqlFilter('a > 5');
    assert.equal(new ExpressionMessageFilter(sub, undefined).isMatchedByCommitLog(record('T', {})), true);
    const data = buildConsumerFilterData('T', 'g', 'FALSE', 'SQL92', 1n, 0, factory);
    // Upstream passed everything on to a filter server; here the flag selects a (NAMED) filter.
    const cf = new ExpressionMessageFilter({ ...sub, classFilterMode: true }, data);
    assert.equal(cf.isMatchedByConsumeQueue(12345n), true);
    assert.equal(cf.isMatchedByCommitLog(record('T', {})), false);
    const none = new ExpressionMessageFilter({ ...sub, classFilterMode: true }, undefined);
    assert.equal(none.isMatchedByCommitLog(record('T', {})), true);
  });

  test('TRUE, FALSE, IS NULL and BETWEEN as the interop test uses them', () => {
    const msg = record('T', { a: '7', b: 'x' });
    assert.equal(sqlFilter('TRUE').filter.isMatchedByCommitLog(msg), true);
    assert.equal(sqlFilter('FALSE').filter.isMatchedByCommitLog(msg), false);
    assert.equal(sqlFilter('c IS NULL').filter.isMatchedByCommitLog(msg), true);
    assert.equal(sqlFilter('a BETWEEN 5 AND 7').filter.isMatchedByCommitLog(msg), true);
    assert.equal(sqlFilter('a BETWEEN 8 AND 9').filter.isMatchedByCommitLog(msg), false);
  });

  test('a TAG subscription never looks at the record', () => {
    const sub = build('T', 'A', 'TAG', { subVersion: 1n });
    const f = new ExpressionMessageFilter(
      sub,
      buildConsumerFilterData('T', 'g', 'FALSE', 'SQL92', 1n, 0, factory),
    );
    assert.equal(f.isMatchedByCommitLog(record('T', {})), true);
    assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('A')), true);
    assert.equal(f.isMatchedByConsumeQueue(tagsString2tagsCode('B')), false);
  });
});

describe('ExpressionForRetryMessageFilter', () => {
  const manager = new ConsumerFilterManager({ clock: { now: () => 1000 } });
  manager.registerFilter('T', 'g', "a > 5 AND b = 'x'", 'SQL92', 1n);
  const retrySub = build('%RETRY%g', '*', 'TAG', { subVersion: 1n });
  const retry = new ExpressionForRetryMessageFilter(retrySub, undefined, manager);

  test("a retry message is filtered with the group's expression for its original topic", () => {
    assert.equal(retry.isMatchedByConsumeQueue(99n), true);
    assert.equal(retry.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'T', a: '6', b: 'x' })), true);
    assert.equal(retry.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'T', a: '1', b: 'x' })), false);
  });

  test('no filter for the original topic, or no RETRY_TOPIC: the message passes', () => {
    assert.equal(retry.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'Other', a: '1' })), true);
    assert.equal(retry.isMatchedByCommitLog(record('%RETRY%g', { a: '1' })), true);
    const otherGroup = new ExpressionForRetryMessageFilter(build('%RETRY%h', '*', 'TAG'), undefined, manager);
    assert.equal(otherGroup.isMatchedByCommitLog(record('%RETRY%h', { RETRY_TOPIC: 'T', a: '1' })), true);
  });

  test('on a normal topic it behaves like ExpressionMessageFilter', () => {
    const data = manager.get('T', 'g');
    const sql = new ExpressionForRetryMessageFilter(build('T', "a > 5 AND b = 'x'", 'SQL92'), data, manager);
    assert.equal(sql.isMatchedByCommitLog(record('T', { a: '6', b: 'x' })), true);
    assert.equal(sql.isMatchedByCommitLog(record('T', { a: '1', b: 'x' })), false);
    const tag = new ExpressionForRetryMessageFilter(build('T', 'A', 'TAG'), undefined, manager);
    assert.equal(tag.isMatchedByCommitLog(record('T', {})), true);
    assert.equal(tag.isMatchedByConsumeQueue(tagsString2tagsCode('B')), false);
  });

  test('a retry record that cannot be read does not match', () => {
    assert.equal(retry.isMatchedByCommitLog(Buffer.alloc(12)), false);
  });
});

describe('ConsumerFilterManager', () => {
  function manager(clock = { t: 1000 }): ConsumerFilterManager {
    return new ConsumerFilterManager({ clock: { now: () => clock.t }, filterDataCleanTimeSpan: 500 });
  }
  const expr = (i: number): string => `a is not null and a > ${(i - 1) * 10} and a < ${(i + 1) * 10}`;

  test('registers SQL92 subscriptions only, compiled once', () => {
    const m = manager();
    assert.equal(m.registerFilter('T', 'g', expr(0), 'SQL92', 1n), true);
    assert.equal(m.registerFilter('T', 'h', 'A || B', 'TAG', 1n), false);
    assert.equal(m.registerFilter('T', 'h', '', 'SQL92', 1n), false);
    const data = m.get('T', 'g');
    assert.ok(data);
    assert.equal(data.compiledExpression.matches(new Map([['a', '5']])), true);
    assert.equal(m.get('T', 'h'), undefined);
    assert.equal(m.get('U', 'g'), undefined);
  });

  test("upstream's testRegister: a newer version replaces, the same version is ignored", () => {
    const m = manager();
    m.registerFilter('topic9', 'CID_9', expr(9), 'SQL92', 10n);
    const first = m.get('topic9', 'CID_9');
    assert.equal(m.registerFilter('topic9', 'CID_9', 'a is not null', 'SQL92', 11n), true);
    const second = m.get('topic9', 'CID_9');
    assert.notEqual(second, first);
    assert.equal(second?.expression, 'a is not null');
    assert.equal(m.registerFilter('topic9', 'CID_9', 'a is null', 'SQL92', 11n), false);
    assert.equal(m.get('topic9', 'CID_9'), second);
    assert.equal(m.registerFilter('topic9', 'CID_9', 'a is null', 'SQL92', 5n), false);
  });

  test('a newer version with the same expression keeps the compiled filter and takes the version', () => {
    const m = manager();
    m.registerFilter('T', 'g', expr(1), 'SQL92', 1n);
    const data = m.get('T', 'g');
    assert.equal(m.registerFilter('T', 'g', expr(1), 'SQL92', 2n), true);
    assert.equal(m.get('T', 'g'), data);
    assert.equal(data?.clientVersion, 2n);
  });

  test("upstream's testRegister_newExpressionCompileErrorAndRemoveOld", () => {
    const m = manager();
    m.registerFilter('topic9', 'CID_9', expr(9), 'SQL92', 1n);
    assert.equal(m.registerFilter('topic9', 'CID_9', 'a between 10,20', 'SQL92', 2n), false);
    assert.equal(m.get('topic9', 'CID_9'), undefined);
    assert.equal(m.registerFilter('topic9', 'CID_9', 'a between 10 AND 20', 'SQL92', 3n), true);
    assert.equal(m.get('topic9', 'CID_9')?.expression, 'a between 10 AND 20');
  });

  test("upstream's testRegister_reAlive, and unregister / clean", () => {
    const clock = { t: 1000 };
    const m = manager(clock);
    m.registerFilter('topic9', 'CID_9', expr(9), 'SQL92', 7n);
    m.registerFilter('topic8', 'CID_9', expr(8), 'SQL92', 7n);
    clock.t = 2000;
    m.unregister('CID_9');
    assert.equal(m.get('topic9', 'CID_9')?.isDead(), true);
    assert.equal(m.get('topic9', 'CID_9')?.howLongAfterDeath(2100), 100);
    // Same version, dead: revived.
    assert.equal(m.registerFilter('topic9', 'CID_9', expr(9), 'SQL92', 7n), true);
    assert.equal(m.get('topic9', 'CID_9')?.isDead(), false);
    clock.t = 2499;
    m.clean();
    assert.ok(m.get('topic8', 'CID_9'));
    clock.t = 2500;
    m.clean();
    assert.equal(m.get('topic8', 'CID_9'), undefined);
    assert.deepEqual(m.getByTopic('topic8'), []);
    assert.ok(m.get('topic9', 'CID_9'));
  });

  test("register by subscriptions (heartbeat): adds each, and kills the group's filters on dropped topics", () => {
    const clock = { t: 1000 };
    const m = manager(clock);
    const subs = Array.from({ length: 3 }, (_, i) =>
      build(`topic${i}`, `a is not null and a > ${i}`, 'SQL92', { subVersion: 5n }),
    );
    m.register('CID_0', [...subs, build('tagTopic', 'A', 'TAG', { subVersion: 5n })]);
    assert.equal(m.getByGroup('CID_0').length, 3);
    clock.t = 2000;
    m.register('CID_0', subs.slice(1));
    assert.equal(m.get('topic0', 'CID_0')?.isDead(), true);
    assert.equal(m.get('topic1', 'CID_0')?.isDead(), false);
  });

  test('compile() reports a bad expression with SUBSCRIPTION_PARSE_FAILED, an unknown type too', () => {
    const m = manager();
    assert.doesNotThrow(() => m.compile('SQL92', 'a > 1'));
    assert.throws(
      () => m.compile('SQL92', 'a >'),
      (e: unknown) => e instanceof SqlParseError && e.responseCode === 23,
    );
    assert.throws(
      () => m.compile('NAMED', 'x'),
      (e: unknown) => e instanceof FilterCompileError && e.responseCode === 23,
    );
  });

  test('buildConsumerFilterData throws for a bad expression and gives nothing for TAG', () => {
    assert.throws(() => buildConsumerFilterData('T', 'g', 'a >', 'SQL92', 1n, 0, factory), SqlParseError);
    assert.equal(buildConsumerFilterData('T', 'g', 'A', 'TAG', 1n, 0, factory), undefined);
    assert.equal(buildConsumerFilterData('T', 'g', 'A', '', 1n, 0, factory), undefined);
  });
});

describe('FilterFactory', () => {
  test('compiles once per text; failures are cached too', () => {
    const f = new FilterFactory({ cacheSize: 2 });
    const a = f.compile('SQL92', 'a > 1');
    assert.equal(f.compile('SQL92', 'a > 1'), a);
    let first: unknown;
    try {
      f.compile('SQL92', 'a >');
    } catch (error) {
      first = error;
    }
    assert.ok(first instanceof SqlParseError);
    assert.throws(
      () => f.compile('SQL92', 'a >'),
      (e: unknown) => e === first,
    );
    assert.equal(f.cachedCount, 2);
  });

  test('the cache is bounded and drops the least recently used entry', () => {
    const f = new FilterFactory({ cacheSize: 2 });
    const a = f.compile('SQL92', 'a > 1');
    f.compile('SQL92', 'b > 1');
    f.compile('SQL92', 'a > 1');
    f.compile('SQL92', 'c > 1');
    assert.equal(f.cachedCount, 2);
    assert.equal(f.compile('SQL92', 'a > 1'), a);
    const b2 = f.compile('SQL92', 'b > 1');
    assert.equal(f.compile('SQL92', 'b > 1'), b2);
    const none = new FilterFactory({ cacheSize: 0 });
    assert.notEqual(none.compile('SQL92', 'a > 1'), none.compile('SQL92', 'a > 1'));
    assert.equal(none.cachedCount, 0);
  });

  test('limits and strictness are factory settings', () => {
    const strict = new FilterFactory({ rejectTrailingInput: true, maxDepth: 5, maxLength: 50 });
    assert.throws(() => strict.compile('SQL92', 'a = 1 b'), SqlParseError);
    assert.throws(() => strict.compile('SQL92', 'NOT NOT NOT NOT a'), /nested deeper than 5/);
    assert.throws(() => strict.compile('SQL92', `a = '${'x'.repeat(50)}'`), /longer than 50/);
    assert.ok(new FilterFactory().compile('SQL92', 'a = 1 b'));
  });

  test('other expression types can be registered (upstream FilterFactory.register), once', () => {
    const f = new FilterFactory();
    assert.equal(f.supports('NAMED'), false);
    f.register('NAMED', (expression) => ({
      type: 'NAMED',
      text: expression,
      evaluate: (ctx) => ctx?.get('name') === expression,
      matches: (ctx) => ctx?.get('name') === expression,
    }));
    assert.equal(f.compile('NAMED', 'n1').matches(new Map([['name', 'n1']])), true);
    assert.throws(() => f.register('NAMED', () => f.compile('SQL92', 'TRUE')), FilterCompileError);
    assert.throws(() => f.register('SQL92', () => f.compile('SQL92', 'TRUE')), FilterCompileError);
    assert.equal(f.unregister('NAMED'), true);
    assert.throws(() => f.compile('NAMED', 'n1'), FilterCompileError);
  });
});

describe('SQL92 failures are logged, rate-limited, never swallowed silently', () => {
  test('an expression that throws on a message: no match, one warn per interval with the dropped count', () => {
    const lines: LogRecord[] = [];
    let now = 0;
    const manager = new ConsumerFilterManager({
      clock: { now: () => now },
      logger: createLogger('broker', { sink: (r) => lines.push(r) }),
      failureLogIntervalMs: 1000,
    });
    const throwing = {
      type: 'SQL92',
      text: 'a > 1',
      evaluate: () => {
        throw new FilterEvaluationError('a is no number');
      },
      matches: () => {
        throw new FilterEvaluationError('a is no number');
      },
    };
    const sub = build('T', 'a > 1', 'SQL92', { subVersion: 1n });
    const filter = new ExpressionMessageFilter(sub, { compiledExpression: throwing }, (error) =>
      manager.evaluationFailed('T', 'g', error),
    );
    for (let i = 0; i < 5; i++) assert.equal(filter.isMatchedByCommitLog(record('T', { a: 'x' })), false);
    assert.equal(lines.length, 1);
    assert.equal(lines[0]?.level, 'warn');
    assert.deepEqual(
      [lines[0]?.fields.topic, lines[0]?.fields.group, lines[0]?.fields.dropped],
      ['T', 'g', 0],
    );
    assert.ok(lines[0]?.err instanceof FilterEvaluationError);
    now = 1000;
    filter.isMatchedByCommitLog(record('T', { a: 'x' }));
    assert.equal(lines.length, 2);
    assert.equal(lines[1]?.fields.dropped, 4);
  });

  test('a subscription that does not parse is logged when a heartbeat registers it', () => {
    const lines: LogRecord[] = [];
    const manager = new ConsumerFilterManager({
      logger: createLogger('broker', { sink: (r) => lines.push(r) }),
    });
    manager.register('g', [{ ...build('T', 'a > 1', 'SQL92', { subVersion: 1n }), subString: 'a >' }]);
    assert.equal(manager.get('T', 'g'), undefined);
    assert.match(lines[0]?.msg ?? '', /parse filter data failed/);
  });
});
