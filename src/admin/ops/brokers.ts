/** The admin's broker calls: runtime figures, settings, stats items, clean-ups, consume queues. */

import type { CallOptions } from '../../client/instance/mq-client-api.js';
import type { BrokerStatsData } from '../../common/protocol/broker-stats-data.js';
import type { QueryConsumeQueueResponseBody } from '../../common/protocol/query-consume-queue-body.js';
import { type AdminContext, nonEmpty, propertiesEntries } from '../admin-context.js';
import type { PropertiesInput } from '../mq-admin-ext.js';
import {
  buildCleanExpiredConsumeQueueRequest,
  parseCleanExpiredConsumeQueueResponse,
} from '../requests/clean-expired-consumequeue.js';
import {
  buildCleanUnusedTopicRequest,
  parseCleanUnusedTopicResponse,
} from '../requests/clean-unused-topic.js';
import { buildGetBrokerConfigRequest, parseGetBrokerConfigResponse } from '../requests/get-broker-config.js';
import {
  buildGetBrokerRuntimeInfoRequest,
  parseGetBrokerRuntimeInfoResponse,
} from '../requests/get-broker-runtime-info.js';
import {
  buildQueryConsumeQueueRequest,
  parseQueryConsumeQueueResponse,
} from '../requests/query-consume-queue.js';
import {
  buildUpdateBrokerConfigRequest,
  parseUpdateBrokerConfigResponse,
} from '../requests/update-broker-config.js';
import {
  buildViewBrokerStatsDataRequest,
  parseViewBrokerStatsDataResponse,
} from '../requests/view-broker-stats-data.js';

export function fetchBrokerRuntimeStats(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<Map<string, string>> {
  return ctx.onBroker(
    brokerAddr,
    buildGetBrokerRuntimeInfoRequest(),
    parseGetBrokerRuntimeInfoResponse,
    call,
  );
}

/** Upstream asks the given address itself here, never its VIP channel. */
export function getBrokerConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<Map<string, string>> {
  return ctx.onPeer(brokerAddr, buildGetBrokerConfigRequest(), parseGetBrokerConfigResponse, call);
}

export async function updateBrokerConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  properties: PropertiesInput,
): Promise<void> {
  const request = buildUpdateBrokerConfigRequest(propertiesEntries(properties));
  if (request !== undefined) await ctx.onBroker(brokerAddr, request, parseUpdateBrokerConfigResponse, call);
}

export function viewBrokerStatsData(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  statsName: string,
  statsKey: string,
): Promise<BrokerStatsData> {
  return ctx.onBroker(
    brokerAddr,
    buildViewBrokerStatsDataRequest(nonEmpty('statsName', statsName), nonEmpty('statsKey', statsKey)),
    parseViewBrokerStatsDataResponse,
    call,
  );
}

export function cleanExpiredConsumerQueueByAddr(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<boolean> {
  return ctx.onBroker(
    brokerAddr,
    buildCleanExpiredConsumeQueueRequest(),
    parseCleanExpiredConsumeQueueResponse,
    call,
  );
}

export function cleanUnusedTopicByAddr(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<boolean> {
  return ctx.onBroker(brokerAddr, buildCleanUnusedTopicRequest(), parseCleanUnusedTopicResponse, call);
}

export function queryConsumeQueue(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  args: { topic: string; queueId: number; index: bigint; count: number; consumerGroup: string | undefined },
): Promise<QueryConsumeQueueResponseBody> {
  return ctx.onBroker(brokerAddr, buildQueryConsumeQueueRequest(args), parseQueryConsumeQueueResponse, call, {
    topic: args.topic,
    group: args.consumerGroup,
  });
}
