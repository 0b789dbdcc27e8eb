/**
 * MQAdminExt: what an operator asks of a cluster (upstream's MQAdminExt, which mqadmin and the
 * dashboard use): topics, groups, offsets, stats, messages, brokers, name servers and ACL accounts.
 * Every call takes `{ timeoutMs, signal }`; offsets and timestamps are bigint (Java longs).
 */

import type { MQAdmin } from '../client/mq-admin.js';
import type { PlainAccessConfig } from '../common/acl/plain-access-config.js';
import type { MessageExt } from '../common/message/message.js';
import type { MessageQueue } from '../common/message/message-queue.js';
import type { BrokerStatsData } from '../common/protocol/broker-stats-data.js';
import type { ConsumeMessageDirectlyResult } from '../common/protocol/consume-message-directly-result.js';
import type { DecodedConsumeStats } from '../common/protocol/consume-stats.js';
import type { DecodedConsumeStatsList } from '../common/protocol/consume-stats-list.js';
import type { ConsumerConnection } from '../common/protocol/consumer-connection.js';
import type { DecodedConsumerRunningInfo } from '../common/protocol/consumer-running-info.js';
import type { MessageRequestMode } from '../common/protocol/message-request-mode.js';
import type { ProducerConnection } from '../common/protocol/producer-connection.js';
import type { QueryConsumeQueueResponseBody } from '../common/protocol/query-consume-queue-body.js';
import type { TopicConfigSerializeWrapper } from '../common/protocol/register-broker-body.js';
import type { ClusterInfo, TopicRouteData } from '../common/protocol/route.js';
import type {
  SubscriptionGroupConfig,
  SubscriptionGroupConfigFields,
  SubscriptionGroupWrapper,
} from '../common/protocol/subscription-group-config.js';
import type { TopicConfig, TopicConfigFields } from '../common/protocol/topic-config.js';
import type { TopicList } from '../common/protocol/topic-list.js';
import type { TopicOffset } from '../common/protocol/topic-stats-table.js';
import type { ClusterAclVersionInfo } from './requests/get-broker-cluster-acl-info.js';

/** `{ timeoutMs, signal }` of one call; timeoutMs defaults to the admin's timeoutMillis. */
export interface AdminCallOptions {
  timeoutMs?: number | undefined;
  signal?: AbortSignal | undefined;
}

/** Upstream TopicStatsTable: each queue's min/max offset and last store time, over every broker. */
export interface TopicStatsTable {
  offsetTable: Array<[MessageQueue, TopicOffset]>;
}

/** Upstream ConsumeStats: the group's progress per queue and its consume TPS (summed over brokers). */
export type ConsumeStats = DecodedConsumeStats;
export type ConsumeStatsList = DecodedConsumeStatsList;
export type ConsumerRunningInfo = DecodedConsumerRunningInfo;

/** Upstream RollbackStats: one queue of an offset reset done by the admin itself (resetOffsetByTimestampOld). */
export interface RollbackStats {
  brokerName: string;
  queueId: number;
  brokerOffset: bigint;
  consumerOffset: bigint;
  /** The offset the timestamp gave (the max offset for timestamp -1). */
  timestampOffset: bigint;
  /** The offset committed: timestampOffset, or the consumer's own when not forced and it is behind. */
  rollbackOffset: bigint;
}

/** A topic to create or update: its name and any TopicConfig fields (Java's defaults for the rest). */
export type TopicConfigInput = { topicName: string } & TopicConfigFields;
/** A group to create or update: its name and any SubscriptionGroupConfig fields. */
export type SubscriptionGroupConfigInput = { groupName: string } & SubscriptionGroupConfigFields;
/** Properties given as a Map or a plain object. */
export type PropertiesInput = ReadonlyMap<string, string> | Readonly<Record<string, string>>;

export type {
  BrokerStatsData,
  ClusterAclVersionInfo,
  ClusterInfo,
  ConsumeMessageDirectlyResult,
  ConsumerConnection,
  PlainAccessConfig,
  ProducerConnection,
  QueryConsumeQueueResponseBody,
  SubscriptionGroupConfig,
  SubscriptionGroupWrapper,
  TopicConfig,
  TopicConfigSerializeWrapper,
  TopicList,
  TopicOffset,
  TopicRouteData,
};

export interface MQAdminExt extends MQAdmin, AsyncDisposable {
  /** Registers the admin group on its client instance and starts it; once only. */
  start(): Promise<void>;
  /** Unregisters and, when nothing else uses the client instance, closes its connections. Idempotent. */
  shutdown(): Promise<void>;
  /** `await using`: calls shutdown() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
  /** The name servers this admin talks to. */
  getNameServerAddressList(): string[];

