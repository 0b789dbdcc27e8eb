/**
 * QUERY_CONSUMER_OFFSET (14) and UPDATE_CONSUMER_OFFSET (15): a group's stored progress in one
 * queue, on the broker that holds the queue.
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader } from '../../../remoting/protocol/header-schema.js';
import { QueryConsumerOffsetRequestHeader } from '../../../remoting/protocol/headers/query-consumer-offset-request-header.js';
import { QueryConsumerOffsetResponseHeader } from '../../../remoting/protocol/headers/query-consumer-offset-response-header.js';
import { UpdateConsumerOffsetRequestHeader } from '../../../remoting/protocol/headers/update-consumer-offset-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export function buildQueryConsumerOffsetRequest(group: string, mq: MessageQueue): RemotingCommand {
  return requestWithHeader(RequestCode.QUERY_CONSUMER_OFFSET, QueryConsumerOffsetRequestHeader, {
    consumerGroup: group,
    topic: mq.topic,
    queueId: mq.queueId,
    bname: mq.brokerName,
  });
}

/**
 * The stored offset. A broker without one answers QUERY_NOT_FOUND, which stays an MQBrokerError
 * (upstream's store reads it as "no offset", -1).
 */
export function parseQueryConsumerOffsetResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string; group: string },
): bigint {
  expectSuccess(response, subject);
  return decodeHeader(QueryConsumerOffsetResponseHeader, response.extFields).offset;
}

export function buildUpdateConsumerOffsetRequest(
  group: string,
  mq: MessageQueue,
  commitOffset: bigint,
): RemotingCommand {
  return requestWithHeader(RequestCode.UPDATE_CONSUMER_OFFSET, UpdateConsumerOffsetRequestHeader, {
    consumerGroup: group,
    topic: mq.topic,
    queueId: mq.queueId,
    commitOffset,
    bname: mq.brokerName,
  });
}

export function parseUpdateConsumerOffsetResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string; group: string },
): void {
  expectSuccess(response, subject);
}
