/**
 * Retries of a concurrent push consumer (clustering) on our broker: a failed message (RECONSUME_LATER,
 * a throw, a garbage answer) is sent back and comes again through the retry topic with reconsumeTimes
 * 1 after delay level 3, then to `%DLQ%<group>` after maxReconsumeTimes; ctx.ackIndex fails only the
 * tail of a batch; ctx.delayLevelWhenNextConsume picks the level (-1: the DLQ at once). When the
 * broker refuses the send-back the inner producer writes the retry message itself, and when that
 * fails too the message is consumed again here after consumeRetryDelayWhenSendBackFailed.
 *
 * The broker's delay levels are shortened ("1s 1s 2s 1s ..."): level 3, upstream's 10 s, is 2 s here
 * and every other level 1 s, so a 2 s gap shows that level 3 was used.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { ConsumeConcurrentlyStatus, Producer } from '../../../src/client/index.js';
import { MixAll } from '../../../src/common/constants.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { createResponse } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  BROKER_FAST,
  caughtUp,
  FAST_DELAY_LEVELS,
  LEVEL_3_MS,
  newConsumer,
  recordConcurrently,
  type Seen,
  seenOf,
  sendMany,
  shutdownAll,
} from './consumer-support.js';
import {
  capturingLogger,
  createTopic,
  newProducer,
  queueMessages,
  startCluster,
  storedCount,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
/** CONSUMER_SEND_MSG_BACK requests the broker received, by group. */
const sendBacks = new Map<string, Array<Record<string, string>>>();
/** Groups whose send-backs the broker refuses. */
const refuseSendBack = new Set<string>();
/** Topics (retry topics) whose sends the broker refuses. */
const refuseSend = new Set<string>();

before(async () => {
  cluster = await startCluster({ ...BROKER_FAST, messageDelayLevel: FAST_DELAY_LEVELS });
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.CONSUMER_SEND_MSG_BACK, (real) => (b, ctx, request) => {
    const fields = { ...(request.extFields ?? {}) };
    const group = fields.group ?? '';
    const list = sendBacks.get(group) ?? [];
    list.push(fields);
    sendBacks.set(group, list);
    if (refuseSendBack.has(group)) {
      return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'send-back refused by the test' });
    }
    return real(b, ctx, request);
  });
  for (const code of [RequestCode.SEND_MESSAGE, RequestCode.SEND_MESSAGE_V2]) {
    wrapHandler(broker, code, (real) => (b, ctx, request) => {
      const topic = request.extFields?.topic ?? request.extFields?.b ?? '';
      if (refuseSend.has(topic)) {
        return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'send refused by the test' });
      }
      return real(b, ctx, request);
    });
  }
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
});

async function topicWith(queues: number): Promise<string> {
  const topic = uniqueName('Retry');
  await createTopic(cluster, topic, queues, [broker]);
  return topic;
}

/** Deliveries of each body, in order. */
function byBody(seen: readonly Seen[]): Map<string, Seen[]> {
  const out = new Map<string, Seen[]>();
  for (const s of seen) out.set(s.body, [...(out.get(s.body) ?? []), s]);
  return out;
}

