/**
 * Clustering: members of one group in one process (each its own instance) share the queues as the
 * allocation strategy says, disjointly and completely; a member that leaves hands its queues over
 * with its offsets committed, so a clean handover consumes nothing twice, while a member that stops
 * without committing (a crash) makes the others consume again what it had consumed since its last
 * commit: at-least-once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import {
  AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle,
  type AllocateMessageQueueStrategy,
  type Producer,
  type PushConsumer,
} from '../../../src/client/index.js';
import { javaStringCompare } from '../../../src/common/message/java-lang.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  BROKER_FAST,
  duplicates,
  heldQueueIds,
  implOf,
  newConsumer,
  offsetInMemory,
  recordConcurrently,
  type Seen,
  sendMany,
  shutdownAll,
} from './consumer-support.js';
import { createTopic, newProducer, startCluster, type TestCluster, uniqueName, until } from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;

before(async () => {
  cluster = await startCluster(BROKER_FAST);
  broker = cluster.brokers[0] as BrokerController;
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
});

/** What `strategy` gives each member for `queues` queues of `topic` on broker-a, by client id. */
function expectedAllocation(
  strategy: AllocateMessageQueueStrategy,
  members: readonly PushConsumer[],
  topic: string,
  queues: number,
): Map<string, number[]> {
  const mqAll = Array.from({ length: queues }, (_, q) => new MessageQueue(topic, 'broker-a', q)).sort(
    MessageQueue.compare,
  );
  const cids = members.map((m) => m.clientId as string).sort(javaStringCompare);
  return new Map(
    members.map((m) => [
      m.clientId as string,
      strategy
        .allocate(implOf(m).consumerGroup, m.clientId as string, mqAll, cids)
        .map((mq) => mq.queueId)
        .sort((a, b) => a - b),
    ]),
  );
}

function actualAllocation(members: readonly PushConsumer[], topic: string): Map<string, number[]> {
  return new Map(members.map((m) => [m.clientId as string, heldQueueIds(m, topic)]));
}

/** Waits until the members hold exactly what the strategy gives them, then checks it is a partition. */
async function settled(
  strategy: AllocateMessageQueueStrategy,
  members: readonly PushConsumer[],
  topic: string,
  queues: number,
): Promise<Map<string, number[]>> {
  const expected = expectedAllocation(strategy, members, topic, queues);
  await until(
    () => JSON.stringify([...actualAllocation(members, topic)]) === JSON.stringify([...expected]),
    `the members settle on ${JSON.stringify([...expected])}`,
  );
  const all = [...expected.values()].flat().sort((a, b) => a - b);
  assert.deepEqual(
    all,
    Array.from({ length: queues }, (_, q) => q),
    'disjoint and covering',
  );
  return expected;
}

function member(group: string, seen: Seen[], name: string, options = {}): PushConsumer {
  const consumer = newConsumer(cluster, { consumerGroup: group, ...options });
  recordConcurrently(consumer, name, seen);
  return consumer;
}

