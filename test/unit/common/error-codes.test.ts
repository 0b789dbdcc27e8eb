/**
 * Stable error codes: every error class the package exports has one, failures that share response
 * code 1 read apart by it, and docs/errors.md has a row for every code and class.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import * as api from '../../../src/index.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';

const docs = readFileSync(new URL('../../../../docs/errors.md', import.meta.url), 'utf8');
const tableRows = docs.split('\n').filter((line) => line.startsWith('| `'));

test('docs/errors.md has one row per code and names every exported error class', () => {
  const documented = tableRows.map((row) => /^\| `([^`]+)`/.exec(row)?.[1]);
  for (const code of Object.values(api.ErrorCode)) {
    assert.equal(documented.filter((c) => c === code).length, 1, `one row for ${code}`);
  }
  const errorClasses = Object.entries(api as Record<string, unknown>).filter(
    ([, value]) =>
      typeof value === 'function' &&
      (value === api.RocketMQError || value.prototype instanceof api.RocketMQError),
  );
  assert.ok(errorClasses.length >= 19, `found ${errorClasses.length}`);
  for (const [name] of errorClasses) {
    assert.ok(
      tableRows.some((row) => row.includes(`\`${name}\``)),
      `${name} in the table of docs/errors.md`,
    );
  }
});

test('the client errors a caller can receive are exported', () => {
  for (const name of ['RemotingTooMuchRequestError', 'LocalOffsetFileError', 'RemotingCommandError']) {
    assert.equal(typeof (api as Record<string, unknown>)[name], 'function', name);
  }
});

test('transport failures, bad input and a broker SYSTEM_ERROR share responseCode 1 but not code', () => {
  const failures = [
    new api.RemotingConnectError('127.0.0.1:1', 'refused'),
    new api.RemotingTimeoutError('127.0.0.1:1', 10),
    new api.RemotingConnectionClosedError('127.0.0.1:1', 'reset'),
    new api.ValidationError('bad'),
    new api.MQBrokerError(ResponseCode.SYSTEM_ERROR, 'boom', { brokerAddr: '127.0.0.1:1' }),
  ];
  assert.deepEqual(
    failures.map((e) => e.responseCode),
    [1, 1, 1, 1, 1],
  );
  assert.deepEqual(
    failures.map((e) => e.code),
    [
      'ERR_ROCKETMQ_CONNECT',
      'ERR_ROCKETMQ_TIMEOUT',
      'ERR_ROCKETMQ_CONNECTION_CLOSED',
      'ERR_ROCKETMQ_VALIDATION',
      'ERR_ROCKETMQ_BROKER',
    ],
  );
});

test("MQClientError's code follows upstream's client code; an explicit code wins", () => {
  const { ClientErrorCode, MQClientError } = api;
  const cases: Array<[number | undefined, string]> = [
    [ClientErrorCode.NOT_FOUND_TOPIC_EXCEPTION, 'ERR_ROCKETMQ_NO_ROUTE'],
    [ResponseCode.TOPIC_NOT_EXIST, 'ERR_ROCKETMQ_NO_ROUTE'],
    [ClientErrorCode.NO_NAME_SERVER_EXCEPTION, 'ERR_ROCKETMQ_NO_NAME_SERVER'],
    [ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION, 'ERR_ROCKETMQ_BROKER_NOT_FOUND'],
    [ClientErrorCode.ACCESS_BROKER_TIMEOUT, 'ERR_ROCKETMQ_TIMEOUT'],
    [ClientErrorCode.CONNECT_BROKER_EXCEPTION, 'ERR_ROCKETMQ_CONNECT'],
    [ResponseCode.NO_MESSAGE, 'ERR_ROCKETMQ_NO_MESSAGE'],
    [undefined, 'ERR_ROCKETMQ_CLIENT'],
  ];
  for (const [responseCode, code] of cases) {
    assert.equal(new MQClientError('x', responseCode).code, code, String(responseCode));
  }
  assert.equal(new MQClientError('x', 1, { code: 'ERR_ROCKETMQ_BROKER' }).code, 'ERR_ROCKETMQ_BROKER');
  assert.equal(new api.ClientStateError('producer', 'CREATE_JUST').code, 'ERR_ROCKETMQ_NOT_RUNNING');
  assert.equal(new api.LocalOffsetFileError('/x', new Error('eio')).code, 'ERR_ROCKETMQ_OFFSET_FILE');
  const reason = new Error('stop');
  const aborted = new api.RemotingAbortedError('', reason, 'poll');
  assert.deepEqual(
    [aborted.code, aborted.cause, aborted.message],
    ['ERR_ROCKETMQ_ABORTED', reason, 'poll aborted'],
  );
});

test("consumers refuse a topic the producer refuses: the producer's ValidationError, code and text", () => {
  const push = api.createPushConsumer({ namesrvAddr: '127.0.0.1:1', consumerGroup: 'cg' });
  const lite = api.createLitePullConsumer({ namesrvAddr: '127.0.0.1:1', consumerGroup: 'cg' });
  for (const [topic, text] of [
    ['bad topic!', /The specified topic\[bad topic!\] contains illegal characters/],
    ['t'.repeat(128), /longer than topic max length 127/],
  ] as const) {
    for (const subscribe of [() => push.subscribe(topic, '*'), () => lite.subscribe(topic, '*')]) {
      assert.throws(
        subscribe,
        (e: unknown) =>
          e instanceof api.ValidationError && e.code === 'ERR_ROCKETMQ_VALIDATION' && text.test(e.message),
      );
    }
  }
  push.subscribe('Good_Topic-1', '*');
  lite.subscribe('Good_Topic-1', '*');
});
