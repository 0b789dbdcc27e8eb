/**
 * What the consumer-running golden bodies hold (BodyFixtures.consumerRunningBodies, restated from the
 * manifest's `content`): the values the official 4.9.8 classes were given, as our types.
 */
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { type ConsumeStatus, emptyConsumeStatus } from '../../../src/common/protocol/consume-status.js';
import {
  emptyProcessQueueInfo,
  type ProcessQueueInfo,
} from '../../../src/common/protocol/process-queue-info.js';

/** BodyFixtures.RUNNING_INFO_PROPERTIES: object2Properties' fields, then the PROP_ keys, in put order. */
export const RUNNING_INFO_PROPERTIES: ReadonlyArray<readonly [string, string]> = [
  ['consumerGroup', 'cg-golden'],
  ['messageModel', 'CLUSTERING'],
  ['consumeFromWhere', 'CONSUME_FROM_LAST_OFFSET'],
  ['consumeTimestamp', '20231114215320'],
  ['allocateMessageQueueStrategy', 'AVG'],
  ['subscription', '{}'],
  ['consumeThreadMin', '20'],
  ['consumeThreadMax', '20'],
  ['adjustThreadPoolNumsThreshold', '100000'],
  ['consumeConcurrentlyMaxSpan', '2000'],
  ['pullThresholdForQueue', '1000'],
  ['pullThresholdSizeForQueue', '100'],
  ['pullThresholdForTopic', '-1'],
  ['pullThresholdSizeForTopic', '-1'],
  ['pullInterval', '0'],
  ['consumeMessageBatchMaxSize', '1'],
  ['pullBatchSize', '32'],
  ['postSubscriptionWhenPull', 'false'],
  ['unitMode', 'false'],
  ['maxReconsumeTimes', '-1'],
  ['suspendCurrentQueueTimeMillis', '1000'],
  ['consumeTimeout', '15'],
  ['awaitTerminationMillisWhenShutdown', '0'],
  ['PROP_CONSUMEORDERLY', 'false'],
  ['PROP_THREADPOOL_CORE_SIZE', '20'],
  ['PROP_CONSUMER_START_TIMESTAMP', '1700000000000'],
  ['PROP_NAMESERVER_ADDR', '127.0.0.1:9876;127.0.0.2:9876;'],
  ['PROP_CONSUME_TYPE', 'CONSUME_PASSIVELY'],
  ['PROP_CLIENT_VERSION', 'V4_9_8'],
];

/** The consume-status fixture (also TopicTest's in consumer-running-info). */
export const CONSUME_STATUS: ConsumeStatus = {
  pullRT: 1.5,
  pullTPS: 1 / 3,
  consumeRT: 12345678.9,
  consumeOKTPS: 2,
  consumeFailedTPS: 1.0e-4,
  consumeFailedMsgs: 9007199254740993n,
};

/** TopicOrder's status in consumer-running-info. */
export const TOPIC_ORDER_STATUS: ConsumeStatus = {
  ...emptyConsumeStatus(),
  pullRT: 0.5,
  pullTPS: 10,
  consumeRT: 3.25,
  consumeOKTPS: 10,
};

/** BodyFixtures.processQueueInfo(base, locked, dropped). */
export function processQueueInfoFixture(base: bigint, locked: boolean, droped: boolean): ProcessQueueInfo {
  return {
    commitOffset: base,
    cachedMsgMinOffset: base + 1n,
    cachedMsgMaxOffset: base + 32n,
    cachedMsgCount: 32,
    cachedMsgSizeInMiB: 3,
    transactionMsgMinOffset: base + 1n,
    transactionMsgMaxOffset: base + 4n,
    transactionMsgCount: 4,
    locked,
    tryUnlockTimes: 2n,
    lastLockTimestamp: 1700000000100n,
    droped,
    lastPullTimestamp: 1700000000200n,
    lastConsumeTimestamp: 1700000000300n,
  };
}

/** consumer-running-info's mqTable in the order the fixture put it. */
export function runningInfoMqTablePutOrder(): Array<[MessageQueue, ProcessQueueInfo]> {
  return [
    [new MessageQueue('TopicTest', 'broker-b', 1), processQueueInfoFixture(200n, false, false)],
    [new MessageQueue('TopicTest', 'broker-a', 10), processQueueInfoFixture(110n, false, false)],
    [new MessageQueue('TopicTest', 'broker-a', 2), processQueueInfoFixture(102n, true, false)],
    [new MessageQueue('%RETRY%cg-golden', 'broker-a', 0), emptyProcessQueueInfo()],
    [new MessageQueue('TopicOrder', 'broker-a', 0), processQueueInfoFixture(0n, true, true)],
  ];
}
