/**
 * Our push consumer in POP mode against the OFFICIAL 5.5.0 name server and broker: the group's mode
 * is set to POP with our admin API (SET_MESSAGE_REQUEST_MODE), two members with clientRebalance
 * false get their assignment from the broker (QUERY_ASSIGNMENT: every queue, queueId -1, shared),
 * pop, ack, and a message answered RECONSUME_LATER comes back through the broker's revive (after
 * popDelayLevel[0] = 10 s) with reconsumeTimes 1. One broker for the file.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAdmin, type MQAdminExt } from '../../src/admin/index.js';
import type { DefaultMQPushConsumerImpl } from '../../src/client/consumer/push/default-mq-push-consumer-impl.js';
import {
  ConsumeConcurrentlyStatus,
  createProducer,
  createPushConsumer,
  Message,
  type Producer,
  type PushConsumer,
} from '../../src/client/index.js';
import { createLogger } from '../../src/common/logger.js';
import {
  decodeMessageRequestModeTable,
  encodeMessageRequestModeTable,
} from '../../src/common/protocol/set-message-request-mode-body.js';
import { type BrokerHandle, type NamesrvHandle, startBroker, startNamesrv } from './harness.js';

const quiet = createLogger('test', { level: 'silent' });
const TOPIC = 'PopInteropTopic';
const GROUP = 'pop_interop_cg';
const COUNT = 40;

function popQueuesOf(consumer: PushConsumer): string[] {
  const impl = (consumer as unknown as { impl: DefaultMQPushConsumerImpl }).impl;
  return [...impl.rebalance.popProcessQueueTable.values()]
    .filter(({ mq }) => mq.topic === TOPIC)
    .map(({ mq }) => `${mq.brokerName}:${mq.queueId}`);
}

async function until(what: string, check: () => boolean, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!check()) {
    if (Date.now() > end) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('our POP push consumer against the official 5.5.0 broker', { timeout: 300_000 }, () => {
  let namesrv: NamesrvHandle | undefined;
  let broker: BrokerHandle | undefined;
  let admin: MQAdminExt | undefined;
  let producer: Producer | undefined;
  const consumers: PushConsumer[] = [];

  before(
    async () => {
      namesrv = await startNamesrv({ upstream: 5 });
      broker = await startBroker({ namesrvAddr: namesrv.addr, upstream: 5, brokerName: 'broker-pop' });
      admin = createAdmin({ namesrvAddr: namesrv.addr, logger: quiet });
      await admin.start();
      const brokerAddr = broker.addr;
      await admin.createAndUpdateTopicConfig(brokerAddr, {
        topicName: TOPIC,
        readQueueNums: 4,
        writeQueueNums: 4,
      });
      await admin.createAndUpdateSubscriptionGroupConfig(brokerAddr, { groupName: GROUP });
      await admin.setMessageRequestMode(brokerAddr, TOPIC, GROUP, 'POP', 0);
      producer = createProducer({
        producerGroup: 'pop_interop_pg',
        namesrvAddr: namesrv.addr,
        logger: quiet,
      });
      await producer.start();
    },
    { timeout: 180_000 },
  );

  after(
    async () => {
      await Promise.all(consumers.map((c) => c.shutdown().catch(() => undefined)));
      await producer?.shutdown();
      await admin?.shutdown();
      await broker?.close();
      await namesrv?.close();
    },
    { timeout: 60_000 },
  );

  test("the official broker's messageRequestMode.json is the file our broker writes", async () => {
    const file = readFileSync(
      join((broker as BrokerHandle).storeDir, 'config', 'messageRequestMode.json'),
      'utf8',
    );
    const body = { topic: TOPIC, consumerGroup: GROUP, mode: 'POP' as const, popShareQueueNum: 0 };
    assert.deepEqual(decodeMessageRequestModeTable(file).get(TOPIC)?.get(GROUP), body);
    assert.equal(
      file,
      encodeMessageRequestModeTable(new Map([[TOPIC, new Map([[GROUP, body]])]]), { pretty: true }),
    );
  });

  test('two members share every queue, consume all, and a RECONSUME_LATER comes back', async () => {
    const seen = new Map<string, number[]>(); // body -> reconsumeTimes of each delivery
    const byMember = [0, 0];
    const FAIL_BODY = 'pop-7';
    for (const i of [0, 1]) {
      const consumer = createPushConsumer({
        consumerGroup: GROUP,
        namesrvAddr: (namesrv as NamesrvHandle).addr,
        clientRebalance: false,
        // The shortest hold upstream allows: an ack that did not land shows as a second delivery.
        popInvisibleTime: 5000,
        consumeFromWhere: 'CONSUME_FROM_FIRST_OFFSET',
        instanceName: `pop-member-${i}`,
        logger: quiet,
      });
      consumer.subscribe(TOPIC, '*');
      consumer.registerMessageListener({
        type: 'concurrently',
        consumeMessage: async (msgs) => {
          for (const msg of msgs) {
            const body = msg.body.toString();
            const list = seen.get(body) ?? [];
            list.push(msg.reconsumeTimes);
            seen.set(body, list);
            byMember[i] = (byMember[i] ?? 0) + 1;
            assert.equal(msg.topic, TOPIC);
            if (body === FAIL_BODY && msg.reconsumeTimes === 0)
              return ConsumeConcurrentlyStatus.RECONSUME_LATER;
          }
          return ConsumeConcurrentlyStatus.CONSUME_SUCCESS;
        },
      });
      await consumer.start();
      consumers.push(consumer);
    }
    // QUERY_ASSIGNMENT in POP mode with popShareQueueNum 0: every member gets the broker's queue -1.
    await until(
      'both members hold the shared POP queue',
      () => consumers.every((c) => popQueuesOf(c).length > 0),
      60_000,
    );
    for (const c of consumers) assert.deepEqual(popQueuesOf(c), ['broker-pop:-1']);

    const p = producer as Producer;
    for (let n = 0; n < COUNT; n++) await p.send(new Message(TOPIC, Buffer.from(`pop-${n}`)));

    await until(
      'every message consumed and the failed one redelivered',
      () => seen.size === COUNT && (seen.get(FAIL_BODY)?.length ?? 0) >= 2,
      120_000,
    );
    assert.deepEqual(seen.get(FAIL_BODY)?.slice(0, 2), [0, 1]);
    // Acked messages do not come back: apart from the failed one, each body was delivered once.
    const again = [...seen].filter(([body, times]) => body !== FAIL_BODY && times.length > 1);
    assert.deepEqual(again, [], `deliveries per member: ${byMember.join(', ')}`);
  });
});
