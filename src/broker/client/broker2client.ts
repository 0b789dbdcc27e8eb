/**
 * Broker2Client (`broker/.../client/net/Broker2Client.java`), the part this broker uses: requests the
 * broker sends to its clients over their own connections, and the admin paths built on them (reset
 * a group's offsets through its consumers, gather the consumers' offsets).
 */

import { MQVersion, mqVersionName } from '../../common/constants.js';
import { javaHashMapOrder } from '../../common/fastjson/index.js';
import type { Logger } from '../../common/logger.js';
import type { MessageExt } from '../../common/message/message.js';
import { MessageQueue } from '../../common/message/message-queue.js';
import { encodeMessage } from '../../common/message/stored-format.js';
import {
  decodeGetConsumerStatusBody,
  encodeGetConsumerStatusBody,
} from '../../common/protocol/get-consumer-status-body.js';
import {
  javaMessageQueueMapOrder,
  type MessageQueueEntries,
} from '../../common/protocol/message-queue-map.js';
import { encodeResetOffsetBody, encodeResetOffsetBodyForC } from '../../common/protocol/reset-offset-body.js';
import { createRequest, type RemotingCommand } from '../../remoting/protocol/command.js';
import { encodeHeader, type HeaderInputOf } from '../../remoting/protocol/header-schema.js';
import {
  CheckTransactionStateRequestHeader,
  GetConsumerStatusRequestHeader,
  NotifyConsumerIdsChangedRequestHeader,
  ResetOffsetRequestHeader,
} from '../../remoting/protocol/headers/index.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerMessageStore } from '../message-store.js';
import type { ConsumerOffsetManager } from '../offset/consumer-offset-manager.js';
import type { TopicConfigManager } from '../topic/topic-config-manager.js';
import type { ClientChannel, ClientChannelInfo } from './client-channel-info.js';
import type { ConsumerManager } from './consumer-manager.js';

/** Upstream callClient's invokeSync timeout (GET_CONSUMER_RUNNING_INFO, CONSUME_MESSAGE_DIRECTLY). */
export const CALL_CLIENT_TIMEOUT_MS = 10_000;
/** Upstream getConsumeStatus's invokeSync timeout, per client. */
export const GET_CONSUMER_STATUS_TIMEOUT_MS = 5_000;

/** What the admin paths read of the broker; the BrokerController is one. */
export interface Broker2ClientContext {
  readonly config: { readonly brokerName: string };
  readonly logger: Logger;
  readonly topicConfigManager: Pick<TopicConfigManager, 'selectTopicConfig'>;
  readonly consumerOffsetManager: Pick<ConsumerOffsetManager, 'queryOffset'>;
  readonly consumerManager: Pick<ConsumerManager, 'getConsumerGroupInfo'>;
  readonly messageStore: Pick<BrokerMessageStore, 'getMaxOffsetInQueue' | 'getOffsetInQueueByTime'>;
}

/** What to answer the admin with; the processor turns it into the response. */
export interface Broker2ClientResult {
  readonly code: number;
  readonly remark?: string | undefined;
  readonly body?: Buffer | undefined;
}

/**
 * NOTIFY_CONSUMER_IDS_CHANGED (oneway, header consumerGroup): the consumer rebalances at once.
 * Never throws; a failure is logged.
 */
export function notifyConsumerIdsChanged(
  channel: ClientChannel,
  consumerGroup: string,
  logger: Logger,
): void {
  const request = createRequest(RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, {
    extFields: encodeHeader(NotifyConsumerIdsChangedRequestHeader, { consumerGroup }),
  });
  const fail = (error: unknown) =>
    logger.error('notifyConsumerIdsChanged exception', {
      group: consumerGroup,
      remoteAddress: channel.remoteAddress,
      error: error instanceof Error ? error.message : String(error),
    });
  try {
    channel.invokeOneway(request).catch(fail);
  } catch (error) {
    fail(error);
  }
}

/**
 * CHECK_TRANSACTION_STATE (oneway): asks a producer of `group` whether the half message's
 * transaction committed; the body is the message as MessageDecoder.encode writes it (properties in
 * Java's HashMap order). The producer answers with END_TRANSACTION (fromTransactionCheck). Never
 * throws for a failed send; it is logged.
 */
