import { type BrokerStatsItem, encodeBrokerStatsData } from '../../common/protocol/broker-stats-data.js';
import type { StatsSnapshot } from '../../common/stats/stats-item.js';
import { createResponse } from '../../remoting/protocol/command.js';
import { decodeHeader } from '../../remoting/protocol/header-schema.js';
import { ViewBrokerStatsDataRequestHeader } from '../../remoting/protocol/headers/index.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import type { BrokerRequestHandler } from './broker-context.js';

function item(s: StatsSnapshot): BrokerStatsItem {
  return { sum: BigInt(Math.trunc(s.sum)), tps: s.tps, avgpt: s.avgpt };
}

/**
 * VIEW_BROKER_STATS_DATA (315, `mqadmin statsAll` and the admin API's viewBrokerStatsData): one stats
 * item's minute, hour and day figures, e.g. statsName TOPIC_PUT_NUMS with statsKey the topic, or
 * GROUP_GET_NUMS with `topic@group`; SYSTEM_ERROR when the item does not exist (yet).
 */
export const viewBrokerStatsData: BrokerRequestHandler = (broker, _ctx, request) => {
  const { statsName, statsKey } = decodeHeader(ViewBrokerStatsDataRequestHeader, request.extFields);
  const statsItem = broker.brokerStatsManager.getStatsItem(statsName, statsKey);
  if (statsItem === undefined) {
    return createResponse(request, ResponseCode.SYSTEM_ERROR, {
      remark: `The stats <${statsName}> <${statsKey}> not exist`,
    });
  }
  const body = encodeBrokerStatsData({
    statsMinute: item(statsItem.getStatsDataInMinute()),
    statsHour: item(statsItem.getStatsDataInHour()),
    statsDay: item(statsItem.getStatsDataInDay()),
  });
  return createResponse(request, ResponseCode.SUCCESS, { body });
};
