/**
 * Broadcasting push consumers on our broker: each member of the group gets every message; progress
 * lives in `<localOffsetStoreDir>/<clientId>/<group>/offsets.json` (upstream's path and format), so a
 * member started again with the same client id goes on where it stopped; a failed message is dropped
 * with a warn line, never retried (as upstream), and progress passes it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { Producer } from '../../../src/client/index.js';
import { MixAll } from '../../../src/common/constants.js';
import { decodeOffsetSerializeWrapper } from '../../../src/common/protocol/offset-serialize-wrapper.js';
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
  warnings,
} from './consumer-support.js';
import {
  capturingLogger,
  createTopic,
  newProducer,
  startCluster,
  storedCount,
  type TestCluster,
  uniqueName,
  until,
} from './support.js';

let cluster: TestCluster;
let broker: BrokerController;
let producer: Producer;
let offsetDir: string;

before(async () => {
  offsetDir = mkdtempSync(join(tmpdir(), 'rmq-offsets-'));
  cluster = await startCluster(BROKER_FAST);
  broker = cluster.brokers[0] as BrokerController;
  producer = newProducer({ namesrvAddr: cluster.namesrvAddr });
  await producer.start();
});

after(async () => {
  await shutdownAll();
  await producer?.shutdown();
  await cluster?.close();
  rmSync(offsetDir, { recursive: true, force: true });
});

function options(extra: Parameters<typeof newConsumer>[1] = {}): Parameters<typeof newConsumer>[1] {
  return { messageModel: 'BROADCASTING', localOffsetStoreDir: offsetDir, ...extra };
}

describe('push consumer: broadcasting', { concurrency: true }, () => {
  test('each member gets every message; offsets go to the local file and a restarted member goes on from it', async () => {
    const topic = uniqueName('Broadcast');
    await createTopic(cluster, topic, 4, [broker]);
    const group = uniqueName('bc');
    const seenA: Seen[] = [];
    const seenB: Seen[] = [];
    const instanceA = uniqueName('bca');
    const a = newConsumer(cluster, options({ consumerGroup: group, instanceName: instanceA }));
    const b = newConsumer(cluster, options({ consumerGroup: group }));
    for (const [c, seen, name] of [
      [a, seenA, 'a'],
      [b, seenB, 'b'],
    ] as const) {
      c.subscribe(topic, '*');
      recordConcurrently(c, name, seen);
    }
    await Promise.all([a.start(), b.start()]);
    // Every queue held by both, and no retry topic subscribed.
    await until(() => implOf(a).rebalance.processQueueTable.size === 4, 'a holds the 4 queues');
    await until(() => implOf(b).rebalance.processQueueTable.size === 4, 'b holds the 4 queues');
    assert.ok(
      !implOf(a)
        .subscriptions()
        .some((s) => s.topic === MixAll.getRetryTopic(implOf(a).consumerGroup)),
      'no retry topic in broadcasting',
    );
    const sent = await sendMany(producer, 100, (i) => ({ topic, body: `b${i}` }));
    const ids = sent.map((r) => r.msgId).sort();
    await until(() => seenA.length >= 100 && seenB.length >= 100, 'both got all 100');
    assert.deepEqual(seenA.map((s) => s.msgId).sort(), ids);
    assert.deepEqual(seenB.map((s) => s.msgId).sort(), ids);
    await until(() => caughtUp(broker, topic, 4, { consumers: [a] }), 'a committed in memory');

    const clientIdA = a.clientId as string;
    await a.shutdown();
    // The broker keeps no offset for a broadcasting group; the file has them all.
    const file = join(offsetDir, clientIdA, implOf(a).consumerGroup, 'offsets.json');
    const table = decodeOffsetSerializeWrapper(readFileSync(file, 'utf8'));
    for (let q = 0; q < 4; q++) {
      const entry = table.find(([mq]) => mq.topic === topic && mq.queueId === q);
      assert.equal(entry?.[1], broker.messageStore.getMaxOffsetInQueue(topic, q), `queue ${q} in the file`);
      assert.equal(broker.consumerOffsetManager.queryOffset(implOf(a).consumerGroup, topic, q), -1n);
    }

    // Started again with the same client id (and consuming from the start for a group without
    // offsets), it reads the file: only what came meanwhile.
    const later = await sendMany(producer, 20, (i) => ({ topic, body: `later${i}` }));
    const again: Seen[] = [];
    const a2 = newConsumer(cluster, options({ consumerGroup: group, instanceName: instanceA }));
    a2.subscribe(topic, '*');
    recordConcurrently(a2, 'a2', again);
    await a2.start();
    assert.equal(a2.clientId, clientIdA);
    await until(() => again.length >= 20 && seenB.length >= 120, 'a2 and b got the 20 new ones');
    await until(() => caughtUp(broker, topic, 4, { consumers: [a2] }), 'a2 caught up');
    assert.deepEqual(again.map((s) => s.msgId).sort(), later.map((r) => r.msgId).sort());
  });

  test('a failed message is dropped with a warn line, never consumed again, and progress passes it', async () => {
    const topic = uniqueName('BroadcastFail');
    await createTopic(cluster, topic, 2, [broker]);
    const seen: Seen[] = [];
    const { logger, records } = capturingLogger();
    const consumer = newConsumer(cluster, options({ logger }));
    consumer.subscribe(topic, '*');
    recordConcurrently(consumer, 'c', seen, (msg) => {
      const body = msg.body.toString();
      if (body.endsWith('3')) return 'RECONSUME_LATER';
      if (body.endsWith('7')) throw new Error('listener failed');
      return 'CONSUME_SUCCESS';
    });
    await consumer.start();
    const sent = await sendMany(producer, 30, (i) => ({ topic, body: `f${i}` }));
    await until(() => seen.length >= 30, 'all 30 consumed once');
    await until(() => caughtUp(broker, topic, 2, { consumers: [consumer] }), 'progress passed the failures');
    const dropped = warnings(records, /BROADCASTING, the message consume failed, drop it/);
    assert.equal(dropped.length, 6, 'f3, f7, f13, f17, f23, f27 dropped');
    const droppedIds = new Set(dropped.map((r) => r.fields.msgId));
    assert.deepEqual(
      [...droppedIds].sort(),
      sent
        .filter((_, i) => i % 10 === 3 || i % 10 === 7)
        .map((r) => r.msgId)
        .sort(),
    );
    assert.deepEqual([...duplicates(seen.map((s) => s.msgId))], [], 'nothing consumed again');
    // No send-back in broadcasting: nothing in the group's retry topic.
    assert.equal(storedCount(broker, MixAll.getRetryTopic(implOf(consumer).consumerGroup)), 0n);
  });
});
