/**
 * The pull consumer against our name server and broker (SQL92 filtering on), fed by our producer:
 * pull with TAG and SQL92 expressions, the maxNums and maxSize caps, the statuses NO_NEW_MSG /
 * NO_MATCHED_MSG / OFFSET_ILLEGAL with upstream's nextBeginOffset, pullBlockIfNotFound waiting for a
 * message that arrives later, updateConsumeOffset persisted (periodically and at shutdown) and read
 * back by a new consumer, fetchMessageQueuesInBalance split between two members with the listener
 * told, sendMessageBack into %RETRY%<group>, and bad arguments refused before any request is sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import {
  ClientStateError,
  MQClientError,
  type Producer,
  type PullResult,
  PullStatus,
} from '../../../src/client/index.js';
import { ValidationError } from '../../../src/common/errors.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import type { MessageQueue } from '../../../src/common/message/message-queue.js';
import { RemotingAbortedError } from '../../../src/index.js';
import { brokerOffset, JumpClock } from './consumer-support.js';
import { mqOf, newPull, offsetsOf, PullWatch, shutdownConsumers } from './pull-support.js';
import { createTopic, newProducer, startCluster, type TestCluster, uniqueName, until } from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
let watch: PullWatch;

before(async () => {
  cluster = await startCluster({ longPollingCheckInterval: 100, enablePropertyFilter: true });
  broker = cluster.brokers[0] as BrokerController;
  watch = new PullWatch(broker);
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownConsumers();
  await producer?.shutdown();
  await cluster?.close();
});

async function newTopic(prefix: string, queues: number): Promise<string> {
  const topic = uniqueName(prefix);
  await createTopic(cluster, topic, queues);
  return topic;
}

/** `count` messages into queue 0 of `topic`, one at a time: TagA at even i, TagB at odd, property n = i. */
async function sendNumbered(topic: string, count: number, body = (i: number) => `n${i}`): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const r = await producer.send(
      { topic, body: body(i), tags: i % 2 === 0 ? 'TagA' : 'TagB', properties: { n: String(i) } },
      { messageQueue: mqOf(topic, 0) },
    );
    ids.push(r.msgId);
  }
  return ids;
}

function status(r: PullResult): {
  status: string;
  next: bigint;
  min: bigint;
  max: bigint;
  offsets: number[];
} {
  return {
    status: r.pullStatus,
    next: r.nextBeginOffset,
    min: r.minOffset,
    max: r.maxOffset,
    offsets: offsetsOf(r.msgFoundList),
  };
}

function keys(mqs: readonly MessageQueue[]): string[] {
  return mqs.map((mq) => mq.key).sort();
}

