/**
 * LOCK_BATCH_MQ (41) and UNLOCK_BATCH_MQ (42) through a broker's handlers over in-memory connections:
 * the response bytes the official broker (RebalanceLockManager + LockBatchResponseBody of 4.9.x)
 * gives for the same requests, expiry and renewal on the broker's clock, holder-only unlock, and
 * bad bodies.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { MessageQueue } from '../../../src/common/message/message-queue.js';
import {
  decodeLockBatchResponseBody,
  encodeLockBatchRequestBody,
  encodeUnlockBatchRequestBody,
} from '../../../src/common/protocol/lock-batch-body.js';
import { javaMessageQueueSetOrder } from '../../../src/common/protocol/message-queue-value.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { connectInMemory, type TestBroker, type TestClient, testBroker } from './helpers.js';

const LIMIT = { timeout: 5_000 };
const brokers: BrokerController[] = [];

afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.shutdown()));
});

async function setup(): Promise<TestBroker & { c: TestClient }> {
  const t = await testBroker();
  brokers.push(t.broker);
  return { ...t, c: connectInMemory(t.broker) };
}

const mq = (topic: string, queueId: number) => new MessageQueue(topic, 'broker-a', queueId);
const MQ = (topic: string, queueId: number) =>
  `{"brokerName":"broker-a","queueId":${queueId},"topic":"${topic}"}`;
const range = (topic: string, from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => mq(topic, from + i));

/** The request a Java client sends: its HashSet written in Java order. */
function lockRequest(group: string, clientId: string, mqs: MessageQueue[]): RemotingCommand {
  return createRequest(RequestCode.LOCK_BATCH_MQ, {
    body: encodeLockBatchRequestBody({
      consumerGroup: group,
      clientId,
      mqSet: javaMessageQueueSetOrder(mqs),
    }),
  });
}

function unlockRequest(group: string, clientId: string, mqs: MessageQueue[]): RemotingCommand {
  return createRequest(RequestCode.UNLOCK_BATCH_MQ, {
    body: encodeUnlockBatchRequestBody({ consumerGroup: group, clientId, mqSet: mqs }),
  });
}

async function lockedIds(c: TestClient, group: string, clientId: string, mqs: MessageQueue[]) {
  const r = await c.call(lockRequest(group, clientId, mqs));
  assert.equal(r.code, ResponseCode.SUCCESS);
  // Sorted: the order is the answer's HashSet order, checked byte for byte in the first test.
  return decodeLockBatchResponseBody(r.body)
    .lockOKMQSet.map((q) => `${q.topic}/${q.queueId}`)
    .sort();
}

