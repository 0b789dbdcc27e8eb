/** GET_BROKER_CONSUME_STATS (317): every online group's consume stats on one broker (mqadmin brokerConsumeStats). */
import {
  type DecodedConsumeStatsList,
  decodeConsumeStatsList,
} from '../../common/protocol/consume-stats-list.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { GetConsumeStatsInBrokerHeader } from '../../remoting/protocol/headers/get-consume-stats-in-broker-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

/** `isOrder` keeps only groups that consume orderly. */
export function buildGetBrokerConsumeStatsRequest(isOrder: boolean): RemotingCommand {
  return requestWithHeader(RequestCode.GET_BROKER_CONSUME_STATS, GetConsumeStatsInBrokerHeader, { isOrder });
}

export function parseGetBrokerConsumeStatsResponse(
  response: RemotingCommand,
  peer: Peer,
): DecodedConsumeStatsList {
  return decodeConsumeStatsList(successBody(response, peer, 'broker consume stats'));
}
