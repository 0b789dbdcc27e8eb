/**
 * The admin requests that reach a group's consumers, on a started broker with its own
 * DefaultMessageStore in a temp dir, over in-memory connections whose consumers answer what the test
 * says: INVOKE_BROKER_TO_RESET_OFFSET (by time, move back only unless forced, pushed to the online
 * consumers behind the version gate, not online, the 5.x explicit queue/offset form),
 * INVOKE_BROKER_TO_GET_CONSUMER_STATUS (each consumer asked, tables gathered), GET_CONSUMER_RUNNING_INFO
 * and CONSUME_MESSAGE_DIRECTLY (forwarded to one consumer, its answer returned as is), with
 * upstream's codes and remarks.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerConfig } from '../../../src/broker/broker-config.js';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { getConsumeStatus } from '../../../src/broker/client/broker2client.js';
import { callConsumer } from '../../../src/broker/processor/call-consumer.js';
import { mqVersionName } from '../../../src/common/constants.js';
import { javaHashMapOrder } from '../../../src/common/fastjson/index.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeGetConsumerStatusBody,
  encodeGetConsumerStatusBody,
} from '../../../src/common/protocol/get-consumer-status-body.js';
import {
  decodeResetOffsetBody,
  decodeResetOffsetBodyForC,
} from '../../../src/common/protocol/reset-offset-body.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import {
  createRequest,
  createResponse,
  isOneway,
  type RemotingCommand,
} from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import {
  ConsumeMessageDirectlyResultRequestHeader,
  GetConsumerRunningInfoRequestHeader,
  GetConsumerStatusRequestHeader,
  ResetOffsetRequestHeader,
} from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { msg } from '../store/default-message-store-support.js';
import {
  connectInMemory,
  consumerHeartbeat,
  heartbeatRequest,
  ManualClock,
  type TestClient,
  testBroker,
} from './helpers.js';
import { cleanUp, startBroker, track, until } from './store-broker.js';

const LIMIT = { timeout: 10_000 };
const TOPIC = 'TopicTest';
const GROUP = 'cg-admin';
const T0 = 1_700_000_000_000;

afterEach(cleanUp);

interface Setup {
  broker: BrokerController;
  clock: ManualClock;
  /** The admin's connection (not a member of any group). */
  admin: TestClient;
}

/** A started broker over a fresh store directory with TopicTest (4 queues); the clock at T0. */
async function setup(config: Partial<BrokerConfig> = {}): Promise<Setup> {
  const { broker, clock } = await startBroker({ config, clock: new ManualClock(T0) });
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
  );
  return { broker, clock, admin: connectInMemory(broker, '10.0.0.1:40000') };
}

/** `count` messages into queue 0, one second apart from T0 (message k stored at T0 + k s). */
async function putMessages(s: Setup, count: number): Promise<bigint[]> {
  const offsets: bigint[] = [];
  for (let i = 0; i < count; i++) {
    if (i > 0) s.clock.advance(1000);
    const r = await s.broker.messageStore.putMessage(msg(i, { topic: TOPIC, queueId: 0 }));
    assert.equal(r.putMessageStatus, 'PUT_OK');
    offsets.push(r.appendMessageResult?.wroteOffset ?? -1n);
  }
  await until(() => s.broker.messageStore.getMaxOffsetInQueue(TOPIC, 0) === BigInt(count), 'dispatched');
  return offsets;
}

/** The group's committed offsets of queues 0..3. */
function commit(s: Setup, offsets: readonly bigint[], group = GROUP): void {
  offsets.forEach((o, q) => {
    s.broker.consumerOffsetManager.commitOffset('test', group, TOPIC, q, o);
  });
}

function committed(s: Setup, group = GROUP): bigint[] {
  return [0, 1, 2, 3].map((q) => s.broker.consumerOffsetManager.queryOffset(group, TOPIC, q));
}

