/** VIEW_MESSAGE_BY_ID (33): the message stored at a commit log offset of the broker that stored it. */
import type { MessageExt } from '../../../common/message/message.js';
import { decodeMessage } from '../../../common/message/stored-format.js';
import type { RemotingCommand } from '../../../remoting/protocol/command.js';
import { ViewMessageRequestHeader } from '../../../remoting/protocol/headers/view-message-request-header.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { ResponseCode } from '../../../remoting/protocol/response-code.js';
import { MQBrokerError } from '../../errors.js';
import { expectSuccess, requestWithHeader } from './support.js';

export function buildViewMessageRequest(offset: bigint): RemotingCommand {
  return requestWithHeader(RequestCode.VIEW_MESSAGE_BY_ID, ViewMessageRequestHeader, { offset });
}

/** The decoded message (body inflated, copied out of the response). */
export function parseViewMessageResponse(response: RemotingCommand, brokerAddr: string): MessageExt {
  expectSuccess(response, { brokerAddr });
  if (response.body === undefined) {
    throw new MQBrokerError(ResponseCode.SYSTEM_ERROR, 'view message answer without a body', { brokerAddr });
  }
  return decodeMessage(response.body, 0, { copyBody: true });
}