export function checkProducerTransactionState(
  group: string,
  channel: ClientChannel,
  requestHeader: HeaderInputOf<typeof CheckTransactionStateRequestHeader>,
  messageExt: MessageExt,
  logger: Logger,
): void {
  const request = createRequest(RequestCode.CHECK_TRANSACTION_STATE, {
    extFields: encodeHeader(CheckTransactionStateRequestHeader, requestHeader),
    body: encodeMessage(messageExt, { propertyOrder: 'java' }),
  });
  const fail = (error: unknown) =>
    logger.error('Check transaction failed because invoke producer exception', {
      group,
      offsetMsgId: messageExt.offsetMsgId,
      error: describe(error),
    });
  try {
    channel.invokeOneway(request).catch(fail);
  } catch (error) {
    fail(error);
  }
}

/** callClient: a request to a client and its response, which rejects on timeout or a closed connection. */
export function callClient(
  channel: ClientChannel,
  request: RemotingCommand,
  timeoutMs = CALL_CLIENT_TIMEOUT_MS,
): Promise<RemotingCommand> {
  return channel.invoke(request, { timeoutMs });
}

/** `MQVersion.getVersionDesc` for remarks. */
function versionDesc(version: number): string {
  return mqVersionName(version) ?? String(version);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * RESET_CONSUMER_CLIENT_OFFSET (header topic, group, timestamp; isForce is written false as upstream
 * leaves it unset) with the table as ResetOffsetBody, or ResetOffsetBodyForC for a C++ admin.
 */
export function resetConsumerClientOffsetRequest(
  topic: string,
  group: string,
  timestamp: bigint,
  offsetTable: MessageQueueEntries<bigint>,
  isC: boolean,
): RemotingCommand {
  return createRequest(RequestCode.RESET_CONSUMER_CLIENT_OFFSET, {
    extFields: encodeHeader(ResetOffsetRequestHeader, { topic, group, timestamp, isForce: false }),
    body: isC ? encodeResetOffsetBodyForC(offsetTable) : encodeResetOffsetBody({ offsetTable }),
  });
}

/**
 * Sends `request` oneway to each online member of `group` in turn. A member older than
 * V3_0_7_SNAPSHOT cannot take it: with `stopAtOld` the loop ends there, as upstream's does (members
 * before it already got the push), otherwise it is skipped. Returns the first such member.
 * A failed send is logged, never thrown.
 */
export function pushResetOffset(
  ctx: Broker2ClientContext,
  topic: string,
  group: string,
  request: RemotingCommand,
  stopAtOld: boolean,
): ClientChannelInfo | undefined {
  let tooOld: ClientChannelInfo | undefined;
  const infos = ctx.consumerManager.getConsumerGroupInfo(group)?.channelInfoTable.values() ?? [];
  for (const info of [...infos]) {
    if (info.version < MQVersion.V3_0_7_SNAPSHOT) {
      ctx.logger.warn('[reset-offset] the client does not support this feature', {
        channel: info.channel.remoteAddress,
        version: versionDesc(info.version),
      });
      tooOld ??= info;
      if (stopAtOld) return tooOld;
      continue;
    }
    const fail = (error: unknown) =>
      ctx.logger.error('[reset-offset] reset offset exception', { topic, group, error: describe(error) });
    try {
      // A copy each: sending writes the connection's own opaque into the command.
      info.channel.invokeOneway({ ...request }).catch(fail);
      ctx.logger.info('[reset-offset] reset offset success', { topic, group, clientId: info.clientId });
    } catch (error) {
      fail(error);
    }
  }
  return tooOld;
}

/**
 * Broker2Client.resetOffset: each write queue's offset for `timestamp` (-1: the queue's max offset;
 * a negative search result becomes 0), kept at the group's own offset when that is already smaller
 * unless `isForce`, pushed to the group's online consumers, which reset and commit it themselves.
 * The broker's offset table is not touched. CONSUMER_NOT_ONLINE when the group has no member (the
 * 4.9.8 admin then falls back to committing the offsets itself).
 */
export function resetOffset(
  ctx: Broker2ClientContext,
  topic: string,
  group: string,
  timestamp: bigint,
  isForce: boolean,
  isC: boolean,
): Broker2ClientResult {
  const topicConfig = ctx.topicConfigManager.selectTopicConfig(topic);
  if (topicConfig === undefined) {
    const remark = `[reset-offset] reset offset failed, no topic in this broker. topic=${topic}`;
    ctx.logger.error(remark);
    return { code: ResponseCode.SYSTEM_ERROR, remark };
  }
  const entries: Array<[MessageQueue, bigint]> = [];
  for (let i = 0; i < topicConfig.writeQueueNums; i++) {
    const consumerOffset = ctx.consumerOffsetManager.queryOffset(group, topic, i);
    if (consumerOffset === -1n) {
      return { code: ResponseCode.SYSTEM_ERROR, remark: `THe consumer group <${group}> not exist` };
    }
    let timeStampOffset =
      timestamp === -1n
        ? ctx.messageStore.getMaxOffsetInQueue(topic, i)
        : ctx.messageStore.getOffsetInQueueByTime(topic, i, timestamp);
    if (timeStampOffset < 0n) {
      ctx.logger.warn('reset offset is invalid', { topic, queueId: i, timeStampOffset });
      timeStampOffset = 0n;
    }
    const offset = isForce || timeStampOffset < consumerOffset ? timeStampOffset : consumerOffset;
    entries.push([new MessageQueue(topic, ctx.config.brokerName, i), offset]);
  }
  const offsetTable = javaMessageQueueMapOrder(entries);

  const groupInfo = ctx.consumerManager.getConsumerGroupInfo(group);
  if (groupInfo === undefined || groupInfo.channelInfoTable.size === 0) {
    const remark = `Consumer not online, so can not reset offset, Group: ${group} Topic: ${topic} Timestamp: ${timestamp}`;
    ctx.logger.error(remark);
    return { code: ResponseCode.CONSUMER_NOT_ONLINE, remark };
  }
  const request = resetConsumerClientOffsetRequest(topic, group, timestamp, offsetTable, isC);
  const tooOld = pushResetOffset(ctx, topic, group, request, true);
  if (tooOld !== undefined) {
    return {
      code: ResponseCode.SYSTEM_ERROR,
      remark: `the client does not support this feature. version=${versionDesc(tooOld.version)}`,
    };
  }
  return { code: ResponseCode.SUCCESS, body: encodeResetOffsetBody({ offsetTable }) };
}

/**
 * Broker2Client.getConsumeStatus: GET_CONSUMER_STATUS_FROM_CLIENT to each member of the group in
 * turn (only the one whose clientId is `originClientId`, when given), each table under its clientId.
 * A member that fails or answers without a body is left out; a member older than V3_0_7_SNAPSHOT
 * ends it with SYSTEM_ERROR, as upstream.
 */
export async function getConsumeStatus(
  ctx: Broker2ClientContext,
  topic: string,
  group: string,
  originClientId: string | undefined,
  timeoutMs = GET_CONSUMER_STATUS_TIMEOUT_MS,
): Promise<Broker2ClientResult> {
  const infos = [...(ctx.consumerManager.getConsumerGroupInfo(group)?.channelInfoTable.values() ?? [])];
  if (infos.length === 0) {
    return {
      code: ResponseCode.SYSTEM_ERROR,
      remark: `No Any Consumer online in the consumer group: [${group}]`,
    };
  }
  const origin = originClientId === undefined || originClientId.trim() === '' ? undefined : originClientId;
  const extFields = encodeHeader(GetConsumerStatusRequestHeader, { topic, group });
  // clientId -> table: a later answer for the same clientId replaces the value, keeps the place.
  const tables = new Map<string, Array<[MessageQueue, bigint]>>();
  for (const info of infos) {
    if (info.version < MQVersion.V3_0_7_SNAPSHOT) {
      ctx.logger.warn('[get-consumer-status] the client does not support this feature', {
        channel: info.channel.remoteAddress,
        version: versionDesc(info.version),
      });
      return {
        code: ResponseCode.SYSTEM_ERROR,
        remark: `the client does not support this feature. version=${versionDesc(info.version)}`,
      };
    }
    if (origin !== undefined && origin !== info.clientId) continue;
    try {
      const request = createRequest(RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, { extFields });
      const response = await info.channel.invoke(request, { timeoutMs });
      if (response.code === ResponseCode.SUCCESS && response.body !== undefined) {
        // fastjson reads the client's table into a HashMap: Java writes it back in that map's order.
        const table = decodeGetConsumerStatusBody(response.body).messageQueueTable;
        tables.set(info.clientId, javaMessageQueueMapOrder(table));
        ctx.logger.info('[get-consumer-status] get consumer status success', {
          topic,
          group,
          clientId: info.clientId,
        });
      }
    } catch (error) {
      ctx.logger.error('[get-consumer-status] get consumer status exception', {
        topic,
        group,
        error: describe(error),
      });
    }
    if (origin !== undefined) break;
  }
  const consumerTable = javaHashMapOrder([...tables.keys()]).map(
    (clientId) => [clientId, tables.get(clientId) ?? []] as const,
  );
  return {
    code: ResponseCode.SUCCESS,
    body: encodeGetConsumerStatusBody({ messageQueueTable: [], consumerTable }),
  };
}