/** A consumer of GROUP (subscribing to TopicTest) online through its own connection. */
async function online(s: Setup, clientId: string, version = 409, remote = `10.0.1.${clientId.length}:5000`) {
  const c = connectInMemory(s.broker, remote);
  const r = await c.call(heartbeatRequest(consumerHeartbeat(clientId, GROUP, [TOPIC]), version));
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  return c;
}

function requestsOf(c: TestClient, code: number): RemotingCommand[] {
  return c.received.filter((r) => r.code === code);
}

function resetRequest(
  timestamp: bigint,
  isForce: boolean,
  options: { topic?: string; group?: string; extra?: Record<string, string>; language?: string } = {},
): RemotingCommand {
  const extFields = {
    ...encodeHeader(ResetOffsetRequestHeader, {
      topic: options.topic ?? TOPIC,
      group: options.group ?? GROUP,
      timestamp,
      isForce,
    }),
    ...options.extra,
  };
  return createRequest(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, {
    extFields,
    ...(options.language === undefined ? {} : { language: options.language }),
  });
}

/** An offset table as `queueId=offset`, in queue order. */
function byQueue(entries: ReadonlyArray<readonly [MessageQueue, bigint]>): string[] {
  return [...entries]
    .sort((a, b) => a[0].queueId - b[0].queueId)
    .map(([q, o]) => {
      assert.equal(q.topic, TOPIC);
      assert.equal(q.brokerName, 'broker-a');
      return `${q.queueId}=${o}`;
    });
}

function resetTable(r: RemotingCommand): string[] {
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  return byQueue(decodeResetOffsetBody(r.body).offsetTable);
}

