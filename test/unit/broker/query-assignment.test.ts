/**
 * Server-side rebalance: QUERY_ASSIGNMENT (400), SET_MESSAGE_REQUEST_MODE (401) and
 * GET_ALL_MESSAGE_REQUEST_MODE (402) through a broker's handlers over in-memory connections, as
 * upstream's QueryAssignmentProcessor answers them; allocate4Pop's three cases; the
 * messageRequestMode.json file and its reload.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { allocate4Pop, brokerAllocateStrategies } from '../../../src/broker/loadbalance/assignment.js';
import { createLogger } from '../../../src/common/logger.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeQueryAssignmentResponseBody,
  encodeQueryAssignmentRequestBody,
} from '../../../src/common/protocol/query-assignment-body.js';
import { encodeSetMessageRequestModeRequestBody } from '../../../src/common/protocol/set-message-request-mode-body.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  connectInMemory,
  consumerHeartbeat,
  heartbeatRequest,
  type TestClient,
  testBroker,
} from './helpers.js';

const LIMIT = { timeout: 5_000 };
const brokers: BrokerController[] = [];
afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.shutdown()));
});

const FILE = '/mem/store/config/messageRequestMode.json';

async function setup(members: string[], queues = 4) {
  const t = await testBroker();
  brokers.push(t.broker);
  t.broker.topicConfigManager.updateTopicConfig(
    createTopicConfig('T', { readQueueNums: queues, writeQueueNums: queues }),
  );
  // One connection per member: the group keys its members by channel.
  const conns = members.map((_, i) => connectInMemory(t.broker, `10.0.0.${i + 1}:1`));
  for (const [i, id] of members.entries()) {
    await conns[i]?.call(heartbeatRequest(consumerHeartbeat(id, 'cg', ['T'])));
  }
  return { ...t, c: conns[0] ?? connectInMemory(t.broker) };
}

async function query(c: TestClient, clientId: string, strategyName = 'AVG', topic = 'T') {
  const r = await c.call(
    createRequest(RequestCode.QUERY_ASSIGNMENT, {
      body: encodeQueryAssignmentRequestBody({
        topic,
        consumerGroup: 'cg',
        clientId,
        strategyName,
        messageModel: 'CLUSTERING',
      }),
    }),
  );
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  const list = decodeQueryAssignmentResponseBody(r.body).messageQueueAssignments;
  return list?.map((a) => `${a.messageQueue.queueId}:${a.mode}`).sort();
}

function setMode(c: TestClient, topic: string, mode: 'PULL' | 'POP', popShareQueueNum = 0) {
  return c.call(
    createRequest(RequestCode.SET_MESSAGE_REQUEST_MODE, {
      body: encodeSetMessageRequestModeRequestBody({ topic, consumerGroup: 'cg', mode, popShareQueueNum }),
    }),
  );
}

describe('QUERY_ASSIGNMENT', () => {
  test('PULL by default: the strategy splits the queues among the members', LIMIT, async () => {
    const { c } = await setup(['A', 'B']);
    assert.deepEqual(await query(c, 'A'), ['0:PULL', '1:PULL']);
    assert.deepEqual(await query(c, 'B'), ['2:PULL', '3:PULL']);
    assert.deepEqual(await query(c, 'B', 'AVG_BY_CIRCLE'), ['1:PULL', '3:PULL']);
  });

  test('no valid result (Java null) for an unknown strategy, topic or group', LIMIT, async () => {
    const { c } = await setup(['A']);
    assert.equal(await query(c, 'A', 'CONSISTENT_HASH'), undefined);
    assert.equal(await query(c, 'A', 'AVG', 'Nope'), undefined);
  });

  test('POP with popShareQueueNum 0: every member pops every queue through queue -1', LIMIT, async () => {
    const { c } = await setup(['A', 'B']);
    assert.equal((await setMode(c, 'T', 'POP')).code, ResponseCode.SUCCESS);
    // One entry per queue, all -1 and so one assignment (a set of queues).
    assert.deepEqual(await query(c, 'A'), ['-1:POP']);
    assert.deepEqual(await query(c, 'B'), ['-1:POP']);
  });

  test("POP with popShareQueueNum 1 of 4 members: its own queue and the next member's", LIMIT, async () => {
    const { c } = await setup(['A', 'B', 'C', 'D']);
    await setMode(c, 'T', 'POP', 1);
    assert.deepEqual(await query(c, 'A'), ['0:POP', '1:POP']);
    assert.deepEqual(await query(c, 'D'), ['0:POP', '3:POP']);
  });

  test('retry topics stay PULL and refuse a mode', LIMIT, async () => {
    const { broker, c } = await setup(['A']);
    broker.topicConfigManager.updateTopicConfig(
      createTopicConfig('%RETRY%cg', { readQueueNums: 1, writeQueueNums: 1 }),
    );
    const refused = await setMode(c, '%RETRY%cg', 'POP');
    assert.deepEqual(
      [refused.code, refused.remark],
      [ResponseCode.NO_PERMISSION, 'retry topic is not allowed to set mode'],
    );
    assert.deepEqual(await query(c, 'A', 'AVG', '%RETRY%cg'), ['0:PULL']);
  });

  test('defaultMessageRequestMode POP applies to topics without a mode', LIMIT, async () => {
    const { broker, c } = await setup(['A', 'B']);
    broker.config.defaultMessageRequestMode = 'POP';
    assert.deepEqual(await query(c, 'A'), ['-1:POP']);
  });
});

describe('SET_MESSAGE_REQUEST_MODE / GET_ALL_MESSAGE_REQUEST_MODE', () => {
  test('bad topic, bad mode; the file as upstream writes it, and reloaded', LIMIT, async () => {
    const { io, c } = await setup(['A']);
    const missing = await setMode(c, 'Nope', 'POP');
    assert.deepEqual([missing.code, missing.remark], [ResponseCode.TOPIC_NOT_EXIST, 'topic[Nope] not exist']);
    const badMode = await c.call(
      createRequest(RequestCode.SET_MESSAGE_REQUEST_MODE, {
        body: Buffer.from('{"consumerGroup":"cg","mode":"PUSH","topic":"T"}'),
      }),
    );
    assert.equal(badMode.code, ResponseCode.INVALID_PARAMETER);
    const garbage = await c.call(
      createRequest(RequestCode.SET_MESSAGE_REQUEST_MODE, { body: Buffer.from('{') }),
    );
    assert.equal(garbage.code, ResponseCode.SYSTEM_ERROR);

    assert.equal((await setMode(c, 'T', 'POP', 2)).code, ResponseCode.SUCCESS);
    assert.equal(
      io.files.get(FILE),
      '{\n\t"messageRequestModeMap":{\n\t\t"T":{\n\t\t\t"cg":{\n\t\t\t\t"consumerGroup":"cg",\n' +
        '\t\t\t\t"mode":"POP",\n\t\t\t\t"popShareQueueNum":2,\n\t\t\t\t"topic":"T"\n\t\t\t}\n\t\t}\n\t}\n}',
    );
    const all = await c.call(createRequest(RequestCode.GET_ALL_MESSAGE_REQUEST_MODE));
    assert.equal(
      all.body?.toString(),
      '{"messageRequestModeMap":{"T":{"cg":{"consumerGroup":"cg","mode":"POP","popShareQueueNum":2,"topic":"T"}}}}',
    );

    const again = await testBroker({}, { configFileIO: io });
    brokers.push(again.broker);
    await again.broker.messageRequestModeManager.load();
    assert.equal(
      again.broker.messageRequestModeManager.getMessageRequestMode('T', 'cg')?.popShareQueueNum,
      2,
    );
  });
});

describe('allocate4Pop', () => {
  const strategies = brokerAllocateStrategies(createLogger('test', { level: 'silent' }));
  const avg = strategies.get('AVG');
  const mqs = (n: number) => Array.from({ length: n }, (_, i) => new MessageQueue('T', 'b', i));
  const ids = (pop: MessageQueue[]) => pop.map((q) => q.queueId);

  test('share >= members - 1 or <= 0: all queues as -1', () => {
    assert.ok(avg);
    assert.deepEqual(ids(allocate4Pop(avg, 'cg', 'A', mqs(3), ['A', 'B', 'C'], 2)), [-1, -1, -1]);
    assert.deepEqual(ids(allocate4Pop(avg, 'cg', 'A', mqs(3), ['A', 'B', 'C'], -1)), [-1, -1, -1]);
  });

  test('more members than queues: member i takes queue i mod queues', () => {
    assert.ok(avg);
    assert.deepEqual(ids(allocate4Pop(avg, 'cg', 'D', mqs(2), ['A', 'B', 'C', 'D', 'E'], 1)), [1]);
    assert.deepEqual(ids(allocate4Pop(avg, 'cg', 'X', mqs(2), ['A', 'B', 'C', 'D', 'E'], 1)), []);
  });
});
