/**
 * Named filters inside the broker's filter machinery, still without a broker: the FilterFactory
 * compiling NAMED through a registry (never caching a stale answer), the ConsumerFilterManager keeping
 * a heartbeat's NAMED and class-filter subscriptions, and the store-facing message filters (consume
 * queue passes, commit log decides, retried messages judged under their original topic).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { encodeMessage, MessageExt } from '../../../src/common/message/index.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import {
  build,
  buildConsumerFilterData,
  buildSubscriptionData,
  ConsumerFilterManager,
  ExpressionForRetryMessageFilter,
  ExpressionMessageFilter,
  FilterCompileError,
  FilterFactory,
  type NamedFilterFunction,
  NamedFilterRegistry,
} from '../../../src/filter/index.js';

function record(topic: string, props: Readonly<Record<string, string>>): Buffer {
  const ext = new MessageExt(topic, Buffer.from('body'));
  ext.properties = new Map(Object.entries(props));
  return encodeMessage(ext);
}

const topicsSeen: string[] = [];
const FILTERS = new Map<string, NamedFilterFunction>([
  ['red', (m) => m.properties.get('color') === 'red'],
  [
    'onTopicA',
    (m) => {
      topicsSeen.push(m.topic);
      return m.topic === 'TopicA';
    },
  ],
]);

function configured(): NamedFilterRegistry {
  const r = new NamedFilterRegistry();
  r.configure(FILTERS);
  return r;
}

function classFilterSub(topic: string, name: string): SubscriptionData {
  // What upstream's subscribe(topic, fullClassName, filterClassSource) sends.
  const sub = buildSubscriptionData(topic, '*', { subVersion: 5n });
  return { ...sub, subString: name, classFilterMode: true };
}

describe('FilterFactory with named filters', () => {
  test('NAMED compiles through the registry, one expression per name, nothing cached here', () => {
    const registry = configured();
    const f = new FilterFactory({ namedFilters: registry });
    assert.equal(f.supports('NAMED'), true);
    const red = f.compile('NAMED', 'red');
    assert.equal(f.compile('NAMED', 'red'), red);
    assert.equal(f.cachedCount, 0);
    assert.throws(
      () => f.compile('NAMED', 'green'),
      (e: unknown) =>
        e instanceof FilterCompileError && /named filter "green" does not exist/.test(e.message),
    );
    // SQL92 is still compiled and cached as before.
    f.compile('SQL92', 'a > 1');
    assert.equal(f.cachedCount, 1);
  });

  test('a failure before the filters are installed is not remembered afterwards', () => {
    const registry = new NamedFilterRegistry();
    const f = new FilterFactory({ namedFilters: registry });
    assert.throws(() => f.compile('NAMED', 'red'), /not configured/);
    registry.configure(FILTERS);
    assert.equal(f.compile('NAMED', 'red').text, 'red');
  });

  test('without a registry NAMED is an unsupported type, as before', () => {
    assert.throws(
      () => new FilterFactory().compile('NAMED', 'red'),
      /does not support consumer to filter message by NAMED/,
    );
  });
});

describe('ConsumerFilterManager with named filters', () => {
  test("a heartbeat's NAMED and class-filter subscriptions are kept as NAMED filter data", () => {
    const m = new ConsumerFilterManager({ factory: new FilterFactory({ namedFilters: configured() }) });
    m.register('g', [
      build('TopicA', 'red', 'NAMED', { subVersion: 5n }),
      classFilterSub('TopicB', 'onTopicA'),
      build('TopicC', 'TagA', 'TAG', { subVersion: 5n }),
    ]);
    assert.equal(m.get('TopicA', 'g')?.expressionType, 'NAMED');
    assert.equal(m.get('TopicA', 'g')?.compiledExpression.text, 'red');
    assert.equal(m.get('TopicB', 'g')?.expressionType, 'NAMED');
    assert.equal(m.get('TopicB', 'g')?.expression, 'onTopicA');
    assert.equal(m.get('TopicC', 'g'), undefined);
    assert.doesNotThrow(() => m.compile('NAMED', 'red'));
  });

  test('an unknown name, or no named filters at all, leaves no filter data; compile() says why', () => {
    const m = new ConsumerFilterManager({ factory: new FilterFactory({ namedFilters: configured() }) });
    m.register('g', [
      build('TopicA', 'green', 'NAMED', { subVersion: 5n }),
      classFilterSub('TopicB', 'com.x.Y'),
    ]);
    assert.equal(m.getByGroup('g').length, 0);
    assert.throws(
      () => m.compile('NAMED', 'green'),
      (e: unknown) => e instanceof FilterCompileError && e.responseCode === 23,
    );
    const none = new ConsumerFilterManager({
      factory: new FilterFactory({ namedFilters: new NamedFilterRegistry() }),
    });
    none.register('g', [build('TopicA', 'red', 'NAMED', { subVersion: 5n })]);
    assert.equal(none.getByGroup('g').length, 0);
    assert.throws(() => none.compile('NAMED', 'red'), /named filters are not configured/);
  });
});

describe('ExpressionMessageFilter with a NAMED filter', () => {
  const factory = new FilterFactory({ namedFilters: configured() });
  const data = buildConsumerFilterData('TopicA', 'g', 'red', 'NAMED', 5n, 0, factory);
  const red = record('TopicA', { color: 'red', TAGS: 'x' });
  const blue = record('TopicA', { color: 'blue', TAGS: 'x' });

  test('the consume queue passes everything; the commit log asks the filter', () => {
    const f = new ExpressionMessageFilter(build('TopicA', 'red', 'NAMED', { subVersion: 5n }), data);
    assert.equal(f.isMatchedByConsumeQueue(12345n), true);
    assert.equal(f.isMatchedByConsumeQueue(undefined), true);
    assert.equal(f.isMatchedByCommitLog(red), true);
    assert.equal(f.isMatchedByCommitLog(blue), false);
    assert.equal(f.isMatchedByCommitLog(Buffer.alloc(30)), false);
    // A held pull whose message could not be read wakes; the pull that follows judges it.
    assert.equal(f.isMatchedByCommitLog(undefined), true);
  });

  test("upstream's class-filter subscription is filtered the same way", () => {
    const f = new ExpressionMessageFilter(classFilterSub('TopicA', 'red'), data);
    assert.equal(f.isMatchedByConsumeQueue(1n), true);
    assert.equal(f.isMatchedByCommitLog(red), true);
    assert.equal(f.isMatchedByCommitLog(blue), false);
  });

  test('the retry variant judges a first delivery the same way', () => {
    const sub = build('TopicA', 'red', 'NAMED', { subVersion: 5n });
    const m = new ConsumerFilterManager({ factory });
    const f = new ExpressionForRetryMessageFilter(sub, data, m);
    assert.equal(f.isMatchedByCommitLog(red), true);
    assert.equal(f.isMatchedByCommitLog(blue), false);
    const cf = new ExpressionForRetryMessageFilter(classFilterSub('TopicA', 'red'), data, m);
    assert.equal(cf.isMatchedByCommitLog(blue), false);
  });
});

describe('ExpressionForRetryMessageFilter: retried messages under their original topic', () => {
  test("the group's NAMED filter for the original topic decides, and sees that topic", () => {
    const m = new ConsumerFilterManager({ factory: new FilterFactory({ namedFilters: configured() }) });
    m.register('g', [build('TopicA', 'onTopicA', 'NAMED', { subVersion: 5n })]);
    const retrySub = buildSubscriptionData('%RETRY%g', '*', { subVersion: 5n });
    const f = new ExpressionForRetryMessageFilter(retrySub, undefined, m);
    topicsSeen.length = 0;
    assert.equal(f.isMatchedByConsumeQueue(7n), true);
    assert.equal(f.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'TopicA' })), true);
    assert.deepEqual(topicsSeen, ['TopicA']);
    // A retried message of a topic the group filters by nothing passes, as does one without RETRY_TOPIC.
    assert.equal(f.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'TopicZ' })), true);
    assert.equal(f.isMatchedByCommitLog(record('%RETRY%g', {})), true);
    assert.deepEqual(topicsSeen, ['TopicA']);
  });

  test("a class-filter group's retried messages obey its named filter", () => {
    const m = new ConsumerFilterManager({ factory: new FilterFactory({ namedFilters: configured() }) });
    m.register('g', [classFilterSub('TopicA', 'red')]);
    const f = new ExpressionForRetryMessageFilter(buildSubscriptionData('%RETRY%g', '*'), undefined, m);
    assert.equal(f.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'TopicA', color: 'red' })), true);
    assert.equal(f.isMatchedByCommitLog(record('%RETRY%g', { RETRY_TOPIC: 'TopicA', color: 'blue' })), false);
  });
});
