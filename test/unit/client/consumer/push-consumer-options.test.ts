/**
 * Push consumer options against upstream 4.9.8: the defaults of DefaultMQPushConsumer and the
 * constants of DefaultMQPushConsumerImpl, ProcessQueue and the consume services; checkConfig's
 * ranges (every bad value a ValidationError naming the option); consumeTimestamp as upstream's
 * yyyyMMddHHmmss local time, a Date or ms, with impossible dates refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseConsumeTimestamp } from '../../../../src/client/consumer/consumer-options.js';
import {
  DEFAULT_PUSH_CONSUMER_OPTIONS,
  type PushConsumerOptions,
  resolvePushConsumerOptions,
} from '../../../../src/client/consumer/push/push-consumer-options.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import { ValidationError } from '../../../../src/common/errors.js';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

function resolve(extra: Record<string, unknown>) {
  return resolvePushConsumerOptions({ consumerGroup: 'cg', ...extra } as PushConsumerOptions, NOW);
}

function refused(extra: Record<string, unknown>, name: string): void {
  assert.throws(
    () => resolve(extra),
    (e: unknown) => {
      assert.ok(e instanceof ValidationError, `${name}: ${String(e)} is a ValidationError`);
      assert.match(e.message, new RegExp(name), `the message names ${name}`);
      return true;
    },
    `${name} = ${String(Object.values(extra)[0])}`,
  );
}

describe('push consumer option defaults', () => {
  test('equal upstream DefaultMQPushConsumer 4.9.8 and the constants of its implementation', () => {
    const o = resolvePushConsumerOptions({ consumerGroup: 'cg' }, NOW);
    assert.deepEqual(
      { ...o },
      {
        consumerGroup: 'cg',
        // DefaultMQPushConsumer fields
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        consumeTimestamp: NOW - 30 * 60 * 1000,
        allocateMessageQueueStrategy: undefined, // AllocateMessageQueueAveragely is made by the consumer
        consumeConcurrency: 20, // consumeThreadMin = consumeThreadMax = 20
        consumeConcurrentlyMaxSpan: 2000,
        pullThresholdForQueue: 1000,
        pullThresholdSizeForQueue: 100,
        pullThresholdForTopic: -1,
        pullThresholdSizeForTopic: -1,
        pullInterval: 0,
        pullBatchSize: 32,
        consumeMessageBatchMaxSize: 1,
        postSubscriptionWhenPull: false,
        maxReconsumeTimes: -1,
        suspendCurrentQueueTimeMillis: 1000,
        consumeTimeout: 15,
        awaitTerminationMillisWhenShutdown: 0,
        localOffsetStoreDir: undefined,
        // DefaultMQPushConsumerImpl
        pullTimeDelayMillsWhenFlowControl: 50, // PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL
        pullTimeDelayMillsWhenSuspend: 1000, // PULL_TIME_DELAY_MILLS_WHEN_SUSPEND
        brokerSuspendMaxTimeMillis: 15_000, // BROKER_SUSPEND_MAX_TIME_MILLIS
        consumerTimeoutMillisWhenSuspend: 30_000, // CONSUMER_TIMEOUT_MILLIS_WHEN_SUSPEND
        // ConsumeMessageConcurrentlyService.submitConsumeRequestLater
        consumeRetryDelayWhenSendBackFailed: 5000,
        // ProcessQueue system properties
        lockInterval: 20_000, // rocketmq.client.rebalance.lockInterval
        lockMaxLiveTime: 30_000, // rocketmq.client.rebalance.lockMaxLiveTime
        pullMaxIdleTime: 120_000, // rocketmq.client.pull.pullMaxIdleTime
        // ConsumeMessageOrderlyService
        maxTimeConsumeContinuously: 60_000, // rocketmq.client.maxTimeConsumeContinuously
        // 5.x DefaultMQPushConsumer (POP)
        clientRebalance: true,
        popInvisibleTime: 60_000,
        popBatchNums: 32,
        popThresholdForQueue: 96,
        // ours (no upstream counterpart)
        lockRetryInterval: 1000,
      },
    );
    assert.equal(DEFAULT_PUSH_CONSUMER_OPTIONS.consumeTimestampAgoMs, 30 * 60 * 1000);
  });

  test('values given are kept', () => {
    const strategy = new AllocateMessageQueueAveragely();
    const o = resolve({
      messageModel: 'BROADCASTING',
      consumeFromWhere: 'CONSUME_FROM_TIMESTAMP',
      consumeTimestamp: 123,
      allocateMessageQueueStrategy: strategy,
      consumeConcurrency: 1000,
      consumeConcurrentlyMaxSpan: 65535,
      pullThresholdForQueue: 1,
      pullThresholdSizeForQueue: 1024,
      pullThresholdForTopic: 6_553_500,
      pullThresholdSizeForTopic: 102_400,
      pullInterval: 65535,
      pullBatchSize: 1024,
      consumeMessageBatchMaxSize: 1024,
      postSubscriptionWhenPull: true,
      maxReconsumeTimes: 3,
      localOffsetStoreDir: '/tmp/x',
    });
    assert.equal(o.messageModel, 'BROADCASTING');
    assert.equal(o.consumeFromWhere, 'CONSUME_FROM_TIMESTAMP');
    assert.equal(o.consumeTimestamp, 123);
    assert.equal(o.allocateMessageQueueStrategy, strategy);
    assert.equal(o.consumeConcurrency, 1000);
    assert.equal(o.pullThresholdForTopic, 6_553_500);
    assert.equal(o.pullThresholdSizeForTopic, 102_400);
    assert.equal(o.postSubscriptionWhenPull, true);
    assert.equal(o.maxReconsumeTimes, 3);
    assert.equal(o.localOffsetStoreDir, '/tmp/x');
  });
});

describe('push consumer option checks', () => {
  test('POP options: upstream checkConfig ranges', () => {
    for (const v of [4999, 300_001, 1.5]) refused({ popInvisibleTime: v }, 'popInvisibleTime');
    for (const v of [0, 33]) refused({ popBatchNums: v }, 'popBatchNums');
    refused({ popThresholdForQueue: 0 }, 'popThresholdForQueue');
    refused({ clientRebalance: 'no' }, 'clientRebalance');
    assert.equal(resolve({ popInvisibleTime: 5000, clientRebalance: false }).clientRebalance, false);
  });

  test('the group: blank, too long, illegal characters, DEFAULT_CONSUMER, not a string', () => {
    for (const g of ['', '   ', 'a'.repeat(256), 'bad group', 'a/b', 'DEFAULT_CONSUMER', 42, undefined]) {
      refused({ consumerGroup: g }, 'consumerGroup');
    }
    assert.throws(
      () => resolvePushConsumerOptions(null as unknown as PushConsumerOptions, NOW),
      ValidationError,
    );
  });

  /** Upstream checkConfig's ranges, and ours for the settings it does not check. */
  const ranges: Array<[string, number, number | undefined]> = [
    ['consumeConcurrency', 1, 1000],
    ['consumeConcurrentlyMaxSpan', 1, 65535],
    ['pullThresholdForQueue', 1, 65535],
    ['pullThresholdSizeForQueue', 1, 1024],
    ['pullInterval', 0, 65535],
    ['pullBatchSize', 1, 1024],
    ['consumeMessageBatchMaxSize', 1, 1024],
    ['maxReconsumeTimes', -1, undefined],
    ['suspendCurrentQueueTimeMillis', 0, undefined],
    ['consumeTimeout', 1, undefined],
    ['awaitTerminationMillisWhenShutdown', 0, undefined],
    ['pullTimeDelayMillsWhenFlowControl', 0, undefined],
    ['pullTimeDelayMillsWhenSuspend', 0, undefined],
    ['brokerSuspendMaxTimeMillis', 0, undefined],
    ['consumerTimeoutMillisWhenSuspend', 1, undefined],
    ['consumeRetryDelayWhenSendBackFailed', 0, undefined],
    ['lockInterval', 1, undefined],
    ['lockMaxLiveTime', 1, undefined],
    ['lockRetryInterval', 1, undefined],
    ['pullMaxIdleTime', 1, undefined],
    ['maxTimeConsumeContinuously', 1, undefined],
  ];
  for (const [name, min, max] of ranges) {
    test(`${name}: integers in [${min}, ${max ?? '…'}]`, () => {
      assert.equal((resolve({ [name]: min }) as unknown as Record<string, number>)[name], min);
      if (max !== undefined)
        assert.equal((resolve({ [name]: max }) as unknown as Record<string, number>)[name], max);
      refused({ [name]: min - 1 }, name);
      if (max !== undefined) refused({ [name]: max + 1 }, name);
      for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', true, {}]) {
        refused({ [name]: bad }, name);
      }
    });
  }

  test('the topic thresholds: -1 (off) or upstream ranges [1, 6553500] messages, [1, 102400] MiB', () => {
    assert.equal(resolve({ pullThresholdForTopic: -1 }).pullThresholdForTopic, -1);
    assert.equal(resolve({ pullThresholdForTopic: 1 }).pullThresholdForTopic, 1);
    assert.equal(resolve({ pullThresholdSizeForTopic: 1 }).pullThresholdSizeForTopic, 1);
    for (const bad of [0, -2, 6_553_501, 2.5, 'x'])
      refused({ pullThresholdForTopic: bad }, 'pullThresholdForTopic');
    for (const bad of [0, -2, 102_401, 2.5, 'x']) {
      refused({ pullThresholdSizeForTopic: bad }, 'pullThresholdSizeForTopic');
    }
  });

  test('enums, flags, the strategy and the offset directory', () => {
    for (const bad of ['clustering', 'X', 1, null]) refused({ messageModel: bad }, 'messageModel');
    for (const bad of ['LAST_OFFSET', 'toString', 0]) refused({ consumeFromWhere: bad }, 'consumeFromWhere');
    for (const w of [
      'CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST',
      'CONSUME_FROM_MIN_OFFSET',
      'CONSUME_FROM_MAX_OFFSET',
      'CONSUME_FROM_FIRST_OFFSET',
    ]) {
      assert.equal(resolve({ consumeFromWhere: w }).consumeFromWhere, w);
    }
    for (const bad of ['true', 1, null])
      refused({ postSubscriptionWhenPull: bad }, 'postSubscriptionWhenPull');
    for (const bad of [{}, 'AVG', { allocate: 1 }, null]) {
      refused({ allocateMessageQueueStrategy: bad }, 'allocateMessageQueueStrategy');
    }
    for (const bad of ['', 5]) refused({ localOffsetStoreDir: bad }, 'localOffsetStoreDir');
  });
});