describe('INVOKE_BROKER_TO_RESET_OFFSET by timestamp (4.9.8)', () => {
  test('moves back only, unless forced; pushed oneway to each online consumer', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 5);
    commit(s, [4n, 0n, 0n, 1n]);
    const c1 = await online(s, 'client-1');
    const c2 = await online(s, 'client-2');

    // Message 2 was stored at T0 + 2 s: queue 0 moves back from 4 to 2; the empty queues stay.
    const r = await s.admin.call(resetRequest(BigInt(T0 + 2000), false));
    // Queue 3 holds nothing: its search gives 0, before the group's 1.
    assert.deepEqual(resetTable(r), ['0=2', '1=0', '2=0', '3=0']);
    await until(
      () => [c1, c2].every((c) => requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length === 1),
      'pushes',
    );
    for (const c of [c1, c2]) {
      const [push] = requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET);
      assert.ok(push, 'pushed');
      assert.ok(isOneway(push));
      assert.deepEqual(push.extFields, {
        topic: TOPIC,
        group: GROUP,
        timestamp: String(T0 + 2000),
        isForce: 'false', // upstream leaves it unset
      });
      // The same bytes the admin gets back.
      assert.deepEqual(push.body, r.body);
    }
    // The consumers reset and commit; the broker's own table is untouched.
    assert.deepEqual(committed(s), [4n, 0n, 0n, 1n]);

    // Queue 0 at 1 is already before message 3: kept without force, moved forward with it.
    commit(s, [1n, 0n, 0n, 1n]);
    assert.deepEqual(resetTable(await s.admin.call(resetRequest(BigInt(T0 + 3000), false))), [
      '0=1',
      '1=0',
      '2=0',
      '3=0',
    ]);
    assert.deepEqual(resetTable(await s.admin.call(resetRequest(BigInt(T0 + 3000), true))), [
      '0=3',
      '1=0',
      '2=0',
      '3=0',
    ]);
    // -1 is "now": each queue's max offset.
    assert.deepEqual(resetTable(await s.admin.call(resetRequest(-1n, true))), ['0=5', '1=0', '2=0', '3=0']);
  });

  test('a C++ admin gets ResetOffsetBodyForC pushed, ResetOffsetBody answered', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 3);
    commit(s, [3n, 0n, 0n, 0n]);
    const c = await online(s, 'client-1');
    const r = await s.admin.call(resetRequest(BigInt(T0 + 1000), false, { language: 'CPP' }));
    assert.deepEqual(resetTable(r), ['0=1', '1=0', '2=0', '3=0']);
    await until(() => requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length === 1, 'push');
    const [push] = requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET);
    assert.deepEqual(byQueue(decodeResetOffsetBodyForC(push?.body).offsetTable), [
      '0=1',
      '1=0',
      '2=0',
      '3=0',
    ]);
  });

  test('no consumer online: CONSUMER_NOT_ONLINE and nothing changes', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 3);
    commit(s, [3n, 3n, 3n, 3n]);
    const r = await s.admin.call(resetRequest(123n, true));
    assert.equal(r.code, ResponseCode.CONSUMER_NOT_ONLINE);
    assert.equal(
      r.remark,
      `Consumer not online, so can not reset offset, Group: ${GROUP} Topic: ${TOPIC} Timestamp: 123`,
    );
    assert.equal(r.body, undefined);
    // The 4.9.8 admin then commits the offsets itself (resetOffsetByTimestampOld).
    assert.deepEqual(committed(s), [3n, 3n, 3n, 3n]);
  });

  test('unknown topic, group without offsets', LIMIT, async () => {
    const s = await setup();
    await online(s, 'client-1');
    let r = await s.admin.call(resetRequest(0n, true, { topic: 'Nope' }));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR); // 5.x answers TOPIC_NOT_EXIST here
    assert.equal(r.remark, '[reset-offset] reset offset failed, no topic in this broker. topic=Nope');
    commit(s, [0n, 0n, 0n]); // queue 3 has none
    r = await s.admin.call(resetRequest(0n, true));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, `THe consumer group <${GROUP}> not exist`);
  });

  test('a consumer older than V3_0_7_SNAPSHOT ends the push with SYSTEM_ERROR', LIMIT, async () => {
    const s = await setup();
    commit(s, [0n, 0n, 0n, 0n]);
    const fresh = await online(s, 'client-new', 409);
    const old = await online(s, 'client-old', 27);
    const after = await online(s, 'client-after', 409);
    const r = await s.admin.call(resetRequest(0n, true));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, `the client does not support this feature. version=${mqVersionName(27)}`);
    assert.equal(r.remark, 'the client does not support this feature. version=V3_0_6');
    // A member met before the old one got the push; none after it did (a round trip on each
    // connection shows that nothing was written before its answer).
    await until(() => requestsOf(fresh, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length === 1, 'push');
    for (const [c, id] of [
      [old, 'client-old'],
      [after, 'client-after'],
    ] as const) {
      await c.call(heartbeatRequest(consumerHeartbeat(id, GROUP, [TOPIC])));
    }
    assert.equal(requestsOf(old, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length, 0);
    assert.equal(requestsOf(after, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length, 0);
  });
});

