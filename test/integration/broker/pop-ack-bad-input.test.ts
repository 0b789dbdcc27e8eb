/**
 * The "Bad input" for ACK_MESSAGE, BATCH_ACK_MESSAGE and CHANGE_MESSAGE_INVISIBLETIME: each
 * gets upstream's response code and remark (AckMessageProcessor / ChangeInvisibleTimeProcessor,
 * 5.5.0), the broker keeps answering, and no popped message is settled by it: at the end both popped
 * messages still come back through the retry topic.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { buildPopRetryTopic } from '../../../src/common/pop/index.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, type RunningBroker, startBroker } from '../../unit/broker/store-broker.js';
import {
  ackRequest,
  batchAckRequest,
  changeRequest,
  createTopicAndGroup,
  fakePop,
  type Popped,
  putMessages,
  readQueue,
} from './pop-revive-support.js';

const TOPIC = 'BadT';
const GROUP = 'BadG';
const FAQ = '\nSee http://rocketmq.apache.org/docs/faq/ for further details.';

describe('POP ack / change bad input', () => {
  let b: RunningBroker;
  let p: Popped;
  /** Records in all revive queues: a refused request writes none. */
  const reviveRecords = () => {
    let n = 0n;
    for (let q = 0; q < b.broker.popRevive.reviveQueueNum; q++) {
      n += b.broker.messageStore.getMaxOffsetInQueue(b.broker.popRevive.reviveTopic, q);
    }
    return n;
  };
  const expectRefused = async (
    request: ReturnType<typeof ackRequest>,
    code: number,
    remark: string | RegExp | undefined,
  ) => {
    const before = reviveRecords();
    const r = await b.client.call(request);
    assert.equal(r.code, code, r.remark);
    if (remark instanceof RegExp) assert.match(r.remark ?? '', remark);
    else assert.equal(r.remark, remark);
    assert.equal(reviveRecords(), before, 'nothing written');
  };

  before(async () => {
    b = await startBroker({ config: { reviveInterval: 3_600_000 } });
    createTopicAndGroup(b.broker, TOPIC, GROUP, 2);
    await putMessages(b.broker, TOPIC, 0, 2);
    p = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 0,
      count: 2,
      invisibleTime: 60_000,
      reviveQid: 6,
    });
  });
  after(cleanUp);

  const good = () => p.handles[0]!;

  test('unknown topic: TOPIC_NOT_EXIST', async () => {
    const remark = `topic[Nope] not exist, apply first please! ${FAQ}`;
    await expectRefused(ackRequest(GROUP, 'Nope', 0, good(), 0n), ResponseCode.TOPIC_NOT_EXIST, remark);
    await expectRefused(
      changeRequest(GROUP, 'Nope', 0, good(), 0n, 1000n),
      ResponseCode.TOPIC_NOT_EXIST,
      remark,
    );
  });

  test('queue id out of range: MESSAGE_ILLEGAL', async () => {
    for (const q of [-1, 2, 2147483647]) {
      const remark = new RegExp(
        `^queueId\\[${q}\\] is illegal, topic:\\[${TOPIC}\\] topicConfig.readQueueNums:\\[2\\] consumer:\\[/.*\\]$`,
      );
      await expectRefused(ackRequest(GROUP, TOPIC, q, good(), 0n), ResponseCode.MESSAGE_ILLEGAL, remark);
      await expectRefused(
        changeRequest(GROUP, TOPIC, q, good(), 0n, 1000n),
        ResponseCode.MESSAGE_ILLEGAL,
        remark,
      );
    }
  });

  test('offset outside the queue: NO_MESSAGE (ack: with a remark, offset == max allowed; change: [min, max))', async () => {
    await expectRefused(
      ackRequest(GROUP, TOPIC, 0, good(), 3n),
      ResponseCode.NO_MESSAGE,
      `offset is illegal, key:${TOPIC}@0, commit:3, store:0~2`,
    );
    await expectRefused(
      ackRequest(GROUP, TOPIC, 0, good(), -1n),
      ResponseCode.NO_MESSAGE,
      `offset is illegal, key:${TOPIC}@0, commit:-1, store:0~2`,
    );
    await expectRefused(
      changeRequest(GROUP, TOPIC, 0, good(), 2n, 1000n),
      ResponseCode.NO_MESSAGE,
      undefined,
    );
    await expectRefused(
      changeRequest(GROUP, TOPIC, 0, good(), -5n, 1000n),
      ResponseCode.NO_MESSAGE,
      undefined,
    );
  });

  test('malformed handles: SYSTEM_ERROR naming the field, nothing written', async () => {
    // Upstream's getter order: ACK reads brokerName first, CHANGE the reviveQid (isOrder).
    const cases: Array<[string, RegExp, RegExp]> = [
      ['', /getBrokerName fail, extraInfoStrs length/, /getReviveQid fail, extraInfoStrs length/],
      ['garbage', /getBrokerName fail, extraInfoStrs length 1/, /getReviveQid fail, extraInfoStrs length 1/],
      [
        '0 1 2 3 0',
        /getBrokerName fail, extraInfoStrs length 5/,
        /getBrokerName fail, extraInfoStrs length 5/,
      ],
      ['0 1 2 x 0 broker-a 0 0', /getReviveQid: not a number/, /getReviveQid: not a number/],
      ['zz 1 2 3 0 broker-a 0 0', /getCkQueueOffset: not a number/, /getCkQueueOffset: not a number/],
      ['0 zz 2 3 0 broker-a 0 0', /getPopTime: not a number/, /getPopTime: not a number/],
      ['0 1 zz 3 0 broker-a 0 0', /getInvisibleTime: not a number/, /getInvisibleTime: not a number/],
      ['0 1 2 99999999999 0 broker-a 0 0', /getReviveQid: not a number/, /getReviveQid: not a number/],
    ];
    for (const [handle, ackRemark, changeRemark] of cases) {
      await expectRefused(ackRequest(GROUP, TOPIC, 0, handle, 0n), ResponseCode.SYSTEM_ERROR, ackRemark);
      await expectRefused(
        changeRequest(GROUP, TOPIC, 0, handle, 0n, 1000n),
        ResponseCode.SYSTEM_ERROR,
        changeRemark,
      );
    }
  });

  test('a reviveQid the broker has no queue for: MESSAGE_ILLEGAL (ours; upstream writes into that queue)', async () => {
    for (const rq of [-1, 8, 998, 1000]) {
      const handle = `0 ${p.popTime} 60000 ${rq} 0 broker-a 0 0`;
      const remark = `reviveQid[${rq}] is illegal, reviveQueueNum:[8]`;
      await expectRefused(ackRequest(GROUP, TOPIC, 0, handle, 0n), ResponseCode.MESSAGE_ILLEGAL, remark);
      await expectRefused(
        changeRequest(GROUP, TOPIC, 0, handle, 0n, 1000n),
        ResponseCode.MESSAGE_ILLEGAL,
        remark,
      );
    }
  });

  test('missing header fields: SYSTEM_ERROR', async () => {
    for (const code of [RequestCode.ACK_MESSAGE, RequestCode.CHANGE_MESSAGE_INVISIBLETIME]) {
      const r = await b.client.call(createRequest(code, { extFields: { topic: TOPIC, queueId: '0' } }));
      assert.notEqual(r.code, ResponseCode.SUCCESS);
      assert.ok((r.remark ?? '').length > 0);
    }
  });

  test('batch ack: no body or no acks is NO_MESSAGE, a broken body SYSTEM_ERROR, bits outside the queue ignored', async () => {
    await expectRefused(createRequest(RequestCode.BATCH_ACK_MESSAGE), ResponseCode.NO_MESSAGE, undefined);
    await expectRefused(
      createRequest(RequestCode.BATCH_ACK_MESSAGE, { body: Buffer.from('{"acks":[]}') }),
      ResponseCode.NO_MESSAGE,
      undefined,
    );
    const broken = await b.client.call(
      createRequest(RequestCode.BATCH_ACK_MESSAGE, { body: Buffer.from('{"acks":[{') }),
    );
    assert.equal(broken.code, ResponseCode.SYSTEM_ERROR);
    // Bits 40 and 1000 name offsets past the queue's end: dropped, nothing written.
    await expectRefused(
      batchAckRequest(GROUP, p, [p.startOffset + 40n, p.startOffset + 1000n], 'broker-a'),
      ResponseCode.SUCCESS,
      undefined,
    );
    // An unknown topic in a batch: skipped, as upstream ("Illegal topic or queue found when batch ack").
    await expectRefused(
      batchAckRequest(GROUP, { ...p, topic: 'Nope' }, [p.startOffset], 'broker-a'),
      ResponseCode.SUCCESS,
      undefined,
    );
  });

  test('forged or stale but well-formed handles: SUCCESS as upstream, nothing settled', async () => {
    const calls = [
      // Another pop time (never popped then), another start offset, another broker name, another group.
      ackRequest(GROUP, TOPIC, 0, `0 ${p.popTime + 7} 60000 6 0 broker-a 0 0`, 0n),
      ackRequest(GROUP, TOPIC, 0, `1 ${p.popTime} 60000 6 0 broker-a 0 1`, 1n),
      ackRequest(GROUP, TOPIC, 0, `0 ${p.popTime} 60000 6 0 broker-z 0 0`, 0n),
      ackRequest('OtherGroup', TOPIC, 0, p.handles[0]!, 0n),
      // The right checkpoint, wrong revive queue: the ack lands where no checkpoint is.
      ackRequest(GROUP, TOPIC, 0, `0 ${p.popTime} 60000 5 0 broker-a 0 0`, 0n),
    ];
    for (const c of calls) {
      const r = await b.client.call(c);
      assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    }
    await b.broker.popRevive.reviveNow();
    assert.equal(b.broker.popRevive.stats.acked, 0);
    assert.equal(b.broker.popRevive.stats.lateOrUnknownAcks, calls.length);
  });

  test('negative and huge invisible times are taken as given (upstream checks none)', async () => {
    await putMessages(b.broker, TOPIC, 1, 2, 'x');
    const q = await fakePop(b.broker, {
      topic: TOPIC,
      group: GROUP,
      queueId: 1,
      count: 2,
      invisibleTime: 60_000,
      reviveQid: 7,
    });
    const neg = await b.client.call(changeRequest(GROUP, TOPIC, 1, q.handles[0]!, q.offsets[0]!, -5000n));
    assert.equal(neg.code, ResponseCode.SUCCESS, neg.remark);
    const huge = await b.client.call(
      changeRequest(GROUP, TOPIC, 1, q.handles[1]!, q.offsets[1]!, 9223372036854775807n),
    );
    assert.equal(huge.code, ResponseCode.SUCCESS, huge.remark);
    assert.equal(huge.extFields?.invisibleTime, '9223372036854775807');
    b.clock.advance(1);
    await b.broker.popRevive.reviveNow();
    const retry = buildPopRetryTopic(TOPIC, GROUP, false);
    assert.deepEqual(
      (await readQueue(b.broker, retry)).map((m) => m.body.toString()),
      ['x-0'],
      'the negative one is due at once, the huge one never',
    );
  });

  test('an ack after the invisible time: SUCCESS (upstream), counted late; the message came back once', async () => {
    const lateBefore = b.broker.popRevive.stats.lateOrUnknownAcks;
    b.clock.advance(61_000);
    await b.broker.popRevive.reviveNow();
    const r = await b.client.call(ackRequest(GROUP, TOPIC, 0, p.handles[0]!, p.offsets[0]!));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    await b.broker.popRevive.reviveNow();
    assert.equal(b.broker.popRevive.stats.lateOrUnknownAcks, lateBefore + 1);
    const retry = buildPopRetryTopic(TOPIC, GROUP, false);
    // Both messages of the first pop came back: none of the bad requests settled them.
    assert.deepEqual((await readQueue(b.broker, retry)).map((m) => m.body.toString()).sort(), [
      'm-0',
      'm-1',
      'x-0',
    ]);
  });
});