describe('LOCK_BATCH_MQ / UNLOCK_BATCH_MQ', () => {
  test('answers with the bytes the official broker writes', LIMIT, async () => {
    const { c } = await setup();
    const all = [...range('TopicTest', 0, 8), ...range('OrderTopic', 0, 4)];
    const text = async (r: RemotingCommand) => {
      const response = await c.call(r);
      assert.equal(response.code, ResponseCode.SUCCESS);
      assert.equal(response.remark, undefined);
      return response.body?.toString('utf8');
    };
    // A takes TopicTest 5..7.
    assert.equal(
      await text(lockRequest('cg-order', 'A', range('TopicTest', 5, 8))),
      `{"lockOKMQSet":[${MQ('TopicTest', 7)},${MQ('TopicTest', 6)},${MQ('TopicTest', 5)}]}`,
    );
    // B asks for all twelve and gets the nine free ones; asking again renews the same nine.
    const nine =
      `{"lockOKMQSet":[${MQ('TopicTest', 3)},${MQ('OrderTopic', 1)},${MQ('TopicTest', 2)},` +
      `${MQ('OrderTopic', 0)},${MQ('TopicTest', 4)},${MQ('TopicTest', 1)},${MQ('OrderTopic', 3)},` +
      `${MQ('TopicTest', 0)},${MQ('OrderTopic', 2)}]}`;
    assert.equal(await text(lockRequest('cg-order', 'B', all)), nine);
    assert.equal(await text(lockRequest('cg-order', 'B', all)), nine);
    // A asks for all twelve and keeps its three.
    assert.equal(
      await text(lockRequest('cg-order', 'A', all)),
      `{"lockOKMQSet":[${MQ('TopicTest', 7)},${MQ('TopicTest', 6)},${MQ('TopicTest', 5)}]}`,
    );
    // A request whose array is in another order (any client may send one) fills the answer's
    // buckets in that order, as fastjson's HashSet does.
    const reversed = javaMessageQueueSetOrder(all).reverse();
    const revRequest = createRequest(RequestCode.LOCK_BATCH_MQ, {
      body: Buffer.from(
        `{"clientId":"C","consumerGroup":"cg-2","mqSet":[${reversed.map((q) => MQ(q.topic, q.queueId)).join(',')}]}`,
      ),
    });
    assert.equal(
      await text(revRequest),
      `{"lockOKMQSet":[${MQ('TopicTest', 7)},${MQ('TopicTest', 6)},${MQ('OrderTopic', 1)},` +
        `${MQ('TopicTest', 3)},${MQ('OrderTopic', 0)},${MQ('TopicTest', 2)},${MQ('TopicTest', 5)},` +
        `${MQ('TopicTest', 4)},${MQ('OrderTopic', 3)},${MQ('TopicTest', 1)},${MQ('OrderTopic', 2)},` +
        `${MQ('TopicTest', 0)}]}`,
    );
    assert.equal(await text(lockRequest('cg-order', 'A', [])), '{"lockOKMQSet":[]}');
  });

  test('a lock expires after 60 s on the broker clock unless renewed', LIMIT, async () => {
    const { c, clock } = await setup();
    assert.deepEqual(await lockedIds(c, 'g', 'A', [mq('T', 0), mq('T', 1)]), ['T/0', 'T/1']);
    clock.advance(40_000);
    assert.deepEqual(await lockedIds(c, 'g', 'A', [mq('T', 0)]), ['T/0']);
    clock.advance(20_001);
    // T/1 was not renewed: B takes it; T/0 was renewed 20 s ago.
    assert.deepEqual(await lockedIds(c, 'g', 'B', [mq('T', 0), mq('T', 1)]), ['T/1']);
    clock.advance(40_000);
    assert.deepEqual(await lockedIds(c, 'g', 'B', [mq('T', 0), mq('T', 1)]), ['T/0', 'T/1']);
    assert.deepEqual(await lockedIds(c, 'g', 'A', [mq('T', 0), mq('T', 1)]), []);
  });

  test('only the holder unlocks; UNLOCK_BATCH_MQ always answers a plain SUCCESS', LIMIT, async () => {
    const { broker, c } = await setup();
    await lockedIds(c, 'g', 'A', [mq('T', 0), mq('T', 1)]);
    for (const [clientId, mqs] of [
      ['B', [mq('T', 0), mq('T', 1)]],
      ['A', [mq('T', 0), mq('T', 9)]],
    ] as const) {
      const r = await c.call(unlockRequest('g', clientId, [...mqs]));
      assert.equal(r.code, ResponseCode.SUCCESS);
      assert.equal(r.body, undefined);
      assert.equal(r.remark, undefined);
    }
    assert.equal(broker.rebalanceLockManager.lockHolder('g', mq('T', 0)), undefined);
    assert.equal(broker.rebalanceLockManager.lockHolder('g', mq('T', 1)), 'A');
    assert.deepEqual(await lockedIds(c, 'g', 'B', [mq('T', 0), mq('T', 1)]), ['T/0']);
  });

  test('the VIP channel serves both codes', LIMIT, async () => {
    const { broker } = await setup();
    const vip = connectInMemory(broker, '10.0.0.9:50001', true);
    assert.deepEqual(await lockedIds(vip, 'g', 'A', [mq('T', 0)]), ['T/0']);
    assert.equal((await vip.call(unlockRequest('g', 'A', [mq('T', 0)]))).code, ResponseCode.SUCCESS);
    assert.equal(broker.rebalanceLockManager.lockHolder('g', mq('T', 0)), undefined);
  });

  test('bad bodies: SYSTEM_ERROR naming the body and field, nothing locked', LIMIT, async () => {
    const { broker, c } = await setup();
    const cases: Array<[number, Buffer | undefined, RegExp]> = [
      [RequestCode.LOCK_BATCH_MQ, undefined, /LockBatchRequestBody: the body is empty/],
      [RequestCode.UNLOCK_BATCH_MQ, undefined, /UnlockBatchRequestBody: the body is empty/],
      [
        RequestCode.LOCK_BATCH_MQ,
        Buffer.from(`{"consumerGroup":"g","mqSet":[${MQ('T', 0)}]}`),
        /LockBatchRequestBody: \$\.clientId: missing/,
      ],
      [
        RequestCode.LOCK_BATCH_MQ,
        Buffer.from('{"clientId":"A","consumerGroup":"g","mqSet":[{"queueId":0,"topic":"T"}]}'),
        /mqSet\[0\]\.brokerName: missing/,
      ],
      [RequestCode.UNLOCK_BATCH_MQ, Buffer.from('{"clientId":'), /UnlockBatchRequestBody/],
    ];
    for (const [code, body, remark] of cases) {
      const r = await c.call(createRequest(code, { body }));
      assert.equal(r.code, ResponseCode.SYSTEM_ERROR);
      assert.match(r.remark ?? '', remark);
    }
    assert.equal(broker.rebalanceLockManager.lockHolder('g', mq('T', 0)), undefined);
  });
});