describe('INVOKE_BROKER_TO_RESET_OFFSET for one queue (5.x queueId / offset)', () => {
  test('an explicit offset is committed here, pushed, and answered', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 5);
    commit(s, [4n, 0n, 0n, 0n]);
    const c = await online(s, 'client-1');
    const r = await s.admin.call(resetRequest(0n, false, { extra: { queueId: '0', offset: '1' } }));
    assert.deepEqual(resetTable(r), ['0=1']);
    assert.deepEqual(committed(s), [1n, 0n, 0n, 0n]);
    await until(() => requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET).length === 1, 'push');
    const [push] = requestsOf(c, RequestCode.RESET_CONSUMER_CLIENT_OFFSET);
    assert.deepEqual(byQueue(decodeResetOffsetBody(push?.body).offsetTable), ['0=1']);
    // Forward too (isForce does not apply), up to max + 1 as upstream's range check allows.
    assert.deepEqual(
      resetTable(await s.admin.call(resetRequest(0n, false, { extra: { queueId: '0', offset: '6' } }))),
      ['0=6'],
    );
    assert.equal(committed(s)[0], 6n);
  });

  test('without an offset (or -1) the timestamp decides; no consumer needed', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 5);
    commit(s, [0n, 0n, 0n, 0n]);
    s.broker.subscriptionGroupManager.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(GROUP));
    const extra = { queueId: '0', offset: '-1' };
    assert.deepEqual(resetTable(await s.admin.call(resetRequest(BigInt(T0 + 3000), false, { extra }))), [
      '0=3',
    ]);
    assert.deepEqual(committed(s), [3n, 0n, 0n, 0n]);
    const now = { queueId: '0' };
    assert.deepEqual(resetTable(await s.admin.call(resetRequest(-1n, false, { extra: now }))), ['0=5']);
    assert.deepEqual(committed(s), [5n, 0n, 0n, 0n]);
  });

  test('queueId -1 (what 5.x admins always write) is the 4.9.8 reset', LIMIT, async () => {
    const s = await setup();
    commit(s, [0n, 0n, 0n, 0n]);
    const r = await s.admin.call(resetRequest(0n, true, { extra: { queueId: '-1', offset: '3' } }));
    assert.equal(r.code, ResponseCode.CONSUMER_NOT_ONLINE);
  });

  test('refusals: offset out of range, unknown topic, unknown group', LIMIT, async () => {
    const s = await setup();
    await putMessages(s, 5);
    await online(s, 'client-1');
    let r = await s.admin.call(resetRequest(0n, false, { extra: { queueId: '0', offset: '7' } }));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, 'Target offset 7 not in consume queue range [0-5]');
    r = await s.admin.call(resetRequest(0n, false, { topic: 'Nope', extra: { queueId: '0', offset: '0' } }));
    assert.equal(r.code, ResponseCode.TOPIC_NOT_EXIST);
    assert.equal(r.remark, 'Topic Nope does not exist');
    r = await s.admin.call(
      resetRequest(0n, false, { group: 'cg-none', extra: { queueId: '0', offset: '0' } }),
    );
    assert.equal(r.code, ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST);
    assert.equal(r.remark, 'Group cg-none does not exist');
    assert.equal(s.broker.consumerOffsetManager.queryOffset('cg-none', TOPIC, 0), -1n);
  });

  test('a slave refuses', LIMIT, async () => {
    const { broker } = await testBroker({ brokerRole: 'SLAVE', brokerId: 1 });
    track(broker);
    broker.topicConfigManager.updateTopicConfig(
      createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
    );
    broker.subscriptionGroupManager.updateSubscriptionGroupConfig(createSubscriptionGroupConfig(GROUP));
    const admin = connectInMemory(broker);
    const r = await admin.call(resetRequest(0n, false, { extra: { queueId: '0', offset: '0' } }));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, 'Can not reset offset in slave broker');
  });
});

/** A consumer that answers GET_CONSUMER_STATUS_FROM_CLIENT with `offsets` for queues 0.. . */
function answersStatus(c: TestClient, offsets: readonly bigint[]): void {
  c.respond = (request) => {
    if (request.code !== RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT) return undefined;
    const messageQueueTable = offsets.map((o, q) => [new MessageQueue(TOPIC, 'broker-a', q), o] as const);
    return createResponse(request, ResponseCode.SUCCESS, {
      body: encodeGetConsumerStatusBody({ messageQueueTable, consumerTable: [] }),
    });
  };
}

function statusRequest(clientAddr?: string): RemotingCommand {
  return createRequest(RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, {
    extFields: encodeHeader(GetConsumerStatusRequestHeader, { topic: TOPIC, group: GROUP, clientAddr }),
  });
}

function statusTables(r: RemotingCommand): Array<[string, string[]]> {
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  const body = decodeGetConsumerStatusBody(r.body);
  assert.deepEqual(body.messageQueueTable, []);
  return body.consumerTable.map(([id, t]) => [id, byQueue(t)]);
}