describe('pull', () => {
  test('TAG and SQL92 expressions, maxNums, and the statuses with nextBeginOffset as upstream', async () => {
    const topic = await newTopic('PcPull', 2);
    const mq = mqOf(topic, 0);
    const empty = mqOf(topic, 1);
    const sent = await sendNumbered(topic, 10);
    const c = newPull(cluster);
    await c.start();
    assert.deepEqual(keys(await c.fetchSubscribeMessageQueues(topic)), keys([mq, empty]));

    const all = await c.pull(mq, '*', 0, 32);
    assert.deepEqual(status(all), {
      status: PullStatus.FOUND,
      next: 10n,
      min: 0n,
      max: 10n,
      offsets: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
    });
    assert.deepEqual(
      all.msgFoundList.map((m) => m.msgId),
      sent,
    );
    assert.ok(all.msgFoundList.every((m) => m.topic === topic && m.queueId === 0));

    assert.deepEqual(status(await c.pull(mq, 'TagA', 0, 32)).offsets, [0, 2, 4, 6, 8]);
    assert.deepEqual(status(await c.pull(mq, 'TagB || TagC', 3, 32)).offsets, [3, 5, 7, 9]);
    assert.deepEqual(status(await c.pull(mq, { type: 'TAG', expression: 'TagA' }, 5, 32)).offsets, [6, 8]);
    const sql = await c.pull(mq, { type: 'SQL92', expression: 'n >= 6' }, 0, 32);
    assert.deepEqual(status(sql), {
      status: PullStatus.FOUND,
      next: 10n,
      min: 0n,
      max: 10n,
      offsets: [6, 7, 8, 9],
    });
    assert.deepEqual(
      status(await c.pull(mq, { type: 'SQL92', expression: "TAGS = 'TagB' AND n < 5" }, 0, 32)).offsets,
      [1, 3],
    );

    const capped = await c.pull(mq, '*', 2, 3);
    assert.deepEqual(status(capped), {
      status: PullStatus.FOUND,
      next: 5n,
      min: 0n,
      max: 10n,
      offsets: [2, 3, 4],
    });

    // Messages there, none matching: NO_MATCHED_MSG, and the next pull starts past those looked at.
    for (const expression of ['TagZ', { type: 'SQL92', expression: 'n > 100' }] as const) {
      assert.deepEqual(status(await c.pull(mq, expression, 0, 32)), {
        status: PullStatus.NO_MATCHED_MSG,
        next: 10n,
        min: 0n,
        max: 10n,
        offsets: [],
      });
    }
    // At the end: NO_NEW_MSG, stay there. Past it: OFFSET_ILLEGAL, back to the end (4.9.8's
    // OFFSET_OVERFLOW_BADLY correction).
    assert.deepEqual(status(await c.pull(mq, '*', 10, 32)), {
      status: PullStatus.NO_NEW_MSG,
      next: 10n,
      min: 0n,
      max: 10n,
      offsets: [],
    });
    assert.deepEqual(status(await c.pull(mq, '*', 15, 32)), {
      status: PullStatus.OFFSET_ILLEGAL,
      next: 10n,
      min: 0n,
      max: 10n,
      offsets: [],
    });
    // An empty queue: NO_NEW_MSG at 0, OFFSET_ILLEGAL anywhere else.
    assert.deepEqual(status(await c.pull(empty, '*', 0, 32)), {
      status: PullStatus.NO_NEW_MSG,
      next: 0n,
      min: 0n,
      max: 0n,
      offsets: [],
    });
    assert.deepEqual(status(await c.pull(empty, '*', 3, 32)), {
      status: PullStatus.OFFSET_ILLEGAL,
      next: 0n,
      min: 0n,
      max: 0n,
      offsets: [],
    });

    assert.equal(await c.maxOffset(mq), 10n);
    assert.equal(await c.minOffset(mq), 0n);
    assert.equal(await c.earliestMsgStoreTime(mq), all.msgFoundList[0]?.storeTimestamp);
    await c.shutdown();
  });

  test('maxSize keeps the first messages whose bodies fit (at least one); nextBeginOffset follows them', async () => {
    const topic = await newTopic('PcSize', 1);
    const mq = mqOf(topic, 0);
    await sendNumbered(topic, 6, (i) => String(i).repeat(100));
    const c = newPull(cluster);
    await c.start();
    assert.deepEqual(status(await c.pull(mq, '*', 0, 32, { maxSize: 250 })), {
      status: PullStatus.FOUND,
      next: 2n,
      min: 0n,
      max: 6n,
      offsets: [0, 1],
    });
    assert.deepEqual(status(await c.pull(mq, '*', 2, 32, { maxSize: 300 })).offsets, [2, 3, 4]);
    const one = await c.pull(mq, '*', 5, 32, { maxSize: 10 });
    assert.deepEqual(status(one).offsets, [5]);
    assert.equal(one.nextBeginOffset, 6n);
    assert.deepEqual(status(await c.pull(mq, 'TagB', 0, 32, { maxSize: 200 })).offsets, [1, 3]);
    await c.shutdown();
  });

  test('pullBlockIfNotFound waits at the broker for a message that arrives later', async () => {
    const topic = await newTopic('PcBlock', 1);
    const mq = mqOf(topic, 0);
    const suspend = 5000;
    const c = newPull(cluster, {
      brokerSuspendMaxTimeMillis: suspend,
      consumerTimeoutMillisWhenSuspend: suspend + 3000,
    });
    await c.start();
    const before = watch.arrived(topic, 0);
    const started = Date.now();
    const pending = c.pullBlockIfNotFound(mq, '*', 0, 32);
    await until(() => watch.arrived(topic, 0) > before, 'the pull reached the broker');
    const late = await producer.send({ topic, body: 'late' }, { messageQueue: mq });
    const r = await pending;
    const waited = Date.now() - started;
    assert.equal(r.pullStatus, PullStatus.FOUND);
    assert.deepEqual(
      r.msgFoundList.map((m) => m.msgId),
      [late.msgId],
    );
    assert.equal(r.nextBeginOffset, 1n);
    assert.ok(waited < suspend, `answered when the message came, after ${waited} ms`);

    // Nothing comes: the broker answers NO_NEW_MSG once brokerSuspendMaxTimeMillis has passed.
    const short = newPull(cluster, {
      brokerSuspendMaxTimeMillis: 300,
      consumerTimeoutMillisWhenSuspend: 3000,
    });
    await short.start();
    const t0 = Date.now();
    const none = await short.pullBlockIfNotFound(mq, '*', 1, 32);
    const held = Date.now() - t0;
    assert.deepEqual(status(none), {
      status: PullStatus.NO_NEW_MSG,
      next: 1n,
      min: 0n,
      max: 1n,
      offsets: [],
    });
    assert.ok(held >= 250, `held ${held} ms at the broker`);

    // The caller's signal ends a held pull at once; the consumer goes on.
    const controller = new AbortController();
    const arrived = watch.arrived(topic, 0);
    const aborted = short.pullBlockIfNotFound(mq, '*', 1, 32, { signal: controller.signal });
    await until(() => watch.arrived(topic, 0) > arrived, 'the pull reached the broker');
    controller.abort();
    await assert.rejects(aborted, RemotingAbortedError);
    assert.equal((await short.pull(mq, '*', 0, 32)).pullStatus, PullStatus.FOUND);
    await short.shutdown();
    await c.shutdown();
  });
});

