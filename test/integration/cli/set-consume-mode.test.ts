/**
 * Server-side rebalance on our broker over TCP: `rmq admin setConsumeMode` (SET_MESSAGE_REQUEST_MODE)
 * with mqadmin's flags and output, messageRequestMode.json on disk, refusals, and push consumers
 * with clientRebalance false that get their queues from the broker (QUERY_ASSIGNMENT) in PULL mode
 * and split them as AVG does.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { DefaultMQPushConsumerImpl } from '../../../src/client/consumer/push/default-mq-push-consumer-impl.js';
import {
  ConsumeConcurrentlyStatus,
  createProducer,
  createPushConsumer,
  Message,
  type PushConsumer,
} from '../../../src/client/index.js';
import type { Embedded } from '../../../src/embedded/embedded.js';
import { ok, quiet, rmq, startAdminCluster, unique, until } from './admin-support.js';

let embedded: Embedded;
let n: string[];

before(async () => {
  ({ embedded, n } = await startAdminCluster());
});

after(async () => {
  await embedded.close();
});

function heldPullQueues(c: PushConsumer, topic: string): number[] {
  const impl = (c as unknown as { impl: DefaultMQPushConsumerImpl }).impl;
  return [...impl.rebalance.processQueueTable.values()]
    .filter(({ mq }) => mq.topic === topic)
    .map(({ mq }) => mq.queueId)
    .sort((a, b) => a - b);
}

describe('rmq admin setConsumeMode', () => {
  test('-b and -c: upstream output, the mode persisted in messageRequestMode.json', async () => {
    const topic = unique('ModeT');
    await ok('admin', 'updateTopic', ...n, '-c', 'DefaultCluster', '-t', topic);
    const out = await ok(
      'admin',
      'setConsumeMode',
      ...n,
      '-b',
      embedded.brokerAddr,
      '-t',
      topic,
      '-g',
      'cg_mode',
      '-m',
      'POP',
      '-q',
      '2',
    );
    assert.equal(
      out,
      `set consume mode to ${embedded.brokerAddr} success.\ntopic[${topic}] group[cg_mode] consume mode[POP] popShareQueueNum[2]`,
    );
    const cluster = await ok(
      'admin',
      'setConsumeMode',
      ...n,
      '-c',
      'DefaultCluster',
      '-t',
      topic,
      '-g',
      'cg_mode',
      '-m',
      'PULL',
    );
    assert.match(cluster, /consume mode\[PULL\] popShareQueueNum\[0\]$/);
    const file = JSON.parse(
      readFileSync(join(embedded.storeDir, 'config', 'messageRequestMode.json'), 'utf8'),
    );
    assert.deepEqual(file.messageRequestModeMap[topic].cg_mode, {
      consumerGroup: 'cg_mode',
      mode: 'PULL',
      popShareQueueNum: 0,
      topic,
    });
  });

  test('bad mode is a usage error; a retry topic and an unknown topic are refused by the broker', async () => {
    const bad = await rmq(
      'admin',
      'setConsumeMode',
      ...n,
      '-b',
      embedded.brokerAddr,
      '-t',
      'T',
      '-g',
      'g',
      '-m',
      'PUSH',
    );
    assert.equal(bad.code, 2);
    assert.match(bad.err, /not PULL or POP/);
    const retry = await rmq(
      'admin',
      'setConsumeMode',
      ...n,
      '-b',
      embedded.brokerAddr,
      '-t',
      '%RETRY%g',
      '-g',
      'g',
      '-m',
      'POP',
    );
    assert.equal(retry.code, 1);
    assert.match(retry.err, /retry topic is not allowed to set mode/);
    const missing = await rmq(
      'admin',
      'setConsumeMode',
      ...n,
      '-b',
      embedded.brokerAddr,
      '-t',
      'NoSuchTopicHere',
      '-g',
      'g',
      '-m',
      'POP',
    );
    assert.equal(missing.code, 1);
    assert.match(missing.err, /topic\[NoSuchTopicHere\] not exist/);
  });
});

describe('push consumers with clientRebalance false on our broker (PULL mode)', () => {
  test('the broker splits the queues (AVG) and every message is consumed', async () => {
    const topic = unique('AssignT');
    const group = unique('assign_cg');
    await ok('admin', 'updateTopic', ...n, '-c', 'DefaultCluster', '-t', topic, '-r', '4', '-w', '4');
    const bodies = new Set<string>();
    const members: PushConsumer[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        const c = createPushConsumer({
          consumerGroup: group,
          namesrvAddr: embedded.namesrvAddr,
          instanceName: unique('inst'),
          clientRebalance: false,
          consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
          rebalanceWaitInterval: 300,
          heartbeatBrokerInterval: 300,
          logger: quiet,
        });
        c.subscribe(topic, '*');
        c.registerMessageListener({
          type: 'concurrently',
          consumeMessage: async (msgs) => {
            for (const m of msgs) bodies.add(m.body.toString());
            return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
          },
        });
        await c.start();
        members.push(c);
      }
      await until('the broker split the 4 queues between the two members', async () =>
        members.every((m) => heldPullQueues(m, topic).length === 2),
      );
      const all = members.flatMap((m) => heldPullQueues(m, topic)).sort();
      assert.deepEqual(all, [0, 1, 2, 3]);
      const producer = createProducer({
        producerGroup: unique('pg'),
        namesrvAddr: embedded.namesrvAddr,
        logger: quiet,
      });
      await producer.start();
      try {
        for (let i = 0; i < 20; i++) await producer.send(new Message(topic, Buffer.from(`m${i}`)));
      } finally {
        await producer.shutdown();
      }
      await until('every message consumed', async () => bodies.size === 20);
    } finally {
      await Promise.all(members.map((m) => m.shutdown()));
    }
  });
});