describe('INVOKE_BROKER_TO_GET_CONSUMER_STATUS', () => {
  test('each consumer asked, its table under its clientId (HashMap order)', LIMIT, async () => {
    const s = await setup();
    const c1 = await online(s, 'client-1');
    const c2 = await online(s, 'client-22');
    answersStatus(c1, [5n, 6n]);
    answersStatus(c2, [7n]);
    const tables = new Map([
      ['client-1', ['0=5', '1=6']],
      ['client-22', ['0=7']],
    ]);
    assert.deepEqual(
      statusTables(await s.admin.call(statusRequest())),
      javaHashMapOrder(['client-1', 'client-22']).map((id) => [id, tables.get(id)]),
    );
    for (const c of [c1, c2]) {
      const [asked] = requestsOf(c, RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT);
      assert.ok(asked && !isOneway(asked));
      assert.deepEqual(decodeHeader(GetConsumerStatusRequestHeader, asked.extFields), {
        topic: TOPIC,
        group: GROUP,
        clientAddr: undefined,
      });
    }
  });

  test('clientAddr names one clientId: only that consumer is asked', LIMIT, async () => {
    const s = await setup();
    const c1 = await online(s, 'client-1');
    const c2 = await online(s, 'client-22');
    answersStatus(c1, [5n]);
    answersStatus(c2, [7n]);
    assert.deepEqual(statusTables(await s.admin.call(statusRequest('client-22'))), [['client-22', ['0=7']]]);
    assert.equal(requestsOf(c1, RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT).length, 0);
    // A blank one means everyone.
    assert.equal(statusTables(await s.admin.call(statusRequest('  '))).length, 2);
  });

  test('a consumer that fails, answers without a body or not at all is left out', LIMIT, async () => {
    const s = await setup();
    const good = await online(s, 'client-1');
    const failing = await online(s, 'client-22');
    const empty = await online(s, 'client-333');
    const silent = await online(s, 'client-4444');
    answersStatus(good, [5n]);
    failing.respond = (request) => createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'no' });
    empty.respond = (request) => createResponse(request, ResponseCode.SUCCESS);
    // The handler's own timeout is upstream's 5 s; the function takes a shorter one.
    const r = await getConsumeStatus(s.broker, TOPIC, GROUP, undefined, 100);
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.deepEqual(
      decodeGetConsumerStatusBody(r.body).consumerTable.map(([id]) => id),
      ['client-1'],
    );
    assert.equal(requestsOf(silent, RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT).length, 1);
  });

  test('no consumer online; a consumer older than V3_0_7_SNAPSHOT', LIMIT, async () => {
    const s = await setup();
    let r = await s.admin.call(statusRequest());
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, `No Any Consumer online in the consumer group: [${GROUP}]`);
    await online(s, 'client-old', 27);
    r = await s.admin.call(statusRequest());
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, 'the client does not support this feature. version=V3_0_6');
  });
});

function runningInfoRequest(clientId: string): RemotingCommand {
  return createRequest(RequestCode.GET_CONSUMER_RUNNING_INFO, {
    extFields: encodeHeader(GetConsumerRunningInfoRequestHeader, {
      consumerGroup: GROUP,
      clientId,
      jstackEnable: true,
    }),
  });
}

