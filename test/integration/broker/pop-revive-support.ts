/**
 * Pieces of the POP ack / revive tests: messages put straight into a broker's store, popped state
 * written as POP_MESSAGE writes it (a CK record in the revive queue, the group's offset moved on, the
 * in-flight count), receipt handles as the official client builds them, and ACK / BATCH_ACK /
 * CHANGE_MESSAGE_INVISIBLETIME requests.
 */
import assert from 'node:assert/strict';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import type { ReviveCheckPoint } from '../../../src/broker/pop/pop-revive-state.js';
import { checkPointMessage, stored } from '../../../src/broker/pop/revive-records.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { MessageConst } from '../../../src/common/message/message-const.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { tagsString2tagsCode } from '../../../src/common/message/tag-hash.js';
import {
  buildExtraInfo,
  encodeBatchAckMessageRequestBody,
  retryFlagOf,
} from '../../../src/common/pop/index.js';
import { createSubscriptionGroupConfig } from '../../../src/common/protocol/subscription-group-config.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import { decodeHeader, encodeHeader } from '../../../src/remoting/protocol/header-schema.js';
import { AckMessageRequestHeader } from '../../../src/remoting/protocol/headers/ack-message-request-header.js';
import { ChangeInvisibleTimeRequestHeader } from '../../../src/remoting/protocol/headers/change-invisible-time-request-header.js';
import { ChangeInvisibleTimeResponseHeader } from '../../../src/remoting/protocol/headers/change-invisible-time-response-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { GetMessageStatus } from '../../../src/store/message-store.js';
import { settle } from '../../unit/broker/helpers.js';

const HOST = { address: '127.0.0.1', port: 10911 };

/** A topic with `queues` queues and a group with `retryMaxTimes`, as an admin would create them. */
export function createTopicAndGroup(
  broker: BrokerController,
  topic: string,
  group: string,
  queues = 2,
  retryMaxTimes = 16,
): void {
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(topic, { readQueueNums: queues, writeQueueNums: queues }),
  );
  broker.subscriptionGroupManager.updateSubscriptionGroupConfig(
    createSubscriptionGroupConfig(group, { retryMaxTimes }),
  );
}

/** Puts `n` messages (body `<prefix>-<i>`) into one queue; resolves once they are dispatched. */
export async function putMessages(
  broker: BrokerController,
  topic: string,
  queueId: number,
  n: number,
  prefix = 'm',
): Promise<void> {
  const before = broker.messageStore.getMaxOffsetInQueue(topic, queueId);
  for (let i = 0; i < n; i++) {
    const properties = new Map([
      [MessageConst.PROPERTY_TAGS, 'TagA'],
      [MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, `${prefix}-${i}-uniq`],
    ]);
    const r = await broker.messageStore.putMessage({
      topic,
      queueId,
      flag: 0,
      body: Buffer.from(`${prefix}-${i}`),
      propertiesString: messageProperties2String(properties),
      tagsCode: tagsString2tagsCode('TagA'),
      sysFlag: 0,
      bornTimestamp: 1n,
      bornHost: HOST,
      storeHost: HOST,
      reconsumeTimes: 0,
      preparedTransactionOffset: 0n,
    });
    assert.ok(stored(r), r.putMessageStatus);
  }
  await untilTrue(
    () => broker.messageStore.getMaxOffsetInQueue(topic, queueId) >= before + BigInt(n),
    'dispatch',
  );
}

export async function untilTrue(condition: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 5000; i++) {
    if (condition()) return;
    await settle();
  }
  assert.fail(`never happened: ${what}`);
}

export interface Popped {
  readonly topic: string;
  readonly queueId: number;
  readonly popTime: number;
  readonly invisibleTime: number;
  readonly reviveQid: number;
  readonly startOffset: bigint;
  readonly offsets: readonly bigint[];
  /** The 8-field handle of each message, as the official client builds it. */
  readonly handles: readonly string[];
}

/**
 * What POP_MESSAGE leaves behind for `count` messages from the group's offset: a CK record in revive
 * queue `reviveQid`, the group's offset moved past them, the in-flight count raised.
 */
