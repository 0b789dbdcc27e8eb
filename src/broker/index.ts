export {
  BROKER_CONFIG_KEYS,
  type BrokerConfig,
  type BrokerConfigEnvironment,
  type BrokerConfigFileKey,
  type BrokerConfigOverrides,
  type BrokerRole,
  brokerConfig,
  brokerConfigProperties,
  type ConfigKind,
  DEFAULT_BROKER_CONFIG,
  defaultBrokerConfig,
  formatConfigValue,
  type LoadBrokerConfigOptions,
  type LoadedBrokerConfig,
  loadBrokerConfig,
  namesrvAddressList,
  parseConfigValue,
  systemEnvironment,
  toMessageStoreConfig,
  UPSTREAM_IGNORED_KEYS,
  validateBrokerConfig,
} from './broker-config.js';
export {
  BrokerConfiguration,
  type ConfigUpdateResult,
  UPDATABLE_BROKER_CONFIG,
} from './broker-configuration.js';
export {
  type BrokerAddresses,
  BrokerController,
  type CreateBrokerOptions,
  createBroker,
  REGISTER_PERIOD_MAX,
  REGISTER_PERIOD_MIN,
} from './broker-controller.js';
export { BrokerPathConfig } from './broker-path-config.js';
export type { ClientChannel, ClientChannelInfo } from './client/client-channel-info.js';
export { ClientHousekeepingService } from './client/client-housekeeping-service.js';
export { ConsumerGroupInfo } from './client/consumer-group-info.js';
export type { ConsumerGroupEvent, ConsumerIdsChangeListener } from './client/consumer-ids-change-listener.js';
export { ConsumerManager } from './client/consumer-manager.js';
export {
  type ConsumerFilterHooks,
  DefaultConsumerIdsChangeListener,
} from './client/default-consumer-ids-change-listener.js';
export { ProducerManager } from './client/producer-manager.js';
export {
  REBALANCE_LOCK_MAX_LIVE_TIME,
  RebalanceLockManager,
  type RebalanceLockManagerOptions,
} from './client/rebalance-lock-manager.js';
export { type ConfigFileIO, ConfigManager, NODE_CONFIG_FILE_IO } from './config-manager.js';
export {
  ManyPullRequest,
  NotifyMessageArrivingListener,
  PullRequest,
  PullRequestHoldService,
  type PullRequestHoldServiceOptions,
  type PullResponder,
} from './longpolling/index.js';
export type { BrokerMessageStore } from './message-store.js';
export { ConsumerOffsetManager } from './offset/consumer-offset-manager.js';
export { BrokerOuterAPI, type RegisterBrokerResult } from './out/broker-outer-api.js';
export {
  type BrokerContext,
  type BrokerRequestHandler,
  isSlave,
  SLAVE_REMARK,
} from './processor/broker-context.js';
export {
  BROKER_REQUEST_HANDLERS,
  BrokerRequestProcessor,
  NOT_ON_VIP_CHANNEL,
  registerBrokerProcessors,
} from './processor/processor-table.js';
export { executeRequestWhenWakeup, processPullRequest, pullMessage } from './processor/pull-message.js';
export { BrokerStats } from './stats/broker-stats.js';
export { BrokerStatsManager } from './stats/broker-stats-manager.js';
export { Stats } from './stats/stats-names.js';
export { SubscriptionGroupManager, validateGroup } from './subscription/subscription-group-manager.js';
export {
  MAX_TOPIC_QUEUE_NUMS,
  SCHEDULE_TOPIC_QUEUE_NUM,
  TopicConfigManager,
} from './topic/topic-config-manager.js';
