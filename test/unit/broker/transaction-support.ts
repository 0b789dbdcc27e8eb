/**
 * What the transaction tests share: a producer's half message sent over the in-memory client, its
 * END_TRANSACTION, the producer heartbeat that lets the broker ask it, and reads of the queues.
 */
import assert from 'node:assert/strict';
import type { BrokerController } from '../../../src/broker/broker-controller.js';
import { MixAll } from '../../../src/common/constants.js';
import type { MessageExt } from '../../../src/common/message/message.js';
import { decodeOffsetMsgId } from '../../../src/common/message/message-id.js';
import { messageProperties2String } from '../../../src/common/message/properties.js';
import { decodeMessage } from '../../../src/common/message/stored-format.js';
import { MessageSysFlag } from '../../../src/common/message/sysflag.js';
import { createTopicConfig } from '../../../src/common/protocol/topic-config.js';
import { TopicValidator } from '../../../src/common/validators.js';
import { createRequest, type RemotingCommand } from '../../../src/remoting/protocol/command.js';
import {
  decodeHeader,
  encodeHeader,
  type HeaderInputOf,
} from '../../../src/remoting/protocol/header-schema.js';
import { EndTransactionRequestHeader } from '../../../src/remoting/protocol/headers/end-transaction-request-header.js';
import { SendMessageRequestHeader } from '../../../src/remoting/protocol/headers/send-message-request-header.js';
import { SendMessageResponseHeader } from '../../../src/remoting/protocol/headers/send-message-response-header.js';
import { RequestCode } from '../../../src/remoting/protocol/request-code.js';
import { ResponseCode } from '../../../src/remoting/protocol/response-code.js';
import { heartbeatRequest, type TestClient } from './helpers.js';
import { type RunningBroker, T0 } from './store-broker.js';

export const TOPIC = 'TopicTx';
export const GROUP = 'PG_TX';
export const HALF = TopicValidator.RMQ_SYS_TRANS_HALF_TOPIC;
export const OP = TopicValidator.RMQ_SYS_TRANS_OP_HALF_TOPIC;
export const MAX_TIME_TOPIC = TopicValidator.RMQ_SYS_TRANS_CHECK_MAX_TIME_TOPIC;
export const TRANS_GROUP = MixAll.CID_SYS_RMQ_TRANS;
export const { TRANSACTION_NOT_TYPE, TRANSACTION_COMMIT_TYPE, TRANSACTION_ROLLBACK_TYPE } = MessageSysFlag;

export function addTopic(broker: BrokerController, topic = TOPIC): void {
  broker.topicConfigManager.updateTopicConfig(
    createTopicConfig(topic, { readQueueNums: 4, writeQueueNums: 4 }),
  );
}

/** What the producer learns from the send: what END_TRANSACTION names. */
export interface SentHalf {
  uniqKey: string;
  offsetMsgId: string;
  /** The half message's queue offset (tranStateTableOffset). */
  queueOffset: bigint;
  commitLogOffset: bigint;
}

export interface HalfOptions {
  queueId?: number;
  bornTimestamp?: bigint;
  flag?: number;
  extra?: Record<string, string>;
  group?: string;
}

/** SEND_MESSAGE of a prepared message, as TransactionMQProducer sends it. */
export async function sendHalf(
  client: TestClient,
  uniqKey: string,
  body: string,
  o: HalfOptions = {},
): Promise<SentHalf> {
  const properties = messageProperties2String(
    new Map(
      Object.entries({
        KEYS: `key-${uniqKey}`,
        TAGS: 'TagTx',
        WAIT: 'true',
        TRAN_MSG: 'true',
        PGROUP: o.group ?? GROUP,
        UNIQ_KEY: uniqKey,
        ...o.extra,
      }),
    ),
  );
  const extFields = encodeHeader(SendMessageRequestHeader, {
    producerGroup: o.group ?? GROUP,
    topic: TOPIC,
    defaultTopic: 'TBW102',
    defaultTopicQueueNums: 4,
    queueId: o.queueId ?? 2,
    sysFlag: MessageSysFlag.TRANSACTION_PREPARED_TYPE,
    bornTimestamp: o.bornTimestamp ?? BigInt(T0),
    flag: o.flag ?? 0,
    properties,
    reconsumeTimes: 0,
    unitMode: false,
    batch: false,
  });
  const response = await client.call(
    createRequest(RequestCode.SEND_MESSAGE, { extFields, body: Buffer.from(body) }),
  );
  assert.equal(response.code, ResponseCode.SUCCESS, response.remark);
  const r = decodeHeader(SendMessageResponseHeader, response.extFields);
  return {
    uniqKey,
    offsetMsgId: r.msgId,
    queueOffset: r.queueOffset,
    commitLogOffset: decodeOffsetMsgId(r.msgId).offset,
  };
}

export type EndHeader = HeaderInputOf<typeof EndTransactionRequestHeader>;

/** The END_TRANSACTION a producer sends for `half` (the official client's fields). */
export function endHeader(
  half: SentHalf,
  commitOrRollback: number,
  fields: Partial<EndHeader> = {},
): EndHeader {
  return {
    producerGroup: GROUP,
    tranStateTableOffset: half.queueOffset,
    commitLogOffset: half.commitLogOffset,
    commitOrRollback,
    fromTransactionCheck: false,
    msgId: half.uniqKey,
    transactionId: half.uniqKey,
    ...fields,
  };
}

export function endRequest(h: EndHeader, oneway = false): RemotingCommand {
  return createRequest(RequestCode.END_TRANSACTION, {
    extFields: encodeHeader(EndTransactionRequestHeader, h),
    oneway,
  });
}

/** Two-way END_TRANSACTION: the broker's answer. */
export function endTransaction(client: TestClient, h: EndHeader): Promise<RemotingCommand> {
  return client.call(endRequest(h));
}

/** A producer of `group` says hello: the broker may now ask it about its transactions. */
export async function producerHeartbeat(client: TestClient, group = GROUP): Promise<void> {
  const r = await client.call(
    heartbeatRequest({
      clientID: `producer@${group}`,
      producerDataSet: [{ groupName: group }],
      consumerDataSet: [],
    }),
  );
  assert.equal(r.code, ResponseCode.SUCCESS);
}

/** The queue's messages as stored, from `from`. */
export async function readQueue(
  broker: BrokerController,
  topic: string,
  queueId: number,
  from = 0n,
): Promise<MessageExt[]> {
  const got = await broker.messageStore.getMessage('reader', topic, queueId, from, 64);
  return got.messages.map((m) => decodeMessage(m, 0, { copyBody: true }));
}

/** CID_RMQ_SYS_TRANS's offset of a half or op queue (-1 when it has none). */
export function transOffset(b: RunningBroker, topic: string, queueId = 0): bigint {
  return b.broker.consumerOffsetManager.queryOffset(TRANS_GROUP, topic, queueId);
}

/** Moves the clock on and waits for the check pass it starts, if any. */
export async function pass(b: RunningBroker, ms: number): Promise<void> {
  b.clock.advance(ms);
  await b.broker.transactionalMessageCheckService.whenIdle();
}

/** CHECK_TRANSACTION_STATE requests the broker sent to the client so far. */
export function checks(client: TestClient): RemotingCommand[] {
  return client.received.filter((r) => r.code === RequestCode.CHECK_TRANSACTION_STATE);
}
