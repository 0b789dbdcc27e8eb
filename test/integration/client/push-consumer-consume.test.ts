/**
 * The push consumer against our name server and brokers: every message consumed once and intact
 * (16 queues, 2000 messages), TAG subscriptions with the client's re-check of colliding tag hashes,
 * SQL92 subscriptions (and a bad one refused at start), and where a group starts: consumeFromWhere
 * for a new group, the stored offset for a group that has one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { MQBrokerError, MQClientError } from '../../../src/client/errors.js';
import type { Producer } from '../../../src/client/index.js';
import { javaStringHashCode } from '../../../src/common/java-hash.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import {
  BROKER_FAST,
  caughtUp,
  duplicates,
  implOf,
  newConsumer,
  recordConcurrently,
  type Seen,
  sendMany,
  shutdownAll,
} from './consumer-support.js';
import {
  createTopic,
  newProducer,
  startCluster,
  storedCount,
  type TestCluster,
  uniqueName,
  until,
  wrapHandler,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
/** A broker that counts every message as out of memory, so a new group's offset query finds none. */
let cold: BrokerController;
let producer: Producer;
/** topic -> tags of every message the broker put in a pull answer. */
const pulledTags = new Map<string, Array<string | undefined>>();

before(async () => {
  cluster = await startCluster({ ...BROKER_FAST, enablePropertyFilter: true });
  broker = cluster.brokers[0] as BrokerController;
  cold = await cluster.addBroker('broker-cold', { ...BROKER_FAST, accessMessageInMemoryMaxRatio: 0 });
  wrapHandler(broker, RequestCode.PULL_MESSAGE, (real) => async (b, ctx, request) => {
    const response = await real(b, ctx, request);
    const topic = request.extFields?.topic ?? '';
    const tags = pulledTags.get(topic);
    if (tags !== undefined && response.code === ResponseCode.SUCCESS && response.body !== undefined) {
      for (let pos = 0; pos < response.body.length; ) {
        const msg = decodeMessage(response.body, pos);
        tags.push(msg.tags);
        pos += msg.storeSize;
      }
    }
    return response;
  });
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
});

