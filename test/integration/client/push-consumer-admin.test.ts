/**
 * Progress and the admin's requests, against our broker: offsets committed to the broker every
 * persistConsumerOffsetInterval (after upstream's first 10 s, which a JumpClock skips) and at
 * shutdown; an offset reset by time (INVOKE_BROKER_TO_RESET_OFFSET, pushed by the broker as
 * RESET_CONSUMER_CLIENT_OFFSET) honoured at once and kept until the messages are consumed again;
 * GET_CONSUMER_RUNNING_INFO and CONSUME_MESSAGE_DIRECTLY relayed by the broker and answered.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { PullAPIWrapper } from '../../../src/client/consumer/pull/pull-api-wrapper.js';
import { PullStatus } from '../../../src/client/consumer/pull/pull-result.js';
import type { Producer, PushConsumer } from '../../../src/client/index.js';
import { MixAll } from '../../../src/common/constants.js';
import { decodeConsumeMessageDirectlyResult } from '../../../src/common/protocol/consume-message-directly-result.js';
import {
  ConsumerRunningInfoProp,
  decodeConsumerRunningInfo,
} from '../../../src/common/protocol/consumer-running-info.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  AdminClient,
  BROKER_FAST,
  brokerOffset,
  caughtUp,
  implOf,
  JumpClock,
  newConsumer,
  offsetInMemory,
  recordConcurrently,
  type Seen,
  sendMany,
  shutdownAll,
} from './consumer-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
let admin: AdminClient;
/** UPDATE_CONSUMER_OFFSET requests the broker received: group, topic, queue, offset, when. */
const updates: Array<{ group: string; topic: string; queueId: number; offset: bigint; at: number }> = [];

before(async () => {
  cluster = await startCluster(BROKER_FAST);
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.UPDATE_CONSUMER_OFFSET, (real) => (b, ctx, request) => {
    const f = request.extFields ?? {};
    updates.push({
      group: f.consumerGroup ?? '',
      topic: f.topic ?? '',
      queueId: Number(f.queueId),
      offset: BigInt(f.commitOffset ?? '-1'),
      at: Date.now(),
    });
    return real(b, ctx, request);
  });
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
  admin = new AdminClient();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await admin?.close();
  await cluster?.close();
});

/** Pull answers of `status` the consumer processed, by queue, as they come. */
function pullAnswers(consumer: PushConsumer, status: PullStatus): Array<{ queueId: number; at: number }> {
  const answers: Array<{ queueId: number; at: number }> = [];
  const wrapper = (implOf(consumer) as unknown as { pullAPIWrapper: PullAPIWrapper }).pullAPIWrapper;
  const real = wrapper.processPullResult.bind(wrapper);
  wrapper.processPullResult = (mq, raw, sub) => {
    if (raw.pullStatus === status) answers.push({ queueId: mq.queueId, at: Date.now() });
    return real(mq, raw, sub);
  };
  return answers;
}

function updatesOf(group: string, topic: string) {
  return updates.filter((u) => u.group === group && u.topic === topic);
}

async function topicWith(queues: number): Promise<string> {
  const topic = uniqueName('Admin');
  await createTopic(cluster, topic, queues, [broker]);
  return topic;
}