describe('consumeTimestamp', () => {
  test('yyyyMMddHHmmss is local time, as SimpleDateFormat reads it', () => {
    assert.equal(parseConsumeTimestamp('20240229235959'), new Date(2024, 1, 29, 23, 59, 59).getTime());
    assert.equal(parseConsumeTimestamp('19700101000000'), new Date(1970, 0, 1, 0, 0, 0).getTime());
    assert.equal(
      resolve({ consumeTimestamp: '20231231120000' }).consumeTimestamp,
      new Date(2023, 11, 31, 12, 0, 0).getTime(),
    );
  });

  test('a Date or epoch ms is taken as is', () => {
    const d = new Date(Date.UTC(2020, 5, 1, 8, 30));
    assert.equal(parseConsumeTimestamp(d), d.getTime());
    assert.equal(parseConsumeTimestamp(0), 0);
    assert.equal(parseConsumeTimestamp(1_700_000_000_123), 1_700_000_000_123);
  });

  test('impossible dates and other shapes are refused naming consumeTimestamp', () => {
    for (const bad of [
      '20240230120000', // 30 February
      '20230229120000', // not a leap year
      '20241301000000', // month 13
      '20240001000000', // month 0
      '20240100000000', // day 0
      '20240101240000', // hour 24
      '20240101006000', // minute 60
      '20240101000060', // second 60
      '2024010100000', // 13 digits
      '202401010000000', // 15 digits
      '2024-01-01 00:00:00',
      ' 20240101000000',
      '',
    ]) {
      refused({ consumeTimestamp: bad }, 'consumeTimestamp');
    }
    for (const bad of [new Date(Number.NaN), -1, 1.5, Number.NaN])
      refused({ consumeTimestamp: bad }, 'consumeTimestamp');
  });
});
