/** SET_MESSAGE_REQUEST_MODE (401): switches a topic and group between PULL and POP on one broker. */
import {
  encodeSetMessageRequestModeRequestBody,
  type SetMessageRequestModeRequestBody,
} from '../../../common/protocol/set-message-request-mode-body.js';
import { createRequest, type RemotingCommand } from '../../../remoting/protocol/command.js';
import { RequestCode } from '../../../remoting/protocol/request-code.js';
import { expectSuccess } from './support.js';

export function buildSetMessageRequestModeRequest(body: SetMessageRequestModeRequestBody): RemotingCommand {
  return createRequest(RequestCode.SET_MESSAGE_REQUEST_MODE, {
    body: encodeSetMessageRequestModeRequestBody(body),
  });
}

export function parseSetMessageRequestModeResponse(
  response: RemotingCommand,
  brokerAddr: string,
  group: string,
  topic: string,
): void {
  expectSuccess(response, { brokerAddr, group, topic });
}
