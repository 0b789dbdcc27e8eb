/**
 * CONSUME_MESSAGE_DIRECTLY (309): the broker that stored a message hands it to one consumer client,
 * whose listener consumes it once more, and relays how that went (mqadmin queryMsgById -d).
 */
import {
  type ConsumeMessageDirectlyResult,
  decodeConsumeMessageDirectlyResult,
} from '../../common/protocol/consume-message-directly-result.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { ConsumeMessageDirectlyResultRequestHeader } from '../../remoting/protocol/headers/consume-message-directly-result-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

/** `msgId` is the offset message id: the broker reads the message at that commit-log offset. */
export function buildConsumeMessageDirectlyRequest(
  consumerGroup: string,
  clientId: string,
  msgId: string,
): RemotingCommand {
  return requestWithHeader(RequestCode.CONSUME_MESSAGE_DIRECTLY, ConsumeMessageDirectlyResultRequestHeader, {
    consumerGroup,
    clientId,
    msgId,
  });
}

export function parseConsumeMessageDirectlyResponse(
  response: RemotingCommand,
  peer: Peer,
): ConsumeMessageDirectlyResult {
  return decodeConsumeMessageDirectlyResult(successBody(response, peer, 'consume message directly'));
}
