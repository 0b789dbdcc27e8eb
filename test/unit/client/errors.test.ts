/**
 * The client's errors: one hierarchy under RocketMQError, upstream's ClientErrorCode values, whether a
 * retry can help, and messages that name the topic, group and broker involved.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  CLIENT_ERROR_NO_CODE,
  ClientErrorCode,
  ClientStateError,
  errorText,
  isRetriableResponseCode,
  MQBrokerError,
  MQClientError,
} from '../../../src/client/errors.js';
import { DEFAULT_RETRY_RESPONSE_CODES } from '../../../src/client/producer/producer-options.js';
import { RocketMQError } from '../../../src/common/errors.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';

describe('ClientErrorCode', () => {
  test("upstream's values", () => {
    assert.deepEqual(
      { ...ClientErrorCode },
      {
        CONNECT_BROKER_EXCEPTION: 10001,
        ACCESS_BROKER_TIMEOUT: 10002,
        BROKER_NOT_EXIST_EXCEPTION: 10003,
        NO_NAME_SERVER_EXCEPTION: 10004,
        NOT_FOUND_TOPIC_EXCEPTION: 10005,
        REQUEST_TIMEOUT_EXCEPTION: 10006,
        CREATE_REPLY_MESSAGE_EXCEPTION: 10007,
      },
    );
    assert.equal(CLIENT_ERROR_NO_CODE, -1);
  });
});

describe('retriable broker answers', () => {
  test('busy, unavailable, not yet created or writable, flow control, going away', () => {
    for (const code of [
      ResponseCode.SYSTEM_ERROR,
      ResponseCode.SYSTEM_BUSY,
      ResponseCode.SERVICE_NOT_AVAILABLE,
      ResponseCode.NO_PERMISSION,
      ResponseCode.TOPIC_NOT_EXIST,
      ResponseCode.NO_BUYER_ID,
      ResponseCode.NOT_IN_CURRENT_UNIT,
      ResponseCode.FLOW_CONTROL,
      ResponseCode.GO_AWAY,
    ]) {
      assert.equal(isRetriableResponseCode(code), true, String(code));
    }
  });

  test('every code the producer retries on is retriable', () => {
    for (const code of DEFAULT_RETRY_RESPONSE_CODES)
      assert.equal(isRetriableResponseCode(code), true, String(code));
  });

  test('bad requests and stored answers are not', () => {
    for (const code of [
      ResponseCode.SUCCESS,
      ResponseCode.REQUEST_CODE_NOT_SUPPORTED,
      ResponseCode.FLUSH_DISK_TIMEOUT,
      ResponseCode.MESSAGE_ILLEGAL,
      ResponseCode.VERSION_NOT_SUPPORTED,
      ResponseCode.SUBSCRIPTION_PARSE_FAILED,
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      ResponseCode.TRANSACTION_FAILED,
      ResponseCode.QUERY_NOT_FOUND,
      12345,
    ]) {
      assert.equal(isRetriableResponseCode(code), false, String(code));
    }
  });
});

describe('MQBrokerError', () => {
  test('code, remark, and the topic, group and broker in fields and message', () => {
    const e = new MQBrokerError(ResponseCode.TOPIC_NOT_EXIST, 'topic[T] not exist', {
      brokerAddr: '10.0.0.1:10911',
      topic: 'T',
      group: 'pg',
    });
    assert.ok(e instanceof RocketMQError);
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'MQBrokerError');
    assert.equal(e.responseCode, 17);
    assert.equal(e.remark, 'topic[T] not exist');
    assert.equal(e.brokerAddr, '10.0.0.1:10911');
    assert.equal(e.topic, 'T');
    assert.equal(e.group, 'pg');
    assert.equal(e.retriable, true);
    assert.equal(e.message, 'CODE: 17 DESC: topic[T] not exist (topic T, group pg, broker 10.0.0.1:10911)');
  });

  test('without a remark or a topic', () => {
    const e = new MQBrokerError(ResponseCode.MESSAGE_ILLEGAL, undefined, { brokerAddr: 'b:1' });
    assert.equal(e.message, 'CODE: 13 DESC:  (broker b:1)');
    assert.equal(e.retriable, false);
    assert.equal(e.topic, undefined);
  });
});

describe('MQClientError and ClientStateError', () => {
  test('MQClientError: code -1 unless given, subject in the message, retriable only when said', () => {
    const plain = new MQClientError('no route');
    assert.equal(plain.responseCode, -1);
    assert.equal(plain.retriable, false);
    assert.equal(plain.message, 'no route');
    const cause = new Error('root');
    const e = new MQClientError('No route info of this topic: T', ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, {
      topic: 'T',
      group: 'pg',
      brokerAddr: 'b:1',
      retriable: true,
      cause,
    });
    assert.equal(e.name, 'MQClientError');
    assert.equal(e.responseCode, 10005);
    assert.equal(e.retriable, true);
    assert.equal(e.cause, cause);
    assert.equal(e.message, 'No route info of this topic: T (topic T, group pg, broker b:1)');
    assert.deepEqual([e.topic, e.group, e.brokerAddr], ['T', 'pg', 'b:1']);
  });

  test("ClientStateError: upstream's text, never retriable", () => {
    const e = new ClientStateError('producer', 'SHUTDOWN_ALREADY', { group: 'pg' });
    assert.ok(e instanceof MQClientError);
    assert.equal(e.name, 'ClientStateError');
    assert.equal(e.state, 'SHUTDOWN_ALREADY');
    assert.equal(e.retriable, false);
    assert.equal(
      e.message,
      'The producer service state not OK, SHUTDOWN_ALREADY: the client was shut down; create a new one (group pg)',
    );
    assert.equal(e.code, 'ERR_ROCKETMQ_NOT_RUNNING');
    const early = new ClientStateError('producer', 'CREATE_JUST');
    assert.equal(early.message, 'The producer service state not OK, CREATE_JUST: call start() first');
  });

  test('errorText', () => {
    assert.equal(errorText(new Error('x')), 'x');
    assert.equal(errorText('plain'), 'plain');
    assert.equal(errorText(undefined), 'undefined');
  });
});