describe('push consumer: offsets and admin requests', { concurrency: true }, () => {
  test('offsets are committed every persistConsumerOffsetInterval after the first 10 s', async () => {
    const topic = await topicWith(2);
    const clock = new JumpClock();
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { clock, persistConsumerOffsetInterval: 300 });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await sendMany(producer, 20, (i) => ({ topic, body: `p${i}` }));
    await until(() => seen.length >= 20, '20 consumed');
    await until(() => caughtUp(broker, topic, 2, { consumers: [consumer] }), 'caught up in memory');
    const group = implOf(consumer).consumerGroup;
    assert.deepEqual(updatesOf(group, topic), [], 'nothing persisted in the first 10 s');
    clock.jump(10_000);
    await until(() => updatesOf(group, topic).length >= 6, 'three persist rounds of both queues');
    const rounds = updatesOf(group, topic);
    for (const u of rounds) assert.equal(u.offset, offsetInMemory(consumer, topic, u.queueId));
    const q0 = rounds.filter((u) => u.queueId === 0).map((u) => u.at);
    for (let i = 1; i < q0.length; i++) {
      const gap = (q0[i] as number) - (q0[i - 1] as number);
      assert.ok(gap >= 250 && gap < 2000, `persist gap ${gap} ms`);
    }
    for (let q = 0; q < 2; q++) {
      assert.equal(brokerOffset(broker, group, topic, q), broker.messageStore.getMaxOffsetInQueue(topic, q));
    }
  });

  test('shutdown() commits the offsets of every held queue before it returns', async () => {
    const topic = await topicWith(4);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await sendMany(producer, 40, (i) => ({ topic, body: `s${i}` }));
    await until(() => seen.length >= 40, '40 consumed');
    await until(() => caughtUp(broker, topic, 4, { consumers: [consumer] }), 'caught up in memory');
    const group = implOf(consumer).consumerGroup;
    const before = updatesOf(group, topic).length;
    await consumer.shutdown();
    const persisted = updatesOf(group, topic).slice(before);
    assert.deepEqual(
      persisted.map((u) => u.queueId).sort(),
      [0, 1, 2, 3],
      'one commit per queue at shutdown',
    );
    for (let q = 0; q < 4; q++) {
      const max = broker.messageStore.getMaxOffsetInQueue(topic, q);
      assert.equal(persisted.find((u) => u.queueId === q)?.offset, max);
      assert.equal(brokerOffset(broker, group, topic, q), max);
    }
  });

  test('a reset by time is honoured at once: everything consumed again, the offset kept until then', async () => {
    const topic = await topicWith(4);
    const seen: Seen[] = [];
    let hold: Promise<void> | undefined;
    let release = () => {};
    // The periodic rebalance is upstream's 20 s: the reset cannot wait for it.
    const consumer = newConsumer(cluster, { rebalanceWaitInterval: 20_000 });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, async () => {
      await hold;
      return 'CONSUME_SUCCESS' as const;
    });
    await consumer.start();
    const sent = await sendMany(producer, 40, (i) => ({ topic, body: `r${i}` }));
    await until(() => seen.length >= 40, '40 consumed');
    const group = implOf(consumer).consumerGroup;
    await until(() => caughtUp(broker, topic, 4, { group }), 'committed on the broker');

    // The listener holds what comes again, so the offset must stay at the reset point meanwhile.
    hold = new Promise((resolve) => {
      release = resolve;
    });
    const noNewMsg = pullAnswers(consumer, PullStatus.NO_NEW_MSG);
    const resetAt = Date.now();
    const response = await admin.invoke(broker, RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, {
      topic,
      group,
      timestamp: '0',
      isForce: 'true',
    });
    assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
    await until(() => seen.length > 40, 'consumed again at once', 3000);
    // The long polls under way at the reset (one per queue, at offset 10) end with NO_NEW_MSG
    // within brokerSuspendMaxTimeMillis; their answers must not move the rebuilt queues' offsets.
    await until(
      () => [0, 1, 2, 3].every((q) => noNewMsg.some((a) => a.queueId === q && a.at >= resetAt)),
      'the pulls under way at the reset answered',
    );
    for (let q = 0; q < 4; q++) {
      assert.equal(offsetInMemory(consumer, topic, q), 0n, `queue ${q} in memory`);
      assert.equal(brokerOffset(broker, group, topic, q), 0n, `queue ${q} on the broker`);
    }
    release();
    await until(() => seen.length >= 80, 'all 40 consumed again');
    assert.deepEqual(
      seen
        .slice(40)
        .map((s) => s.msgId)
        .sort(),
      sent.map((r) => r.msgId).sort(),
    );
    await until(() => caughtUp(broker, topic, 4, { group }), 'committed again');
  });

  test('GET_CONSUMER_RUNNING_INFO through the broker: settings, subscriptions, held queues and stats', async () => {
    const topic = await topicWith(4);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { consumeConcurrency: 7 });
    consumer.subscribe(topic, 'TagA || TagB');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await sendMany(producer, 20, (i) => ({ topic, body: `i${i}`, tags: i % 2 === 0 ? 'TagA' : 'TagB' }));
    await until(() => seen.length >= 20, '20 consumed');
    await until(() => caughtUp(broker, topic, 4, { consumers: [consumer] }), 'caught up');
    const group = implOf(consumer).consumerGroup;
    const response = await admin.invoke(broker, RequestCode.GET_CONSUMER_RUNNING_INFO, {
      consumerGroup: group,
      clientId: consumer.clientId as string,
      jstackEnable: 'false',
    });
    assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
    const info = decodeConsumerRunningInfo(response.body);
    const props = info.properties;
    assert.equal(props.get(ConsumerRunningInfoProp.PROP_CONSUME_TYPE), 'CONSUME_PASSIVELY');
    assert.equal(props.get(ConsumerRunningInfoProp.PROP_CONSUME_ORDERLY), 'false');
    assert.equal(props.get(ConsumerRunningInfoProp.PROP_THREADPOOL_CORE_SIZE), '7');
    // Upstream writes each name server followed by ';'.
    assert.equal(props.get(ConsumerRunningInfoProp.PROP_NAMESERVER_ADDR), `${cluster.namesrvAddr};`);
    assert.ok(Number(props.get(ConsumerRunningInfoProp.PROP_CONSUMER_START_TIMESTAMP)) > 0);
    assert.equal(props.get('consumerGroup'), group);
    assert.equal(props.get('messageModel'), 'CLUSTERING');
    assert.deepEqual(
      info.subscriptionSet.map((s) => `${s.topic}@${s.subString}`).sort(),
      [`${MixAll.getRetryTopic(group)}@*`, `${topic}@TagA || TagB`].sort(),
    );
    const queues = info.mqTable.filter(([mq]) => mq.topic === topic);
    assert.deepEqual(
      queues.map(([mq]) => mq.queueId),
      [0, 1, 2, 3],
    );
    for (const [mq, pq] of queues) {
      assert.equal(pq.commitOffset, broker.messageStore.getMaxOffsetInQueue(topic, mq.queueId));
      assert.equal(pq.cachedMsgCount, 0);
      assert.equal(pq.droped, false);
      assert.ok(pq.lastPullTimestamp > 0n);
    }
    assert.ok(info.statusTable.has(topic), 'consume stats of the topic');
    assert.equal(info.jstack, undefined);
  });

  test('CONSUME_MESSAGE_DIRECTLY through the broker runs the listener on the message and answers CR_SUCCESS', async () => {
    const topic = await topicWith(1);
    const direct: Seen[] = [];
    const consumer = newConsumer(cluster, { consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', direct, (msg) =>
      msg.body.toString() === 'later' ? 'RECONSUME_LATER' : 'CONSUME_SUCCESS',
    );
    await consumer.start();
    const group = implOf(consumer).consumerGroup;
    await until(() => implOf(consumer).rebalance.processQueueTable.size >= 1, 'started');
    const results = [];
    for (const body of ['direct', 'later']) {
      const sent = await producer.send({ topic, body, properties: { k: 'v' } });
      await until(() => direct.some((s) => s.body === body), `${body} consumed by the flow`);
      const response = await admin.invoke(broker, RequestCode.CONSUME_MESSAGE_DIRECTLY, {
        consumerGroup: group,
        clientId: consumer.clientId as string,
        msgId: sent.offsetMsgId,
      });
      assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
      results.push(decodeConsumeMessageDirectlyResult(response.body));
      const copies = direct.filter((s) => s.body === body);
      assert.equal(copies.length, 2, `${body}: once by the flow, once directly`);
      assert.equal(copies[1]?.msgId, sent.msgId);
      assert.equal(copies[1]?.properties.get('k'), 'v');
    }
    assert.deepEqual(
      results.map((r) => [r.consumeResult, r.order, r.autoCommit]),
      [
        ['CR_SUCCESS', false, true],
        ['CR_LATER', false, true],
      ],
    );
  });
});
