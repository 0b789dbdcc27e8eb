/**
 * Flow control of the push consumer against a slow listener: a queue stops being pulled while its
 * cache holds more than pullThresholdForQueue messages, more than pullThresholdSizeForQueue MiB, or
 * (concurrently) spans more than consumeConcurrentlyMaxSpan offsets; pullThresholdForTopic is spread
 * over the queues held; suspend() stops pulling and resume() starts it again. What each ProcessQueue
 * caches is recorded after every put, so the bound is checked at its peak, not by sampling. As
 * upstream, the check runs before a pull, so a cache can exceed a threshold by one pull batch.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { ProcessQueue } from '../../../src/client/consumer/process-queue.js';
import type { PullRequest } from '../../../src/client/consumer/pull/pull-request.js';
import type { Producer, PushConsumer } from '../../../src/client/index.js';
import type { LogRecord } from '../../../src/common/logger.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import {
  BROKER_FAST,
  implOf,
  newConsumer,
  processQueues,
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

interface Peak {
  count: number;
  bytes: number;
  span: number;
}

/** Each ProcessQueue's peak after every put. */
const peaks = new WeakMap<ProcessQueue, Peak>();
const realPut = ProcessQueue.prototype.putMessage;
ProcessQueue.prototype.putMessage = function (this: ProcessQueue, msgs: readonly MessageExt[]): boolean {
  const dispatch = realPut.call(this, msgs);
  const peak = peaks.get(this) ?? { count: 0, bytes: 0, span: 0 };
  peak.count = Math.max(peak.count, this.msgCount);
  peak.bytes = Math.max(peak.bytes, this.msgSize);
  peak.span = Math.max(peak.span, this.getMaxSpan());
  peaks.set(this, peak);
  return dispatch;
};

function peakOf(pq: ProcessQueue | undefined): Peak {
  assert.ok(pq !== undefined, 'the queue is held');
  return peaks.get(pq) ?? { count: 0, bytes: 0, span: 0 };
}

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
/** PULL_MESSAGE requests the broker received, by `group/topic`. */
const pulls = new Map<string, number>();

before(async () => {
  cluster = await startCluster(BROKER_FAST);
  broker = cluster.brokers[0] as BrokerController;
  wrapHandler(broker, RequestCode.PULL_MESSAGE, (real) => (b, ctx, request) => {
    const key = `${request.extFields?.consumerGroup}/${request.extFields?.topic}`;
    pulls.set(key, (pulls.get(key) ?? 0) + 1);
    return real(b, ctx, request);
  });
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
});

function pullsOf(consumer: PushConsumer, topic: string): number {
  return pulls.get(`${consumer.consumerGroup}/${topic}`) ?? 0;
}

/** A gate listeners wait on until the test opens it. */
function gate(): { wait: Promise<void>; open: () => void } {
  let open = () => {};
  const wait = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { wait, open };
}

async function topicWith(queues: number): Promise<string> {
  const topic = uniqueName('Flow');
  await createTopic(cluster, topic, queues, [broker]);
  return topic;
}

/**
 * Counts, per queue, the pull loop's turns that put a pull off by `delayMs` (flow control, suspend):
 * proof that the loop ran and chose not to pull.
 */
function countPutOff(consumer: PushConsumer, delayMs: number): Map<string, number> {
  const service = implOf(consumer).pullMessageService;
  const turns = new Map<string, number>();
  const real = service.executePullRequestLater.bind(service);
  service.executePullRequestLater = (request: PullRequest, delay: number) => {
    if (delay === delayMs) {
      const key = request.messageQueue.key;
      turns.set(key, (turns.get(key) ?? 0) + 1);
    }
    real(request, delay);
  };
  return turns;
}

/** Waits until each of `keys` was put off `more` times after `from`. */
async function morePutOffs(turns: Map<string, number>, keys: readonly string[], more: number): Promise<void> {
  const from = new Map(turns);
  await until(
    () => keys.every((k) => (turns.get(k) ?? 0) >= (from.get(k) ?? 0) + more),
    `${more} more turns put off`,
  );
}

