/**
 * Settling popped messages (upstream DefaultMQPushConsumerImpl.ackAsync and
 * changePopInvisibleTimeAsync): ACK_MESSAGE when consumed, CHANGE_MESSAGE_INVISIBLETIME to have one
 * back later. Both go to the master of the broker named in the receipt handle (POP_CK); the topic
 * asked is the one the message was popped from (the POP retry topic for a retried message).
 */
import type { Logger } from '../../../common/logger.js';
import type { MessageExt } from '../../../common/message/message.js';
import {
  getBrokerName,
  getCkQueueOffset,
  getQueueId,
  getQueueOffset,
  getRealTopic,
  getRetry,
  splitExtraInfo,
} from '../../../common/pop/extra-info.js';
import { PopMessageConst } from '../../../common/pop/pop-message-const.js';
import { ClientErrorCode, MQClientError } from '../../errors.js';
import {
  type AckStatus,
  buildAckMessageRequest,
  parseAckMessageResponse,
} from '../../instance/requests/ack-message.js';
import {
  buildChangeInvisibleTimeRequest,
  type ChangeInvisibleTimeResult,
  parseChangeInvisibleTimeResponse,
} from '../../instance/requests/change-invisible-time.js';
import type { PullHost } from '../pull/pull-api-wrapper.js';

const MASTER_ID = 0;
/** Upstream's ASYNC_TIMEOUT of acks and invisible-time changes, ms. */
export const POP_ASYNC_TIMEOUT_MS = 3000;

export interface PopAckHost extends PullHost {
  readonly logger: Logger;
}

async function masterOf(host: PopAckHost, brokerName: string, topic: string): Promise<string> {
  let found = host.findBrokerAddressInSubscribe(brokerName, MASTER_ID, true);
  if (found === undefined) {
    await host.updateTopicRouteInfoFromNameServer(topic);
    found = host.findBrokerAddressInSubscribe(brokerName, MASTER_ID, true);
  }
  if (found === undefined) {
    throw new MQClientError(
      `The broker[${brokerName}] not exist`,
      ClientErrorCode.BROKER_NOT_EXIST_EXCEPTION,
      {
        topic,
      },
    );
  }
  return found.brokerAddr;
}

function handleOf(msg: MessageExt): { extraInfo: string; parts: string[] } {
  const extraInfo = msg.properties.get(PopMessageConst.PROPERTY_POP_CK);
  return { extraInfo: extraInfo ?? '', parts: splitExtraInfo(extraInfo) };
}

/** ACK_MESSAGE of one popped message; never rejects (upstream logs failures, the message then comes back). */
export async function ackPopped(
  host: PopAckHost,
  msg: MessageExt,
  consumerGroup: string,
): Promise<AckStatus | undefined> {
  try {
    const { extraInfo, parts } = handleOf(msg);
    const brokerName = getBrokerName(parts);
    const addr = await masterOf(host, brokerName, msg.topic);
    const request = buildAckMessageRequest({
      consumerGroup,
      topic: getRealTopic(msg.topic, consumerGroup, getRetry(parts)),
      queueId: getQueueId(parts),
      extraInfo,
      offset: getQueueOffset(parts),
      bname: brokerName,
    });
    const status = parseAckMessageResponse(
      await host.api.invoke(addr, request, { timeoutMs: POP_ASYNC_TIMEOUT_MS }),
    );
    if (status !== 'OK') host.logger.warn('Ack message fail', { status, extraInfo });
    return status;
  } catch (error) {
    host.logger.warn('Ack message fail', { msgId: msg.msgId, error: (error as Error).message });
    return undefined;
  }
}

/** CHANGE_MESSAGE_INVISIBLETIME: the message comes back `invisibleTimeMs` from now. Rejects on failure. */
export async function changePopInvisibleTime(
  host: PopAckHost,
  msg: MessageExt,
  consumerGroup: string,
  invisibleTimeMs: number,
): Promise<ChangeInvisibleTimeResult> {
  const { extraInfo, parts } = handleOf(msg);
  const brokerName = getBrokerName(parts);
  const addr = await masterOf(host, brokerName, msg.topic);
  const header = {
    consumerGroup,
    topic: getRealTopic(msg.topic, consumerGroup, getRetry(parts)),
    queueId: getQueueId(parts),
    extraInfo,
    offset: getQueueOffset(parts),
    invisibleTime: BigInt(invisibleTimeMs),
    bname: brokerName,
  };
  const response = await host.api.invoke(addr, buildChangeInvisibleTimeRequest(header), {
    timeoutMs: POP_ASYNC_TIMEOUT_MS,
  });
  return parseChangeInvisibleTimeResponse(response, header, brokerName);
}

/** The checkpoint start offset of a handle (for logs and batch acks). */
export function ckQueueOffsetOf(msg: MessageExt): bigint {
  return getCkQueueOffset(handleOf(msg).parts);
}
