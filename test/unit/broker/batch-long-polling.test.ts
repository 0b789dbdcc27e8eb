/**
 * Long polling with batches: the store hands a batch's records to the arriving listener only for a
 * queue a pull is held on (its interest), and there each record is checked as a single message is.
 */
import assert from 'node:assert/strict';
import { afterEach, test } from 'node:test';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { PullSysFlag } from '../../../src/common/constants.js';
import { encodeBatch } from '../../../src/common/message/batch.js';
import { Message } from '../../../src/common/message/message.js';
import { decodeMessages } from '../../../src/common/message/stored-format.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { PullMessageRequestHeader } from '../../../src/remoting/protocol/headers/index.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { BORN_HOST, STORE_HOST } from '../store/default-message-store-support.js';
import { consumerHeartbeat, heartbeatRequest, ManualClock, settle } from './helpers.js';
import { cleanUp, startBroker, until } from './store-broker.js';

const LIMIT = { timeout: 10_000 };
const TOPIC = 'TopicTest';
const GROUP = 'cg-batch-pull';
/** Suspend, with the subscription carried in the request. */
const SUSPEND_SUB = PullSysFlag.buildSysFlag(false, true, true, false);

afterEach(cleanUp);

function pull(queueId: number, subscription: string): RemotingCommand {
  return createRequest(RequestCode.PULL_MESSAGE, {
    extFields: encodeHeader(PullMessageRequestHeader, {
      consumerGroup: GROUP,
      topic: TOPIC,
      queueId,
      queueOffset: 0n,
      maxMsgNums: 32,
      sysFlag: SUSPEND_SUB,
      commitOffset: 0n,
      suspendTimeoutMillis: 15_000n,
      subVersion: 0n,
      subscription,
    }),
  });
}

async function putBatch(broker: BrokerController, queueId: number, tags: string[]): Promise<void> {
  const messages = tags.map((tag, i) => {
    const m = new Message(TOPIC, Buffer.from(`${tag}-${i}`));
    m.putProperty('TAGS', tag);
    return m;
  });
  const r = await broker.messageStore.putMessages({
    topic: TOPIC,
    queueId,
    body: encodeBatch(messages),
    propertiesString: 'WAIT\u0001true',
    sysFlag: 0,
    bornTimestamp: 1_700_000_000_000n,
    bornHost: BORN_HOST,
    storeHost: STORE_HOST,
    reconsumeTimes: 0,
  });
  assert.equal(r.putMessageStatus, 'PUT_OK');
}

test(
  'a pull held on a queue wakes for the matching record of a batch, not for other queues',
  LIMIT,
  async () => {
    const { broker, client } = await startBroker({ clock: new ManualClock() });
    broker.topicConfigManager.updateTopicConfig(
      createTopicConfig(TOPIC, { readQueueNums: 4, writeQueueNums: 4 }),
    );
    const hb = await client.call(heartbeatRequest(consumerHeartbeat('client-1', GROUP, [TOPIC])));
    assert.equal(hb.code, ResponseCode.SUCCESS);
    let answer: RemotingCommand | undefined;
    const held = client.call(pull(1, 'TagA')).then((r) => {
      answer = r;
      return r;
    });
    await until(() => broker.pullRequestHoldService.heldCount === 1, 'the pull is held');

    await putBatch(broker, 2, ['TagA', 'TagA']);
    await putBatch(broker, 1, ['TagB', 'TagC']);
    await settle();
    assert.equal(answer, undefined, 'no TagA on queue 1 yet');
    assert.equal(broker.pullRequestHoldService.heldCount, 1);

    await putBatch(broker, 1, ['TagB', 'TagA', 'TagB']);
    const r = await held;
    assert.equal(r.code, ResponseCode.SUCCESS, r.remark);
    assert.deepEqual(
      decodeMessages(r.body ?? Buffer.alloc(0)).map((m) => m.body.toString()),
      ['TagA-1'],
    );
    assert.equal(broker.pullRequestHoldService.heldCount, 0);
  },
);
