/** The admin's group calls: subscription group configs, consume progress, members and producers. */

import { MQClientError } from '../../client/errors.js';
import type { CallOptions } from '../../client/instance/mq-client-api.js';
import {
  buildSetMessageRequestModeRequest,
  parseSetMessageRequestModeResponse,
} from '../../client/instance/requests/set-message-request-mode.js';
import { MixAll } from '../../common/constants.js';
import { hostToString } from '../../common/message/host.js';
import type { ConsumeMessageDirectlyResult } from '../../common/protocol/consume-message-directly-result.js';
import type { ConsumerConnection } from '../../common/protocol/consumer-connection.js';
import type { MessageRequestMode } from '../../common/protocol/message-request-mode.js';
import type { ProducerConnection } from '../../common/protocol/producer-connection.js';
import {
  createSubscriptionGroupConfig,
  type SubscriptionGroupWrapper,
} from '../../common/protocol/subscription-group-config.js';
import { checkGroupArg, checkTopicArg } from '../../common/validators.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type AdminContext, nonEmpty } from '../admin-context.js';
import type {
  ConsumerRunningInfo,
  ConsumeStats,
  ConsumeStatsList,
  SubscriptionGroupConfigInput,
} from '../mq-admin-ext.js';
import {
  buildConsumeMessageDirectlyRequest,
  parseConsumeMessageDirectlyResponse,
} from '../requests/consume-message-directly.js';
import {
  buildDeleteSubscriptionGroupRequest,
  parseDeleteSubscriptionGroupResponse,
} from '../requests/delete-subscription-group.js';
import {
  buildGetAllSubscriptionGroupRequest,
  parseGetAllSubscriptionGroupResponse,
} from '../requests/get-all-subscription-group.js';
import {
  buildGetBrokerConsumeStatsRequest,
  parseGetBrokerConsumeStatsResponse,
} from '../requests/get-broker-consume-stats.js';
import { buildGetConsumeStatsRequest, parseGetConsumeStatsResponse } from '../requests/get-consume-stats.js';
import {
  buildGetConsumerConnectionListRequest,
  parseGetConsumerConnectionListResponse,
} from '../requests/get-consumer-connection-list.js';
import {
  buildGetConsumerRunningInfoRequest,
  parseGetConsumerRunningInfoResponse,
} from '../requests/get-consumer-running-info.js';
import {
  buildGetProducerConnectionListRequest,
  parseGetProducerConnectionListResponse,
} from '../requests/get-producer-connection-list.js';
import {
  buildUpdateAndCreateSubscriptionGroupRequest,
  parseUpdateAndCreateSubscriptionGroupResponse,
} from '../requests/update-and-create-subscription-group.js';

export function createAndUpdateSubscriptionGroupConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  input: SubscriptionGroupConfigInput,
): Promise<void> {
  const { groupName, ...fields } = input;
  const config = createSubscriptionGroupConfig(checkGroupArg('groupName', groupName), fields);
  return ctx.onBroker(
    brokerAddr,
    buildUpdateAndCreateSubscriptionGroupRequest(config),
    parseUpdateAndCreateSubscriptionGroupResponse,
    call,
    { group: config.groupName },
  );
}

