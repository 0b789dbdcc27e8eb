/**
 * INVOKE_BROKER_TO_RESET_OFFSET (222): the broker moves a group's offsets in a topic to the first
 * message stored at or after a time, tells the online members, and answers the new offsets.
 */
import type { MessageQueue } from '../../common/message/message-queue.js';
import { decodeResetOffsetBody } from '../../common/protocol/reset-offset-body.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { ResetOffsetRequestHeader } from '../../remoting/protocol/headers/reset-offset-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildInvokeBrokerToResetOffsetRequest(
  topic: string,
  group: string,
  timestamp: bigint,
  isForce: boolean,
): RemotingCommand {
  return requestWithHeader(RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, ResetOffsetRequestHeader, {
    topic,
    group,
    timestamp,
    isForce,
  });
}

/** The queues and their new offsets. */
export function parseInvokeBrokerToResetOffsetResponse(
  response: RemotingCommand,
  peer: Peer,
): Array<[MessageQueue, bigint]> {
  return decodeResetOffsetBody(successBody(response, peer, 'reset offset')).offsetTable;
}
