/**
 * CONSUMER_SEND_MSG_BACK (36) against a started broker over a real store in a temp dir: what the
 * retry copy looks like in SCHEDULE_TOPIC_XXXX and, once the ScheduleMessageService delivered it,
 * in %RETRY%<group>; the dead-letter cases; upstream's refusals; the stats it counts.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { Stats } from '../../../src/broker/stats/stats-names.js';
import { createOffsetMsgId } from '../../../src/common/message/message-id.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader, type HeaderInputOf } from '../../../src/remoting/protocol/header-schema.js';
import { ConsumerSendMsgBackRequestHeader } from '../../../src/remoting/protocol/headers/consumer-send-msg-back-request-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { DefaultMessageStore } from '../../../src/store/default-message-store.js';
import { PutMessageResult, PutMessageStatus } from '../../../src/store/put-message-result.js';
import { BORN_HOST, msg, STORE_HOST, uniqKey } from '../store/default-message-store-support.js';
import type { TestClient } from './helpers.js';
import {
  cleanUp,
  putMessage,
  quiesce,
  type RunningBroker,
  readQueue,
  SCHEDULE_TOPIC,
  startBroker,
  T0,
  untilQueueHas,
} from './schedule-support.js';

const LIMIT = { timeout: 20_000 };
const GROUP = 'cg';
const RETRY = '%RETRY%cg';
const DLQ = '%DLQ%cg';
const FAQ = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

afterEach(cleanUp);

type Header = HeaderInputOf<typeof ConsumerSendMsgBackRequestHeader>;

function sendBack(
  c: TestClient,
  fields: Partial<Header> & { offset: bigint },
  version = 409,
): Promise<RemotingCommand> {
  const header: Header = {
    group: GROUP,
    delayLevel: 0,
    unitMode: false,
    originTopic: 'TopicTest',
    ...fields,
  };
  return c.call(
    createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, {
      extFields: encodeHeader(ConsumerSendMsgBackRequestHeader, header),
      version,
    }),
  );
}

function assertAnswer(response: RemotingCommand, code: number, remark?: string): void {
  assert.equal(response.code, code, response.remark);
  assert.equal(response.remark, remark);
}

function props(m: { properties: Map<string, string> }): Record<string, string> {
  return Object.fromEntries(m.properties);
}

/** The original message as a producer stored it in TopicTest/1. */
async function original(
  broker: BrokerController,
  init: { reconsumeTimes?: number; extra?: Record<string, string>; sysFlag?: number; flag?: number } = {},
): Promise<{ offset: bigint; msgId: string }> {
  const m = msg(1, {
    topic: 'TopicTest',
    queueId: 1,
    ...(init.extra === undefined ? {} : { extra: init.extra }),
  });
  m.reconsumeTimes = init.reconsumeTimes ?? 0;
  m.sysFlag = init.sysFlag ?? 0;
  m.flag = init.flag ?? 0;
  const offset = await putMessage(broker, m);
  return { offset, msgId: createOffsetMsgId(STORE_HOST, offset) };
}

function setGroup(b: RunningBroker, fields: { retryQueueNums?: number; retryMaxTimes?: number } = {}): void {
  b.broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
    createSubscriptionGroupConfig(GROUP, fields),
  );
}