export async function fakePop(
  broker: BrokerController,
  o: {
    topic: string;
    group: string;
    queueId: number;
    count: number;
    invisibleTime: number;
    reviveQid?: number;
  },
): Promise<Popped> {
  const reviveQid = o.reviveQid ?? 0;
  const committed = broker.consumerOffsetManager.queryOffset(o.group, o.topic, o.queueId);
  const startOffset =
    committed < 0n ? broker.messageStore.getMinOffsetInQueue(o.topic, o.queueId) : committed;
  const max = broker.messageStore.getMaxOffsetInQueue(o.topic, o.queueId);
  const offsets: bigint[] = [];
  for (let off = startOffset; off < max && offsets.length < o.count; off++) offsets.push(off);
  assert.ok(offsets.length > 0, 'nothing to pop');
  const popTime = broker.clock.now();
  const ck: ReviveCheckPoint = {
    topic: o.topic,
    group: o.group,
    queueId: o.queueId,
    startOffset,
    popTime,
    invisibleTime: o.invisibleTime,
    bitMap: 0,
    num: offsets.length,
    queueOffsetDiff: offsets.map((x) => Number(x - startOffset)),
    brokerName: broker.config.brokerName,
  };
  const r = await broker.messageStore.putMessage(
    checkPointMessage(broker, broker.popRevive.reviveTopic, reviveQid, ck),
  );
  assert.ok(stored(r), r.putMessageStatus);
  broker.consumerOffsetManager.commitOffset(
    'test',
    o.group,
    o.topic,
    o.queueId,
    (offsets.at(-1) ?? startOffset) + 1n,
  );
  broker.popRevive.inflight.incrementInFlightMessageNum(o.topic, o.group, o.queueId, offsets.length);
  const handles = offsets.map((off) =>
    buildExtraInfo(
      startOffset,
      BigInt(popTime),
      BigInt(o.invisibleTime),
      reviveQid,
      o.topic,
      broker.config.brokerName,
      o.queueId,
      off,
    ),
  );
  return {
    topic: o.topic,
    queueId: o.queueId,
    popTime,
    invisibleTime: o.invisibleTime,
    reviveQid,
    startOffset,
    offsets,
    handles,
  };
}

/** The official client's ack header fields: the topic is the message's real topic. */
export function ackRequest(
  group: string,
  topic: string,
  queueId: number,
  handle: string,
  offset: bigint,
): RemotingCommand {
  return createRequest(RequestCode.ACK_MESSAGE, {
    extFields: encodeHeader(AckMessageRequestHeader, {
      consumerGroup: group,
      topic,
      queueId,
      extraInfo: handle,
      offset,
    }),
  });
}

export function changeRequest(
  group: string,
  topic: string,
  queueId: number,
  handle: string,
  offset: bigint,
  invisibleTime: bigint,
): RemotingCommand {
  return createRequest(RequestCode.CHANGE_MESSAGE_INVISIBLETIME, {
    extFields: encodeHeader(ChangeInvisibleTimeRequestHeader, {
      consumerGroup: group,
      topic,
      queueId,
      extraInfo: handle,
      offset,
      invisibleTime,
    }),
  });
}

/** The handle the client builds after a change: ckQueueOffset = the message's offset. */
export function handleAfterChange(
  response: RemotingCommand,
  p: Popped,
  offset: bigint,
  brokerName: string,
): string {
  const h = decodeHeader(ChangeInvisibleTimeResponseHeader, response.extFields);
  return buildExtraInfo(
    offset,
    h.popTime,
    h.invisibleTime,
    h.reviveQid,
    p.topic,
    brokerName,
    p.queueId,
    offset,
  );
}

/** A BATCH_ACK_MESSAGE for some messages of one pop (bits relative to its startOffset). */
export function batchAckRequest(
  group: string,
  p: Popped,
  offsets: readonly bigint[],
  brokerName: string,
): RemotingCommand {
  return createRequest(RequestCode.BATCH_ACK_MESSAGE, {
    body: encodeBatchAckMessageRequestBody({
      brokerName,
      acks: [
        {
          consumerGroup: group,
          topic: p.topic,
          retry: retryFlagOf(p.topic),
          startOffset: p.startOffset,
          queueId: p.queueId,
          reviveQueueId: p.reviveQid,
          popTime: BigInt(p.popTime),
          invisibleTime: BigInt(p.invisibleTime),
          bitSet: offsets.map((o) => Number(o - p.startOffset)),
        },
      ],
    }),
  });
}

/** Every message of a topic's queue, decoded. */
export async function readQueue(broker: BrokerController, topic: string, queueId = 0): Promise<MessageExt[]> {
  const out: MessageExt[] = [];
  let offset = broker.messageStore.getMinOffsetInQueue(topic, queueId);
  for (;;) {
    const r = await broker.messageStore.getMessage('test_reader', topic, queueId, offset, 32);
    if (r.status !== GetMessageStatus.FOUND) return out;
    for (const m of r.messages) out.push(decodeMessage(m, 0));
    offset = r.nextBeginOffset;
  }
}
