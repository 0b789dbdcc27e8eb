/**
 * The per-queue lookups of MQAdminImpl, each one request to the queue's broker:
 * SEARCH_OFFSET_BY_TIMESTAMP (29), GET_MAX_OFFSET (30), GET_MIN_OFFSET (31) and
 * GET_EARLIEST_MSG_STORETIME (32).
 */
import type { MessageQueue } from '../../../common/message/message-queue.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader } from '../../../remoting/protocol/header-schema.js';
import { GetEarliestMsgStoretimeRequestHeader } from '../../../remoting/protocol/headers/get-earliest-msg-storetime-request-header.js';
import { GetEarliestMsgStoretimeResponseHeader } from '../../../remoting/protocol/headers/get-earliest-msg-storetime-response-header.js';
import { GetMaxOffsetRequestHeader } from '../../../remoting/protocol/headers/get-max-offset-request-header.js';
import { GetMaxOffsetResponseHeader } from '../../../remoting/protocol/headers/get-max-offset-response-header.js';
import { GetMinOffsetRequestHeader } from '../../../remoting/protocol/headers/get-min-offset-request-header.js';
import { GetMinOffsetResponseHeader } from '../../../remoting/protocol/headers/get-min-offset-response-header.js';
import { SearchOffsetRequestHeader } from '../../../remoting/protocol/headers/search-offset-request-header.js';
import { SearchOffsetResponseHeader } from '../../../remoting/protocol/headers/search-offset-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

/** The queue on the wire: its topic as the broker knows it (with the namespace). */
function queueFields(mq: MessageQueue) {
  return { topic: mq.topic, queueId: mq.queueId, bname: mq.brokerName };
}

export function buildSearchOffsetRequest(mq: MessageQueue, timestamp: bigint): RemotingCommand {
  return requestWithHeader(RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, SearchOffsetRequestHeader, {
    ...queueFields(mq),
    timestamp,
  });
}

export function parseSearchOffsetResponse(
  response: RemotingCommand,
  brokerAddr: string,
  topic: string,
): bigint {
  expectSuccess(response, { brokerAddr, topic });
  return decodeHeader(SearchOffsetResponseHeader, response.extFields).offset;
}

export function buildGetMaxOffsetRequest(mq: MessageQueue): RemotingCommand {
  return requestWithHeader(RequestCode.GET_MAX_OFFSET, GetMaxOffsetRequestHeader, queueFields(mq));
}

export function parseGetMaxOffsetResponse(
  response: RemotingCommand,
  brokerAddr: string,
  topic: string,
): bigint {
  expectSuccess(response, { brokerAddr, topic });
  return decodeHeader(GetMaxOffsetResponseHeader, response.extFields).offset;
}

export function buildGetMinOffsetRequest(mq: MessageQueue): RemotingCommand {
  return requestWithHeader(RequestCode.GET_MIN_OFFSET, GetMinOffsetRequestHeader, queueFields(mq));
}

export function parseGetMinOffsetResponse(
  response: RemotingCommand,
  brokerAddr: string,
  topic: string,
): bigint {
  expectSuccess(response, { brokerAddr, topic });
  return decodeHeader(GetMinOffsetResponseHeader, response.extFields).offset;
}

export function buildGetEarliestMsgStoretimeRequest(mq: MessageQueue): RemotingCommand {
  return requestWithHeader(
    RequestCode.GET_EARLIEST_MSG_STORETIME,
    GetEarliestMsgStoretimeRequestHeader,
    queueFields(mq),
  );
}

export function parseGetEarliestMsgStoretimeResponse(
  response: RemotingCommand,
  brokerAddr: string,
  topic: string,
): bigint {
  expectSuccess(response, { brokerAddr, topic });
  return decodeHeader(GetEarliestMsgStoretimeResponseHeader, response.extFields).timestamp;
}
