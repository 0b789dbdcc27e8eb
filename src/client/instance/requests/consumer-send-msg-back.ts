/**
 * CONSUMER_SEND_MSG_BACK (36): a message the listener failed goes back to the broker, which writes
 * it to the group's retry topic with a delay level (or to the DLQ after maxReconsumeTimes).
 */
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import type { HeaderInputOf } from '../../../remoting/protocol/header-schema.js';
import { ConsumerSendMsgBackRequestHeader } from '../../../remoting/protocol/headers/consumer-send-msg-back-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess, requestWithHeader } from './support.js';

export type SendMsgBackHeader = HeaderInputOf<typeof ConsumerSendMsgBackRequestHeader>;

export function buildConsumerSendMsgBackRequest(header: SendMsgBackHeader): RemotingCommand {
  return requestWithHeader(RequestCode.CONSUMER_SEND_MSG_BACK, ConsumerSendMsgBackRequestHeader, header);
}

export function parseConsumerSendMsgBackResponse(
  response: RemotingCommand,
  subject: { brokerAddr: string; topic: string | undefined; group: string },
): void {
  expectSuccess(response, subject);
}
