/**
 * The revive side with real POP_MESSAGE pops over TCP (system clock, short times): an acked message
 * stays settled, a changed one waits for its new time and settles with the new handle, an un-acked one
 * comes back to a parked long-polling pop through the retry topic with reconsumeTimes 1 and its
 * POP_CK handle, and, not acked again with retryMaxTimes 1, goes to `%DLQ%<group>`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { buildExtraInfo, getRealTopic, splitExtraInfo } from '../../../src/common/pop/index.js';
import { decodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { ChangeInvisibleTimeResponseHeader } from '../../../src/remoting/protocol/headers/change-invisible-time-response-header.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { ackRequest, changeRequest, createTopicAndGroup, readQueue } from './pop-revive-support.js';
import { type PopBroker, popRequest, readPop, sendRequest, startPopBroker } from './pop-support.js';

const TOPIC = 'RealPopT';
const GROUP = 'RealPopG';
let pb: PopBroker;

before(async () => {
  pb = await startPopBroker({ reviveInterval: 50 });
  createTopicAndGroup(pb.broker, TOPIC, GROUP, 1, 1);
});
after(() => pb.close());

const addr = () => `127.0.0.1:${pb.broker.listenPort}`;

test('real pops: ack, change, revive to a parked pop, DLQ after retryMaxTimes', {
  timeout: 30_000,
}, async () => {
  for (const body of ['m0', 'm1', 'm2']) {
    const r = await pb.client.invoke(addr(), sendRequest(TOPIC, body));
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  }
  const first = readPop(
    await pb.client.invoke(addr(), popRequest({ consumerGroup: GROUP, topic: TOPIC, invisibleTime: 800n })),
    pb.broker.config.brokerName,
  );
  assert.deepEqual(
    first.messages.map((m) => m.body.toString()),
    ['m0', 'm1', 'm2'],
  );
  assert.equal(pb.broker.popRevive.inflight.getTopicGroupInFlightMessageNum(TOPIC, GROUP), 3);
  const [m0, m1] = first.messages;
  const a = await pb.client.invoke(addr(), ackRequest(GROUP, TOPIC, 0, first.handles[0]!, m0!.queueOffset));
  assert.equal(a.code, ResponseCode.SUCCESS, a.remark);
  const c = await pb.client.invoke(
    addr(),
    changeRequest(GROUP, TOPIC, 0, first.handles[1]!, m1!.queueOffset, 60_000n),
  );
  assert.equal(c.code, ResponseCode.SUCCESS, c.remark);
  const ch = decodeHeader(ChangeInvisibleTimeResponseHeader, c.extFields);
  const m1Handle = buildExtraInfo(
    m1!.queueOffset,
    ch.popTime,
    ch.invisibleTime,
    ch.reviveQid,
    TOPIC,
    pb.broker.config.brokerName,
    0,
    m1!.queueOffset,
  );

  // Parked until the revive service re-puts m2 into the retry topic (an arrival wakes it).
  const started = Date.now();
  const second = readPop(
    await pb.client.invoke(
      addr(),
      popRequest({ consumerGroup: GROUP, topic: TOPIC, invisibleTime: 300n, pollTime: 10_000n }),
      { timeoutMs: 15_000 },
    ),
    pb.broker.config.brokerName,
  );
  assert.deepEqual(
    second.messages.map((m) => m.body.toString()),
    ['m2'],
  );
  assert.ok(Date.now() - started < 8000, 'woken by the re-put, not by the poll timeout');
  const retried = second.messages[0]!;
  assert.equal(retried.reconsumeTimes, 1);
  assert.equal(retried.topic, TOPIC, 're-topic’d to the original topic');
  const handle = second.handles[0]!;
  assert.equal(getRealTopic(TOPIC, GROUP, splitExtraInfo(handle)[4]!), `%RETRY%${GROUP}_${TOPIC}`);

  // Not acked, reconsumeTimes 1 = retryMaxTimes: to the DLQ at its revive.
  const deadline = Date.now() + 10_000;
  let dlq = await readQueue(pb.broker, `%DLQ%${GROUP}`);
  while (dlq.length === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    dlq = await readQueue(pb.broker, `%DLQ%${GROUP}`);
  }
  assert.deepEqual(
    dlq.map((m) => [m.body.toString(), m.reconsumeTimes]),
    [['m2', 2]],
  );

  // m1 waits for its 60 s; the new handle settles it.
  const a1 = await pb.client.invoke(addr(), ackRequest(GROUP, TOPIC, 0, m1Handle, m1!.queueOffset));
  assert.equal(a1.code, ResponseCode.SUCCESS, a1.remark);
  await pb.broker.popRevive.reviveNow();
  const stats = pb.broker.popRevive.stats;
  assert.equal(stats.revived, 1);
  assert.equal(stats.deadLettered, 1);
  assert.equal(stats.acked, 2);
  assert.equal(pb.broker.popRevive.inflight.getTopicGroupInFlightMessageNum(TOPIC, GROUP), 0);
  assert.deepEqual(
    (await readQueue(pb.broker, `%RETRY%${GROUP}_${TOPIC}`)).map((m) => m.body.toString()),
    ['m2'],
  );
});
