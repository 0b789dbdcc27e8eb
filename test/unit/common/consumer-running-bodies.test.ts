/**
 * The GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY bodies against the official bytes
 * (test/fixtures/golden, written by fastjson 1.2.69 through the 4.9.8 beans): ConsumeStatus,
 * ProcessQueueInfo, ConsumerRunningInfo and ConsumeMessageDirectlyResult are encoded from the values
 * the fixtures were built from, in the order the fixtures put them, and compared byte for byte; then
 * the fixtures are decoded.
 *
 * One thing is not ours to reproduce: the order of the Properties (the iteration order of the
 * ConcurrentHashMap inside java.util.Properties on JDK 9+, a Hashtable's before). The encoder writes
 * them in the order given, so the byte comparison gives them in the fixture's order and a separate
 * check compares them as a map.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { RemotingCommandError } from '../../../src/common/errors.js';
import { stringifyFastjson } from '../../../src/common/fastjson/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { BodyReader } from '../../../src/common/protocol/body-reader.js';
import {
  CMResult,
  type ConsumeMessageDirectlyResult,
  decodeConsumeMessageDirectlyResult,
  emptyConsumeMessageDirectlyResult,
  encodeConsumeMessageDirectlyResult,
} from '../../../src/common/protocol/consume-message-directly-result.js';
import {
  consumeStatusValue,
  emptyConsumeStatus,
  readConsumeStatus,
} from '../../../src/common/protocol/consume-status.js';
import {
  type ConsumerRunningInfo,
  decodeConsumerRunningInfo,
  encodeConsumerRunningInfo,
} from '../../../src/common/protocol/consumer-running-info.js';
import {
  emptyProcessQueueInfo,
  processQueueInfoValue,
  readProcessQueueInfo,
} from '../../../src/common/protocol/process-queue-info.js';
import type { SubscriptionData } from '../../../src/common/protocol/subscription-data.js';
import { buildSubscriptionData } from '../../../src/filter/filter-api.js';
import { goldenFile, goldenManifest } from '../../golden-fixtures.js';
import {
  CONSUME_STATUS,
  processQueueInfoFixture,
  RUNNING_INFO_PROPERTIES,
  runningInfoMqTablePutOrder,
  TOPIC_ORDER_STATUS,
} from './consumer-running-golden.js';

function golden(name: string): Buffer {
  const g = goldenManifest().bodies.find((b) => b.name === name);
  assert.ok(g, `fixture ${name}`);
  return goldenFile(g.file);
}

function assertRejects(decode: (b: Buffer) => unknown, bytes: Buffer): void {
  assert.throws(() => decode(Buffer.concat([bytes, bytes])), RemotingCommandError, 'two bodies back to back');
  for (const n of [0, 1, Math.floor(bytes.length / 2), bytes.length - 1]) {
    assert.throws(() => decode(bytes.subarray(0, n)), RemotingCommandError, `cut to ${n} bytes`);
  }
}

const SUB_VERSION = 1700000000000n;
const sub = (topic: string, expression: string): SubscriptionData =>
  buildSubscriptionData(topic, expression, { subVersion: SUB_VERSION });

/** The subscriptions as the fixture added them (not TreeSet order). */
const SUBSCRIPTIONS_PUT_ORDER = [
  sub('TopicTest', 'TagA || TagB'),
  sub('%RETRY%cg-golden', '*'),
  sub('TopicOrder', '*'),
];

/** The keys of the fixture's `properties` object, in wire order. */
function wirePropertyOrder(bytes: Buffer): string[] {
  const r = BodyReader.parse('ConsumerRunningInfo', bytes);
  return r
    .field('properties')
    .entries()
    .map(([k]) => k);
}

describe('ConsumeStatus', () => {
  test('the fixtures, byte for byte, and back', () => {
    const bytes = golden('consume-status');
    assert.equal(stringifyFastjson(consumeStatusValue(CONSUME_STATUS)), bytes.toString('utf8'));
    assert.deepEqual(readConsumeStatus(BodyReader.parse('ConsumeStatus', bytes)), CONSUME_STATUS);
    const zero = golden('consume-status.zero');
    assert.equal(stringifyFastjson(consumeStatusValue(emptyConsumeStatus())), zero.toString('utf8'));
    assert.deepEqual(readConsumeStatus(BodyReader.parse('ConsumeStatus', zero)), emptyConsumeStatus());
  });

  test('NaN and infinities are written as null (fastjson), which reads back as 0', () => {
    const text = stringifyFastjson(
      consumeStatusValue({
        ...emptyConsumeStatus(),
        pullTPS: Number.NaN,
        consumeRT: Number.POSITIVE_INFINITY,
      }),
    );
    assert.equal(
      text,
      '{"consumeFailedMsgs":0,"consumeFailedTPS":0.0,"consumeOKTPS":0.0,"consumeRT":null,"pullRT":0.0,"pullTPS":null}',
    );
    assert.deepEqual(
      readConsumeStatus(BodyReader.parse('ConsumeStatus', Buffer.from(text))),
      emptyConsumeStatus(),
    );
  });
});

