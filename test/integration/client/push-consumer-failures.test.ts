/**
 * Bad input and failures around a concurrent push consumer on our broker: a listener that throws,
 * answers garbage or hangs past consumeTimeout (a JumpClock moves the client's time 15 minutes ahead)
 * never stops the other queues, and the hung message is sent back and released; a broker that answers
 * garbage to a pull, or whose connection dies mid-pull, costs a warn line and a retry, never a crash
 * or a lost offset; a record that cannot be decoded is skipped with an error line naming its queue and
 * offset while the offset moves on; OFFSET_ILLEGAL rebuilds the queue from the broker's offset.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { ConsumeConcurrentlyStatus, Producer } from '../../../src/client/index.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import { readStoredRecordHeader, StoredRecordPosition } from '../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { createResponse, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  BROKER_FAST,
  brokerOffset,
  caughtUp,
  duplicates,
  FAST_DELAY_LEVELS,
  implOf,
  JumpClock,
  LEVEL_3_MS,
  newConsumer,
  offsetInMemory,
  processQueues,
  recordConcurrently,
  type Seen,
  sendMany,
  shutdownAll,
  warnings,
} from './consumer-support.js';
import {
  capturingLogger,
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
/** What the broker does to a pull instead of answering it: `answer()` runs the real handler. */
type PullFault = (
  answer: () => Promise<RemotingCommand>,
  ctx: { close(): void; request: RemotingCommand },
) => RemotingCommand | Promise<RemotingCommand>;
/** topic -> the fault its pulls meet. */
const pullFaults = new Map<string, PullFault>();

before(async () => {
  cluster = await startCluster({ ...BROKER_FAST, messageDelayLevel: FAST_DELAY_LEVELS });
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.PULL_MESSAGE, (real) => (b, ctx, request) => {
    const fault = pullFaults.get(request.extFields?.topic ?? '');
    if (fault === undefined) return real(b, ctx, request);
    return fault(async () => real(b, ctx, request), {
      close: () => ctx.connection.close('the test killed the connection mid-pull'),
      request,
    });
  });
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
});

async function topicWith(queues: number): Promise<string> {
  const topic = uniqueName('Fail');
  await createTopic(cluster, topic, queues, [broker]);
  return topic;
}

function toQueue(topic: string, queueId: number) {
  return { messageQueue: new MessageQueue(topic, 'broker-a', queueId) };
}

