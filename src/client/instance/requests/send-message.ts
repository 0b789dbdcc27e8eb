/**
 * SEND_MESSAGE_V2 (310) and SEND_BATCH_MESSAGE (320): what the Java producer sends (its
 * `sendSmartMsg` default), with the one-letter header, and the answer as a SendResult.
 */

import { MixAll } from '../../../common/constants.js';
import { withToJSON } from '../../../common/json-value.js';
import { MessageConst } from '../../../common/message/message-const.js';
import { MessageQueue } from '../../../common/message/message-queue.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { decodeHeader, encodeHeader, type HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { SendMessageRequestHeaderV2 } from '../../../remoting/protocol/headers/send-message-request-header-v2.js';
import { SendMessageResponseHeader } from '../../../remoting/protocol/headers/send-message-response-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { MQBrokerError } from '../../errors.js';
import { type SendResult, SendStatus } from '../../producer/send-result.js';

export { type SendResult, SendStatus };

export type SendMessageHeader = HeaderInputOf<typeof SendMessageRequestHeaderV2>;

export function buildSendMessageRequest(header: SendMessageHeader, body: Buffer): RemotingCommand {
  return createRequest(header.batch === true ? RequestCode.SEND_BATCH_MESSAGE : RequestCode.SEND_MESSAGE_V2, {
    extFields: encodeHeader(SendMessageRequestHeaderV2, header),
    body,
  });
}

function statusOf(code: number): SendStatus | undefined {
  switch (code) {
    case ResponseCode.SUCCESS:
      return SendStatus.SEND_OK;
    case ResponseCode.FLUSH_DISK_TIMEOUT:
      return SendStatus.FLUSH_DISK_TIMEOUT;
    case ResponseCode.FLUSH_SLAVE_TIMEOUT:
      return SendStatus.FLUSH_SLAVE_TIMEOUT;
    case ResponseCode.SLAVE_NOT_AVAILABLE:
      return SendStatus.SLAVE_NOT_AVAILABLE;
    default:
      return undefined;
  }
}

export interface SendAnswerContext {
  brokerAddr: string;
  brokerName: string;
  /** The topic as the user named it (without namespace). */
  topic: string;
  group: string;
  /** UNIQ_KEY of the message, or of each message of a batch joined with commas. */
  uniqMsgId: string;
}

/** `processSendResponse`: a stored status, or MQBrokerError for any other answer. */
export function parseSendResponse(response: RemotingCommand, ctx: SendAnswerContext): SendResult {
  const sendStatus = statusOf(response.code);
  if (sendStatus === undefined) {
    throw new MQBrokerError(response.code, response.remark, {
      brokerAddr: ctx.brokerAddr,
      topic: ctx.topic,
      group: ctx.group,
    });
  }
  const header = decodeHeader(SendMessageResponseHeader, response.extFields);
  const region = response.extFields?.[MessageConst.PROPERTY_MSG_REGION];
  return withToJSON({
    sendStatus,
    msgId: ctx.uniqMsgId,
    offsetMsgId: header.msgId,
    messageQueue: new MessageQueue(ctx.topic, ctx.brokerName, header.queueId),
    queueOffset: header.queueOffset,
    transactionId: header.transactionId,
    regionId: region === undefined || region.length === 0 ? MixAll.DEFAULT_TRACE_REGION_ID : region,
    traceOn: response.extFields?.[MessageConst.PROPERTY_TRACE_SWITCH] !== 'false',
  });
}