describe('GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY (callConsumer)', () => {
  test('running info: forwarded to the consumer, its answer returned as is', LIMIT, async () => {
    const s = await setup();
    const c = await online(s, 'client-1');
    const info = Buffer.from('{"jstack":"...","properties":{},"subscriptionSet":[]}');
    c.respond = (request) =>
      createResponse(request, ResponseCode.SUCCESS, { body: info, remark: 'from the consumer' });
    const r = await s.admin.call(runningInfoRequest('client-1'));
    assert.equal(r.code, ResponseCode.SUCCESS);
    assert.equal(r.remark, 'from the consumer');
    assert.deepEqual(r.body, info);
    const [asked] = requestsOf(c, RequestCode.GET_CONSUMER_RUNNING_INFO);
    assert.ok(asked && !isOneway(asked));
    assert.deepEqual(asked.extFields, { consumerGroup: GROUP, clientId: 'client-1', jstackEnable: 'true' });
    // An error answer is returned as is too.
    c.respond = (request) => createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'busy' });
    const e = await s.admin.call(runningInfoRequest('client-1'));
    assert.equal(e.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(e.remark, 'busy');
  });

  test('unknown client, old client', LIMIT, async () => {
    const s = await setup();
    let r = await s.admin.call(runningInfoRequest('client-x'));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, `The Consumer <${GROUP}> <client-x> not online`);
    const old = await online(s, 'client-old', 61);
    r = await s.admin.call(runningInfoRequest('client-old'));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(
      r.remark,
      'The Consumer <client-old> Version <V3_1_7> too low to finish, please upgrade it to V3_1_8_SNAPSHOT',
    );
    assert.equal(requestsOf(old, RequestCode.GET_CONSUMER_RUNNING_INFO).length, 0);
  });

  test('no answer in time: CONSUME_MSG_TIMEOUT; connection lost: SYSTEM_ERROR', LIMIT, async () => {
    const s = await setup();
    await online(s, 'client-1');
    const request = runningInfoRequest('client-1');
    // The handler waits upstream's 10 s; the function takes a shorter one.
    let r = await callConsumer(
      s.broker,
      RequestCode.GET_CONSUMER_RUNNING_INFO,
      request,
      GROUP,
      'client-1',
      100,
    );
    assert.equal(r.code, ResponseCode.CONSUME_MSG_TIMEOUT);
    assert.match(
      r.remark ?? '',
      new RegExp(`^consumer <${GROUP}> <client-1> Timeout: RemotingTimeoutError: `),
    );

    const c2 = await online(s, 'client-2');
    c2.respond = () => {
      c2.client.close('consumer went away');
      return undefined;
    };
    r = await s.admin.call(runningInfoRequest('client-2'));
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', new RegExp(`^invoke consumer <${GROUP}> <client-2> Exception: `));
  });

  test('consume directly: the stored record and the broker name go to the consumer', LIMIT, async () => {
    const s = await setup();
    const [, second] = await putMessages(s, 2);
    assert.ok(second !== undefined);
    const c = await online(s, 'client-1');
    const result = Buffer.from(
      '{"autoCommit":true,"consumeResult":"CR_SUCCESS","order":false,"spentTimeMills":3}',
    );
    c.respond = (request) => createResponse(request, ResponseCode.SUCCESS, { body: result });
    const msgId = createOffsetMsgId({ address: '127.0.0.1', port: 10911 }, second);
    const r = await s.admin.call(
      createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY, {
        extFields: encodeHeader(ConsumeMessageDirectlyResultRequestHeader, {
          consumerGroup: GROUP,
          clientId: 'client-1',
          msgId,
        }),
      }),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(r.body, result);
    const [asked] = requestsOf(c, RequestCode.CONSUME_MESSAGE_DIRECTLY);
    assert.ok(asked);
    assert.deepEqual(decodeHeader(ConsumeMessageDirectlyResultRequestHeader, asked.extFields), {
      consumerGroup: GROUP,
      clientId: 'client-1',
      msgId,
      brokerName: 'broker-a',
    });
    assert.deepEqual(asked.body, s.broker.messageStore.selectOneMessageByOffset(second));
  });

  test('consume directly: bad or unknown message id, then the client checks', LIMIT, async () => {
    const s = await setup();
    const direct = (msgId: string | undefined, clientId = 'client-1') =>
      s.admin.call(
        createRequest(RequestCode.CONSUME_MESSAGE_DIRECTLY, {
          extFields: encodeHeader(ConsumeMessageDirectlyResultRequestHeader, {
            consumerGroup: GROUP,
            clientId,
            msgId,
          }),
        }),
      );
    let r = await direct('XYZ');
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /offset message id "XYZ" is not 32 or 56 hex characters/);
    r = await direct(undefined);
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.match(r.remark ?? '', /msgId is missing/);
    const nowhere = createOffsetMsgId({ address: '127.0.0.1', port: 10911 }, 4096n);
    r = await direct(nowhere);
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, 'can not find message by the offset, 4096');
    const [first] = await putMessages(s, 1);
    assert.ok(first !== undefined);
    r = await direct(createOffsetMsgId({ address: '127.0.0.1', port: 10911 }, first), 'client-x');
    assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
    assert.equal(r.remark, `The Consumer <${GROUP}> <client-x> not online`);
  });
});
