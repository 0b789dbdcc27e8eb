/**
 * GET_CONSUME_STATS carries 5.x's pullOffset: for a POP group, its offset plus the queue's messages
 * popped and not yet settled, so the official 5.x `consumerProgress` shows them as `#Inflight`;
 * a settled queue is back at pullOffset == consumerOffset.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import { decodeConsumeStats } from '../../../src/common/protocol/consume-stats.js';
import { createRequest } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { GetConsumeStatsRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { cleanUp, type RunningBroker, startBroker } from '../../unit/broker/store-broker.js';
import { ackRequest, createTopicAndGroup, fakePop, putMessages } from './pop-revive-support.js';

const TOPIC = 'PopStatsT';
const GROUP = 'PopStatsG';

afterEach(cleanUp);

async function inflightByQueue(b: RunningBroker): Promise<Map<number, bigint>> {
  const r = await b.client.call(
    createRequest(RequestCode.GET_CONSUME_STATS, {
      extFields: encodeHeader(GetConsumeStatsRequestHeader, { consumerGroup: GROUP, topic: TOPIC }),
    }),
  );
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  const out = new Map<number, bigint>();
  for (const [mq, o] of decodeConsumeStats(r.body).offsetTable) {
    assert.ok(o.pullOffset !== undefined, 'pullOffset written');
    out.set(mq.queueId, o.pullOffset - o.consumerOffset);
  }
  return out;
}

test('pullOffset - consumerOffset is the POP in-flight count of each queue', async () => {
  const b = await startBroker({ config: { reviveInterval: 3_600_000 } });
  createTopicAndGroup(b.broker, TOPIC, GROUP, 2);
  await putMessages(b.broker, TOPIC, 1, 3);
  const p = await fakePop(b.broker, {
    topic: TOPIC,
    group: GROUP,
    queueId: 1,
    count: 3,
    invisibleTime: 1000,
  });
  assert.deepEqual(
    await inflightByQueue(b),
    new Map([
      [0, 0n],
      [1, 3n],
    ]),
  );
  const r = await b.client.call(ackRequest(GROUP, TOPIC, 1, p.handles[0]!, p.offsets[0]!));
  assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
  b.clock.advance(1100);
  await b.broker.popRevive.reviveNow();
  assert.deepEqual(
    await inflightByQueue(b),
    new Map([
      [0, 0n],
      [1, 0n],
    ]),
  );
});
