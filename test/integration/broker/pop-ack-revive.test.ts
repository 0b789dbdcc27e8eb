/**
 * ACK_MESSAGE, BATCH_ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME against a broker over a real store
 * (hand-driven clock), with the revive service run round by round: acked messages never come back,
 * the rest come back through `%RETRY%<group>_<topic>` once their invisible time is over, with
 * reconsumeTimes + 1, and go to `%DLQ%<group>` after the group's retryMaxTimes.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { buildPopRetryTopic, PopMessageConst } from '../../../src/common/pop/index.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, type RunningBroker, startBroker } from '../../unit/broker/store-broker.js';
import {
  ackRequest,
  batchAckRequest,
  changeRequest,
  createTopicAndGroup,
  fakePop,
  handleAfterChange,
  putMessages,
  readQueue,
} from './pop-revive-support.js';

const TOPIC = 'PopT';
const GROUP = 'PopG';
const RETRY = buildPopRetryTopic(TOPIC, GROUP, false);

async function setup(retryMaxTimes = 16): Promise<RunningBroker> {
  const b = await startBroker({ config: { reviveInterval: 3_600_000 } });
  createTopicAndGroup(b.broker, TOPIC, GROUP, 2, retryMaxTimes);
  return b;
}

/** Advances the hand-driven clock and runs one revive round of every revive queue. */
async function reviveAt(b: RunningBroker, ms: number): Promise<void> {
  b.clock.advance(ms);
  await b.broker.popRevive.reviveNow();
}

async function call(b: RunningBroker, request: Parameters<RunningBroker['client']['call']>[0]) {
  const r = await b.client.call(request);
  return r;
}

afterEach(cleanUp);

describe('ack and revive', () => {
  test('acked messages do not come back; the rest come back once, with reconsumeTimes + 1', async () => {
    const b = await setup();
    await putMessages(b.broker, TOPIC, 1, 3);
    const p = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 1,
      count: 3,
      invisibleTime: 1000,
      reviveQid: 2,
    });
    assert.equal(b.broker.popRevive.inflight.getGroupPopInFlightMessageNum(TOPIC, GROUP, 1), 3);
    for (const i of [0, 2]) {
      const r = await call(b, ackRequest(GROUP, TOPIC, 1, p.handles[i]!, p.offsets[i]!));
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
    await reviveAt(b, 500);
    assert.equal((await readQueue(b.broker, RETRY)).length, 0, 'nothing before the invisible time');
    assert.equal(b.broker.popRevive.inflight.getGroupPopInFlightMessageNum(TOPIC, GROUP, 1), 1);
    await reviveAt(b, 600);
    const retried = await readQueue(b.broker, RETRY);
    assert.deepEqual(
      retried.map((m) => m.body.toString()),
      ['m-1'],
    );
    const m = retried[0]!;
    assert.equal(m.reconsumeTimes, 1);
    assert.equal(m.properties.get(PopMessageConst.PROPERTY_FIRST_POP_TIME), String(p.popTime));
    assert.equal(m.properties.get(PopMessageConst.PROPERTY_ORIGIN_GROUP), GROUP);
    assert.equal(m.properties.get(MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX), 'm-1-uniq');
    assert.equal(m.tags, 'TagA');
    // Upstream's retry topic: one queue; the group starts reading it at 0.
    assert.equal(b.broker.topicConfigManager.selectTopicConfig(RETRY)?.readQueueNums, 1);
    assert.equal(b.broker.consumerOffsetManager.queryOffset(GROUP, RETRY, 0), 0n);
    const stats = b.broker.popRevive.stats;
    assert.equal(stats.acked, 2);
    assert.equal(stats.revived, 1);
    assert.equal(b.broker.popRevive.inflight.getGroupPopInFlightMessageNum(TOPIC, GROUP, 1), 0);
    // Later rounds revive nothing more.
    await reviveAt(b, 10_000);
    assert.equal((await readQueue(b.broker, RETRY)).length, 1);
  });

  test('a message popped from the retry topic goes back to it; past retryMaxTimes to the DLQ', async () => {
    const b = await setup(2);
    await putMessages(b.broker, TOPIC, 0, 1);
    await fakePop(b.broker, { topic: TOPIC, group: GROUP, queueId: 0, count: 1, invisibleTime: 100 });
    await reviveAt(b, 200);
    for (const expected of [2, 3]) {
      // Popped from the retry topic, not acked.
      await fakePop(b.broker, {
        topic: RETRY,
        group: GROUP,
        queueId: 0,
        count: 1,
        invisibleTime: 100,
        reviveQid: 5,
      });
      await reviveAt(b, 200);
      const all = await readQueue(b.broker, RETRY);
      if (expected === 2) {
        assert.deepEqual(
          all.map((m) => m.reconsumeTimes),
          [1, 2],
        );
      }
    }
    const retried = await readQueue(b.broker, RETRY);
    assert.deepEqual(
      retried.map((m) => m.reconsumeTimes),
      [1, 2],
      'the copy with reconsumeTimes 2 (= retryMaxTimes) was not retried again',
    );
    const dlq = await readQueue(b.broker, `%DLQ%${GROUP}`);
    assert.equal(dlq.length, 1);
    const d = dlq[0]!;
    assert.equal(d.body.toString(), 'm-0');
    assert.equal(d.reconsumeTimes, 3);
    assert.equal(d.properties.get(MessageConst.PROPERTY_RETRY_TOPIC), TOPIC);
    assert.ok(d.properties.get(MessageConst.PROPERTY_ORIGIN_MESSAGE_ID));
    assert.equal(b.broker.popRevive.stats.deadLettered, 1);
    assert.equal(b.broker.popRevive.stats.revived, 2);
  });

  test('batch ack: the bits set are settled, the others come back', async () => {
    const b = await setup();
    await putMessages(b.broker, TOPIC, 0, 5);
    const p = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 0,
      count: 5,
      invisibleTime: 1000,
      reviveQid: 3,
    });
    const r = await call(
      b,
      batchAckRequest(GROUP, p, [p.offsets[0]!, p.offsets[2]!, p.offsets[4]!], 'broker-a'),
    );
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    await reviveAt(b, 1100);
    assert.deepEqual(
      (await readQueue(b.broker, RETRY)).map((m) => m.body.toString()),
      ['m-1', 'm-3'],
    );
    assert.equal(b.broker.popRevive.stats.acked, 3);
  });
});