describe('retry through the delay levels', () => {
  test(
    'reconsumeTimes 0 goes to SCHEDULE_TOPIC_XXXX level 3 and reaches %RETRY%<group> 10 s later',
    LIMIT,
    async () => {
      const b = await startBroker();
      setGroup(b);
      const { offset, msgId } = await original(b.broker, { flag: 5 });

      assertAnswer(await sendBack(b.client, { offset, originMsgId: 'UNIQ' }), ResponseCode.SUCCESS);

      const retryConfig = b.broker.topicConfigManager.selectTopicConfig(RETRY);
      assert.ok(retryConfig);
      assert.equal(retryConfig.readQueueNums, 1);
      assert.equal(retryConfig.writeQueueNums, 1);
      assert.equal(retryConfig.perm, 6);

      const scheduled = await readQueue(b.broker, SCHEDULE_TOPIC, 2);
      assert.equal(scheduled.length, 1);
      const s = scheduled[0];
      assert.ok(s);
      assert.equal(s.tagsCode, BigInt(T0 + 10_000), 'deliver time = store time + 10 s');
      assert.equal(s.msg.reconsumeTimes, 1);
      assert.deepEqual(props(s.msg), {
        KEYS: 'key-1 k2-1',
        idx: '1',
        UNIQ_KEY: uniqKey(1),
        WAIT: 'false',
        TAGS: 'TagB',
        RETRY_TOPIC: 'TopicTest',
        DELAY: '3',
        ORIGIN_MESSAGE_ID: msgId,
        REAL_TOPIC: RETRY,
        REAL_QID: '0',
      });
      assert.equal((await readQueue(b.broker, RETRY, 0)).length, 0);

      // Counted as upstream: the schedule topic and queue, and the send-back of the original topic.
      const stats = b.broker.brokerStatsManager;
      assert.equal(stats.getStatsItem(Stats.SNDBCK_PUT_NUMS, 'TopicTest@cg')?.value, 1);
      assert.equal(stats.getStatsItem(Stats.TOPIC_PUT_NUMS, SCHEDULE_TOPIC)?.value, 1);
      assert.ok((stats.getStatsItem(Stats.TOPIC_PUT_SIZE, SCHEDULE_TOPIC)?.value ?? 0) > 0);

      b.clock.advance(9_999);
      await quiesce();
      assert.equal((await readQueue(b.broker, RETRY, 0)).length, 0, 'not before its time');
      b.clock.advance(1);
      await untilQueueHas(b.broker, RETRY, 0, 1);

      const retried = await readQueue(b.broker, RETRY, 0);
      assert.equal(retried.length, 1);
      const r = retried[0];
      assert.ok(r);
      assert.equal(r.msg.topic, RETRY);
      assert.equal(r.msg.queueId, 0);
      assert.equal(r.msg.reconsumeTimes, 1);
      assert.equal(r.msg.body.toString(), 'body-1');
      assert.equal(r.msg.flag, 5);
      assert.equal(r.msg.bornTimestamp, 1_700_000_000_001n);
      assert.deepEqual(r.msg.bornHost, BORN_HOST);
      assert.deepEqual(r.msg.storeHost, STORE_HOST, "upstream keeps the original's store host");
      assert.equal(r.msg.storeTimestamp, BigInt(T0 + 10_000));
      assert.equal(r.tagsCode, tagsString2tagsCode('TagB'));
      const p = props(r.msg);
      assert.equal(p.RETRY_TOPIC, 'TopicTest');
      assert.equal(p.ORIGIN_MESSAGE_ID, msgId);
      assert.equal(p.REAL_TOPIC, RETRY);
      assert.equal(p.REAL_QID, '0');
      assert.equal(p.DELAY, '3', 'upstream stores the delivered message with DELAY still in it');
      assert.equal(b.broker.scheduleMessageService?.offsets().get(3), 1n);
      assert.equal(b.broker.messageStore.getMaxOffsetInQueue(SCHEDULE_TOPIC, 2), 1n, 'not scheduled again');
    },
  );

  test(
    'a second failure keeps RETRY_TOPIC and ORIGIN_MESSAGE_ID and waits one level longer',
    LIMIT,
    async () => {
      const b = await startBroker();
      setGroup(b);
      const { offset, msgId } = await original(b.broker);
      assertAnswer(await sendBack(b.client, { offset }), ResponseCode.SUCCESS);
      b.clock.advance(10_000);
      await untilQueueHas(b.broker, RETRY, 0, 1);
      const first = (await readQueue(b.broker, RETRY, 0))[0];
      assert.ok(first);

      assertAnswer(await sendBack(b.client, { offset: first.msg.commitLogOffset }), ResponseCode.SUCCESS);
      const scheduled = await readQueue(b.broker, SCHEDULE_TOPIC, 3);
      assert.equal(scheduled.length, 1, 'level 4 = 3 + reconsumeTimes 1');
      const s = scheduled[0];
      assert.ok(s);
      assert.equal(s.tagsCode, BigInt(T0 + 10_000 + 30_000));
      assert.equal(s.msg.reconsumeTimes, 2);
      assert.equal(s.msg.properties.get('RETRY_TOPIC'), 'TopicTest');
      assert.equal(s.msg.properties.get('ORIGIN_MESSAGE_ID'), msgId);
      assert.equal(s.msg.properties.get('DELAY'), '4');

      b.clock.advance(30_000);
      await untilQueueHas(b.broker, RETRY, 0, 2);
      const second = (await readQueue(b.broker, RETRY, 0))[1];
      assert.equal(second?.msg.reconsumeTimes, 2);
      assert.equal(b.broker.brokerStatsManager.getStatsItem(Stats.SNDBCK_PUT_NUMS, 'TopicTest@cg')?.value, 2);
    },
  );

  test(
    'a level the consumer chose is kept; one above the highest is clamped by the store',
    LIMIT,
    async () => {
      const b = await startBroker();
      setGroup(b);
      const { offset } = await original(b.broker);
      assertAnswer(await sendBack(b.client, { offset, delayLevel: 1 }), ResponseCode.SUCCESS);
      assertAnswer(await sendBack(b.client, { offset, delayLevel: 99 }), ResponseCode.SUCCESS);
      assert.equal((await readQueue(b.broker, SCHEDULE_TOPIC, 0)).length, 1);
      const top = await readQueue(b.broker, SCHEDULE_TOPIC, 17);
      assert.equal(top.length, 1);
      assert.equal(top[0]?.msg.properties.get('DELAY'), '18');
      const stats = b.broker.brokerStatsManager;
      assert.equal(stats.getStatsItem(Stats.QUEUE_PUT_NUMS, `${SCHEDULE_TOPIC}@0`)?.value, 1);
      assert.equal(stats.getStatsItem(Stats.QUEUE_PUT_NUMS, `${SCHEDULE_TOPIC}@17`)?.value, 1);
      b.clock.advance(1000);
      await untilQueueHas(b.broker, RETRY, 0, 1);
    },
  );

  test('a compressed body and its flag are copied as stored', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const m = msg(7, { topic: 'TopicTest', body: Buffer.from([0x78, 0x9c, 1, 2, 3]) });
    m.sysFlag = MessageSysFlag.COMPRESSED_FLAG;
    const offset = await putMessage(b.broker, m);
    assertAnswer(await sendBack(b.client, { offset, delayLevel: 1 }), ResponseCode.SUCCESS);
    const s = (await readQueue(b.broker, SCHEDULE_TOPIC, 0))[0];
    assert.ok(s);
    assert.equal(s.msg.sysFlag & MessageSysFlag.COMPRESSED_FLAG, MessageSysFlag.COMPRESSED_FLAG);
    assert.deepEqual(s.msg.body, Buffer.from([0x78, 0x9c, 1, 2, 3]));
  });
});