describe('ProcessQueueInfo', () => {
  test('the fixture (longs past 2^53), byte for byte, and back', () => {
    const bytes = golden('process-queue-info');
    const info = processQueueInfoFixture(9007199254740993n, true, true);
    assert.equal(stringifyFastjson(processQueueInfoValue(info)), bytes.toString('utf8'));
    assert.deepEqual(readProcessQueueInfo(BodyReader.parse('ProcessQueueInfo', bytes)), info);
  });

  test('a wrong type in a field is refused, naming the field', () => {
    assert.throws(
      () => readProcessQueueInfo(BodyReader.parse('ProcessQueueInfo', Buffer.from('{"locked":"yes"}'))),
      (e: unknown) => e instanceof RemotingCommandError && /\$\.locked: not a boolean/.test(e.message),
    );
    assert.throws(
      () =>
        readProcessQueueInfo(
          BodyReader.parse('ProcessQueueInfo', Buffer.from('{"cachedMsgCount":2147483648}')),
        ),
      RemotingCommandError,
    );
    assert.deepEqual(readProcessQueueInfo(BodyReader.parse('P', Buffer.from('{}'))), emptyProcessQueueInfo());
  });
});

describe('ConsumerRunningInfo', () => {
  const bytes = golden('consumer-running-info');

  function fixtureInfo(properties: ReadonlyMap<string, string>): ConsumerRunningInfo {
    return {
      properties,
      subscriptionSet: SUBSCRIPTIONS_PUT_ORDER,
      mqTable: runningInfoMqTablePutOrder(),
      statusTable: [
        ['TopicTest', CONSUME_STATUS],
        ['%RETRY%cg-golden', emptyConsumeStatus()],
        ['TopicOrder', TOPIC_ORDER_STATUS],
      ],
    };
  }

  test('the fixture byte for byte: TreeSet, TreeMaps sorted as Java sorts them, properties in the order given', () => {
    const byKey = new Map(RUNNING_INFO_PROPERTIES);
    const wireOrder = wirePropertyOrder(bytes);
    assert.deepEqual([...wireOrder].sort(), [...byKey.keys()].sort(), 'the same property keys');
    const properties = new Map(wireOrder.map((k) => [k, byKey.get(k) as string]));
    assert.equal(encodeConsumerRunningInfo(fixtureInfo(properties)).toString('utf8'), bytes.toString('utf8'));
  });

  test('the fixture decodes into the values it was built from, collections in Java order', () => {
    const info = decodeConsumerRunningInfo(bytes);
    assert.deepEqual(info.properties, new Map(RUNNING_INFO_PROPERTIES));
    assert.deepEqual(
      info.subscriptionSet.map((s) => `${s.topic}@${s.subString}`),
      ['%RETRY%cg-golden@*', 'TopicOrder@*', 'TopicTest@TagA || TagB'],
    );
    assert.deepEqual(info.subscriptionSet[2], SUBSCRIPTIONS_PUT_ORDER[0]);
    assert.deepEqual(
      info.mqTable.map(([mq]) => `${mq.topic}/${mq.brokerName}/${mq.queueId}`),
      [
        '%RETRY%cg-golden/broker-a/0',
        'TopicOrder/broker-a/0',
        'TopicTest/broker-a/2',
        'TopicTest/broker-a/10',
        'TopicTest/broker-b/1',
      ],
    );
    const put = new Map(runningInfoMqTablePutOrder().map(([mq, pq]) => [mq.key, pq]));
    for (const [mq, pq] of info.mqTable) assert.deepEqual(pq, put.get(mq.key), mq.toString());
    assert.deepEqual(
      info.statusTable,
      new Map([
        ['%RETRY%cg-golden', emptyConsumeStatus()],
        ['TopicOrder', TOPIC_ORDER_STATUS],
        ['TopicTest', CONSUME_STATUS],
      ]),
    );
    assert.equal(info.jstack, undefined);
    // Decoded, then encoded with the decoded property order: the same bytes.
    assert.equal(encodeConsumerRunningInfo(info).toString('utf8'), bytes.toString('utf8'));
  });

  test('the empty and jstack fixtures, both ways', () => {
    const empty = golden('consumer-running-info.empty');
    const none = { properties: new Map(), subscriptionSet: [], mqTable: [], statusTable: new Map() };
    assert.equal(encodeConsumerRunningInfo(none).toString('utf8'), empty.toString('utf8'));
    assert.deepEqual(decodeConsumerRunningInfo(empty), { ...none, jstack: undefined });

    const withStack = golden('consumer-running-info.jstack');
    const stack = {
      ...none,
      properties: new Map([['PROP_CONSUME_TYPE', 'CONSUME_PASSIVELY']]),
      jstack: '"main" Id=1 RUNNABLE\n\tat Main.run(Main.java:7)\n',
    };
    assert.equal(encodeConsumerRunningInfo(stack).toString('utf8'), withStack.toString('utf8'));
    assert.deepEqual(decodeConsumerRunningInfo(withStack), stack);
  });

  test('duplicates as Java collections keep them: first subscription, first queue with the last value', () => {
    const mq = new MessageQueue('T', 'b', 0);
    const first = processQueueInfoFixture(1n, false, false);
    const last = processQueueInfoFixture(2n, true, false);
    const a = sub('T', 'x || y');
    const b = { ...sub('T', 'x || y'), subVersion: 5n };
    const encoded = encodeConsumerRunningInfo({
      properties: new Map(),
      subscriptionSet: [a, b],
      mqTable: [
        [mq, first],
        [new MessageQueue('T', 'b', 0), last],
      ],
      statusTable: [
        ['T', CONSUME_STATUS],
        ['T', TOPIC_ORDER_STATUS],
      ],
    });
    const back = decodeConsumerRunningInfo(encoded);
    assert.deepEqual(back.subscriptionSet, [a]);
    assert.deepEqual(back.mqTable, [[mq, last]]);
    assert.deepEqual(back.statusTable, new Map([['T', TOPIC_ORDER_STATUS]]));
  });

  test('peer input: property values that are not strings, absent fields, broken bodies', () => {
    const odd = decodeConsumerRunningInfo(Buffer.from('{"properties":{"a":1,"b":true,"c":null,"d":"x"}}'));
    assert.deepEqual(
      odd.properties,
      new Map([
        ['a', '1'],
        ['b', 'true'],
        ['d', 'x'],
      ]),
    );
    assert.deepEqual(odd.mqTable, []);
    assert.deepEqual(odd.subscriptionSet, []);
    assert.throws(
      () => decodeConsumerRunningInfo(Buffer.from('{"properties":{"a":{"x":1}}}')),
      (e: unknown) =>
        e instanceof RemotingCommandError && /properties\.a: not a property value/.test(e.message),
    );
    assert.throws(
      () => decodeConsumerRunningInfo(Buffer.from('{"mqTable":{{"topic":"T"}:{}}}')),
      RemotingCommandError,
    );
    assert.throws(() => decodeConsumerRunningInfo(undefined), RemotingCommandError);
    assertRejects(decodeConsumerRunningInfo, bytes);
  });
});