describe('push consumer: retries', { concurrency: true }, () => {
  test('RECONSUME_LATER, a throw and a garbage answer each bring the message back once with reconsumeTimes 1 after level 3', async () => {
    const topic = await topicWith(2);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, (msg) => {
      if (msg.reconsumeTimes > 0) return 'CONSUME_SUCCESS';
      const body = msg.body.toString();
      if (body === 'later') return 'RECONSUME_LATER';
      if (body === 'throw') throw new Error('listener failed');
      if (body === 'garbage') return { status: 'what?' } as unknown as ConsumeConcurrentlyStatus;
      return 'CONSUME_SUCCESS';
    });
    await consumer.start();
    const sent = await Promise.all(
      ['later', 'throw', 'garbage', 'fine'].map((body) =>
        producer.send({ topic, body, tags: 'T', keys: `k-${body}`, properties: { p: body } }),
      ),
    );
    await until(() => seen.length >= 7, 'three messages twice, one once', 8000);
    const deliveries = byBody(seen);
    assert.equal(deliveries.get('fine')?.length, 1);
    for (const [i, body] of ['later', 'throw', 'garbage'].entries()) {
      const [first, again, ...more] = deliveries.get(body) ?? [];
      assert.ok(first !== undefined && again !== undefined, body);
      assert.deepEqual(more, [], `${body} came back once`);
      assert.equal(first.reconsumeTimes, 0);
      assert.equal(again.reconsumeTimes, 1);
      // The real topic, the same msgId, tags, keys and properties; the retry properties added.
      assert.equal(again.topic, topic);
      assert.equal(again.msgId, sent[i]?.msgId);
      assert.equal(again.tags, 'T');
      assert.equal(again.keys, `k-${body}`);
      assert.equal(again.properties.get('p'), body);
      assert.equal(again.properties.get(MessageConst.PROPERTY_RETRY_TOPIC), topic);
      assert.ok(
        again.at - first.at >= LEVEL_3_MS - 100,
        `${body} came back after ${again.at - first.at} ms, not after level 3`,
      );
    }
    const requests = sendBacks.get(consumer.consumerGroup) ?? [];
    assert.equal(requests.length, 3);
    assert.ok(requests.every((r) => r.delayLevel === '0' && r.maxReconsumeTimes === '16'));
    // Progress passed all four: the original queues are committed to their end.
    await until(() => caughtUp(broker, topic, 2, { consumers: [consumer] }), 'committed');
  });

  test('after maxReconsumeTimes the message goes to %DLQ%<group>', async () => {
    const topic = await topicWith(1);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { maxReconsumeTimes: 2 });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, () => 'RECONSUME_LATER');
    await consumer.start();
    const sent = await producer.send({ topic, body: 'doomed', properties: { p: 'v' } });
    const dlq = MixAll.getDLQTopic(consumer.consumerGroup);
    await until(() => storedCount(broker, dlq) === 1n, 'the message in the DLQ', 8000);
    assert.deepEqual(
      seen.map((s) => s.reconsumeTimes),
      [0, 1, 2],
    );
    const [dead] = await queueMessages(broker, dlq, 0, 1);
    assert.ok(dead !== undefined);
    assert.equal(dead.body.toString(), 'doomed');
    assert.equal(dead.msgId, sent.msgId);
    assert.equal(dead.getProperty(MessageConst.PROPERTY_RETRY_TOPIC), topic);
    assert.equal(dead.getProperty('p'), 'v');
  });

  test('ctx.ackIndex: the messages after it are sent back, the ones up to it are not', async () => {
    const topic = await topicWith(1);
    await sendMany(producer, 4, (i) => ({ topic, body: `b${i}` }), 1);
    const seen: Seen[] = [];
    const batches: string[][] = [];
    const consumer = newConsumer(cluster, { consumeMessageBatchMaxSize: 4 });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs, ctx) {
        batches.push(msgs.map((m) => m.body.toString()));
        for (const m of msgs) seen.push(seenOf('c', m));
        if (msgs.every((m) => m.reconsumeTimes === 0)) ctx.ackIndex = 1;
        return 'CONSUME_SUCCESS';
      },
    });
    await consumer.start();
    await until(() => seen.length >= 6, 'four, then the two past the ack index', 8000);
    assert.deepEqual(batches[0], ['b0', 'b1', 'b2', 'b3']);
    const again = seen.slice(4);
    assert.deepEqual(again.map((s) => s.body).sort(), ['b2', 'b3']);
    assert.ok(again.every((s) => s.reconsumeTimes === 1));
    assert.equal((sendBacks.get(consumer.consumerGroup) ?? []).length, 2);
  });

  test('ctx.delayLevelWhenNextConsume picks the delay level; -1 sends to the DLQ at once', async () => {
    const topic = await topicWith(1);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs, ctx) {
        const msg = msgs[0] as MessageExt;
        seen.push(seenOf('c', msg));
        if (msg.reconsumeTimes > 0) return 'CONSUME_SUCCESS';
        ctx.delayLevelWhenNextConsume = msg.body.toString() === 'level-1' ? 1 : -1;
        return 'RECONSUME_LATER';
      },
    });
    await consumer.start();
    await producer.send({ topic, body: 'level-1' });
    await producer.send({ topic, body: 'dead-now' });
    const dlq = MixAll.getDLQTopic(consumer.consumerGroup);
    await until(() => storedCount(broker, dlq) === 1n, 'dead-now in the DLQ');
    await until(() => seen.length >= 3, 'level-1 again', 8000);
    const deliveries = byBody(seen);
    const [first, again] = deliveries.get('level-1') ?? [];
    assert.ok(first !== undefined && again !== undefined);
    assert.equal(again.reconsumeTimes, 1);
    assert.ok(again.at - first.at < LEVEL_3_MS, `level 1 (1 s) came after ${again.at - first.at} ms`);
    assert.equal(deliveries.get('dead-now')?.length, 1);
    const levels = (sendBacks.get(consumer.consumerGroup) ?? []).map((r) => r.delayLevel).sort();
    assert.deepEqual(levels, ['-1', '1']);
  });

  test('a refused send-back goes to %RETRY%<group> through the inner producer and comes back with reconsumeTimes 1', async () => {
    const topic = await topicWith(1);
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { logger });
    refuseSendBack.add(consumer.consumerGroup);
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, (msg) =>
      msg.reconsumeTimes > 0 ? 'CONSUME_SUCCESS' : 'RECONSUME_LATER',
    );
    await consumer.start();
    const sent = await producer.send({ topic, body: 'fallback', tags: 'T', properties: { p: 'v' } });
    await until(() => seen.length >= 2, 'consumed again', 8000);
    const [first, again] = seen;
    assert.ok(first !== undefined && again !== undefined);
    assert.equal(again.reconsumeTimes, 1);
    assert.equal(again.topic, topic, 'the real topic restored');
    assert.equal(again.msgId, sent.msgId);
    assert.equal(again.properties.get('p'), 'v');
    assert.equal(again.properties.get(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID), sent.msgId);
    assert.ok(again.at - first.at >= LEVEL_3_MS - 100, `came back after ${again.at - first.at} ms`);
    assert.equal(storedCount(broker, MixAll.getRetryTopic(consumer.consumerGroup)), 1n);
    assert.ok(records.some((r) => r.level === 'error' && /sendMessageBack failed/.test(r.msg)));
    assert.equal(seen.length, 2);
  });

  test('when the inner producer fails too, the message is consumed again here after consumeRetryDelayWhenSendBackFailed', async () => {
    const topic = await topicWith(1);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { consumeRetryDelayWhenSendBackFailed: 300 });
    refuseSendBack.add(consumer.consumerGroup);
    refuseSend.add(MixAll.getRetryTopic(consumer.consumerGroup));
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, (msg) =>
      msg.reconsumeTimes >= 2 ? 'CONSUME_SUCCESS' : 'RECONSUME_LATER',
    );
    await consumer.start();
    await producer.send({ topic, body: 'local' });
    await until(() => seen.length >= 3, 'consumed three times here', 8000);
    assert.deepEqual(
      seen.map((s) => [s.queueOffset, s.reconsumeTimes]),
      [
        [0n, 0],
        [0n, 1],
        [0n, 2],
      ],
    );
    for (let i = 1; i < 3; i++) {
      const gap = (seen[i] as Seen).at - (seen[i - 1] as Seen).at;
      assert.ok(gap >= 250 && gap < LEVEL_3_MS, `local retry ${i} after ${gap} ms`);
    }
    assert.equal(storedCount(broker, MixAll.getRetryTopic(consumer.consumerGroup)), 0n);
    // Progress waited for the success, then moved past it.
    await until(() => caughtUp(broker, topic, 1, { consumers: [consumer] }), 'committed after success');
    assert.equal(seen.length, 3);
  });
});
