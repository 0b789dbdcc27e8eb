/**
 * What a push consumer answers GET_CONSUMER_RUNNING_INFO with: ProcessQueueInfo filled from a real
 * ProcessQueue (upstream fillProcessQueueInfo), and buildConsumerRunningInfo putting the properties,
 * subscriptions, queues and stats together as DefaultMQPushConsumerImpl and MQClientInstance do —
 * checked against the official 4.9.8 bytes of the consumer-running-info golden fixture.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ProcessQueue } from '../../../src/client/consumer/process-queue.js';
import {
  buildConsumerRunningInfo,
  type ConsumerRunningInfoInput,
  PUSH_CONSUMER_PROPERTY_FIELDS,
} from '../../../src/client/consumer/stats/consumer-running-info-builder.js';
import { ConsumerStatsManager } from '../../../src/client/consumer/stats/consumer-stats-manager.js';
import { fillProcessQueueInfo } from '../../../src/client/consumer/stats/process-queue-info.js';
import { ManualClock } from '../../../src/common/clock.js';
import { MessageExt } from '../../../src/common/message/message.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { type ConsumeStatus, emptyConsumeStatus } from '../../../src/common/protocol/consume-status.js';
import {
  decodeConsumerRunningInfo,
  encodeConsumerRunningInfo,
} from '../../../src/common/protocol/consumer-running-info.js';
import {
  emptyProcessQueueInfo,
  type ProcessQueueInfo,
} from '../../../src/common/protocol/process-queue-info.js';
import { buildSubscriptionData } from '../../../src/filter/filter-api.js';
import { goldenFile, goldenManifest } from '../../golden-fixtures.js';
import {
  CONSUME_STATUS,
  RUNNING_INFO_PROPERTIES,
  runningInfoMqTablePutOrder,
  TOPIC_ORDER_STATUS,
} from '../common/consumer-running-golden.js';

const T0 = 1_700_000_000_000;
const MIB = 1024 * 1024;

function message(offset: number, bodyBytes: number): MessageExt {
  const m = new MessageExt();
  m.topic = 'TopicTest';
  m.queueOffset = BigInt(offset);
  m.body = Buffer.alloc(bodyBytes);
  return m;
}

describe('fillProcessQueueInfo (upstream ProcessQueue.fillProcessQueueInfo)', () => {
  test('a new queue: nothing cached, timestamps of its creation, the given commit offset', () => {
    const clock = new ManualClock(T0);
    const info = fillProcessQueueInfo(new ProcessQueue(clock), 42n);
    assert.deepEqual(info, {
      ...emptyProcessQueueInfo(),
      commitOffset: 42n,
      lastLockTimestamp: BigInt(T0),
      lastPullTimestamp: BigInt(T0),
      lastConsumeTimestamp: BigInt(T0),
    });
  });

  test('cached and taken messages, size in whole MiB, lock and drop state as the queue holds them', () => {
    const clock = new ManualClock(T0);
    const pq = new ProcessQueue(clock);
    // 10 messages of 0.5 MiB at offsets 100..109: 5 MiB cached.
    pq.putMessage(Array.from({ length: 10 }, (_, i) => message(100 + i, MIB / 2)));
    let info = fillProcessQueueInfo(pq, 100n);
    assert.equal(info.cachedMsgMinOffset, 100n);
    assert.equal(info.cachedMsgMaxOffset, 109n);
    assert.equal(info.cachedMsgCount, 10);
    assert.equal(info.cachedMsgSizeInMiB, 5);
    assert.equal(info.transactionMsgCount, 0);

    // Orderly: 3 taken for the listener; the cache is what is left.
    clock.advance(1_000);
    pq.takeMessages(3);
    pq.locked = true;
    pq.lastLockTimestamp = clock.now();
    pq.tryUnlockTimes = 2;
    pq.dropped = true;
    info = fillProcessQueueInfo(pq, 100n);
    assert.deepEqual(info, {
      commitOffset: 100n,
      cachedMsgMinOffset: 103n,
      cachedMsgMaxOffset: 109n,
      cachedMsgCount: 7,
      // Taken messages still count in msgSize until committed: 5 MiB.
      cachedMsgSizeInMiB: 5,
      transactionMsgMinOffset: 100n,
      transactionMsgMaxOffset: 102n,
      transactionMsgCount: 3,
      locked: true,
      tryUnlockTimes: 2n,
      lastLockTimestamp: BigInt(T0 + 1_000),
      droped: true,
      lastPullTimestamp: BigInt(T0),
      lastConsumeTimestamp: BigInt(T0 + 1_000),
    } satisfies ProcessQueueInfo);

    // Less than a MiB left after the commit rounds down to 0.
    pq.commit();
    pq.removeMessage([103, 104, 105, 106, 107, 108].map((o) => message(o, MIB / 2)));
    info = fillProcessQueueInfo(pq, 110n);
    assert.equal(info.cachedMsgCount, 1);
    assert.equal(info.cachedMsgSizeInMiB, 0);
    assert.equal(info.transactionMsgCount, 0);
    assert.equal(info.transactionMsgMinOffset, 0n);
  });
});

/** A ProcessQueue in the state the fixture's ProcessQueueInfo for `base` describes. */
function processQueueFor(expected: ProcessQueueInfo): ProcessQueue {
  const clock = new ManualClock(Number(expected.lastPullTimestamp));
  const pq = new ProcessQueue(clock);
  if (expected.cachedMsgCount > 0) {
    for (let o = expected.cachedMsgMinOffset; o <= expected.cachedMsgMaxOffset; o++) {
      pq.msgTreeMap.put(Number(o), message(Number(o), 0));
    }
    for (let o = expected.transactionMsgMinOffset; o <= expected.transactionMsgMaxOffset; o++) {
      pq.consumingMsgOrderlyTreeMap.put(Number(o), message(Number(o), 0));
    }
    pq.msgSize = expected.cachedMsgSizeInMiB * MIB + 12_345;
  }
  pq.locked = expected.locked;
  pq.tryUnlockTimes = Number(expected.tryUnlockTimes);
  pq.lastLockTimestamp = Number(expected.lastLockTimestamp);
  pq.dropped = expected.droped;
  pq.lastConsumeTimestamp = Number(expected.lastConsumeTimestamp);
  return pq;
}