export function getAllSubscriptionGroup(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<SubscriptionGroupWrapper> {
  return ctx.onBroker(
    brokerAddr,
    buildGetAllSubscriptionGroupRequest(),
    (r, peer) => parseGetAllSubscriptionGroupResponse(r, peer, ctx.now()),
    call,
  );
}

export function deleteSubscriptionGroup(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  groupName: string,
  removeOffset: boolean,
): Promise<void> {
  return ctx.onBroker(
    brokerAddr,
    buildDeleteSubscriptionGroupRequest(checkGroupArg('groupName', groupName), removeOffset),
    parseDeleteSubscriptionGroupResponse,
    call,
    { group: groupName },
  );
}

/**
 * SET_MESSAGE_REQUEST_MODE on one broker: the group reads the topic in PULL or POP mode (consumers
 * with `clientRebalance: false` learn it through QUERY_ASSIGNMENT).
 */
export function setMessageRequestMode(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  topic: string,
  consumerGroup: string,
  mode: MessageRequestMode,
  popShareQueueNum: number,
): Promise<void> {
  checkTopicArg('topic', topic);
  checkGroupArg('consumerGroup', consumerGroup);
  return ctx.onBroker(
    brokerAddr,
    buildSetMessageRequestModeRequest({ topic, consumerGroup, mode, popShareQueueNum }),
    (r, peer) => parseSetMessageRequestModeResponse(r, peer.brokerAddr, consumerGroup, topic),
    call,
    { group: consumerGroup, topic },
  );
}

/** Summed over every broker of the group's retry topic, as upstream. */
export async function examineConsumeStats(
  ctx: AdminContext,
  call: CallOptions,
  consumerGroup: string,
  topic: string | undefined,
): Promise<ConsumeStats> {
  checkGroupArg('consumerGroup', consumerGroup);
  if (topic !== undefined) checkTopicArg('topic', topic);
  const route = await ctx.routeOf(MixAll.getRetryTopic(consumerGroup), call);
  const subject = { group: consumerGroup, topic };
  const all = await Promise.all(
    ctx
      .routeBrokerAddrs(route)
      .map((addr) =>
        ctx.onBroker(
          addr,
          buildGetConsumeStatsRequest(consumerGroup, topic),
          parseGetConsumeStatsResponse,
          call,
          subject,
        ),
      ),
  );
  const result: ConsumeStats = { offsetTable: [], consumeTps: 0 };
  for (const stats of all) {
    result.offsetTable.push(...stats.offsetTable);
    result.consumeTps += stats.consumeTps;
  }
  if (result.offsetTable.length === 0) {
    throw new MQClientError(
      'Not found the consumer group consume stats, because return offset table is empty, maybe the consumer not consume any message',
      ResponseCode.CONSUMER_NOT_ONLINE,
      subject,
    );
  }
  return result;
}

/** From `brokerAddr`, else from a random broker of the group's retry topic, as upstream. */
export async function examineConsumerConnectionInfo(
  ctx: AdminContext,
  call: CallOptions,
  consumerGroup: string,
  brokerAddr: string | undefined,
): Promise<ConsumerConnection> {
  checkGroupArg('consumerGroup', consumerGroup);
  let addr = brokerAddr;
  if (addr === undefined) {
    const addrs = ctx.routeBrokerAddrs(await ctx.routeOf(MixAll.getRetryTopic(consumerGroup), call));
    addr = addrs[Math.floor(Math.random() * addrs.length)];
  }
  const notOnline = () =>
    new MQClientError('Not found the consumer group connection', ResponseCode.CONSUMER_NOT_ONLINE, {
      group: consumerGroup,
      brokerAddr: addr,
    });
  if (addr === undefined) throw notOnline();
  const connection = await ctx.onBroker(
    addr,
    buildGetConsumerConnectionListRequest(consumerGroup),
    parseGetConsumerConnectionListResponse,
    call,
    { group: consumerGroup },
  );
  if (connection.connectionSet.length === 0) throw notOnline();
  return connection;
}

export async function examineProducerConnectionInfo(
  ctx: AdminContext,
  call: CallOptions,
  producerGroup: string,
  topic: string,
): Promise<ProducerConnection> {
  checkGroupArg('producerGroup', producerGroup);
  checkTopicArg('topic', topic);
  const addrs = ctx.routeBrokerAddrs(await ctx.routeOf(topic, call));
  const addr = addrs[Math.floor(Math.random() * addrs.length)];
  const notOnline = () =>
    new MQClientError('Not found the producer group connection', ResponseCode.SYSTEM_ERROR, {
      group: producerGroup,
      brokerAddr: addr,
    });
  if (addr === undefined) throw notOnline();
  const connection = await ctx.onBroker(
    addr,
    buildGetProducerConnectionListRequest(producerGroup),
    parseGetProducerConnectionListResponse,
    call,
    { group: producerGroup },
  );
  if (connection.connectionSet.length === 0) throw notOnline();
  return connection;
}

export async function getConsumerRunningInfo(
  ctx: AdminContext,
  call: CallOptions,
  consumerGroup: string,
  clientId: string,
  jstack: boolean,
): Promise<ConsumerRunningInfo> {
  checkGroupArg('consumerGroup', consumerGroup);
  nonEmpty('clientId', clientId);
  const addr = ctx.routeBrokerAddrs(await ctx.routeOf(MixAll.getRetryTopic(consumerGroup), call))[0];
  if (addr === undefined) {
    throw new MQClientError('no broker holds the group', ResponseCode.CONSUMER_NOT_ONLINE, {
      group: consumerGroup,
    });
  }
  return ctx.onBroker(
    addr,
    buildGetConsumerRunningInfoRequest(consumerGroup, clientId, jstack),
    parseGetConsumerRunningInfoResponse,
    call,
    { group: consumerGroup },
  );
}

export function fetchConsumeStatsInBroker(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  isOrder: boolean,
): Promise<ConsumeStatsList> {
  return ctx.onBroker(
    brokerAddr,
    buildGetBrokerConsumeStatsRequest(isOrder),
    parseGetBrokerConsumeStatsResponse,
    call,
  );
}

/** Through the broker that stored the message, found by its id first. */
export async function consumeMessageDirectly(
  ctx: AdminContext,
  call: CallOptions,
  consumerGroup: string,
  clientId: string,
  msgId: string,
  topic: string | undefined,
): Promise<ConsumeMessageDirectlyResult> {
  checkGroupArg('consumerGroup', consumerGroup);
  nonEmpty('clientId', clientId);
  if (topic !== undefined) checkTopicArg('topic', topic);
  const msg = await ctx.queries.viewMessage(msgId, { topic, timeoutMs: call.timeoutMs, signal: call.signal });
  return ctx.onBroker(
    hostToString(msg.storeHost),
    buildConsumeMessageDirectlyRequest(consumerGroup, clientId, msg.offsetMsgId),
    parseConsumeMessageDirectlyResponse,
    call,
    { group: consumerGroup, topic: msg.topic },
  );
}