describe('dead letters', () => {
  test('reconsumeTimes at the consumer-given maximum goes to %DLQ%<group>', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const { offset, msgId } = await original(b.broker, { reconsumeTimes: 3 });
    assertAnswer(await sendBack(b.client, { offset, maxReconsumeTimes: 3 }), ResponseCode.SUCCESS);
    const dead = await readQueue(b.broker, DLQ, 0);
    assert.equal(dead.length, 1);
    const d = dead[0];
    assert.ok(d);
    assert.equal(d.msg.reconsumeTimes, 4);
    assert.equal(d.msg.properties.get('DELAY'), '0');
    assert.equal(d.msg.properties.get('RETRY_TOPIC'), 'TopicTest');
    assert.equal(d.msg.properties.get('ORIGIN_MESSAGE_ID'), msgId);
    assert.equal(d.msg.properties.get('REAL_TOPIC'), undefined);
    assert.equal((await readQueue(b.broker, SCHEDULE_TOPIC, 5)).length, 0);
    const dlqConfig = b.broker.topicConfigManager.selectTopicConfig(DLQ);
    assert.ok(dlqConfig);
    assert.equal(dlqConfig.writeQueueNums, 1);
    assert.equal(dlqConfig.perm, 6);
    assert.equal(b.broker.brokerStatsManager.getStatsItem(Stats.SNDBCK_PUT_NUMS, 'TopicTest@cg')?.value, 1);
    assert.equal(b.broker.brokerStatsManager.getStatsItem(Stats.TOPIC_PUT_NUMS, SCHEDULE_TOPIC), undefined);
  });

  test("a client older than 3.4.9 gets the group's retryMaxTimes, not its own", LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const { offset } = await original(b.broker, { reconsumeTimes: 3 });
    assertAnswer(await sendBack(b.client, { offset, maxReconsumeTimes: 3 }, 120), ResponseCode.SUCCESS);
    assert.equal((await readQueue(b.broker, DLQ, 0)).length, 0);
    assert.equal((await readQueue(b.broker, SCHEDULE_TOPIC, 5)).length, 1, 'level 3 + 3');
  });

  test('the group retryMaxTimes decides without the header (0: at once)', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b, { retryMaxTimes: 0 });
    const { offset } = await original(b.broker);
    assertAnswer(await sendBack(b.client, { offset }), ResponseCode.SUCCESS);
    assert.equal((await readQueue(b.broker, DLQ, 0)).length, 1);
    assert.equal(
      b.broker.topicConfigManager.selectTopicConfig(RETRY)?.topicName,
      RETRY,
      'created first, as upstream',
    );
  });

  test('delayLevel -1 goes to the DLQ whatever the count', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const { offset } = await original(b.broker);
    assertAnswer(await sendBack(b.client, { offset, delayLevel: -1 }), ResponseCode.SUCCESS);
    const dead = await readQueue(b.broker, DLQ, 0);
    assert.equal(dead.length, 1);
    assert.equal(dead[0]?.msg.reconsumeTimes, 1);
  });
});

