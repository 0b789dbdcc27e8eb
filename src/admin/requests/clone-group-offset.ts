/** CLONE_GROUP_OFFSET (314): a broker copies one group's offsets in a topic to another group (none without a topic, as upstream). */
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { CloneGroupOffsetRequestHeader } from '../../remoting/protocol/headers/clone-group-offset-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { expectSuccess, type Peer, requestWithHeader } from './support.js';

export function buildCloneGroupOffsetRequest(
  srcGroup: string,
  destGroup: string,
  topic: string | undefined,
  offline: boolean,
): RemotingCommand {
  return requestWithHeader(RequestCode.CLONE_GROUP_OFFSET, CloneGroupOffsetRequestHeader, {
    srcGroup,
    destGroup,
    topic,
    offline,
  });
}

export function parseCloneGroupOffsetResponse(response: RemotingCommand, peer: Peer): void {
  expectSuccess(response, peer);
}