describe('buildConsumerRunningInfo', () => {
  const golden = goldenManifest().bodies.find((b) => b.name === 'consumer-running-info');
  assert.ok(golden);
  const bytes = goldenFile(golden.file);
  const queues = runningInfoMqTablePutOrder();
  const statuses = new Map<string, ConsumeStatus>([
    ['TopicTest', CONSUME_STATUS],
    ['%RETRY%cg-golden', emptyConsumeStatus()],
    ['TopicOrder', TOPIC_ORDER_STATUS],
  ]);
  const commitOffsets = new Map(queues.map(([mq, pq]) => [mq.key, pq.commitOffset]));
  const fieldCount = RUNNING_INFO_PROPERTIES.length - 6;

  function input(): ConsumerRunningInfoInput {
    return {
      consumerFields: RUNNING_INFO_PROPERTIES.slice(0, fieldCount),
      consumeOrderly: false,
      threadPoolCoreSize: 20,
      consumerStartTimestamp: T0,
      namesrvAddrList: ['127.0.0.1:9876', '127.0.0.2:9876'],
      consumeType: 'CONSUME_PASSIVELY',
      subscriptions: [
        buildSubscriptionData('TopicTest', 'TagA || TagB', { subVersion: 1700000000000n }),
        buildSubscriptionData('%RETRY%cg-golden', '*', { subVersion: 1700000000000n }),
        buildSubscriptionData('TopicOrder', '*', { subVersion: 1700000000000n }),
      ],
      processQueueTable: queues.map(([mq, expected]) => [mq, processQueueFor(expected)] as const),
      commitOffset: (mq) => commitOffsets.get(mq.key) ?? -1n,
      consumeStatus: (topic) => statuses.get(topic) ?? emptyConsumeStatus(),
    };
  }

  test("properties in upstream's put order: the consumer's fields, then the six PROP_ keys", () => {
    const info = buildConsumerRunningInfo(input());
    assert.deepEqual([...info.properties], RUNNING_INFO_PROPERTIES);
  });

  test('the official bytes (properties given in the order the Java fixture wrote them)', () => {
    const info = buildConsumerRunningInfo(input());
    const wireOrder = [...decodeConsumerRunningInfo(bytes).properties.keys()];
    const reordered = new Map(wireOrder.map((k) => [k, info.properties.get(k) as string]));
    assert.equal(reordered.size, info.properties.size);
    assert.equal(
      encodeConsumerRunningInfo({ ...info, properties: reordered }).toString('utf8'),
      bytes.toString('utf8'),
    );
  });

  test('settings as Java toString gives them; null and undefined left out; jstack only when given', () => {
    const info = buildConsumerRunningInfo({
      ...input(),
      consumerFields: {
        consumerGroup: 'cg',
        pullThresholdSizeForQueue: 100,
        postSubscriptionWhenPull: true,
        consumeTimeout: 15n,
        ratio: 0.5,
        tiny: 1e-4,
        offsetStore: undefined,
        traceDispatcher: null,
      },
      consumeOrderly: true,
      threadPoolCoreSize: 64,
      namesrvAddrList: [],
      jstack: 'no threads',
    });
    assert.deepEqual([...info.properties].slice(0, 6), [
      ['consumerGroup', 'cg'],
      ['pullThresholdSizeForQueue', '100'],
      ['postSubscriptionWhenPull', 'true'],
      ['consumeTimeout', '15'],
      ['ratio', '0.5'],
      ['tiny', '1.0E-4'],
    ]);
    assert.equal(info.properties.get('PROP_CONSUMEORDERLY'), 'true');
    assert.equal(info.properties.get('PROP_THREADPOOL_CORE_SIZE'), '64');
    assert.equal(info.properties.get('PROP_NAMESERVER_ADDR'), '');
    assert.equal(info.properties.get('PROP_CLIENT_VERSION'), 'V4_9_8');
    assert.equal(info.properties.has('offsetStore'), false);
    assert.equal(decodeConsumerRunningInfo(encodeConsumerRunningInfo(info)).jstack, 'no threads');
    assert.equal(buildConsumerRunningInfo(input()).jstack, undefined);
  });

  test('statusTable from a live ConsumerStatsManager, one entry per subscribed topic', () => {
    const clock = new ManualClock(T0);
    const stats = new ConsumerStatsManager(clock);
    stats.start();
    clock.advance(0);
    stats.incPullRT('cg-golden', 'TopicTest', 8);
    stats.incPullTPS('cg-golden', 'TopicTest', 20);
    stats.incConsumeOKTPS('cg-golden', 'TopicTest', 20);
    clock.advance(10_000);
    const info = buildConsumerRunningInfo({
      ...input(),
      consumeStatus: (topic) => stats.consumeStatus('cg-golden', topic),
    });
    const back = decodeConsumerRunningInfo(encodeConsumerRunningInfo(info));
    assert.deepEqual([...back.statusTable.keys()], ['%RETRY%cg-golden', 'TopicOrder', 'TopicTest']);
    assert.deepEqual(back.statusTable.get('TopicTest'), {
      ...emptyConsumeStatus(),
      pullRT: 8,
      pullTPS: 2,
      consumeOKTPS: 2,
    });
    assert.deepEqual(back.statusTable.get('TopicOrder'), emptyConsumeStatus());
    stats.shutdown();
    assert.equal(clock.pending, 0);
  });

  test('the fixed field list names what object2Properties reads of DefaultMQPushConsumer', () => {
    const fixtureFields = RUNNING_INFO_PROPERTIES.slice(0, fieldCount).map(([k]) => k);
    // The fixture adds the two object fields it gave deterministic values; every listed field is in it.
    for (const f of PUSH_CONSUMER_PROPERTY_FIELDS) assert.ok(fixtureFields.includes(f), f);
    assert.deepEqual(
      fixtureFields.filter((f) => !(PUSH_CONSUMER_PROPERTY_FIELDS as readonly string[]).includes(f)),
      ['allocateMessageQueueStrategy', 'subscription'],
    );
  });

  test('a queue missing from the offset store reports commitOffset -1', () => {
    const mq = new MessageQueue('TopicTest', 'broker-c', 0);
    const info = buildConsumerRunningInfo({
      ...input(),
      processQueueTable: [[mq, new ProcessQueue(new ManualClock(T0))]],
    });
    assert.equal(info.mqTable.length, 1);
    assert.equal(info.mqTable[0]?.[1].commitOffset, -1n);
  });
});
