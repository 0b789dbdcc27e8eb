/**
 * Timer messages (5.x TIMER_DELAY_SEC / TIMER_DELAY_MS / TIMER_DELIVER_MS) through our producer and
 * broker: parked in rmq_sys_wheel_timer, given out after their time (never before) with upstream's
 * properties, a long-polling consumer woken by the re-put; past times stored at once; bad values and
 * a disabled wheel refused with upstream's codes and remarks; delay levels unchanged. The broker runs
 * with timerPrecisionMs 100 so the waits are short.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { MQBrokerError } from '../../../src/client/errors.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { Message, type Producer, SendStatus } from '../../../src/index.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { TIMER_TOPIC } from '../../../src/store/timer/timer-config.js';
import {
  createTopic,
  newProducer,
  startCluster,
  storedAt,
  storedById,
  type TestCluster,
  uniqueName,
} from '../client/support.js';

const PRECISION = 100;
let cluster: TestCluster;
let producer: Producer;

before(async () => {
  cluster = await startCluster({ timerPrecisionMs: PRECISION, timerFlushIntervalMs: 100 });
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr, retryTimesWhenSendFailed: 0 });
  await producer.start();
});

after(async () => {
  await producer?.shutdown();
  await cluster?.close();
});

function brokerA() {
  const broker = cluster.brokers[0];
  assert.ok(broker);
  return broker;
}

function timerMessage(topic: string, name: string, value: string, body = 'timer'): Message {
  const msg = new Message(topic, Buffer.from(body), { tags: 'T' });
  msg.putUserProperty(name, value);
  return msg;
}

test('TIMER_DELAY_MS: parked in rmq_sys_wheel_timer, given out after its time with TIMER_* and REAL_* as upstream', async () => {
  const topic = uniqueName('Timer');
  await createTopic(cluster, topic, 1);
  const sentAt = Date.now();
  const r = await producer.send(timerMessage(topic, MessageConst.PROPERTY_TIMER_DELAY_MS, '700'));
  const returnedAt = Date.now();
  assert.equal(r.sendStatus, SendStatus.SEND_OK);
  const parked = storedById(brokerA(), r.offsetMsgId);
  assert.equal(parked.topic, TIMER_TOPIC);
  assert.equal(parked.queueId, 0);
  assert.equal(parked.getProperty(MessageConst.PROPERTY_REAL_TOPIC), topic);
  assert.equal(parked.getProperty(MessageConst.PROPERTY_REAL_QUEUE_ID), '0');
  const outMs = Number(parked.getProperty(MessageConst.PROPERTY_TIMER_OUT_MS));
  assert.ok(outMs % PRECISION === 0, `TIMER_OUT_MS ${outMs} is a slot boundary`);
  assert.ok(outMs >= sentAt + 700 - PRECISION && outMs <= returnedAt + 700, `TIMER_OUT_MS ${outMs}`);
  // Not in the topic before its time.
  assert.equal(brokerA().messageStore.getMaxOffsetInQueue(topic, 0), 0n);
  const delivered = await storedAt(brokerA(), topic, 0, 0n);
  const deliveredAt = Number(delivered.storeTimestamp);
  assert.ok(deliveredAt >= sentAt + 700, `given out at +${deliveredAt - sentAt} ms, before its time`);
  assert.ok(
    deliveredAt <= returnedAt + 700 + PRECISION + 1000,
    `given out ${deliveredAt - returnedAt - 700} ms late`,
  );
  assert.equal(delivered.msgId, r.msgId);
  assert.equal(delivered.body.toString(), 'timer');
  assert.equal(delivered.tags, 'T');
  assert.equal(delivered.getProperty(MessageConst.PROPERTY_TIMER_DELAY_MS), '700');
  assert.equal(delivered.getProperty(MessageConst.PROPERTY_TIMER_OUT_MS), String(outMs));
  // Upstream serializes before clearing them, so the delivered record keeps REAL_TOPIC / REAL_QID.
  assert.equal(delivered.getProperty(MessageConst.PROPERTY_REAL_TOPIC), topic);
  const enqueueMs = Number(delivered.getProperty(MessageConst.PROPERTY_TIMER_ENQUEUE_MS));
  const dequeueMs = Number(delivered.getProperty(MessageConst.PROPERTY_TIMER_DEQUEUE_MS));
  assert.ok(
    enqueueMs % PRECISION === 0 && enqueueMs <= Number(parked.storeTimestamp),
    `TIMER_ENQUEUE_MS ${enqueueMs}`,
  );
  assert.ok(dequeueMs >= outMs + PRECISION && dequeueMs <= deliveredAt, `TIMER_DEQUEUE_MS ${dequeueMs}`);
});

test('a long-polling pull is woken by the re-put of a timer message', async () => {
  const topic = uniqueName('TimerPull');
  await createTopic(cluster, topic, 1);
  const broker = brokerA();
  const sentAt = Date.now();
  await producer.send(timerMessage(topic, MessageConst.PROPERTY_TIMER_DELAY_SEC, '1', 'pulled'));
  // The store's arrival notification is what wakes held pulls; it must fire for the real topic.
  const arrived = new Promise<number>((resolve) => {
    broker.messageStore.onMessageArrived((request) => {
      if (request.topic === topic) resolve(Date.now());
    });
  });
  const at = await arrived;
  assert.ok(at >= sentAt + 1000, `arrived at +${at - sentAt} ms`);
});

test('TIMER_DELIVER_MS in the past: stored in its topic at once, its TIMER_DELIVER_MS kept', async () => {
  const topic = uniqueName('TimerPast');
  await createTopic(cluster, topic, 1);
  const r = await producer.send(
    timerMessage(topic, MessageConst.PROPERTY_TIMER_DELIVER_MS, String(Date.now() - 10_000)),
  );
  const stored = storedById(brokerA(), r.offsetMsgId);
  assert.equal(stored.topic, topic);
  assert.equal(stored.getProperty(MessageConst.PROPERTY_TIMER_OUT_MS), undefined);
  assert.ok(stored.getProperty(MessageConst.PROPERTY_TIMER_DELIVER_MS) !== undefined);
});

test('beyond timerMaxDelaySec or not a number: MESSAGE_ILLEGAL with upstream remark; nothing stored', async () => {
  const topic = uniqueName('TimerBad');
  await createTopic(cluster, topic, 1);
  const before = brokerA().messageStore.getMaxOffsetInQueue(TIMER_TOPIC, 0);
  for (const [name, value] of [
    [MessageConst.PROPERTY_TIMER_DELAY_SEC, String(259_200 + 10)],
    [MessageConst.PROPERTY_TIMER_DELIVER_MS, 'soon'],
    [MessageConst.PROPERTY_TIMER_DELAY_MS, '1.5'],
  ] as const) {
    await assert.rejects(producer.send(timerMessage(topic, name, value)), (e: unknown) => {
      assert.ok(e instanceof MQBrokerError, String(e));
      assert.equal(e.responseCode, ResponseCode.MESSAGE_ILLEGAL);
      assert.match(
        e.remark ?? '',
        /^timer message illegal, the delay time should not be bigger than the max delay 259200000ms/,
      );
      return true;
    });
  }
  assert.equal(brokerA().messageStore.getMaxOffsetInQueue(TIMER_TOPIC, 0), before);
  assert.equal(brokerA().messageStore.getMaxOffsetInQueue(topic, 0), 0n);
});

test('timerWheelEnable=false: SYSTEM_ERROR "accurate timer message is not enabled"', async () => {
  const topic = uniqueName('TimerOff');
  await createTopic(cluster, topic, 1);
  const config = brokerA().config as { timerWheelEnable: boolean };
  config.timerWheelEnable = false;
  try {
    // SYSTEM_ERROR is a code the producer retries on, so it reports it inside its own error.
    await assert.rejects(
      producer.send(timerMessage(topic, MessageConst.PROPERTY_TIMER_DELAY_SEC, '5')),
      /CODE: 1 DESC: accurate timer message is not enabled, timerWheelEnable is false/,
    );
  } finally {
    config.timerWheelEnable = true;
  }
});

test('a delay level wins over TIMER_*: SCHEDULE_TOPIC_XXXX, TIMER_* removed, delivered by the level', async () => {
  const topic = uniqueName('TimerLevel');
  await createTopic(cluster, topic, 1);
  const msg = timerMessage(topic, MessageConst.PROPERTY_TIMER_DELAY_SEC, '100');
  msg.putUserProperty(MessageConst.PROPERTY_TIMER_DELIVER_MS, String(Date.now() + 100_000));
  msg.delayTimeLevel = 1;
  const r = await producer.send(msg);
  const scheduled = storedById(brokerA(), r.offsetMsgId);
  assert.equal(scheduled.topic, 'SCHEDULE_TOPIC_XXXX');
  assert.equal(scheduled.getProperty(MessageConst.PROPERTY_TIMER_DELAY_SEC), undefined);
  assert.equal(scheduled.getProperty(MessageConst.PROPERTY_TIMER_DELIVER_MS), undefined);
  const delivered = await storedAt(brokerA(), topic, 0, 0n);
  assert.equal(delivered.msgId, r.msgId);
});