describe('push consumer: bad input and failures', { concurrency: true }, () => {
  test('a listener that hangs, throws or answers garbage never stops the other queues; a hang past consumeTimeout is sent back', async () => {
    const topic = await topicWith(4);
    const clock = new JumpClock();
    const seen: Seen[] = [];
    let release = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { clock, logger, pullMaxIdleTime: 3_600_000 });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, async (msg): Promise<ConsumeConcurrentlyStatus> => {
      if (msg.reconsumeTimes > 0) return 'CONSUME_SUCCESS';
      const body = msg.body.toString();
      if (body === 'hang') await hung;
      if (body === 'throw') throw new Error('listener failed');
      if (body === 'garbage') return 42 as unknown as ConsumeConcurrentlyStatus;
      return 'CONSUME_SUCCESS';
    });
    await consumer.start();
    const bad = ['hang', 'throw', 'garbage'];
    for (const [q, body] of bad.entries()) await producer.send({ topic, body }, toQueue(topic, q));
    const normal = await sendMany(producer, 40, (i) => ({ topic, body: `n${i}` }));
    // Every normal message is consumed, the hung queue's included; throw and garbage come again.
    await until(() => normal.every((r) => seen.some((s) => s.msgId === r.msgId)), 'the normal messages');
    await until(
      () => ['throw', 'garbage'].every((b) => seen.some((s) => s.body === b && s.reconsumeTimes === 1)),
      'throw and garbage consumed again',
    );
    assert.ok(warnings(records, /consumeMessage exception/).length >= 1, 'the throw is logged');
    assert.ok(warnings(records, /neither CONSUME_SUCCESS nor RECONSUME_LATER/).length >= 1, 'garbage logged');
    // The hung message holds its queue's progress (nothing passes an unfinished message).
    await until(
      () => offsetInMemory(consumer, topic, 3) === broker.messageStore.getMaxOffsetInQueue(topic, 3),
      'queue 3 done',
    );
    assert.equal(offsetInMemory(consumer, topic, 0), 0n, 'queue 0 waits for the hung message');

    // consumeTimeout (15 minutes) later, the clean-up sends it back and lets progress pass it.
    clock.jump(15 * 60_000 + 1000);
    await until(
      () => records.some((r) => r.msg === 'send expire msg back' && r.fields.queueId === 0),
      'the expired message sent back',
    );
    await until(
      () => offsetInMemory(consumer, topic, 0) === broker.messageStore.getMaxOffsetInQueue(topic, 0),
      'queue 0 progress passes it',
    );
    await until(
      () => seen.some((s) => s.body === 'hang' && s.reconsumeTimes === 1),
      'the hung message consumed again from the retry topic',
      LEVEL_3_MS + 3000,
    );
    release();
    assert.deepEqual(
      [...duplicates(seen.filter((s) => !bad.includes(s.body)).map((s) => s.msgId))],
      [],
      'normal messages once',
    );
  });

  test('as many hung calls as consumeConcurrency stop the other queues only until consumeTimeout', async () => {
    const topic = await topicWith(4);
    const clock = new JumpClock();
    const seen: Seen[] = [];
    let release = () => {};
    const hung = new Promise<void>((resolve) => {
      release = resolve;
    });
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, {
      clock,
      logger,
      consumeConcurrency: 2,
      pullMaxIdleTime: 3_600_000,
    });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, async (msg): Promise<ConsumeConcurrentlyStatus> => {
      if (msg.body.toString() === 'hang' && msg.reconsumeTimes === 0) await hung;
      return 'CONSUME_SUCCESS';
    });
    await consumer.start();
    for (const q of [0, 1]) await producer.send({ topic, body: 'hang' }, toQueue(topic, q));
    await until(() => seen.filter((s) => s.body === 'hang').length === 2, 'both slots taken by hung calls');
    const normal: string[] = [];
    for (const q of [2, 3])
      normal.push((await producer.send({ topic, body: `n${q}` }, toQueue(topic, q))).msgId);
    await until(
      () => [2, 3].every((q) => processQueues(consumer, topic).get(q)?.msgCount === 1),
      'the other messages pulled and waiting for a slot',
    );
    assert.ok(!normal.some((id) => seen.some((s) => s.msgId === id)), 'no slot free: nothing else runs');
    clock.jump(15 * 60_000 + 1000);
    await until(() => normal.every((id) => seen.some((s) => s.msgId === id)), 'the other queues consumed');
    assert.ok(warnings(records, /outlived consumeTimeout/).length >= 1, 'the freed slots are logged');
    release();
  });

  test('a broker answering garbage to pulls costs a warn line and a retry: every message consumed once', async () => {
    const topic = await topicWith(2);
    let faults = 0;
    pullFaults.set(topic, (answer, { request }) => {
      faults++;
      if (faults === 1) return createResponse(request, ResponseCode.SUCCESS); // no header at all
      if (faults === 2) return createResponse(request, 9999, { remark: 'what is this' });
      if (faults === 3) return createResponse(request, ResponseCode.SYSTEM_ERROR, { remark: 'busy' });
      return answer();
    });
    const sent = await sendMany(producer, 40, (i) => ({ topic, body: `g${i}` }));
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { logger });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await until(() => seen.length >= 40, 'all 40 consumed');
    await until(() => caughtUp(broker, topic, 2, { consumers: [consumer] }), 'progress at the end');
    assert.deepEqual(seen.map((s) => s.msgId).sort(), sent.map((r) => r.msgId).sort());
    assert.deepEqual([...duplicates(seen.map((s) => s.msgId))], []);
    assert.ok(warnings(records, /execute the pull request exception/).length >= 3, 'a warn line per fault');
  });

  test('a connection dying mid-pull costs a warn line and a retry: nothing lost, nothing twice, offsets right', async () => {
    const topic = await topicWith(2);
    let killed = 0;
    pullFaults.set(topic, async (answer, { close, request }) => {
      // The second pull of queue 0 (after the first batch) dies with its connection, twice.
      if (request.extFields?.queueId === '0' && Number(request.extFields?.queueOffset) > 0 && killed < 2) {
        killed++;
        close();
      }
      return answer();
    });
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { logger, pullBatchSize: 8 });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    const sent = await sendMany(producer, 60, (i) => ({ topic, body: `d${i}` }));
    await until(() => seen.length >= 60, 'all 60 consumed');
    await until(() => caughtUp(broker, topic, 2, { consumers: [consumer] }), 'progress at the end');
    assert.equal(killed, 2);
    assert.deepEqual(seen.map((s) => s.msgId).sort(), sent.map((r) => r.msgId).sort());
    assert.deepEqual([...duplicates(seen.map((s) => s.msgId))], []);
    assert.ok(warnings(records, /execute the pull request exception/).length >= 2);
    await until(
      () => caughtUp(broker, topic, 2, { group: implOf(consumer).consumerGroup }),
      'the broker has the offsets too',
    );
  });

  test('an undecodable record is skipped with an error line naming its queue and offset; the offset moves past it', async () => {
    const topic = await topicWith(1);
    pullFaults.set(topic, async (answer) => {
      const response = await answer();
      if (response.code !== ResponseCode.SUCCESS || response.body === undefined) return response;
      // A copy: the body may be a view of the store's own file.
      const body = Buffer.from(response.body);
      for (let pos = 0; pos < body.length; ) {
        const h = readStoredRecordHeader(body, pos);
        if (h.kind === 'message' && h.queueOffset === 2n) {
          // Marked compressed, the body no longer inflates: the record cannot be decoded.
          const at = pos + StoredRecordPosition.SYS_FLAG;
          body.writeInt32BE(body.readInt32BE(at) | MessageSysFlag.COMPRESSED_FLAG, at);
        }
        pos += h.totalSize;
      }
      return { ...response, body };
    });
    const sent = await sendMany(producer, 6, (i) => ({ topic, body: `u${i}` }), 1);
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { logger });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await until(() => seen.length >= 5, 'the 5 good ones');
    await until(() => caughtUp(broker, topic, 1, { consumers: [consumer] }), 'the offset moved past it');
    assert.deepEqual(
      seen.map((s) => s.body),
      ['u0', 'u1', 'u3', 'u4', 'u5'],
    );
    assert.ok(!seen.some((s) => s.msgId === sent[2]?.msgId));
    const errors = records.filter((r) => r.level === 'error' && /cannot be decoded/.test(r.msg));
    assert.ok(errors.length >= 1);
    assert.equal(errors[0]?.fields.queueId, 0);
    assert.equal(errors[0]?.fields.queueOffset, 2n);
    assert.equal(errors[0]?.fields.topic, topic);
  });

  test('OFFSET_ILLEGAL: the queue is dropped and rebuilt from the offset the broker gives', async () => {
    const topic = await topicWith(1);
    await sendMany(producer, 5, (i) => ({ topic, body: `old${i}` }), 1);
    const clock = new JumpClock();
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, { clock, logger, pullMaxIdleTime: 3_600_000 });
    const group = implOf(consumer).consumerGroup;
    // The group's offset is far past the queue's end (say, a queue recreated with fewer messages).
    broker.consumerOffsetManager.commitOffset('test', group, topic, 0, 1000n);
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await until(() => warnings(records, /the pull request offset illegal/).length >= 1, 'OFFSET_ILLEGAL');
    const illegal = warnings(records, /the pull request offset illegal/)[0];
    assert.equal(illegal?.fields.nextBeginOffset, 5n);
    // Upstream fixes it 10 s later.
    clock.jump(10_000);
    await until(() => brokerOffset(broker, group, topic, 0) === 5n, 'the corrected offset committed');
    await until(() => warnings(records, /fix the pull request offset/).length >= 1, 'fixed');
    await until(() => offsetInMemory(consumer, topic, 0) === 5n, 'rebuilt from the corrected offset');
    const fresh = await sendMany(producer, 3, (i) => ({ topic, body: `new${i}` }), 1);
    await until(() => seen.length >= 3, 'the new messages');
    assert.deepEqual(
      seen.map((s) => s.msgId),
      fresh.map((r) => r.msgId),
    );
  });
});
