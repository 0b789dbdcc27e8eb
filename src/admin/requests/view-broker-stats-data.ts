/**
 * VIEW_BROKER_STATS_DATA (315): one stats item of a broker (e.g. TOPIC_PUT_NUMS for a topic) over the
 * last minute, hour and day. An item the broker has no figures for is SYSTEM_ERROR from it.
 */
import { type BrokerStatsData, decodeBrokerStatsData } from '../../common/protocol/broker-stats-data.js';
import type { RemotingCommand } from '../../remoting/protocol/command.js';
import { ViewBrokerStatsDataRequestHeader } from '../../remoting/protocol/headers/view-broker-stats-data-request-header.js';
import { RequestCode } from '../../remoting/protocol/request-code.js';
import { type Peer, requestWithHeader, successBody } from './support.js';

export function buildViewBrokerStatsDataRequest(statsName: string, statsKey: string): RemotingCommand {
  return requestWithHeader(RequestCode.VIEW_BROKER_STATS_DATA, ViewBrokerStatsDataRequestHeader, {
    statsName,
    statsKey,
  });
}

export function parseViewBrokerStatsDataResponse(response: RemotingCommand, peer: Peer): BrokerStatsData {
  return decodeBrokerStatsData(successBody(response, peer, 'broker stats'));
}
