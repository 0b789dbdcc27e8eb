/**
 * ACK_MESSAGE, BATCH_ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME on FIFO handles (reviveQid 999):
 * no revive record; the ack commits through ConsumerOrderInfoManager.commitAndNext and moves the
 * group's offset to the next un-acked message, the change moves the message's next visible time
 * (upstream AckMessageProcessor.ackOrderly, ChangeInvisibleTimeProcessor.processChangeInvisibleTimeForOrder).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { buildExtraInfo, POP_ORDER_REVIVE_QUEUE } from '../../../src/common/pop/index.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, type RunningBroker, startBroker } from '../../unit/broker/store-broker.js';
import {
  ackRequest,
  batchAckRequest,
  changeRequest,
  createTopicAndGroup,
  type Popped,
  putMessages,
} from './pop-revive-support.js';

const TOPIC = 'FifoT';
const GROUP = 'FifoG';

afterEach(cleanUp);

/** What a FIFO POP_MESSAGE leaves: the queue's order info and the group's offset at the first popped message. */
async function fifoPop(b: RunningBroker, count: number, invisibleTime = 10_000): Promise<Popped> {
  const offsets = Array.from({ length: count }, (_, i) => BigInt(i));
  const popTime = b.clock.now();
  b.broker.pop.consumerOrderInfoManager.update(
    undefined,
    false,
    TOPIC,
    GROUP,
    0,
    BigInt(popTime),
    BigInt(invisibleTime),
    offsets,
    [],
  );
  b.broker.consumerOffsetManager.commitOffset('test', GROUP, TOPIC, 0, 0n);
  const handles = offsets.map((o) =>
    buildExtraInfo(
      0n,
      BigInt(popTime),
      BigInt(invisibleTime),
      POP_ORDER_REVIVE_QUEUE,
      TOPIC,
      'broker-a',
      0,
      o,
    ),
  );
  return {
    topic: TOPIC,
    queueId: 0,
    popTime,
    invisibleTime,
    reviveQid: POP_ORDER_REVIVE_QUEUE,
    startOffset: 0n,
    offsets,
    handles,
  };
}

function reviveRecords(b: RunningBroker): bigint {
  let n = 0n;
  for (let q = 0; q < b.broker.popRevive.reviveQueueNum; q++) {
    n += b.broker.messageStore.getMaxOffsetInQueue(b.broker.popRevive.reviveTopic, q);
  }
  return n;
}

describe('FIFO handles', () => {
  test('acks commit in order: the offset moves past the acked prefix, the queue unblocks when all are acked', async () => {
    const b = await startBroker();
    createTopicAndGroup(b.broker, TOPIC, GROUP, 1);
    await putMessages(b.broker, TOPIC, 0, 3);
    const p = await fifoPop(b, 3);
    const orderInfo = b.broker.pop.consumerOrderInfoManager;
    assert.ok(orderInfo.checkBlock(undefined, TOPIC, GROUP, 0, 10_000n), 'blocked while popped');
    const r1 = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[1]!, 1n));
    assert.equal(r1.code, ResponseCode.SUCCESS, r1.remark);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), 0n, 'offset 0 still un-acked');
    const r0 = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[0]!, 0n));
    assert.equal(r0.code, ResponseCode.SUCCESS, r0.remark);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), 2n);
    const r2 = await b.client.call(batchAckRequest(GROUP, p, [2n], 'broker-a'));
    assert.equal(r2.code, ResponseCode.SUCCESS, r2.remark);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), 3n);
    assert.ok(!orderInfo.checkBlock(undefined, TOPIC, GROUP, 0, 10_000n), 'free once all are acked');
    assert.equal(reviveRecords(b), 0n, 'no revive record for FIFO');
    // An ack behind the committed offset is SUCCESS and changes nothing.
    const again = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[0]!, 0n));
    assert.equal(again.code, ResponseCode.SUCCESS);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), 3n);
  });

  test('an offset outside the last FIFO pop is MESSAGE_ILLEGAL; a handle of an older pop changes nothing', async () => {
    const b = await startBroker();
    createTopicAndGroup(b.broker, TOPIC, GROUP, 1);
    await putMessages(b.broker, TOPIC, 0, 4);
    const p = await fifoPop(b, 2);
    const r = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[0]!, 3n));
    assert.equal(r.code, ResponseCode.MESSAGE_ILLEGAL);
    assert.match(
      r.remark ?? '',
      new RegExp(`^offset is illegal, key:${TOPIC}@${GROUP}@0, old:0, commit:3, next:-1, /`),
    );
    const stale = `0 ${p.popTime - 5} 10000 999 0 broker-a 0 0`;
    const s = await b.client.call(ackRequest(GROUP, TOPIC, 0, stale, 0n));
    assert.equal(s.code, ResponseCode.SUCCESS);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, TOPIC, 0), 0n);
  });

  test('change invisible time moves the next visible time; the response keeps the pop time', async () => {
    const b = await startBroker();
    createTopicAndGroup(b.broker, TOPIC, GROUP, 1);
    await putMessages(b.broker, TOPIC, 0, 2);
    const p = await fifoPop(b, 2, 10_000);
    const orderInfo = b.broker.pop.consumerOrderInfoManager;
    b.clock.advance(1000);
    const r = await b.client.call(changeRequest(GROUP, TOPIC, 0, p.handles[0]!, 0n, 0n));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.equal(r.extFields?.popTime, String(p.popTime));
    assert.equal(r.extFields?.invisibleTime, '1000', 'nextVisibleTime - popTime');
    assert.equal(r.extFields?.reviveQid, '999');
    assert.equal(reviveRecords(b), 0n);
    // Message 1 is still invisible for 9 s: the queue stays blocked until then, whatever message 0 says.
    assert.ok(orderInfo.checkBlock(undefined, TOPIC, GROUP, 0, 10_000n));
    const later = await b.client.call(changeRequest(GROUP, TOPIC, 0, p.handles[1]!, 1n, 0n));
    assert.equal(later.code, ResponseCode.SUCCESS);
    assert.ok(!orderInfo.checkBlock(undefined, TOPIC, GROUP, 0, 10_000n), 'both visible again');
  });
});