describe('offsets and balance', () => {
  test('updateConsumeOffset is persisted (on schedule and at shutdown) and a new consumer reads it from the broker', async () => {
    const topic = await newTopic('PcOffset', 4);
    const group = uniqueName('pcoff');
    const clock = new JumpClock();
    const c = newPull(cluster, { consumerGroup: group, registerTopics: [topic], clock });
    await c.start();
    await until(() => c.fetchMessageQueuesInBalance(topic).length === 4, 'the four queues in balance');
    c.updateConsumeOffset(mqOf(topic, 0), 3);
    assert.equal(await c.fetchConsumeOffset(mqOf(topic, 0), false), 3n, 'in memory at once');
    clock.jump(10_000); // upstream's first persist is 10 s after start, then every persistConsumerOffsetInterval
    await until(() => brokerOffset(broker, group, topic, 0) === 3n, 'persisted on schedule');
    c.updateConsumeOffset(mqOf(topic, 1), 5n);
    c.updateConsumeOffset(mqOf(topic, 0), 4n);
    await c.shutdown();
    assert.equal(brokerOffset(broker, group, topic, 0), 4n);
    assert.equal(brokerOffset(broker, group, topic, 1), 5n);

    const d = newPull(cluster, { consumerGroup: group });
    await d.start();
    assert.equal(await d.fetchConsumeOffset(mqOf(topic, 0), true), 4n);
    assert.equal(await d.fetchConsumeOffset(mqOf(topic, 1), true), 5n);
    assert.equal(await d.fetchConsumeOffset(mqOf(topic, 1), false), 5n, 'kept in memory once read');
    await d.shutdown();
  });

  test('offsets of queues no rebalance gave this member are persisted at shutdown too (upstream drops them)', async () => {
    const topic = await newTopic('PcUnbalanced', 2);
    const group = uniqueName('pcunbal');
    const c = newPull(cluster, { consumerGroup: group });
    await c.start();
    assert.deepEqual(c.fetchMessageQueuesInBalance(topic), [], 'nothing registered, nothing pulled');
    c.updateConsumeOffset(mqOf(topic, 0), 6);
    c.updateConsumeOffset(mqOf(topic, 1), 2n);
    await c.shutdown();
    assert.equal(brokerOffset(broker, group, topic, 0), 6n);
    assert.equal(brokerOffset(broker, group, topic, 1), 2n);
  });

  test('a topic pulled joins the rebalance of the group (upstream subscriptionAutomatically)', async () => {
    const topic = await newTopic('PcAuto', 2);
    const group = uniqueName('pcauto');
    const c = newPull(cluster, { consumerGroup: group });
    await c.start();
    assert.deepEqual(c.fetchMessageQueuesInBalance(topic), []);
    await c.pull(mqOf(topic, 0), '*', 0, 1);
    await until(
      () => c.fetchMessageQueuesInBalance(topic).length === 2,
      'the pulled topic in balance',
      10_000,
    );
    c.updateConsumeOffset(mqOf(topic, 1), 7);
    await c.shutdown();
    assert.equal(brokerOffset(broker, group, topic, 1), 7n, 'persisted at shutdown');
  });

  test('fetchMessageQueuesInBalance splits the queues between two members; their listener is told', async () => {
    const topic = await newTopic('PcBalance', 4);
    const group = uniqueName('pcbal');
    const heardA: Array<{ topic: string; all: string[]; mine: string[] }> = [];
    const heardB: Array<{ topic: string; all: string[]; mine: string[] }> = [];
    const a = newPull(cluster, {
      consumerGroup: group,
      registerTopics: [topic],
      messageQueueListener: (t, all, mine) => heardA.push({ topic: t, all: keys(all), mine: keys(mine) }),
    });
    const b = newPull(cluster, { consumerGroup: group });
    b.registerMessageQueueListener(topic, (t, all, mine) =>
      heardB.push({ topic: t, all: keys(all), mine: keys(mine) }),
    );
    await a.start();
    await until(() => a.fetchMessageQueuesInBalance(topic).length === 4, 'a alone holds all four');
    await b.start();
    await until(
      () => {
        const qa = keys(a.fetchMessageQueuesInBalance(topic));
        const qb = keys(b.fetchMessageQueuesInBalance(topic));
        return qa.length === 2 && qb.length === 2 && qa.every((k) => !qb.includes(k));
      },
      'two queues each',
      10_000,
    );
    const allKeys = keys([0, 1, 2, 3].map((q) => mqOf(topic, q)));
    await until(() => heardA.at(-1)?.mine.length === 2 && heardB.at(-1)?.mine.length === 2, 'both told');
    assert.deepEqual(heardA[0], { topic, all: allKeys, mine: allKeys }, 'a was told it held all four');
    assert.deepEqual(heardA.at(-1), {
      topic,
      all: allKeys,
      mine: keys(a.fetchMessageQueuesInBalance(topic)),
    });
    assert.deepEqual(heardB.at(-1), {
      topic,
      all: allKeys,
      mine: keys(b.fetchMessageQueuesInBalance(topic)),
    });
    await b.shutdown();
    await until(() => a.fetchMessageQueuesInBalance(topic).length === 4, 'a takes all four back', 10_000);
    await a.shutdown();
  });

  test('sendMessageBack puts the message into %RETRY%<group>', async () => {
    const topic = await newTopic('PcBack', 1);
    const group = uniqueName('pcback');
    const [id] = await sendNumbered(topic, 1, () => 'send me back');
    const c = newPull(cluster, { consumerGroup: group });
    await c.start();
    const found = await c.pull(mqOf(topic, 0), '*', 0, 1);
    const msg = found.msgFoundList[0] as MessageExt;
    assert.equal(msg.msgId, id);
    await c.sendMessageBack(msg, 1); // delay level 1: one second
    const retry = mqOf(`%RETRY%${group}`, 0);
    const back = await until(
      async () => {
        const r = await c.pull(retry, '*', 0, 1).catch(() => undefined);
        return r?.pullStatus === PullStatus.FOUND ? r.msgFoundList[0] : undefined;
      },
      'the message in the retry topic',
      10_000,
    );
    assert.equal(back.topic, retry.topic);
    assert.equal(back.body.toString(), 'send me back');
    assert.equal(back.reconsumeTimes, 1);
    assert.equal(back.getProperty(MessageConst.PROPERTY_RETRY_TOPIC), topic);
    assert.equal(back.msgId, id, 'the same message id');
    assert.equal(back.getUserProperty('n'), '0');
    await c.shutdown();
  });
});