describe('push consumer: clustering', { concurrency: true }, () => {
  test('two, then three members split 16 queues averagely, disjoint and covering; all messages consumed once', async () => {
    const topic = uniqueName('Split');
    await createTopic(cluster, topic, 16, [broker]);
    const group = uniqueName('split');
    const seen: Seen[] = [];
    const strategy = new AllocateMessageQueueAveragely();
    const a = member(group, seen, 'a');
    const b = member(group, seen, 'b');
    for (const m of [a, b]) m.subscribe(topic, '*');
    await Promise.all([a.start(), b.start()]);
    const two = await settled(strategy, [a, b], topic, 16);
    assert.deepEqual(
      [...two.values()].map((q) => q.length),
      [8, 8],
    );
    const c = member(group, seen, 'c');
    c.subscribe(topic, '*');
    await c.start();
    const three = await settled(strategy, [a, b, c], topic, 16);
    assert.deepEqual([...three.values()].map((q) => q.length).sort(), [5, 5, 6]);
    const sent = await sendMany(producer, 320, (i) => ({ topic, body: `m${i}` }));
    await until(() => seen.length >= 320, '320 messages consumed');
    assert.deepEqual([...duplicates(seen.map((s) => s.msgId))], []);
    assert.deepEqual(seen.map((s) => s.msgId).sort(), sent.map((r) => r.msgId).sort());
    // Each message was consumed by the member that holds its queue.
    const owner = new Map<number, string>();
    for (const [name, m] of [
      ['a', a],
      ['b', b],
      ['c', c],
    ] as const) {
      for (const q of heldQueueIds(m, topic)) owner.set(q, name);
    }
    for (const s of seen) assert.equal(s.consumer, owner.get(s.queueId), `queue ${s.queueId}`);
  });

  test('AllocateMessageQueueAveragelyByCircle: 3 members, 5 queues -> {q0,q3}, {q1,q4}, {q2} by sorted client id', async () => {
    const topic = uniqueName('Circle');
    await createTopic(cluster, topic, 5, [broker]);
    const group = uniqueName('circle');
    const seen: Seen[] = [];
    const strategy = new AllocateMessageQueueAveragelyByCircle();
    const members = [0, 1, 2].map((i) =>
      member(group, seen, `m${i}`, { allocateMessageQueueStrategy: strategy }),
    );
    for (const m of members) m.subscribe(topic, '*');
    await Promise.all(members.map((m) => m.start()));
    const allocation = await settled(strategy, members, topic, 5);
    const byRank = [...allocation.entries()]
      .sort((x, y) => javaStringCompare(x[0], y[0]))
      .map(([, queues]) => queues);
    assert.deepEqual(byRank, [[0, 3], [1, 4], [2]]);
    // Running info names the strategy the group uses.
    assert.equal(implOf(members[0] as PushConsumer).rebalance.settings.strategy.name, strategy.name);
  });

  test('a member that leaves hands its queues over with its offsets committed: nothing consumed twice', async () => {
    const topic = uniqueName('Handover');
    await createTopic(cluster, topic, 16, [broker]);
    const group = uniqueName('handover');
    const seen: Seen[] = [];
    // Running listeners finish before the leaving member commits (else they are consumed again).
    const a = member(group, seen, 'a', { awaitTerminationMillisWhenShutdown: 5000 });
    const b = member(group, seen, 'b', { awaitTerminationMillisWhenShutdown: 5000 });
    for (const m of [a, b]) m.subscribe(topic, '*');
    await Promise.all([a.start(), b.start()]);
    await settled(new AllocateMessageQueueAveragely(), [a, b], topic, 16);
    const aQueues = heldQueueIds(a, topic);

    // Messages keep coming while `a` leaves.
    const total = 800;
    const sending = sendMany(producer, total, (i) => ({ topic, body: `h${i}` }), 8);
    await until(() => seen.filter((s) => s.consumer === 'a').length >= 100, 'a consumed 100');
    await a.shutdown();
    const sent = await sending;
    await until(() => heldQueueIds(b, topic).length === 16, 'b holds every queue');
    await until(() => seen.length >= total, `${total} consumed`);
    assert.deepEqual(
      [...duplicates(seen.map((s) => s.msgId))],
      [],
      'a clean handover consumes nothing twice',
    );
    assert.deepEqual(seen.map((s) => s.msgId).sort(), sent.map((r) => r.msgId).sort());
    const afterHandover = seen.filter((s) => s.consumer === 'b' && aQueues.includes(s.queueId));
    assert.ok(afterHandover.length > 0, "b consumed a's queues after the handover");
  });

  test("a member that stops without committing (a crash) has its queues' messages since its last commit consumed again", async () => {
    const topic = uniqueName('Crash');
    await createTopic(cluster, topic, 8, [broker]);
    const group = uniqueName('crash');
    const seen: Seen[] = [];
    // `a` holds its pulls long, so the broker's offsets (carried by pulls) lag what it consumed.
    const a = member(group, seen, 'a', {
      brokerSuspendMaxTimeMillis: 8000,
      consumerTimeoutMillisWhenSuspend: 12_000,
    });
    const b = member(group, seen, 'b');
    for (const m of [a, b]) m.subscribe(topic, '*');
    await Promise.all([a.start(), b.start()]);
    await settled(new AllocateMessageQueueAveragely(), [a, b], topic, 8);
    const aQueues = heldQueueIds(a, topic);
    const sent = await sendMany(producer, 160, (i) => ({ topic, body: `c${i}` }));
    await until(() => seen.length >= 160, '160 consumed');
    await until(
      () =>
        aQueues.every(
          (q) => offsetInMemory(a, topic, q) === broker.messageStore.getMaxOffsetInQueue(topic, q),
        ),
      'a consumed its queues to the end',
    );
    // The crash: nothing more reaches the broker's offset table from `a`.
    const store = implOf(a).offsetStore;
    store.persistAll = async () => {};
    store.persist = async () => {};
    await a.shutdown();
    await until(() => heldQueueIds(b, topic).length === 8, 'b holds every queue');
    const again = await until(() => {
      const d = duplicates(seen.map((s) => s.msgId));
      return d.size > 0 ? d : undefined;
    }, 'b consumes again what a had consumed');
    // Everything consumed at least once; what came twice came from a's queues, first from a, then from b.
    assert.deepEqual([...new Set(seen.map((s) => s.msgId))].sort(), sent.map((r) => r.msgId).sort());
    for (const msgId of again.keys()) {
      const copies = seen.filter((s) => s.msgId === msgId);
      assert.ok(aQueues.includes(copies[0]?.queueId ?? -1));
      assert.deepEqual(
        copies.map((s) => s.consumer),
        ['a', 'b'],
      );
    }
  });
});
