/**
 * Lite pull consumer options against upstream 4.9.8: the defaults of DefaultLitePullConsumer and the
 * constants of DefaultLitePullConsumerImpl; every bad value a ValidationError naming the option,
 * including checkConfig's consumerTimeoutMillisWhenSuspend < brokerSuspendMaxTimeMillis and
 * setConsumeFromWhere's refusal of the deprecated starting points.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_LITE_PULL_CONSUMER_OPTIONS,
  type LitePullConsumerOptions,
  resolveLitePullConsumerOptions,
} from '../../../../src/client/consumer/lite/lite-pull-consumer-options.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import { ValidationError } from '../../../../src/common/errors.js';

const NOW = Date.UTC(2024, 0, 15, 12, 0, 0);

function resolve(extra: Record<string, unknown>) {
  return resolveLitePullConsumerOptions({ consumerGroup: 'lp', ...extra } as LitePullConsumerOptions, NOW);
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

describe('lite pull consumer option defaults', () => {
  test('equal upstream DefaultLitePullConsumer 4.9.8 and the constants of its implementation', () => {
    assert.deepEqual(
      { ...resolveLitePullConsumerOptions({ consumerGroup: 'lp' }, NOW) },
      {
        consumerGroup: 'lp',
        // DefaultLitePullConsumer fields
        messageModel: 'CLUSTERING',
        consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET',
        consumeTimestamp: NOW - 30 * 60 * 1000,
        allocateMessageQueueStrategy: undefined, // AllocateMessageQueueAveragely, made by the consumer
        autoCommit: true,
        autoCommitIntervalMillis: 5000,
        pullBatchSize: 10,
        pullThresholdForAll: 10_000,
        pullThresholdForQueue: 1000,
        pullThresholdSizeForQueue: 100,
        consumeMaxSpan: 2000,
        pollTimeoutMillis: 5000,
        topicMetadataCheckIntervalMillis: 30_000,
        brokerSuspendMaxTimeMillis: 20_000,
        consumerTimeoutMillisWhenSuspend: 30_000,
        consumerPullTimeoutMillis: 10_000,
        localOffsetStoreDir: undefined,
        // DefaultLitePullConsumerImpl constants
        pullTimeDelayMillsWhenFlowControl: 50, // PULL_TIME_DELAY_MILLS_WHEN_CACHE_FLOW_CONTROL
        pullTimeDelayMillsWhenPause: 1000, // PULL_TIME_DELAY_MILLS_WHEN_PAUSE
        pullTimeDelayMillsOnException: 3000, // PULL_TIME_DELAY_MILLS_ON_EXCEPTION
      },
    );
    assert.equal(DEFAULT_LITE_PULL_CONSUMER_OPTIONS.consumeTimestampAgoMs, 30 * 60 * 1000);
  });

  test('values given are kept', () => {
    const strategy = new AllocateMessageQueueAveragely();
    const o = resolve({
      messageModel: 'BROADCASTING',
      consumeFromWhere: 'CONSUME_FROM_TIMESTAMP',
      consumeTimestamp: '20231231120000',
      allocateMessageQueueStrategy: strategy,
      autoCommit: false,
      autoCommitIntervalMillis: 1000,
      pullBatchSize: 1024,
      pullThresholdForAll: 1,
      pollTimeoutMillis: 0,
      brokerSuspendMaxTimeMillis: 0,
      consumerTimeoutMillisWhenSuspend: 1,
      localOffsetStoreDir: '/tmp/lp',
    });
    assert.equal(o.messageModel, 'BROADCASTING');
    assert.equal(o.consumeFromWhere, 'CONSUME_FROM_TIMESTAMP');
    assert.equal(o.consumeTimestamp, new Date(2023, 11, 31, 12, 0, 0).getTime());
    assert.equal(o.allocateMessageQueueStrategy, strategy);
    assert.equal(o.autoCommit, false);
    assert.equal(o.autoCommitIntervalMillis, 1000);
    assert.equal(o.pullBatchSize, 1024);
    assert.equal(o.pullThresholdForAll, 1);
    assert.equal(o.pollTimeoutMillis, 0);
    assert.equal(o.brokerSuspendMaxTimeMillis, 0);
    assert.equal(o.consumerTimeoutMillisWhenSuspend, 1);
    assert.equal(o.localOffsetStoreDir, '/tmp/lp');
  });
});

describe('lite pull consumer option checks', () => {
  test('the group: blank, illegal characters, DEFAULT_CONSUMER, not a string', () => {
    for (const g of ['', 'a'.repeat(256), 'bad group', 'DEFAULT_CONSUMER', 42, undefined]) {
      refused({ consumerGroup: g }, 'consumerGroup');
    }
    assert.throws(
      () => resolveLitePullConsumerOptions(null as unknown as LitePullConsumerOptions, NOW),
      ValidationError,
    );
  });

  const ranges: Array<[string, number, number | undefined]> = [
    ['autoCommitIntervalMillis', 1000, undefined], // upstream MIN_AUTOCOMMIT_INTERVAL_MILLIS
    ['pullBatchSize', 1, 1024],
    ['pullThresholdForAll', 1, undefined],
    ['pullThresholdForQueue', 1, 65535],
    ['pullThresholdSizeForQueue', 1, 1024],
    ['consumeMaxSpan', 1, 65535],
    ['pollTimeoutMillis', 0, undefined],
    ['topicMetadataCheckIntervalMillis', 1, undefined],
    ['brokerSuspendMaxTimeMillis', 0, undefined],
    ['consumerPullTimeoutMillis', 1, undefined],
    ['pullTimeDelayMillsWhenFlowControl', 0, undefined],
    ['pullTimeDelayMillsWhenPause', 0, undefined],
    ['pullTimeDelayMillsOnException', 0, undefined],
  ];
  for (const [name, min, max] of ranges) {
    test(`${name}: integers in [${min}, ${max ?? '…'}]`, () => {
      assert.equal((resolve({ [name]: min }) as unknown as Record<string, number>)[name], min);
      if (max !== undefined) {
        assert.equal((resolve({ [name]: max }) as unknown as Record<string, number>)[name], max);
        refused({ [name]: max + 1 }, name);
      }
      refused({ [name]: min - 1 }, name);
      for (const bad of [1.5, Number.NaN, Number.POSITIVE_INFINITY, '5', true, {}])
        refused({ [name]: bad }, name);
    });
  }

  test('consumerTimeoutMillisWhenSuspend must not be below brokerSuspendMaxTimeMillis (checkConfig)', () => {
    assert.equal(
      resolve({ brokerSuspendMaxTimeMillis: 3000, consumerTimeoutMillisWhenSuspend: 3000 })
        .consumerTimeoutMillisWhenSuspend,
      3000,
    );
    refused(
      { brokerSuspendMaxTimeMillis: 3001, consumerTimeoutMillisWhenSuspend: 3000 },
      'consumerTimeoutMillisWhenSuspend',
    );
    // Against the default brokerSuspendMaxTimeMillis (20 s).
    refused({ consumerTimeoutMillisWhenSuspend: 19_999 }, 'consumerTimeoutMillisWhenSuspend');
    refused(
      { consumerTimeoutMillisWhenSuspend: 0, brokerSuspendMaxTimeMillis: 0 },
      'consumerTimeoutMillisWhenSuspend',
    );
  });

  test('consumeFromWhere: FIRST, LAST or TIMESTAMP only (setConsumeFromWhere refuses the deprecated ones)', () => {
    for (const w of ['CONSUME_FROM_LAST_OFFSET', 'CONSUME_FROM_FIRST_OFFSET', 'CONSUME_FROM_TIMESTAMP']) {
      assert.equal(resolve({ consumeFromWhere: w }).consumeFromWhere, w);
    }
    for (const bad of [
      'CONSUME_FROM_LAST_OFFSET_AND_FROM_MIN_WHEN_BOOT_FIRST',
      'CONSUME_FROM_MIN_OFFSET',
      'CONSUME_FROM_MAX_OFFSET',
      'FIRST',
      'toString',
      0,
      null,
    ]) {
      refused({ consumeFromWhere: bad }, 'consumeFromWhere');
    }
  });

  test('enums, flags, timestamps, the strategy and the offset directory', () => {
    for (const bad of ['clustering', 'X', 1, null]) refused({ messageModel: bad }, 'messageModel');
    for (const bad of ['true', 1, null]) refused({ autoCommit: bad }, 'autoCommit');
    for (const bad of ['2024-01-01', '20241301000000', -1, new Date(Number.NaN)]) {
      refused({ consumeTimestamp: bad }, 'consumeTimestamp');
    }
    for (const bad of [{}, 'AVG', { allocate: 1 }, null]) {
      refused({ allocateMessageQueueStrategy: bad }, 'allocateMessageQueueStrategy');
    }
    for (const bad of ['', 5]) refused({ localOffsetStoreDir: bad }, 'localOffsetStoreDir');
  });
});