test('with a namespace: pulls, offsets and send-back use the namespaced names on the wire only', async () => {
  const ns = uniqueName('ns');
  const topic = uniqueName('PcNs');
  await createTopic(cluster, `${ns}%${topic}`, 1);
  const nsProducer = newProducer({ namesrvAddr: cluster.namesrvAddr, namespace: ns });
  await nsProducer.start();
  const sent = await nsProducer.send({ topic, body: 'namespaced' });
  await nsProducer.shutdown();
  const group = uniqueName('pcns');
  const c = newPull(cluster, { namespace: ns, consumerGroup: group });
  await c.start();
  const queues = await c.fetchSubscribeMessageQueues(topic);
  assert.deepEqual(keys(queues), keys([mqOf(topic, 0)]));
  const r = await c.pull(mqOf(topic, 0), '*', 0, 32);
  assert.equal(r.pullStatus, PullStatus.FOUND);
  const msg = r.msgFoundList[0] as MessageExt;
  assert.equal(msg.topic, topic);
  assert.equal(msg.msgId, sent.msgId);
  c.updateConsumeOffset(mqOf(topic, 0), 1);
  assert.equal(await c.fetchConsumeOffset(mqOf(topic, 0), false), 1n);
  await c.sendMessageBack(msg, 1);
  const back = await until(
    async () => {
      const p = await c.pull(mqOf(`%RETRY%${group}`, 0), '*', 0, 1).catch(() => undefined);
      return p?.pullStatus === PullStatus.FOUND ? p.msgFoundList[0] : undefined;
    },
    'the message in the namespaced retry topic',
    10_000,
  );
  assert.equal(back.topic, `%RETRY%${group}`);
  assert.equal(back.getProperty(MessageConst.PROPERTY_RETRY_TOPIC), `${ns}%${topic}`);
  assert.equal(broker.messageStore.getMaxOffsetInQueue(`%RETRY%${ns}%${group}`, 0), 1n);
  await c.shutdown();
});

