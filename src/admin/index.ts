/** The admin API (upstream's DefaultMQAdminExt): createAdmin and what its calls take and give. */
export { createAdmin } from './admin.js';
export { type AdminOptions, DEFAULT_ADMIN_OPTIONS } from './admin-options.js';
export {
  createDashboard,
  type Dashboard,
  type DashboardOptions,
  DEFAULT_DASHBOARD_OPTIONS,
  mountDashboard,
} from './dashboard/index.js';
export type {
  AdminCallOptions,
  BrokerStatsData,
  ClusterAclVersionInfo,
  ClusterInfo,
  ConsumeMessageDirectlyResult,
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
  TopicConfig,
  TopicConfigInput,
  TopicConfigSerializeWrapper,
  TopicList,
  TopicOffset,
  TopicRouteData,
  TopicStatsTable,
} from './mq-admin-ext.js';
