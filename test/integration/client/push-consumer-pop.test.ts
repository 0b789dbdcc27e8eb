/**
 * Our push consumer in POP mode against our broker (the official 5.5.0 broker's side is
 * test/interop/pop-consumer.test.ts): the mode set to POP with the admin API, two members with
 * clientRebalance false share queue -1, every message is consumed once, and one answered
 * RECONSUME_LATER comes back through revive with reconsumeTimes 1 (popDelayLevel[0] = 10 s).
 * Skipped while the broker has no POP_MESSAGE processor (it lands with the POP broker work).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../../src/admin/index.js';
import { BROKER_REQUEST_HANDLERS } from '../../../src/broker/processor/processor-table.js';
import type { DefaultMQPushConsumerImpl } from '../../../src/client/consumer/push/default-mq-push-consumer-impl.js';
import {
  ConsumeConcurrentlyStatus,
  createProducer,
  createPushConsumer,
  Message,
  type PushConsumer,
} from '../../../src/client/index.js';
import { createLogger } from '../../../src/common/logger.js';
import { type Embedded, startEmbedded } from '../../../src/embedded/embedded.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';

const quiet = createLogger('test', { level: 'silent' });
const TOPIC = 'PopOurTopic';
const GROUP = 'pop_our_cg';
const COUNT = 30;

async function until(what: string, check: () => boolean, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('our POP push consumer against our broker', {
  skip: !BROKER_REQUEST_HANDLERS.has(RequestCode.POP_MESSAGE),
}, () => {
  let embedded: Embedded;
  let admin: MQAdminExt;
  const consumers: PushConsumer[] = [];

  before(async () => {
    embedded = await startEmbedded({ logger: quiet });
    admin = createAdmin({ namesrvAddr: embedded.namesrvAddr, logger: quiet });
    await admin.start();
    await admin.createAndUpdateTopicConfig(embedded.brokerAddr, {
      topicName: TOPIC,
      readQueueNums: 4,
      writeQueueNums: 4,
    });
    await admin.createAndUpdateSubscriptionGroupConfig(embedded.brokerAddr, { groupName: GROUP });
    await admin.setMessageRequestMode(embedded.brokerAddr, TOPIC, GROUP, 'POP', 0);
  });

  after(async () => {
    await Promise.all(consumers.map((c) => c.shutdown().catch(() => undefined)));
    await admin.shutdown();
    await embedded.close();
  });

  test('two members share queue -1, all consumed once, RECONSUME_LATER back with reconsumeTimes 1', {
    timeout: 90_000,
  }, async () => {
    const seen = new Map<string, number[]>();
    const FAIL_BODY = 'm-3';
    for (let i = 0; i < 2; i++) {
      const c = createPushConsumer({
        consumerGroup: GROUP,
        namesrvAddr: embedded.namesrvAddr,
        instanceName: `pop-our-${i}`,
        clientRebalance: false,
        popInvisibleTime: 5000,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        rebalanceWaitInterval: 500,
        logger: quiet,
      });
      c.subscribe(TOPIC, '*');
      c.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async (msgs) => {
          for (const m of msgs) {
            const body = m.body.toString();
            seen.set(body, [...(seen.get(body) ?? []), m.reconsumeTimes]);
            if (body === FAIL_BODY && m.reconsumeTimes === 0)
              return ConsumeConcurrentlyStatus.RECONSUME_LATER;
          }
          return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        },
      });
      await c.start();
      consumers.push(c);
    }
    const popQueues = (c: PushConsumer) =>
      [...(c as unknown as { impl: DefaultMQPushConsumerImpl }).impl.rebalance.popProcessQueueTable.values()]
        .filter(({ mq }) => mq.topic === TOPIC)
        .map(({ mq }) => mq.queueId);
    await until(
      'both members pop the shared queue',
      () => consumers.every((c) => popQueues(c).length > 0),
      30_000,
    );
    for (const c of consumers) assert.deepEqual(popQueues(c), [-1]);
    const producer = createProducer({
      producerGroup: 'pop_our_pg',
      namesrvAddr: embedded.namesrvAddr,
      logger: quiet,
    });
    await producer.start();
    try {
      for (let n = 0; n < COUNT; n++) await producer.send(new Message(TOPIC, Buffer.from(`m-${n}`)));
    } finally {
      await producer.shutdown();
    }
    await until(
      'all consumed and the failed one back',
      () => seen.size === COUNT && (seen.get(FAIL_BODY)?.length ?? 0) >= 2,
      60_000,
    );
    assert.deepEqual(seen.get(FAIL_BODY)?.slice(0, 2), [0, 1]);
    assert.deepEqual(
      [...seen].filter(([b, t]) => b !== FAIL_BODY && t.length > 1),
      [],
    );
  });
});