describe('bad use', () => {
  test('bad arguments are refused with a ValidationError before any request is sent', async () => {
    const topic = await newTopic('PcBad', 1);
    const mq = mqOf(topic, 0);
    await sendNumbered(topic, 1);
    const c = newPull(cluster);
    await c.start();
    const pulls = watch.arrived(topic);
    const cases: Array<[string, () => Promise<unknown>, RegExp]> = [
      ['offset < 0', () => c.pull(mq, '*', -1, 1), /offset/],
      ['offset -1n', () => c.pull(mq, '*', -1n, 1), /offset/],
      ['offset 1.5', () => c.pull(mq, '*', 1.5, 1), /offset/],
      ['maxNums 0', () => c.pull(mq, '*', 0, 0), /maxNums/],
      ['maxNums -3', () => c.pull(mq, '*', 0, -3), /maxNums/],
      ['maxNums 2.5', () => c.pull(mq, '*', 0, 2.5), /maxNums/],
      ['mq null', () => c.pull(null as unknown as MessageQueue, '*', 0, 1), /mq/],
      ['mq not a queue', () => c.pull({ topic } as unknown as MessageQueue, '*', 0, 1), /mq/],
      ['blocking offset < 0', () => c.pullBlockIfNotFound(mq, '*', -5, 1), /offset/],
      ['blocking maxNums 0', () => c.pullBlockIfNotFound(mq, '*', 0, 0), /maxNums/],
      [
        'blocking mq null',
        () => c.pullBlockIfNotFound(undefined as unknown as MessageQueue, '*', 0, 1),
        /mq/,
      ],
      ['maxSize 0', () => c.pull(mq, '*', 0, 1, { maxSize: 0 }), /maxSize/],
      ['empty SQL92', () => c.pull(mq, { type: 'SQL92', expression: '' }, 0, 1), /Expression/],
      ['unknown type', () => c.pull(mq, { type: 'CLASS' as 'TAG', expression: '*' }, 0, 1), /type/],
      ['fetchConsumeOffset mq null', () => c.fetchConsumeOffset(null as unknown as MessageQueue, true), /mq/],
    ];
    for (const [what, call, message] of cases) {
      await assert.rejects(call, (e: unknown) => {
        assert.ok(e instanceof ValidationError, `${what}: ${String(e)}`);
        assert.match(e.message, message, what);
        return true;
      });
    }
    assert.throws(() => c.updateConsumeOffset(null as unknown as MessageQueue, 1), ValidationError);
    assert.throws(() => c.updateConsumeOffset(mq, 1.5), ValidationError);
    assert.throws(() => c.updateConsumeOffset(mq, Number.NaN), ValidationError);
    assert.equal(watch.arrived(topic), pulls, 'no pull reached the broker');
    assert.equal((await c.pull(mq, '*', 0, 1)).pullStatus, PullStatus.FOUND, 'the consumer still works');
    await assert.rejects(c.fetchSubscribeMessageQueues(uniqueName('NoSuchTopic')), MQClientError);
    await c.shutdown();
  });

  test('use before start and after shutdown fails with a ClientStateError', async () => {
    const topic = await newTopic('PcState', 1);
    const mq = mqOf(topic, 0);
    const c = newPull(cluster, { registerTopics: [topic] });
    await assert.rejects(c.pull(mq, '*', 0, 1), ClientStateError);
    assert.throws(() => c.fetchMessageQueuesInBalance(topic), ClientStateError);
    await c.start();
    await assert.rejects(c.start(), ClientStateError);
    await c.shutdown();
    await assert.rejects(c.pull(mq, '*', 0, 1), ClientStateError);
    await assert.rejects(c.pullBlockIfNotFound(mq, '*', 0, 1), ClientStateError);
    await assert.rejects(c.fetchConsumeOffset(mq, true), ClientStateError);
    await assert.rejects(c.fetchSubscribeMessageQueues(topic), ClientStateError);
    await assert.rejects(c.maxOffset(mq), ClientStateError);
    assert.throws(() => c.updateConsumeOffset(mq, 1), ClientStateError);
    assert.throws(() => c.fetchMessageQueuesInBalance(topic), ClientStateError);
    await c.shutdown();
  });
});