describe('push consumer: what is consumed', { concurrency: true }, () => {
  test('2000 messages over 16 queues are each consumed once, with body, tags, keys, properties and msgId intact', async () => {
    const topic = uniqueName('Every');
    await createTopic(cluster, topic, 16, [broker]);
    const total = 2000;
    const make = (i: number) => ({
      topic,
      body: `body-${i}-${'x'.repeat(i % 97)}`,
      tags: `Tag${i % 5}`,
      keys: [`key-${i}`, `k2-${i % 7}`],
      properties: { index: String(i), color: i % 2 === 0 ? 'red' : 'blue', 'unicode-ü': 'ü✓' },
    });
    // Half stored before the consumer starts, half while it runs (long polls woken by arrivals).
    const first = await sendMany(producer, total / 2, make);
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    const second = await sendMany(producer, total / 2, (i) => make(i + total / 2));
    const sent = [...first, ...second];
    await until(() => seen.length >= total, `${total} messages consumed`, 20_000);

    assert.deepEqual([...duplicates(seen.map((s) => s.msgId))], [], 'no message consumed twice');
    const byId = new Map(seen.map((s) => [s.msgId, s]));
    sent.forEach((result, i) => {
      const s = byId.get(result.msgId);
      assert.ok(s !== undefined, `message ${i} (${result.msgId}) consumed`);
      const m = make(i);
      assert.equal(s.topic, topic);
      assert.equal(s.body, m.body);
      assert.equal(s.tags, m.tags);
      assert.equal(s.keys, m.keys.join(' '));
      assert.equal(s.properties.get('index'), String(i));
      assert.equal(s.properties.get('color'), m.properties.color);
      assert.equal(s.properties.get('unicode-ü'), 'ü✓');
      assert.equal(s.queueId, result.messageQueue.queueId);
      assert.equal(s.queueOffset, result.queueOffset);
      assert.equal(s.reconsumeTimes, 0);
    });
    assert.equal(new Set(seen.map((s) => s.queueId)).size, 16, 'every queue was consumed');
    // Progress reaches the end of every queue and the broker has it.
    await until(
      () => caughtUp(broker, topic, 16, { group: consumer.consumerGroup }),
      'every queue committed',
    );
    assert.equal(storedCount(broker, topic), BigInt(total));
  });

  test("TAG 'A || B': only A and B reach the listener; a tag whose hash collides is dropped by the client and passed", async () => {
    // "Aa" and "BB" share Java's String.hashCode, which is all the consume queue keeps of a tag.
    assert.equal(javaStringHashCode('Aa'), javaStringHashCode('BB'));
    const topic = uniqueName('Tags');
    await createTopic(cluster, topic, 2, [broker]);
    pulledTags.set(topic, []);
    const tags = ['Aa', 'B', 'C', 'BB', undefined, 'Aa', 'B', 'BB', 'C', 'A'];
    const sent = await sendMany(producer, 40, (i) => ({ topic, body: `m${i}`, tags: tags[i % tags.length] }));
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, 'Aa || B');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    const wanted = sent.filter((_, i) => tags[i % tags.length] === 'Aa' || tags[i % tags.length] === 'B');
    await until(() => seen.length >= wanted.length, `${wanted.length} Aa/B messages`);
    // Progress passes the filtered messages: every queue is committed to its end.
    await until(() => caughtUp(broker, topic, 2, { group: consumer.consumerGroup }), 'both queues committed');
    assert.deepEqual(seen.map((s) => s.msgId).sort(), wanted.map((r) => r.msgId).sort());
    assert.ok(seen.every((s) => s.tags === 'Aa' || s.tags === 'B'));
    const delivered = pulledTags.get(topic) ?? [];
    assert.ok(delivered.includes('BB'), 'the broker delivered the colliding tag BB (hash match)');
    assert.ok(
      !delivered.includes('C') && !delivered.includes(undefined),
      'the broker filtered C and untagged',
    );
  });

  test('SQL92 subscription: only messages whose properties match reach the listener', async () => {
    const topic = uniqueName('Sql');
    await createTopic(cluster, topic, 4, [broker]);
    const sent = await sendMany(producer, 40, (i) => ({
      topic,
      body: `m${i}`,
      tags: i % 2 === 0 ? 'even' : 'odd',
      properties: { a: String(i), region: i % 3 === 0 ? 'eu' : 'us' },
    }));
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, { type: 'SQL92', expression: "a >= 10 AND region = 'eu' AND TAGS = 'even'" });
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    const wanted = sent.filter((_, i) => i >= 10 && i % 3 === 0 && i % 2 === 0);
    await until(() => seen.length >= wanted.length, `${wanted.length} matching messages`);
    await until(() => caughtUp(broker, topic, 4, { group: consumer.consumerGroup }), 'every queue committed');
    assert.deepEqual(
      seen.map((s) => s.body).sort(),
      wanted
        .map((r) => sent.indexOf(r))
        .map((i) => `m${i}`)
        .sort(),
    );
  });

  test('a SQL92 expression the broker cannot parse rejects start() with SUBSCRIPTION_PARSE_FAILED', async () => {
    const topic = uniqueName('BadSql');
    await createTopic(cluster, topic, 2, [broker]);
    const consumer = newConsumer(cluster);
    consumer.subscribe(topic, { type: 'SQL92', expression: 'a >>> 3 AND' });
    consumer.registerMessageListener({ type: 'concurrently', consumeMessage: async () => 'CONSUME_SUCCESS' });
    const error = await consumer.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(error instanceof MQBrokerError || error instanceof MQClientError, String(error));
    const codeOf = (e: unknown): number | undefined => {
      for (let c = e; c !== undefined && c !== null; c = (c as { cause?: unknown }).cause) {
        const code = (c as { responseCode?: number }).responseCode;
        if (code === ResponseCode.SUBSCRIPTION_PARSE_FAILED) return code;
      }
      return undefined;
    };
    assert.equal(codeOf(error), ResponseCode.SUBSCRIPTION_PARSE_FAILED, String(error));
    assert.equal(implOf(consumer).serviceState, 'SHUTDOWN_ALREADY');
    // The group did not stay registered on the broker.
    await until(
      () =>
        broker.consumerManager.getConsumerGroupInfo(consumer.consumerGroup) === undefined ||
        broker.consumerManager.getConsumerGroupInfo(consumer.consumerGroup)?.channelInfoTable.size === 0,
      'the failed consumer left the group',
    );
  });
});