/** Waits for the consumer's flow-control warn line of `reason`. */
async function flowControlled(records: readonly LogRecord[], reason: RegExp): Promise<void> {
  await until(() => warnings(records, reason).length > 0, `flow control: ${reason}`);
}

describe('push consumer: flow control', { concurrency: true }, () => {
  test('a queue caches at most pullThresholdForQueue messages (+ one pull batch) behind a slow listener', async () => {
    const topic = await topicWith(1);
    await sendMany(producer, 300, (i) => ({ topic, body: `m${i}` }));
    const { logger, records } = capturingLogger();
    const held = gate();
    let consumed = 0;
    const consumer = newConsumer(cluster, { logger, pullThresholdForQueue: 50, consumeConcurrency: 1 });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage() {
        await held.wait;
        consumed++;
        return 'CONSUME_SUCCESS' as const;
      },
    });
    const putOff = countPutOff(consumer, 50);
    await consumer.start();
    await flowControlled(records, /cached message count exceeds the threshold/);
    const pq = processQueues(consumer, topic).get(0);
    assert.ok(peakOf(pq).count > 50, 'the cache reached the threshold');
    assert.ok(peakOf(pq).count <= 50 + 32, `cached ${peakOf(pq).count}`);
    // Held back: the loop keeps turning and does not pull while the cache is over the threshold.
    const pullsThen = pullsOf(consumer, topic);
    const key =
      [...implOf(consumer).rebalance.processQueueTable.values()].find((h) => h.mq.topic === topic)?.mq.key ??
      '';
    await morePutOffs(putOff, [key], 5);
    assert.equal(pullsOf(consumer, topic), pullsThen, 'no pull while over the threshold');
    assert.ok(peakOf(pq).count <= 50 + 32, `cached ${peakOf(pq).count}`);
    held.open();
    await until(() => consumed >= 300, 'all 300 consumed once the listener is fast');
    assert.ok(peakOf(pq).count <= 50 + 32, `cached ${peakOf(pq).count}`);
  });

  test('a queue caches at most pullThresholdSizeForQueue MiB (+ one pull batch) behind a slow listener', async () => {
    const topic = await topicWith(1);
    const body = Buffer.alloc(100 * 1024, 7);
    await sendMany(producer, 40, () => ({ topic, body }), 8);
    const { logger, records } = capturingLogger();
    const held = gate();
    let consumed = 0;
    const consumer = newConsumer(cluster, {
      logger,
      pullThresholdSizeForQueue: 1,
      pullBatchSize: 4,
      consumeConcurrency: 1,
    });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage() {
        await held.wait;
        consumed++;
        return 'CONSUME_SUCCESS' as const;
      },
    });
    await consumer.start();
    await flowControlled(records, /cached message size exceeds the threshold/);
    const pq = processQueues(consumer, topic).get(0);
    const mib = 1024 * 1024;
    // Pulls stop once the whole MiB count passes 1, i.e. at 2 MiB; one more batch may be in.
    assert.ok(peakOf(pq).bytes >= 2 * mib, `cached ${peakOf(pq).bytes} bytes`);
    assert.ok(peakOf(pq).bytes < 2 * mib + 4 * body.length, `cached ${peakOf(pq).bytes} bytes`);
    held.open();
    await until(() => consumed >= 40, 'all 40 consumed');
  });

  test('concurrently, a queue stops being pulled while its cache spans more than consumeConcurrentlyMaxSpan', async () => {
    const topic = await topicWith(1);
    await sendMany(producer, 400, (i) => ({ topic, body: `s${i}` }));
    const { logger, records } = capturingLogger();
    const held = gate();
    let consumed = 0;
    const consumer = newConsumer(cluster, { logger, consumeConcurrentlyMaxSpan: 100, consumeConcurrency: 4 });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs) {
        // The first message stays in the cache; the rest pass, so only the span grows.
        if (msgs[0]?.queueOffset === 0n) await held.wait;
        consumed++;
        return 'CONSUME_SUCCESS' as const;
      },
    });
    await consumer.start();
    await flowControlled(records, /span too long/);
    const pq = processQueues(consumer, topic).get(0);
    assert.ok(peakOf(pq).span > 100 && peakOf(pq).span <= 100 + 32, `span ${peakOf(pq).span}`);
    assert.ok((pq?.msgCount ?? 0) < 100, 'few messages cached: the span, not the count, held the pulls');
    held.open();
    await until(() => consumed >= 400, 'all 400 consumed');
  });

  test('pullThresholdForTopic is spread over the queues held', async () => {
    const topic = await topicWith(4);
    await sendMany(producer, 200, (i) => ({ topic, body: `t${i}` }));
    const held = gate();
    let consumed = 0;
    const consumer = newConsumer(cluster, {
      pullThresholdForTopic: 40,
      pullBatchSize: 4,
      consumeConcurrency: 1,
    });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage() {
        await held.wait;
        consumed++;
        return 'CONSUME_SUCCESS' as const;
      },
    });
    await consumer.start();
    // Four queues of the topic and the retry topic's one: 40 / 5 = 8 each (upstream counts all held).
    await until(() => implOf(consumer).rebalance.processQueueTable.size === 5, 'five queues held');
    await until(() => implOf(consumer).options.pullThresholdForQueue === 8, 'threshold per queue 8');
    const queues = processQueues(consumer, topic);
    await until(() => [...queues.values()].every((pq) => pq.msgCount > 8), 'every queue filled to its share');
    for (const pq of queues.values()) assert.ok(peakOf(pq).count <= 8 + 4, `cached ${peakOf(pq).count}`);
    held.open();
    await until(() => consumed >= 200, 'all 200 consumed');
  });

  test('suspend() stops pulling (held queues stay held) and resume() pulls again', async () => {
    const topic = await topicWith(2);
    const seen: string[] = [];
    const consumer = newConsumer(cluster, { pullTimeDelayMillsWhenSuspend: 50 });
    consumer.subscribe(topic, '*');
    consumer.registerMessageListener({
      type: 'concurrently',
      async consumeMessage(msgs) {
        for (const m of msgs) seen.push(m.body.toString());
        return 'CONSUME_SUCCESS' as const;
      },
    });
    await consumer.start();
    await sendMany(producer, 10, (i) => ({ topic, body: `before-${i}` }));
    await until(() => seen.length >= 10, 'consumed before suspend');
    await until(() => implOf(consumer).rebalance.processQueueTable.size === 3, 'the retry queue held too');

    // Count the pull loop's turns that found the consumer paused.
    const impl = implOf(consumer);
    const pausedTurns = countPutOff(consumer, 50);
    consumer.suspend();
    assert.equal(consumer.paused, true);
    // The long polls in flight end (at most brokerSuspendMaxTimeMillis); then the loop only waits.
    const heldQueues = [...impl.rebalance.processQueueTable.values()].map((h) => h.mq.key);
    await until(
      () => heldQueues.every((k) => (pausedTurns.get(k) ?? 0) >= 1),
      'every queue found the consumer paused',
    );
    await sendMany(producer, 10, (i) => ({ topic, body: `during-${i}` }));
    const pullsThen = pullsOf(consumer, topic);
    await morePutOffs(pausedTurns, heldQueues, 3);
    assert.equal(seen.length, 10, 'nothing consumed while suspended');
    assert.equal(pullsOf(consumer, topic), pullsThen, 'no pull while suspended');
    assert.equal(impl.rebalance.processQueueTable.size, heldQueues.length, 'queues stay held');

    consumer.resume();
    assert.equal(consumer.paused, false);
    await until(() => seen.length >= 20, 'consumed after resume');
    assert.deepEqual(seen.slice(10).sort(), Array.from({ length: 10 }, (_, i) => `during-${i}`).sort());
  });
});