describe('ConsumeMessageDirectlyResult', () => {
  const cases: Array<[string, ConsumeMessageDirectlyResult]> = [
    [
      'consume-message-directly-result',
      { ...emptyConsumeMessageDirectlyResult(), consumeResult: CMResult.CR_SUCCESS, spentTimeMills: 12n },
    ],
    [
      'consume-message-directly-result.thrown',
      {
        order: true,
        autoCommit: false,
        consumeResult: CMResult.CR_THROW_EXCEPTION,
        remark: 'java.lang.IllegalStateException: bad "order" 订单',
        spentTimeMills: 9007199254740993n,
      },
    ],
    ['consume-message-directly-result.empty', emptyConsumeMessageDirectlyResult()],
  ];

  for (const [name, value] of cases) {
    test(`${name}, byte for byte, and back`, () => {
      const bytes = golden(name);
      assert.equal(encodeConsumeMessageDirectlyResult(value).toString('utf8'), bytes.toString('utf8'));
      assert.deepEqual(decodeConsumeMessageDirectlyResult(bytes), value);
      assertRejects(decodeConsumeMessageDirectlyResult, bytes);
    });
  }

  test('an unknown consumeResult reads as none (fastjson gives null); a wrong type is refused', () => {
    assert.equal(
      decodeConsumeMessageDirectlyResult(Buffer.from('{"consumeResult":"CR_MAYBE"}')).consumeResult,
      undefined,
    );
    assert.throws(
      () => decodeConsumeMessageDirectlyResult(Buffer.from('{"order":1}')),
      (e: unknown) => e instanceof RemotingCommandError && /\$\.order: not a boolean/.test(e.message),
    );
  });
});
