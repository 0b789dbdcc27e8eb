/**
 * What the dashboard counts as the system's own topics and groups, as rocketmq-dashboard shows them
 * under its "system" filter: upstream's system topics plus the topics a broker creates under its
 * cluster's and its own name and the cluster's reply topic; MixAll's built-in groups (the admin
 * tools' TOOLS_CONSUMER, which this dashboard's own message search uses, among them).
 */

import { MixAll } from '../../common/constants.js';
import type { ClusterInfo } from '../../common/protocol/route.js';
import { isSystemTopic } from '../../common/validators.js';

const SYSTEM_GROUPS: ReadonlySet<string> = new Set([
  MixAll.TOOLS_CONSUMER_GROUP,
  MixAll.FILTERSRV_CONSUMER_GROUP,
  MixAll.MONITOR_CONSUMER_GROUP,
  MixAll.SCHEDULE_CONSUMER_GROUP,
  MixAll.SELF_TEST_CONSUMER_GROUP,
  MixAll.ONS_HTTP_PROXY_GROUP,
  MixAll.CID_ONSAPI_PERMISSION_GROUP,
  MixAll.CID_ONSAPI_OWNER_GROUP,
  MixAll.CID_ONSAPI_PULL_GROUP,
  MixAll.CID_SYS_RMQ_TRANS,
]);

export function isSystemGroup(group: string): boolean {
  return SYSTEM_GROUPS.has(group) || MixAll.isSysConsumerGroup(group);
}

/** The cluster and broker names of `info`: topics a broker makes for itself (upstream's getSystemTopicList). */
export function clusterTopicNames(info: ClusterInfo): Set<string> {
  return new Set([...info.clusterAddrTable.keys(), ...info.brokerAddrTable.keys()]);
}

export function isDashboardSystemTopic(topic: string, clusterTopics: ReadonlySet<string>): boolean {
  return isSystemTopic(topic, clusterTopics) || topic.endsWith(`_${MixAll.REPLY_TOPIC_POSTFIX}`);
}