describe('refusals and no-ops', () => {
  test('an unknown group (no auto-creation) is SUBSCRIPTION_GROUP_NOT_EXIST', LIMIT, async () => {
    const b = await startBroker({ config: { autoCreateSubscriptionGroup: false } });
    const { offset } = await original(b.broker);
    assertAnswer(
      await sendBack(b.client, { offset, group: 'nobody' }),
      ResponseCode.SUBSCRIPTION_GROUP_NOT_EXIST,
      `subscription group not exist, nobody ${FAQ}`,
    );
  });

  test('an offset with no message is SYSTEM_ERROR "look message by offset failed"', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const { offset } = await original(b.broker);
    assertAnswer(
      await sendBack(b.client, { offset: offset + 1n }),
      ResponseCode.SYSTEM_ERROR,
      `look message by offset failed, ${offset + 1n}`,
    );
    assertAnswer(
      await sendBack(b.client, { offset: 123_456_789n }),
      ResponseCode.SYSTEM_ERROR,
      'look message by offset failed, 123456789',
    );
    assertAnswer(
      await sendBack(b.client, { offset: -1n }),
      ResponseCode.SYSTEM_ERROR,
      'look message by offset failed, -1',
    );
  });

  test('a broker without write permission refuses', LIMIT, async () => {
    const b = await startBroker({ config: { brokerPermission: 4 } });
    setGroup(b);
    const { offset } = await original(b.broker);
    assertAnswer(
      await sendBack(b.client, { offset }),
      ResponseCode.NO_PERMISSION,
      'the broker[127.0.0.1] sending message is forbidden',
    );
  });

  test('a retry topic without write permission refuses', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    b.broker.topicConfigManager.createTopicInSendMessageBackMethod(RETRY, 1, 4, 0);
    const { offset } = await original(b.broker);
    assertAnswer(
      await sendBack(b.client, { offset }),
      ResponseCode.NO_PERMISSION,
      `the topic[${RETRY}] sending message is forbidden`,
    );
  });

  test('a group with no retry queues answers SUCCESS and stores nothing', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b, { retryQueueNums: 0 });
    const { offset } = await original(b.broker);
    const before = b.broker.messageStore.getMaxPhyOffset();
    assertAnswer(await sendBack(b.client, { offset }), ResponseCode.SUCCESS);
    assert.equal(b.broker.messageStore.getMaxPhyOffset(), before);
    assert.equal(b.broker.topicConfigManager.selectTopicConfig(RETRY), undefined);
  });

  test('unit mode creates the retry topic with the unit-sub flag', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b, { retryQueueNums: 3 });
    const { offset } = await original(b.broker);
    assertAnswer(await sendBack(b.client, { offset, unitMode: true }), ResponseCode.SUCCESS);
    const config = b.broker.topicConfigManager.selectTopicConfig(RETRY);
    assert.equal(config?.topicSysFlag, 2);
    assert.equal(config?.writeQueueNums, 3);
  });

  test('a failed put answers SYSTEM_ERROR with the status name and counts nothing', LIMIT, async () => {
    const b = await startBroker();
    setGroup(b);
    const { offset } = await original(b.broker);
    const store = b.broker.messageStore;
    assert.ok(store instanceof DefaultMessageStore);
    store.putMessage = async () => new PutMessageResult(PutMessageStatus.OS_PAGECACHE_BUSY);
    assertAnswer(await sendBack(b.client, { offset }), ResponseCode.SYSTEM_ERROR, 'OS_PAGECACHE_BUSY');
    assert.equal(b.broker.brokerStatsManager.getStatsItem(Stats.SNDBCK_PUT_NUMS, 'TopicTest@cg'), undefined);
  });

  test('a header without its offset is SYSTEM_ERROR naming the field', LIMIT, async () => {
    const b = await startBroker();
    const response = await b.client.call(
      createRequest(RequestCode.CONSUMER_SEND_MSG_BACK, {
        extFields: { group: GROUP, delayLevel: '0', unitMode: 'false' },
      }),
    );
    assert.equal(response.code, ResponseCode.SYSTEM_ERROR);
    assert.match(response.remark ?? '', /offset/);
  });
});
