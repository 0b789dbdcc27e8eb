/**
 * Producer options: upstream DefaultMQProducer's (4.9.8) defaults, and every bad value refused at
 * creation with a ValidationError naming the option.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  DEFAULT_PRODUCER_OPTIONS,
  DEFAULT_RETRY_RESPONSE_CODES,
  type ProducerOptions,
  resolveProducerOptions,
} from '../../../src/client/producer/producer-options.js';
import { ValidationError } from '../../../src/common/errors.js';

function failsNaming(fn: () => unknown, name: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof ValidationError, `${name}: ${String(e)}`);
    assert.ok(e.message.includes(name), `${name} not in "${e.message}"`);
    return true;
  });
}

describe('defaults', () => {
  test('equal DefaultMQProducer 4.9.8', () => {
    const o = resolveProducerOptions({ producerGroup: 'pg' });
    assert.equal(o.producerGroup, 'pg');
    assert.equal(o.sendMsgTimeout, 3000);
    assert.equal(o.retryTimesWhenSendFailed, 2);
    assert.equal(o.retryTimesWhenSendAsyncFailed, 2);
    assert.equal(o.retryAnotherBrokerWhenNotStoreOK, false);
    assert.equal(o.compressMsgBodyOverHowmuch, 4096);
    // rocketmq.message.compressLevel defaults to 5.
    assert.equal(o.compressLevel, 5);
    assert.equal(o.maxMessageSize, 4 * 1024 * 1024);
    assert.equal(o.sendLatencyFaultEnable, false);
    assert.deepEqual([...o.latencyMax], [50, 100, 550, 1000, 2000, 3000, 15000]);
    assert.deepEqual([...o.notAvailableDuration], [0, 0, 30000, 60000, 120000, 180000, 600000]);
    assert.equal(o.defaultTopicQueueNums, 4);
    assert.equal(o.createTopicKey, 'TBW102');
    // TOPIC_NOT_EXIST, SERVICE_NOT_AVAILABLE, SYSTEM_ERROR, NO_PERMISSION, NO_BUYER_ID, NOT_IN_CURRENT_UNIT
    assert.deepEqual(
      [...o.retryResponseCodes].sort((a, b) => a - b),
      [1, 14, 16, 17, 204, 205],
    );
    assert.deepEqual(
      [...DEFAULT_RETRY_RESPONSE_CODES].sort((a, b) => a - b),
      [1, 14, 16, 17, 204, 205],
    );
    assert.equal(DEFAULT_PRODUCER_OPTIONS.sendMsgTimeout, 3000);
  });

  test('given values are kept', () => {
    const o = resolveProducerOptions({
      producerGroup: 'pg',
      sendMsgTimeout: 10,
      retryTimesWhenSendFailed: 0,
      retryTimesWhenSendAsyncFailed: 5,
      retryAnotherBrokerWhenNotStoreOK: true,
      compressMsgBodyOverHowmuch: 0,
      compressLevel: 9,
      maxMessageSize: 1,
      sendLatencyFaultEnable: true,
      latencyMax: [1, 2],
      notAvailableDuration: [3, 4],
      defaultTopicQueueNums: 16,
      createTopicKey: 'MyKey',
      retryResponseCodes: [2],
    });
    assert.deepEqual(
      {
        ...o,
        latencyMax: [...o.latencyMax],
        notAvailableDuration: [...o.notAvailableDuration],
        retryResponseCodes: [...o.retryResponseCodes],
      },
      {
        producerGroup: 'pg',
        sendMsgTimeout: 10,
        retryTimesWhenSendFailed: 0,
        retryTimesWhenSendAsyncFailed: 5,
        retryAnotherBrokerWhenNotStoreOK: true,
        compressMsgBodyOverHowmuch: 0,
        compressLevel: 9,
        maxMessageSize: 1,
        sendLatencyFaultEnable: true,
        latencyMax: [1, 2],
        notAvailableDuration: [3, 4],
        defaultTopicQueueNums: 16,
        createTopicKey: 'MyKey',
        retryResponseCodes: [2],
      },
    );
  });

  test('the tables given are copied', () => {
    const latencyMax = [1, 2];
    const o = resolveProducerOptions({ producerGroup: 'pg', latencyMax, notAvailableDuration: [0, 0] });
    latencyMax[0] = 99;
    assert.equal(o.latencyMax[0], 1);
  });
});

describe('bad values name the option', () => {
  const bad = <T>(v: unknown): T => v as T;
  const cases: Array<[string, Partial<ProducerOptions>]> = [
    ['producerGroup', { producerGroup: bad(undefined) }],
    ['producerGroup', { producerGroup: '' }],
    ['producerGroup', { producerGroup: 'a b' }],
    ['producerGroup', { producerGroup: 'g'.repeat(256) }],
    ['producerGroup', { producerGroup: 'DEFAULT_PRODUCER' }],
    ['producerGroup', { producerGroup: bad(5) }],
    ['sendMsgTimeout', { sendMsgTimeout: 0 }],
    ['sendMsgTimeout', { sendMsgTimeout: -1 }],
    ['sendMsgTimeout', { sendMsgTimeout: 1.5 }],
    ['sendMsgTimeout', { sendMsgTimeout: bad('3000') }],
    ['sendMsgTimeout', { sendMsgTimeout: Number.NaN }],
    ['retryTimesWhenSendFailed', { retryTimesWhenSendFailed: -1 }],
    ['retryTimesWhenSendFailed', { retryTimesWhenSendFailed: 0.5 }],
    ['retryTimesWhenSendAsyncFailed', { retryTimesWhenSendAsyncFailed: -1 }],
    ['retryAnotherBrokerWhenNotStoreOK', { retryAnotherBrokerWhenNotStoreOK: bad('true') }],
    ['compressMsgBodyOverHowmuch', { compressMsgBodyOverHowmuch: -1 }],
    ['compressLevel', { compressLevel: 10 }],
    ['compressLevel', { compressLevel: -2 }],
    ['maxMessageSize', { maxMessageSize: 0 }],
    ['maxMessageSize', { maxMessageSize: Number.POSITIVE_INFINITY }],
    ['sendLatencyFaultEnable', { sendLatencyFaultEnable: bad('false') }],
    ['latencyMax', { latencyMax: [50, -1] }],
    ['latencyMax', { latencyMax: bad(50) }],
    ['latencyMax', { latencyMax: [1, 2, 3] }],
    ['notAvailableDuration', { notAvailableDuration: [0, 1.5, 0, 0, 0, 0, 0] }],
    ['notAvailableDuration', { notAvailableDuration: bad('0,0') }],
    ['defaultTopicQueueNums', { defaultTopicQueueNums: 0 }],
    ['createTopicKey', { createTopicKey: '' }],
    ['createTopicKey', { createTopicKey: 'a.b' }],
    ['retryResponseCodes', { retryResponseCodes: bad(17) }],
    ['retryResponseCodes', { retryResponseCodes: bad(['17']) }],
  ];
  for (const [name, value] of cases) {
    const shown = JSON.stringify(Object.values(value)[0]) ?? String(Object.values(value)[0]);
    test(`${name}: ${shown.length > 40 ? `${shown.slice(0, 40)}...` : shown}`, () => {
      failsNaming(() => resolveProducerOptions({ producerGroup: 'pg', ...value } as ProducerOptions), name);
    });
  }

  test('no options object', () => {
    failsNaming(() => resolveProducerOptions(bad(undefined)), 'producerGroup');
    failsNaming(() => resolveProducerOptions(bad(null)), 'producerGroup');
  });
});