describe('push consumer: where a group starts', { concurrency: true }, () => {
  /** Sends `n` messages, then waits until the clock has moved past their store times. */
  async function sendBatch(topic: string, tag: string, n: number): Promise<string[]> {
    const results = await sendMany(producer, n, (i) => ({ topic, body: `${tag}-${i}`, tags: tag }));
    const after = Date.now();
    await until(() => Date.now() > after + 2, 'the clock moved on');
    return results.map((r) => r.msgId);
  }

  async function consumeAll(
    topic: string,
    group: string,
    options: Parameters<typeof newConsumer>[1],
    expect: number,
  ): Promise<Seen[]> {
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { consumerGroup: group, ...options });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, group, seen);
    await consumer.start();
    await until(() => implOf(consumer).rebalance.processQueueTable.size >= 4, 'queues held');
    await until(() => seen.length >= expect, `${expect} messages for ${group}`);
    await until(() => caughtUp(cold, topic, 4, { consumers: [consumer] }), `${group} caught up`);
    await consumer.shutdown();
    return seen;
  }

  test('a new group starts at FIRST, LAST or TIMESTAMP; an existing group starts at its stored offset whatever it says', async () => {
    const topic = uniqueName('Where');
    await createTopic(cluster, topic, 4, [cold]);
    const early = await sendBatch(topic, 'early', 20);
    // The broker's time search returns the offset whose store time is nearest (4.9.8's binary
    // search): the timestamp is put far from the early batch and right before the middle one.
    const earlyEnd = Date.now();
    await until(() => Date.now() > earlyEnd + 100, 'the early batch 100 ms behind');
    const middleStart = Date.now();
    const middle = await sendBatch(topic, 'middle', 20);

    const first = uniqueName('first');
    const last = uniqueName('last');
    const stamp = uniqueName('stamp');
    const [fromFirst, fromLast, fromStamp] = await Promise.all([
      consumeAll(topic, first, { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, 40),
      consumeAll(topic, last, { consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' }, 0),
      consumeAll(
        topic,
        stamp,
        { consumeFromWhere: 'CONSUME_FROM_TIMESTAMP', consumeTimestamp: middleStart },
        20,
      ),
    ]);
    assert.deepEqual(fromFirst.map((s) => s.msgId).sort(), [...early, ...middle].sort());
    assert.deepEqual(fromLast, [], 'LAST skips the history');
    assert.deepEqual(
      fromStamp.map((s) => s.msgId).sort(),
      [...middle].sort(),
      'TIMESTAMP starts at the time',
    );

    // Each group now has offsets; what comes next is what each gets, whatever consumeFromWhere says.
    const late = await sendBatch(topic, 'late', 12);
    const [againFirst, againLast, againStamp] = await Promise.all([
      consumeAll(topic, first, { consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' }, 12),
      consumeAll(topic, last, { consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET' }, 12),
      consumeAll(topic, stamp, { consumeFromWhere: 'CONSUME_FROM_TIMESTAMP', consumeTimestamp: 0 }, 12),
    ]);
    for (const seen of [againFirst, againLast, againStamp]) {
      assert.deepEqual(
        seen.map((s) => s.msgId).sort(),
        [...late].sort(),
        `${seen[0]?.consumer}: ${seen.map((s) => `${s.body}@${s.queueId}:${s.queueOffset}`).join(' ')}`,
      );
    }
  });

  test('a new group on queues whose start is still in memory reads from offset 0 even with LAST (the broker says 0, as 4.9.8)', async () => {
    const topic = uniqueName('Young');
    await createTopic(cluster, topic, 2, [broker]);
    const sent = await sendMany(producer, 10, (i) => ({ topic, body: `y${i}` }));
    const seen: Seen[] = [];
    const consumer = newConsumer(cluster, { consumeFromWhere: 'CONSUME_FROM_LAST_OFFSET' });
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen);
    await consumer.start();
    await until(() => seen.length >= 10, '10 messages');
    assert.deepEqual(seen.map((s) => s.msgId).sort(), sent.map((r) => r.msgId).sort());
  });
});