describe('change invisible time', () => {
  test('extends: not back at the old time, back once at the new one; the response names the new checkpoint', async () => {
    const b = await setup();
    await putMessages(b.broker, TOPIC, 0, 2);
    const p = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 0,
      count: 2,
      invisibleTime: 1000,
      reviveQid: 1,
    });
    b.clock.advance(100);
    const r = await call(b, changeRequest(GROUP, TOPIC, 0, p.handles[1]!, p.offsets[1]!, 5000n));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.equal(r.extFields?.popTime, String(p.popTime + 100));
    assert.equal(r.extFields?.invisibleTime, '5000');
    assert.equal(r.extFields?.reviveQid, '1');
    await reviveAt(b, 1000);
    assert.deepEqual(
      (await readQueue(b.broker, RETRY)).map((m) => m.body.toString()),
      ['m-0'],
      'only the unchanged message at the old time',
    );
    await reviveAt(b, 4000);
    assert.deepEqual(
      (await readQueue(b.broker, RETRY)).map((m) => m.body.toString()),
      ['m-0', 'm-1'],
    );
    assert.equal(b.broker.popRevive.inflight.getGroupPopInFlightMessageNum(TOPIC, GROUP, 0), 0);
  });

  test('shortens: 0 ms makes the message due at once', async () => {
    const b = await setup();
    await putMessages(b.broker, TOPIC, 0, 1);
    const p = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 0,
      count: 1,
      invisibleTime: 60_000,
    });
    const r = await call(b, changeRequest(GROUP, TOPIC, 0, p.handles[0]!, p.offsets[0]!, 0n));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    // Changed in the pop's own millisecond: the new checkpoint's popTime is the next one.
    await reviveAt(b, 1);
    assert.equal((await readQueue(b.broker, RETRY)).length, 1);
  });

  for (const which of ['old', 'new'] as const) {
    test(`an ack with the ${which} handle after a change settles the message`, async () => {
      const b = await setup();
      await putMessages(b.broker, TOPIC, 0, 1);
      const p = await fakePop(b.broker, {
        topic: TOPIC,
        group: GROUP,
        queueId: 0,
        count: 1,
        invisibleTime: 1000,
        reviveQid: 4,
      });
      const r = await call(b, changeRequest(GROUP, TOPIC, 0, p.handles[0]!, p.offsets[0]!, 3000n));
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
      const handle = which === 'old' ? p.handles[0]! : handleAfterChange(r, p, p.offsets[0]!, 'broker-a');
      const a = await call(b, ackRequest(GROUP, TOPIC, 0, handle, p.offsets[0]!));
      assert.equal(a.code, ResponseCode.SUCCESS, a.remark);
      await reviveAt(b, 10_000);
      assert.equal((await readQueue(b.broker, RETRY)).length, 0);
      assert.equal(b.broker.popRevive.stats.acked, 1);
      assert.equal(b.broker.popRevive.inflight.getGroupPopInFlightMessageNum(TOPIC, GROUP, 0), 0);
    });
  }
});
