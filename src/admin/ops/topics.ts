/** The admin's topic calls: create, read, delete, list, route, stats, clusters, consumers. */

import { MQClientError } from '../../client/errors.js';
import type { CallOptions } from '../../client/instance/mq-client-api.js';
import { PermName } from '../../common/constants.js';
import type { MessageQueue } from '../../common/message/message-queue.js';
import type { TopicConfigSerializeWrapper } from '../../common/protocol/register-broker-body.js';
import { createTopicConfig } from '../../common/protocol/topic-config.js';
import type { TopicList } from '../../common/protocol/topic-list.js';
import type { TopicOffset } from '../../common/protocol/topic-stats-table.js';
import { checkTopicArg } from '../../common/validators.js';
import { ResponseCode } from '../../remoting/protocol/response-code.js';
import { type AdminContext, nonEmpty } from '../admin-context.js';
import type { TopicConfigInput, TopicStatsTable } from '../mq-admin-ext.js';
import {
  buildDeleteTopicInBrokerRequest,
  parseDeleteTopicInBrokerResponse,
} from '../requests/delete-topic-in-broker.js';
import {
  buildDeleteTopicInNamesrvRequest,
  parseDeleteTopicInNamesrvResponse,
} from '../requests/delete-topic-in-namesrv.js';
import {
  buildGetAllTopicConfigRequest,
  parseGetAllTopicConfigResponse,
} from '../requests/get-all-topic-config.js';
import { buildGetAllTopicListRequest, parseGetAllTopicListResponse } from '../requests/get-all-topic-list.js';
import {
  buildGetTopicStatsInfoRequest,
  parseGetTopicStatsInfoResponse,
} from '../requests/get-topic-stats-info.js';
import {
  buildGetTopicsByClusterRequest,
  parseGetTopicsByClusterResponse,
} from '../requests/get-topics-by-cluster.js';
import {
  buildQueryTopicConsumeByWhoRequest,
  parseQueryTopicConsumeByWhoResponse,
} from '../requests/query-topic-consume-by-who.js';
import {
  buildUpdateAndCreateTopicRequest,
  parseUpdateAndCreateTopicResponse,
} from '../requests/update-and-create-topic.js';

export function createAndUpdateTopicConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
  input: TopicConfigInput,
): Promise<void> {
  const { topicName, ...fields } = input;
  const config = createTopicConfig(checkTopicArg('topicName', topicName), fields);
  // upstream Validators.checkTopicConfig, before anything is sent.
  if (!PermName.isValid(config.perm)) {
    return Promise.reject(
      new MQClientError(PermName.invalidTopicPermRemark(config.perm), ResponseCode.NO_PERMISSION, {
        topic: config.topicName,
      }),
    );
  }
  return ctx.onBroker(
    brokerAddr,
    buildUpdateAndCreateTopicRequest(config, ctx.options.createTopicKey),
    parseUpdateAndCreateTopicResponse,
    call,
    { topic: config.topicName },
  );
}

export function getAllTopicConfig(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddr: string,
): Promise<TopicConfigSerializeWrapper> {
  return ctx.onBroker(
    brokerAddr,
    buildGetAllTopicConfigRequest(),
    (r, peer) => parseGetAllTopicConfigResponse(r, peer, ctx.now()),
    call,
  );
}

export async function deleteTopicInBroker(
  ctx: AdminContext,
  call: CallOptions,
  brokerAddrs: Iterable<string>,
  topic: string,
): Promise<void> {
  checkTopicArg('topic', topic);
  await Promise.all(
    [...brokerAddrs].map((addr) =>
      ctx.onBroker(addr, buildDeleteTopicInBrokerRequest(topic), parseDeleteTopicInBrokerResponse, call, {
        topic,
      }),
    ),
  );
}

export async function deleteTopicInNameServer(
  ctx: AdminContext,
  call: CallOptions,
  namesrvAddrs: Iterable<string> | undefined,
  topic: string,
  clusterName: string | undefined,
): Promise<void> {
  checkTopicArg('topic', topic);
  const addrs = namesrvAddrs === undefined ? ctx.namesrvAddrs() : [...namesrvAddrs];
  await Promise.all(
    addrs.map((addr) =>
      ctx.onPeer(
        addr,
        buildDeleteTopicInNamesrvRequest(topic, clusterName),
        parseDeleteTopicInNamesrvResponse,
        call,
        {
          topic,
        },
      ),
    ),
  );
}

/** mqadmin deleteTopic: from every master of the cluster, then from every name server. */
export async function deleteTopic(
  ctx: AdminContext,
  call: CallOptions,
  topic: string,
  clusterName: string,
): Promise<void> {
  checkTopicArg('topic', topic);
  const masters = await ctx.masterAddrs(nonEmpty('clusterName', clusterName), call);
  await deleteTopicInBroker(ctx, call, masters, topic);
  await deleteTopicInNameServer(ctx, call, undefined, topic, clusterName);
}

export function fetchAllTopicList(ctx: AdminContext, call: CallOptions): Promise<TopicList> {
  return ctx.onNamesrv(buildGetAllTopicListRequest(), parseGetAllTopicListResponse, call);
}

export function fetchTopicsByCluster(
  ctx: AdminContext,
  call: CallOptions,
  clusterName: string,
): Promise<TopicList> {
  return ctx.onNamesrv(
    buildGetTopicsByClusterRequest(nonEmpty('clusterName', clusterName)),
    parseGetTopicsByClusterResponse,
    call,
  );
}

export async function examineTopicStats(
  ctx: AdminContext,
  call: CallOptions,
  topic: string,
): Promise<TopicStatsTable> {
  checkTopicArg('topic', topic);
  const route = await ctx.routeOf(topic, call);
  const tables = await Promise.all(
    ctx.routeBrokerAddrs(route).map((addr) =>
      ctx.onBroker(addr, buildGetTopicStatsInfoRequest(topic), parseGetTopicStatsInfoResponse, call, {
        topic,
      }),
    ),
  );
  const offsetTable: Array<[MessageQueue, TopicOffset]> = tables.flat();
  if (offsetTable.length === 0)
    throw new MQClientError('Not found the topic stats info', ResponseCode.SYSTEM_ERROR, { topic });
  return { offsetTable };
}

/** The clusters holding the topic's first broker, as upstream. */
export async function getTopicClusterList(
  ctx: AdminContext,
  call: CallOptions,
  topic: string,
): Promise<Set<string>> {
  checkTopicArg('topic', topic);
  const [info, route] = await Promise.all([ctx.clusterInfo(call), ctx.routeOf(topic, call)]);
  const clusters = new Set<string>();
  const brokerName = route.brokerDatas[0]?.brokerName;
  if (brokerName === undefined) return clusters;
  for (const [cluster, names] of info.clusterAddrTable) if (names.includes(brokerName)) clusters.add(cluster);
  return clusters;
}

export async function queryTopicConsumeByWho(
  ctx: AdminContext,
  call: CallOptions,
  topic: string,
): Promise<string[]> {
  checkTopicArg('topic', topic);
  const addr = ctx.routeBrokerAddrs(await ctx.routeOf(topic, call))[0];
  if (addr === undefined) return [];
  return ctx.onBroker(
    addr,
    buildQueryTopicConsumeByWhoRequest(topic),
    parseQueryTopicConsumeByWhoResponse,
    call,
    {
      topic,
    },
  );
}
