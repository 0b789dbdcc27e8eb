/**
 * DefaultMQAdminExt: the admin client over a client instance (upstream DefaultMQAdminExt and its
 * Impl). It registers as an admin group on the instance, which keeps the instance's connections,
 * name server list and signing, and sends no heartbeat for it. Each public call checks the state and
 * its options, then runs one operation of `ops/` under the call's timeout.
 */

import '../common/async-dispose.js';
import { type ClientConfig, resolveClientConfig } from '../client/client-config.js';
import { ClientStateError, MQClientError } from '../client/errors.js';
import type { CallOptions } from '../client/instance/mq-client-api.js';
import type { MQClientInstance, ServiceState } from '../client/instance/mq-client-instance.js';
import { getOrCreateMQClientInstance } from '../client/instance/mq-client-manager.js';
import { long, MQAdminFacade, NamespacedAdmin } from '../client/mq-admin.js';
import { ValidationError } from '../common/errors.js';
import type { MessageExt } from '../common/message/message.js';
import { MessageQueue } from '../common/message/message-queue.js';
import type { ConsumeMessageDirectlyResult } from '../common/protocol/consume-message-directly-result.js';
import type { MessageRequestMode } from '../common/protocol/message-request-mode.js';
import type { TopicConfig } from '../common/protocol/topic-config.js';
import type { TopicList } from '../common/protocol/topic-list.js';
import { checkGroupArg, checkTopicArg } from '../common/validators.js';
import { ResponseCode } from '../remoting/protocol/response-code.js';
import { AdminContext, nonEmpty, SLOW_CALL_FACTOR } from './admin-context.js';
import { type AdminOptions, type ResolvedAdminOptions, resolveAdminOptions } from './admin-options.js';
import type {
  AdminCallOptions,
  BrokerStatsData,
  ClusterAclVersionInfo,
  ClusterInfo,
  ConsumerConnection,
  ConsumerRunningInfo,
  ConsumeStats,
  ConsumeStatsList,
  MQAdminExt,
  PlainAccessConfig,
  ProducerConnection,
  PropertiesInput,
  QueryConsumeQueueResponseBody,
  RollbackStats,
  SubscriptionGroupConfig,
  SubscriptionGroupConfigInput,
  SubscriptionGroupWrapper,
  TopicConfigInput,
  TopicConfigSerializeWrapper,
  TopicRouteData,
  TopicStatsTable,
} from './mq-admin-ext.js';
import * as acl from './ops/acl.js';
import * as brokers from './ops/brokers.js';
import * as groups from './ops/groups.js';
import * as namesrv from './ops/namesrv.js';
import * as offsets from './ops/offsets.js';
import * as topics from './ops/topics.js';

/** The six MQAdmin lookups come from MQAdminFacade, as on every other client object. */
export class DefaultMQAdminExt extends MQAdminFacade implements MQAdminExt {
  private readonly config: ClientConfig;
  private readonly options: ResolvedAdminOptions;
  private readonly namespaced: NamespacedAdmin;
  private readonly ctx: AdminContext;
  private instance: MQClientInstance | undefined;
  private state: ServiceState = 'CREATE_JUST';

  constructor(options: AdminOptions) {
    super();
    this.options = resolveAdminOptions(options);
    this.config = resolveClientConfig(options);
    this.namespaced = new NamespacedAdmin(this.config, () => this.running().admin);
    this.ctx = new AdminContext(this.config, this.options, this.namespaced, () => this.running());
  }

  protected get queries(): NamespacedAdmin {
    return this.namespaced;
  }

  async start(): Promise<void> {
    if (this.state !== 'CREATE_JUST') {
      throw new MQClientError(`The AdminExt service state not OK, maybe started once, ${this.state}`);
    }
    this.state = 'START_FAILED';
    const instance = getOrCreateMQClientInstance(this.config);
    if (!instance.registerAdminExt(this.options.adminExtGroup)) {
      this.state = 'CREATE_JUST';
      throw new MQClientError(
        `The adminExt group[${this.options.adminExtGroup}] has created already, specifed another name please.`,
      );
    }
    try {
      instance.start();
    } catch (error) {
      instance.unregisterAdminExt(this.options.adminExtGroup);
      throw error;
    }
    this.instance = instance;
    this.state = 'RUNNING';
    this.config.logger.child('admin').info('admin started', {
      group: this.options.adminExtGroup,
      clientId: instance.clientId,
    });
  }

