/** GET_CONSUME_STATS (208): a group's progress in each queue it reads on one broker, and its TPS. */
import { type DecodedConsumeStats, decodeConsumeStats } from '../../common/protocol/consume-stats.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetConsumeStatsRequestHeader } from '../../remoting/protocol/headers/get-consume-stats-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

/** Without `topic` the broker reports every topic the group subscribes to. */
export function buildGetConsumeStatsRequest(consumerGroup: string, topic?: string): RemotingCommand {
  return requestWithHeader(RequestCode.GET_CONSUME_STATS, GetConsumeStatsRequestHeader, {
    consumerGroup,
    topic,
  });
}

export function parseGetConsumeStatsResponse(response: RemotingCommand, peer: Peer): DecodedConsumeStats {
  return decodeConsumeStats(successBody(response, peer, 'consume stats'));
}
