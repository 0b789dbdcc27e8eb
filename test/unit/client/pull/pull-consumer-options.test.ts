/**
 * Pull consumer options against upstream 4.9.8 DefaultMQPullConsumer: its defaults, and every bad
 * value a ValidationError naming the option, including checkConfig's
 * consumerTimeoutMillisWhenSuspend < brokerSuspendMaxTimeMillis.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_PULL_CONSUMER_OPTIONS,
  type PullConsumerOptions,
  resolvePullConsumerOptions,
} from '../../../../src/client/consumer/pull-consumer/pull-consumer-options.js';
import { AllocateMessageQueueAveragely } from '../../../../src/client/consumer/rebalance/allocate/averagely.js';
import { ValidationError } from '../../../../src/common/errors.js';

function resolve(extra: Record<string, unknown>) {
  return resolvePullConsumerOptions({ consumerGroup: 'pc', ...extra } as PullConsumerOptions);
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

describe('pull consumer option defaults', () => {
  test('equal upstream DefaultMQPullConsumer 4.9.8', () => {
    assert.deepEqual(
      { ...resolvePullConsumerOptions({ consumerGroup: 'pc' }) },
      {
        consumerGroup: 'pc',
        messageModel: 'CLUSTERING',
        allocateMessageQueueStrategy: undefined, // AllocateMessageQueueAveragely, made by the consumer
        registerTopics: [],
        brokerSuspendMaxTimeMillis: 20_000,
        consumerTimeoutMillisWhenSuspend: 30_000,
        consumerPullTimeoutMillis: 10_000,
        maxReconsumeTimes: 16,
        localOffsetStoreDir: undefined,
      },
    );
    assert.deepEqual(
      { ...DEFAULT_PULL_CONSUMER_OPTIONS },
      {
        messageModel: 'CLUSTERING',
        brokerSuspendMaxTimeMillis: 20_000,
        consumerTimeoutMillisWhenSuspend: 30_000,
        consumerPullTimeoutMillis: 10_000,
        maxReconsumeTimes: 16,
      },
    );
  });

  test('values given are kept; registerTopics is copied', () => {
    const strategy = new AllocateMessageQueueAveragely();
    const topics = ['A', 'B'];
    const o = resolve({
      messageModel: 'BROADCASTING',
      allocateMessageQueueStrategy: strategy,
      registerTopics: topics,
      messageQueueListener: () => {},
      brokerSuspendMaxTimeMillis: 1000,
      consumerTimeoutMillisWhenSuspend: 1000,
      consumerPullTimeoutMillis: 1,
      maxReconsumeTimes: 0,
      localOffsetStoreDir: '/tmp/pc',
    });
    topics.push('C');
    assert.equal(o.messageModel, 'BROADCASTING');
    assert.equal(o.allocateMessageQueueStrategy, strategy);
    assert.deepEqual(o.registerTopics, ['A', 'B']);
    assert.equal(o.brokerSuspendMaxTimeMillis, 1000);
    assert.equal(o.consumerTimeoutMillisWhenSuspend, 1000);
    assert.equal(o.consumerPullTimeoutMillis, 1);
    assert.equal(o.maxReconsumeTimes, 0);
    assert.equal(o.localOffsetStoreDir, '/tmp/pc');
  });
});

describe('pull consumer option checks', () => {
  test('the group: blank, illegal characters, DEFAULT_CONSUMER, not a string', () => {
    for (const g of ['', 'a'.repeat(256), 'a/b', 'DEFAULT_CONSUMER', 7, undefined]) {
      refused({ consumerGroup: g }, 'consumerGroup');
    }
    assert.throws(
      () => resolvePullConsumerOptions(undefined as unknown as PullConsumerOptions),
      ValidationError,
    );
  });

  const ranges: Array<[string, number]> = [
    ['brokerSuspendMaxTimeMillis', 0],
    ['consumerPullTimeoutMillis', 1],
    ['maxReconsumeTimes', 0],
  ];
  for (const [name, min] of ranges) {
    test(`${name}: integers from ${min}`, () => {
      assert.equal((resolve({ [name]: min }) as unknown as Record<string, number>)[name], min);
      refused({ [name]: min - 1 }, name);
      for (const bad of [0.5, Number.NaN, '5', false]) refused({ [name]: bad }, name);
    });
  }

  test('consumerTimeoutMillisWhenSuspend must not be below brokerSuspendMaxTimeMillis (checkConfig)', () => {
    refused({ consumerTimeoutMillisWhenSuspend: 0 }, 'consumerTimeoutMillisWhenSuspend');
    refused({ consumerTimeoutMillisWhenSuspend: 2.5 }, 'consumerTimeoutMillisWhenSuspend');
    refused({ consumerTimeoutMillisWhenSuspend: 19_999 }, 'consumerTimeoutMillisWhenSuspend');
    refused(
      { consumerTimeoutMillisWhenSuspend: 999, brokerSuspendMaxTimeMillis: 1000 },
      'consumerTimeoutMillisWhenSuspend',
    );
    assert.equal(
      resolve({ consumerTimeoutMillisWhenSuspend: 20_000 }).consumerTimeoutMillisWhenSuspend,
      20_000,
    );
  });

  test('enums, topics, the listener, the strategy and the offset directory', () => {
    for (const bad of ['broadcasting', 2, null]) refused({ messageModel: bad }, 'messageModel');
    for (const bad of ['T', [''], [3], { 0: 'T' }]) refused({ registerTopics: bad }, 'registerTopics');
    for (const bad of [{}, 'fn', null]) refused({ messageQueueListener: bad }, 'messageQueueListener');
    for (const bad of [{}, { allocate: 'x' }, null]) {
      refused({ allocateMessageQueueStrategy: bad }, 'allocateMessageQueueStrategy');
    }
    for (const bad of ['', 0]) refused({ localOffsetStoreDir: bad }, 'localOffsetStoreDir');
  });
});