  async shutdown(): Promise<void> {
    if (this.state !== 'RUNNING') return;
    const instance = this.instance as MQClientInstance;
    this.state = 'SHUTDOWN_ALREADY';
    instance.unregisterAdminExt(this.options.adminExtGroup);
    await instance.shutdown();
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.shutdown();
  }

  getNameServerAddressList(): string[] {
    this.running();
    return this.ctx.namesrvAddrs();
  }

  // ----- topics

  createAndUpdateTopicConfig(
    brokerAddr: string,
    config: TopicConfigInput,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) => topics.createAndUpdateTopicConfig(this.ctx, call, brokerAddr, config));
  }

  async examineTopicConfig(
    brokerAddr: string,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<TopicConfig | undefined> {
    checkTopicArg('topic', topic);
    return (await this.getAllTopicConfig(brokerAddr, options)).topicConfigTable.get(topic);
  }

  getAllTopicConfig(brokerAddr: string, options?: AdminCallOptions): Promise<TopicConfigSerializeWrapper> {
    return this.run(options, (call) => topics.getAllTopicConfig(this.ctx, call, brokerAddr));
  }

  deleteTopicInBroker(
    brokerAddrs: Iterable<string>,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) => topics.deleteTopicInBroker(this.ctx, call, brokerAddrs, topic));
  }

  deleteTopicInNameServer(
    namesrvAddrs: Iterable<string> | undefined,
    topic: string,
    clusterName?: string,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      topics.deleteTopicInNameServer(this.ctx, call, namesrvAddrs, topic, clusterName),
    );
  }

  deleteTopic(topic: string, clusterName: string, options?: AdminCallOptions): Promise<void> {
    return this.run(options, (call) => topics.deleteTopic(this.ctx, call, topic, clusterName));
  }

  fetchAllTopicList(options?: AdminCallOptions): Promise<TopicList> {
    return this.run(options, (call) => topics.fetchAllTopicList(this.ctx, call));
  }

  fetchTopicsByCluster(clusterName: string, options?: AdminCallOptions): Promise<TopicList> {
    return this.run(options, (call) => topics.fetchTopicsByCluster(this.ctx, call, clusterName));
  }

  examineTopicRouteInfo(topic: string, options?: AdminCallOptions): Promise<TopicRouteData> {
    return this.run(options, (call) => this.ctx.routeOf(checkTopicArg('topic', topic), call));
  }

  examineTopicStats(topic: string, options?: AdminCallOptions): Promise<TopicStatsTable> {
    return this.run(options, (call) => topics.examineTopicStats(this.ctx, call, topic));
  }

  getTopicClusterList(topic: string, options?: AdminCallOptions): Promise<Set<string>> {
    return this.run(options, (call) => topics.getTopicClusterList(this.ctx, call, topic));
  }

  queryTopicConsumeByWho(topic: string, options?: AdminCallOptions): Promise<string[]> {
    return this.run(options, (call) => topics.queryTopicConsumeByWho(this.ctx, call, topic));
  }

  // ----- groups, consumers, producers

  createAndUpdateSubscriptionGroupConfig(
    brokerAddr: string,
    config: SubscriptionGroupConfigInput,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      groups.createAndUpdateSubscriptionGroupConfig(this.ctx, call, brokerAddr, config),
    );
  }

  async examineSubscriptionGroupConfig(
    brokerAddr: string,
    group: string,
    options?: AdminCallOptions,
  ): Promise<SubscriptionGroupConfig | undefined> {
    checkGroupArg('group', group);
    return (await this.getAllSubscriptionGroup(brokerAddr, options)).subscriptionGroupTable.get(group);
  }

  getAllSubscriptionGroup(brokerAddr: string, options?: AdminCallOptions): Promise<SubscriptionGroupWrapper> {
    return this.run(options, (call) => groups.getAllSubscriptionGroup(this.ctx, call, brokerAddr));
  }

  deleteSubscriptionGroup(
    brokerAddr: string,
    groupName: string,
    removeOffset = false,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      groups.deleteSubscriptionGroup(this.ctx, call, brokerAddr, groupName, removeOffset),
    );
  }

  setMessageRequestMode(
    brokerAddr: string,
    topic: string,
    consumerGroup: string,
    mode: MessageRequestMode,
    popShareQueueNum = 0,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      groups.setMessageRequestMode(this.ctx, call, brokerAddr, topic, consumerGroup, mode, popShareQueueNum),
    );
  }

  examineConsumeStats(
    consumerGroup: string,
    topic?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumeStats> {
    return this.run(
      options,
      (call) => groups.examineConsumeStats(this.ctx, call, consumerGroup, topic),
      SLOW_CALL_FACTOR,
    );
  }

  examineConsumerConnectionInfo(
    consumerGroup: string,
    brokerAddr?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumerConnection> {
    return this.run(options, (call) =>
      groups.examineConsumerConnectionInfo(this.ctx, call, consumerGroup, brokerAddr),
    );
  }

  examineProducerConnectionInfo(
    producerGroup: string,
    topic: string,
    options?: AdminCallOptions,
  ): Promise<ProducerConnection> {
    return this.run(options, (call) =>
      groups.examineProducerConnectionInfo(this.ctx, call, producerGroup, topic),
    );
  }

  getConsumerRunningInfo(
    consumerGroup: string,
    clientId: string,
    jstack = false,
    options?: AdminCallOptions,
  ): Promise<ConsumerRunningInfo> {
    return this.run(
      options,
      (call) => groups.getConsumerRunningInfo(this.ctx, call, consumerGroup, clientId, jstack),
      SLOW_CALL_FACTOR,
    );
  }

  fetchConsumeStatsInBroker(
    brokerAddr: string,
    isOrder: boolean,
    options?: AdminCallOptions,
  ): Promise<ConsumeStatsList> {
    return this.run(options, (call) => groups.fetchConsumeStatsInBroker(this.ctx, call, brokerAddr, isOrder));
  }

  consumeMessageDirectly(
    consumerGroup: string,
    clientId: string,
    msgId: string,
    topic?: string,
    options?: AdminCallOptions,
  ): Promise<ConsumeMessageDirectlyResult> {
    return this.run(
      options,
      (call) => groups.consumeMessageDirectly(this.ctx, call, consumerGroup, clientId, msgId, topic),
      SLOW_CALL_FACTOR,
    );
  }

  // ----- offsets

  resetOffsetByTimestamp(
    topic: string,
    group: string,
    timestamp: number | bigint,
    isForce: boolean,
    options?: AdminCallOptions,
  ): Promise<Array<[MessageQueue, bigint]>> {
    return this.run(options, (call) =>
      offsets.resetOffsetByTimestamp(this.ctx, call, topic, group, long('timestamp', timestamp), isForce),
    );
  }

  resetOffsetByTimestampOld(
    consumerGroup: string,
    topic: string,
    timestamp: number | bigint,
    force: boolean,
    options?: AdminCallOptions,
  ): Promise<RollbackStats[]> {
    return this.run(options, (call) =>
      offsets.resetOffsetByTimestampOld(
        this.ctx,
        call,
        consumerGroup,
        topic,
        long('timestamp', timestamp),
        force,
      ),
    );
  }

  resetOffsetNew(
    consumerGroup: string,
    topic: string,
    timestamp: number | bigint,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      offsets.resetOffsetNew(this.ctx, call, consumerGroup, topic, long('timestamp', timestamp)),
    );
  }

  updateConsumeOffset(
    brokerAddr: string,
    consumerGroup: string,
    mq: MessageQueue,
    offset: number | bigint,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) => {
      if (!(mq instanceof MessageQueue)) throw new ValidationError('mq must be a MessageQueue', -1);
      return offsets.updateConsumeOffset(
        this.ctx,
        call,
        brokerAddr,
        consumerGroup,
        mq,
        long('offset', offset),
      );
    });
  }

  cloneGroupOffset(
    srcGroup: string,
    destGroup: string,
    topic: string | undefined,
    isOffline: boolean,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(
      options,
      (call) => offsets.cloneGroupOffset(this.ctx, call, srcGroup, destGroup, topic, isOffline),
      SLOW_CALL_FACTOR,
    );
  }

  // ----- messages

  queryMessageByUniqKey(topic: string, uniqKey: string, options?: AdminCallOptions): Promise<MessageExt> {
    return this.run(options, async (call) => {
      checkTopicArg('topic', topic);
      const found = await this.running().admin.queryMessageByUniqKey(
        topic,
        nonEmpty('uniqKey', uniqKey),
        call,
      );
      if (found === undefined)
        throw new MQClientError(`no message with id ${uniqKey}`, ResponseCode.NO_MESSAGE, { topic });
      return found;
    });
  }

  queryConsumeQueue(
    brokerAddr: string,
    topic: string,
    queueId: number,
    index: number | bigint,
    count: number,
    consumerGroup?: string,
    options?: AdminCallOptions,
  ): Promise<QueryConsumeQueueResponseBody> {
    return this.run(options, (call) => {
      if (!Number.isInteger(queueId) || queueId < 0)
        throw new ValidationError(`queueId must be an integer >= 0, got ${queueId}`, -1);
      if (!Number.isInteger(count) || count <= 0)
        throw new ValidationError(`count must be an integer > 0, got ${count}`, -1);
      if (consumerGroup !== undefined) checkGroupArg('consumerGroup', consumerGroup);
      return brokers.queryConsumeQueue(this.ctx, call, brokerAddr, {
        topic: checkTopicArg('topic', topic),
        queueId,
        index: long('index', index),
        count,
        consumerGroup,
      });
    });
  }

  // ----- brokers and clusters

  examineBrokerClusterInfo(options?: AdminCallOptions): Promise<ClusterInfo> {
    return this.run(options, (call) => this.ctx.clusterInfo(call));
  }

  fetchMasterAddrByClusterName(clusterName: string, options?: AdminCallOptions): Promise<string[]> {
    return this.run(options, (call) => this.ctx.masterAddrs(nonEmpty('clusterName', clusterName), call));
  }

  fetchBrokerRuntimeStats(brokerAddr: string, options?: AdminCallOptions): Promise<Map<string, string>> {
    return this.run(options, (call) => brokers.fetchBrokerRuntimeStats(this.ctx, call, brokerAddr));
  }

  getBrokerConfig(brokerAddr: string, options?: AdminCallOptions): Promise<Map<string, string>> {
    return this.run(options, (call) => brokers.getBrokerConfig(this.ctx, call, brokerAddr));
  }

  updateBrokerConfig(
    brokerAddr: string,
    properties: PropertiesInput,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) => brokers.updateBrokerConfig(this.ctx, call, brokerAddr, properties));
  }

  viewBrokerStatsData(
    brokerAddr: string,
    statsName: string,
    statsKey: string,
    options?: AdminCallOptions,
  ): Promise<BrokerStatsData> {
    return this.run(options, (call) =>
      brokers.viewBrokerStatsData(this.ctx, call, brokerAddr, statsName, statsKey),
    );
  }

  cleanExpiredConsumerQueue(clusterName?: string, options?: AdminCallOptions): Promise<boolean> {
    return this.run(options, (call) =>
      this.ctx.onClusterBrokers(clusterName, call, (addr) =>
        brokers.cleanExpiredConsumerQueueByAddr(this.ctx, call, addr),
      ),
    );
  }

  cleanExpiredConsumerQueueByAddr(brokerAddr: string, options?: AdminCallOptions): Promise<boolean> {
    return this.run(options, (call) => brokers.cleanExpiredConsumerQueueByAddr(this.ctx, call, brokerAddr));
  }

  cleanUnusedTopic(clusterName?: string, options?: AdminCallOptions): Promise<boolean> {
    return this.run(options, (call) =>
      this.ctx.onClusterBrokers(clusterName, call, (addr) =>
        brokers.cleanUnusedTopicByAddr(this.ctx, call, addr),
      ),
    );
  }

  cleanUnusedTopicByAddr(brokerAddr: string, options?: AdminCallOptions): Promise<boolean> {
    return this.run(options, (call) => brokers.cleanUnusedTopicByAddr(this.ctx, call, brokerAddr));
  }

  // ----- name servers

  createAndUpdateKvConfig(
    namespace: string,
    key: string,
    value: string,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      namesrv.createAndUpdateKvConfig(this.ctx, call, namespace, key, value),
    );
  }

  deleteKvConfig(namespace: string, key: string, options?: AdminCallOptions): Promise<void> {
    return this.run(options, (call) => namesrv.deleteKvConfig(this.ctx, call, namespace, key));
  }

  getKVConfig(namespace: string, key: string, options?: AdminCallOptions): Promise<string | undefined> {
    return this.run(options, (call) => namesrv.getKVConfig(this.ctx, call, namespace, key));
  }

  getKVListByNamespace(namespace: string, options?: AdminCallOptions): Promise<Map<string, string>> {
    return this.run(options, (call) => namesrv.getKVListByNamespace(this.ctx, call, namespace));
  }

  getNameServerConfig(
    namesrvAddrs?: Iterable<string>,
    options?: AdminCallOptions,
  ): Promise<Map<string, Map<string, string>>> {
    return this.run(options, (call) => namesrv.getNameServerConfig(this.ctx, call, namesrvAddrs));
  }

  updateNameServerConfig(
    properties: PropertiesInput,
    namesrvAddrs?: Iterable<string>,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      namesrv.updateNameServerConfig(this.ctx, call, properties, namesrvAddrs),
    );
  }

  wipeWritePermOfBroker(
    namesrvAddr: string,
    brokerName: string,
    options?: AdminCallOptions,
  ): Promise<number> {
    return this.run(options, (call) =>
      namesrv.wipeWritePermOfBroker(this.ctx, call, namesrvAddr, brokerName),
    );
  }

  addWritePermOfBroker(namesrvAddr: string, brokerName: string, options?: AdminCallOptions): Promise<number> {
    return this.run(options, (call) => namesrv.addWritePermOfBroker(this.ctx, call, namesrvAddr, brokerName));
  }

  // ----- ACL

  createAndUpdatePlainAccessConfig(
    brokerAddr: string,
    config: PlainAccessConfig & { accessKey: string },
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      acl.createAndUpdatePlainAccessConfig(this.ctx, call, brokerAddr, config),
    );
  }

  deletePlainAccessConfig(brokerAddr: string, accessKey: string, options?: AdminCallOptions): Promise<void> {
    return this.run(options, (call) => acl.deletePlainAccessConfig(this.ctx, call, brokerAddr, accessKey));
  }

  updateGlobalWhiteAddrConfig(
    brokerAddr: string,
    globalWhiteAddrs: string,
    aclFileFullPath?: string,
    options?: AdminCallOptions,
  ): Promise<void> {
    return this.run(options, (call) =>
      acl.updateGlobalWhiteAddrConfig(this.ctx, call, brokerAddr, globalWhiteAddrs, aclFileFullPath),
    );
  }

  examineBrokerClusterAclVersionInfo(
    brokerAddr: string,
    options?: AdminCallOptions,
  ): Promise<ClusterAclVersionInfo> {
    return this.run(options, (call) => acl.examineBrokerClusterAclVersionInfo(this.ctx, call, brokerAddr));
  }

  // ----- plumbing

  private running(): MQClientInstance {
    if (this.state !== 'RUNNING' || this.instance === undefined)
      throw new ClientStateError('AdminExt', this.state);
    return this.instance;
  }

  /**
   * Runs one public call: checks the state and the options, then `fn` with the call's timeout
   * (`factor` times the admin's default unless the caller gives one); a throw becomes a rejection.
   */
  private run<T>(
    options: AdminCallOptions | undefined,
    fn: (call: CallOptions) => Promise<T>,
    factor = 1,
  ): Promise<T> {
    try {
      this.running();
      const timeoutMs = options?.timeoutMs ?? this.options.timeoutMillis * factor;
      if (!Number.isFinite(timeoutMs) || timeoutMs <= 0)
        throw new ValidationError(`timeoutMs must be a number > 0, got ${timeoutMs}`, -1);
      return fn({ timeoutMs, signal: options?.signal });
    } catch (error) {
      return Promise.reject(error);
    }
  }
}