  // ----- topics
  /** UPDATE_AND_CREATE_TOPIC on one broker. */
  createAndUpdateTopicConfig(
    brokerAddr: string,
    config: TopicConfigInput,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** The topic's config on one broker (GET_ALL_TOPIC_CONFIG), undefined when it has none. */
  examineTopicConfig(
    brokerAddr: string,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<TopicConfig | undefined>;
  getAllTopicConfig(brokerAddr: string, options?: AdminCallOptions): Promise<TopicConfigSerializeWrapper>;
  /** DELETE_TOPIC_IN_BROKER on each address. */
  deleteTopicInBroker(
    brokerAddrs: Iterable<string>,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** DELETE_TOPIC_IN_NAMESRV on each name server (all of this admin's when none are given). */
  deleteTopicInNameServer(
    namesrvAddrs: Iterable<string> | undefined,
    topic: string,
    clusterName?: string,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** mqadmin deleteTopic: from every master of the cluster, then from every name server. */
  deleteTopic(topic: string, clusterName: string, options?: AdminCallOptions): Promise<void>;
  fetchAllTopicList(options?: AdminCallOptions): Promise<TopicList>;
  fetchTopicsByCluster(clusterName: string, options?: AdminCallOptions): Promise<TopicList>;
  /** The topic's route; MQClientError TOPIC_NOT_EXIST when no name server knows it. */
  examineTopicRouteInfo(topic: string, options?: AdminCallOptions): Promise<TopicRouteData>;
  /** Offsets of every queue of the topic, from each of its brokers; MQClientError when there are none. */
  examineTopicStats(topic: string, options?: AdminCallOptions): Promise<TopicStatsTable>;
  /** The clusters holding the topic's first broker. */
  getTopicClusterList(topic: string, options?: AdminCallOptions): Promise<Set<string>>;
  /** Groups consuming the topic, as one of its brokers knows them. */
  queryTopicConsumeByWho(topic: string, options?: AdminCallOptions): Promise<string[]>;

  // ----- groups, consumers, producers
  createAndUpdateSubscriptionGroupConfig(
    brokerAddr: string,
    config: SubscriptionGroupConfigInput,
    options?: AdminCallOptions,
  ): Promise<void>;
  examineSubscriptionGroupConfig(
    brokerAddr: string,
    group: string,
    options?: AdminCallOptions,
  ): Promise<SubscriptionGroupConfig | undefined>;
  getAllSubscriptionGroup(brokerAddr: string, options?: AdminCallOptions): Promise<SubscriptionGroupWrapper>;
  deleteSubscriptionGroup(
    brokerAddr: string,
    groupName: string,
    removeOffset?: boolean,
    options?: AdminCallOptions,
  ): Promise<void>;
  /**
   * SET_MESSAGE_REQUEST_MODE: the group reads `topic` on that broker in PULL or POP mode (POP members
   * also pop the queues of the `popShareQueueNum` members after them; 0 = every queue) [0].
   */
  setMessageRequestMode(
    brokerAddr: string,
    topic: string,
    consumerGroup: string,
    mode: MessageRequestMode,
    popShareQueueNum?: number,
    options?: AdminCallOptions,
  ): Promise<void>;
  /**
   * The group's progress on every broker of its retry topic (of one topic when given); MQClientError
   * CONSUMER_NOT_ONLINE when no broker reports a queue.
   */
  examineConsumeStats(
    consumerGroup: string,
    topic?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumeStats>;
  /**
   * The group's members, from one broker of its retry topic (or `brokerAddr`); CONSUMER_NOT_ONLINE
   * when none is online (an MQBrokerError when the broker says so).
   */
  examineConsumerConnectionInfo(
    consumerGroup: string,
    brokerAddr?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumerConnection>;
  /** The producers of the group, as one broker of `topic` knows them; MQClientError when none. */
  examineProducerConnectionInfo(
    producerGroup: string,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<ProducerConnection>;
  /** One consumer client's running state, relayed by a broker of the group's retry topic. */
  getConsumerRunningInfo(
    consumerGroup: string,
    clientId: string,
    jstack?: boolean,
    options?: AdminCallOptions,
  ): Promise<ConsumerRunningInfo>;
  /** Every online group's consume stats on one broker (mqadmin brokerConsumeStats). */
  fetchConsumeStatsInBroker(
    brokerAddr: string,
    isOrder: boolean,
    options?: AdminCallOptions,
  ): Promise<ConsumeStatsList>;
  /**
   * Moves the group's offsets in `topic` to the first message stored at or after `timestamp` (ms) on
   * every broker of the topic; the queues and their new offsets.
   */
  resetOffsetByTimestamp(
    topic: string,
    group: string,
    timestamp: number | bigint,
    isForce: boolean,
    options?: AdminCallOptions,
  ): Promise<Array<[MessageQueue, bigint]>>;
  /**
   * The offsets the admin works out itself, queue by queue, for a group that is not online: the
   * offset at `timestamp` (the max offset for -1) committed with UPDATE_CONSUMER_OFFSET, unless the
   * group is already behind it and `force` is false.
   */
  resetOffsetByTimestampOld(
    consumerGroup: string,
    topic: string,
    timestamp: number | bigint,
    force: boolean,
    options?: AdminCallOptions,
  ): Promise<RollbackStats[]>;
  /** mqadmin resetOffsetByTime: through the broker, or the admin's own way when the group is not online. */
  resetOffsetNew(
    consumerGroup: string,
    topic: string,
    timestamp: number | bigint,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** UPDATE_CONSUMER_OFFSET of one queue on one broker. */
  updateConsumeOffset(
    brokerAddr: string,
    consumerGroup: string,
    mq: MessageQueue,
    offset: number | bigint,
    options?: AdminCallOptions,
  ): Promise<void>;
  /**
   * The message (an offset id, or a msgId with `topic`) consumed once more by one client of the group,
   * through the broker that stored it.
   */
  consumeMessageDirectly(
    consumerGroup: string,
    clientId: string,
    msgId: string,
    topic?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumeMessageDirectlyResult>;
  /** Copies `srcGroup`'s offsets (of `topic`, or all) to `destGroup` on every broker of srcGroup's retry topic. */
  cloneGroupOffset(
    srcGroup: string,
    destGroup: string,
    topic: string | undefined,
    isOffline: boolean,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** The message with this UNIQ_KEY (msgId) in `topic`; MQClientError NO_MESSAGE when none. */
  queryMessageByUniqKey(topic: string, uniqKey: string, options?: AdminCallOptions): Promise<MessageExt>;
  /** Consume-queue entries of one queue (mqadmin queryCq). */
  queryConsumeQueue(
    brokerAddr: string,
    topic: string,
    queueId: number,
    index: number | bigint,
    count: number,
    consumerGroup?: string,
    options?: AdminCallOptions,
  ): Promise<QueryConsumeQueueResponseBody>;

  // ----- brokers and clusters
  examineBrokerClusterInfo(options?: AdminCallOptions): Promise<ClusterInfo>;
  /** The master address of every broker of the cluster (upstream CommandUtil.fetchMasterAddrByClusterName). */
  fetchMasterAddrByClusterName(clusterName: string, options?: AdminCallOptions): Promise<string[]>;
  fetchBrokerRuntimeStats(brokerAddr: string, options?: AdminCallOptions): Promise<Map<string, string>>;
  getBrokerConfig(brokerAddr: string, options?: AdminCallOptions): Promise<Map<string, string>>;
  /** Nothing is sent for empty properties, as upstream. */
  updateBrokerConfig(
    brokerAddr: string,
    properties: PropertiesInput,
    options?: AdminCallOptions,
  ): Promise<void>;
  viewBrokerStatsData(
    brokerAddr: string,
    statsName: string,
    statsKey: string,
    options?: AdminCallOptions,
  ): Promise<BrokerStatsData>;
  /** On every broker of the cluster (of every cluster when none is named); whether the last one succeeded. */
  cleanExpiredConsumerQueue(clusterName?: string, options?: AdminCallOptions): Promise<boolean>;
  cleanExpiredConsumerQueueByAddr(brokerAddr: string, options?: AdminCallOptions): Promise<boolean>;
  cleanUnusedTopic(clusterName?: string, options?: AdminCallOptions): Promise<boolean>;
  cleanUnusedTopicByAddr(brokerAddr: string, options?: AdminCallOptions): Promise<boolean>;

  // ----- name servers
  /** PUT_KV_CONFIG on every name server. */
  createAndUpdateKvConfig(
    namespace: string,
    key: string,
    value: string,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** DELETE_KV_CONFIG on every name server. */
  deleteKvConfig(namespace: string, key: string, options?: AdminCallOptions): Promise<void>;
  /** The value, or undefined when the name server has none. */
  getKVConfig(namespace: string, key: string, options?: AdminCallOptions): Promise<string | undefined>;
  getKVListByNamespace(namespace: string, options?: AdminCallOptions): Promise<Map<string, string>>;
  /** Each name server's settings (all of this admin's when none are given). */
  getNameServerConfig(
    namesrvAddrs?: Iterable<string>,
    options?: AdminCallOptions,
  ): Promise<Map<string, Map<string, string>>>;
  updateNameServerConfig(
    properties: PropertiesInput,
    namesrvAddrs?: Iterable<string>,
    options?: AdminCallOptions,
  ): Promise<void>;
  /** No more writes routed to the broker by this name server; how many topics changed. */
  wipeWritePermOfBroker(namesrvAddr: string, brokerName: string, options?: AdminCallOptions): Promise<number>;
  /** Writes routed to the broker again; how many topics changed. */
  addWritePermOfBroker(namesrvAddr: string, brokerName: string, options?: AdminCallOptions): Promise<number>;

  // ----- ACL (the broker must run with aclEnable and this admin with an admin account)
  createAndUpdatePlainAccessConfig(
    brokerAddr: string,
    config: PlainAccessConfig & { accessKey: string },
    options?: AdminCallOptions,
  ): Promise<void>;
  deletePlainAccessConfig(brokerAddr: string, accessKey: string, options?: AdminCallOptions): Promise<void>;
  updateGlobalWhiteAddrConfig(
    brokerAddr: string,
    globalWhiteAddrs: string,
    aclFileFullPath?: string,
    options?: AdminCallOptions,
  ): Promise<void>;
  examineBrokerClusterAclVersionInfo(
    brokerAddr: string,
    options?: AdminCallOptions,
  ): Promise<ClusterAclVersionInfo>;
}
