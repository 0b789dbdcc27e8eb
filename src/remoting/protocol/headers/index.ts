/**
 * Every custom header class we implement, the registry the golden-fixture tests iterate over, and
 * which header a request code carries (4.9.8 processors, `decodeCommandCustomHeader` call sites).
 */

import type { AnyHeaderSchema } from '../header-schema.js';
import { RequestCode } from '../request-code.js';
import { AddWritePermOfBrokerRequestHeader } from './add-write-perm-of-broker-request-header.js';
import { AddWritePermOfBrokerResponseHeader } from './add-write-perm-of-broker-response-header.js';
import { CheckTransactionStateRequestHeader } from './check-transaction-state-request-header.js';
import { CloneGroupOffsetRequestHeader } from './clone-group-offset-request-header.js';
import { ConsumeMessageDirectlyResultRequestHeader } from './consume-message-directly-result-request-header.js';
import { ConsumerSendMsgBackRequestHeader } from './consumer-send-msg-back-request-header.js';
import { CreateTopicRequestHeader } from './create-topic-request-header.js';
import { DeleteKVConfigRequestHeader } from './delete-kv-config-request-header.js';
import { DeleteSubscriptionGroupRequestHeader } from './delete-subscription-group-request-header.js';
import { DeleteTopicFromNamesrvRequestHeader } from './delete-topic-from-namesrv-request-header.js';
import { DeleteTopicRequestHeader } from './delete-topic-request-header.js';
import { EndTransactionRequestHeader } from './end-transaction-request-header.js';
import { GetBrokerConfigResponseHeader } from './get-broker-config-response-header.js';
import { GetConsumeStatsInBrokerHeader } from './get-consume-stats-in-broker-header.js';
import { GetConsumeStatsRequestHeader } from './get-consume-stats-request-header.js';
import { GetConsumerConnectionListRequestHeader } from './get-consumer-connection-list-request-header.js';
import { GetConsumerListByGroupRequestHeader } from './get-consumer-list-by-group-request-header.js';
import { GetConsumerRunningInfoRequestHeader } from './get-consumer-running-info-request-header.js';
import { GetConsumerStatusRequestHeader } from './get-consumer-status-request-header.js';
import { GetEarliestMsgStoretimeRequestHeader } from './get-earliest-msg-storetime-request-header.js';
import { GetEarliestMsgStoretimeResponseHeader } from './get-earliest-msg-storetime-response-header.js';
import { GetKVConfigRequestHeader } from './get-kv-config-request-header.js';
import { GetKVConfigResponseHeader } from './get-kv-config-response-header.js';
import { GetKVListByNamespaceRequestHeader } from './get-kv-list-by-namespace-request-header.js';
import { GetMaxOffsetRequestHeader } from './get-max-offset-request-header.js';
import { GetMaxOffsetResponseHeader } from './get-max-offset-response-header.js';
import { GetMinOffsetRequestHeader } from './get-min-offset-request-header.js';
import { GetMinOffsetResponseHeader } from './get-min-offset-response-header.js';
import { GetProducerConnectionListRequestHeader } from './get-producer-connection-list-request-header.js';
import { GetRouteInfoRequestHeader } from './get-route-info-request-header.js';
import { GetTopicStatsInfoRequestHeader } from './get-topic-stats-info-request-header.js';
import { GetTopicsByClusterRequestHeader } from './get-topics-by-cluster-request-header.js';
import { NotifyConsumerIdsChangedRequestHeader } from './notify-consumer-ids-changed-request-header.js';
import { PullMessageRequestHeader } from './pull-message-request-header.js';
import { PullMessageResponseHeader } from './pull-message-response-header.js';
import { PutKVConfigRequestHeader } from './put-kv-config-request-header.js';
import { QueryConsumeQueueRequestHeader } from './query-consume-queue-request-header.js';
import { QueryConsumeTimeSpanRequestHeader } from './query-consume-time-span-request-header.js';
import { QueryConsumerOffsetRequestHeader } from './query-consumer-offset-request-header.js';
import { QueryConsumerOffsetResponseHeader } from './query-consumer-offset-response-header.js';
import { QueryCorrectionOffsetHeader } from './query-correction-offset-header.js';
import { QueryDataVersionRequestHeader } from './query-data-version-request-header.js';
import { QueryDataVersionResponseHeader } from './query-data-version-response-header.js';
import { QueryMessageRequestHeader } from './query-message-request-header.js';
import { QueryMessageResponseHeader } from './query-message-response-header.js';
import { QueryTopicConsumeByWhoRequestHeader } from './query-topic-consume-by-who-request-header.js';
import { RegisterBrokerRequestHeader } from './register-broker-request-header.js';
import { RegisterBrokerResponseHeader } from './register-broker-response-header.js';
import { ReplyMessageRequestHeader } from './reply-message-request-header.js';
import { ResetOffsetRequestHeader } from './reset-offset-request-header.js';
import { ResumeCheckHalfMessageRequestHeader } from './resume-check-half-message-request-header.js';
import { SearchOffsetRequestHeader } from './search-offset-request-header.js';
import { SearchOffsetResponseHeader } from './search-offset-response-header.js';
import { SendMessageRequestHeader } from './send-message-request-header.js';
import { SendMessageRequestHeaderV2 } from './send-message-request-header-v2.js';
import { SendMessageResponseHeader } from './send-message-response-header.js';
import { UnRegisterBrokerRequestHeader } from './un-register-broker-request-header.js';
import { UnregisterClientRequestHeader } from './unregister-client-request-header.js';
import { UpdateConsumerOffsetRequestHeader } from './update-consumer-offset-request-header.js';
import { ViewBrokerStatsDataRequestHeader } from './view-broker-stats-data-request-header.js';
import { ViewMessageRequestHeader } from './view-message-request-header.js';
import { WipeWritePermOfBrokerRequestHeader } from './wipe-write-perm-of-broker-request-header.js';
import { WipeWritePermOfBrokerResponseHeader } from './wipe-write-perm-of-broker-response-header.js';

export { AddWritePermOfBrokerRequestHeader } from './add-write-perm-of-broker-request-header.js';
export { AddWritePermOfBrokerResponseHeader } from './add-write-perm-of-broker-response-header.js';
export { CheckTransactionStateRequestHeader } from './check-transaction-state-request-header.js';
export { CloneGroupOffsetRequestHeader } from './clone-group-offset-request-header.js';
export { ConsumeMessageDirectlyResultRequestHeader } from './consume-message-directly-result-request-header.js';
export { ConsumerSendMsgBackRequestHeader } from './consumer-send-msg-back-request-header.js';
export { CreateTopicRequestHeader } from './create-topic-request-header.js';
export { DeleteKVConfigRequestHeader } from './delete-kv-config-request-header.js';
export { DeleteSubscriptionGroupRequestHeader } from './delete-subscription-group-request-header.js';
export { DeleteTopicFromNamesrvRequestHeader } from './delete-topic-from-namesrv-request-header.js';
export { DeleteTopicRequestHeader } from './delete-topic-request-header.js';
export { EndTransactionRequestHeader } from './end-transaction-request-header.js';
export { GetBrokerConfigResponseHeader } from './get-broker-config-response-header.js';
export { GetConsumeStatsInBrokerHeader } from './get-consume-stats-in-broker-header.js';
export { GetConsumeStatsRequestHeader } from './get-consume-stats-request-header.js';
export { GetConsumerConnectionListRequestHeader } from './get-consumer-connection-list-request-header.js';
export { GetConsumerListByGroupRequestHeader } from './get-consumer-list-by-group-request-header.js';
export { GetConsumerRunningInfoRequestHeader } from './get-consumer-running-info-request-header.js';
export { GetConsumerStatusRequestHeader } from './get-consumer-status-request-header.js';
export { GetEarliestMsgStoretimeRequestHeader } from './get-earliest-msg-storetime-request-header.js';
export { GetEarliestMsgStoretimeResponseHeader } from './get-earliest-msg-storetime-response-header.js';
export { GetKVConfigRequestHeader } from './get-kv-config-request-header.js';
export { GetKVConfigResponseHeader } from './get-kv-config-response-header.js';
export { GetKVListByNamespaceRequestHeader } from './get-kv-list-by-namespace-request-header.js';
export { GetMaxOffsetRequestHeader } from './get-max-offset-request-header.js';
export { GetMaxOffsetResponseHeader } from './get-max-offset-response-header.js';
export { GetMinOffsetRequestHeader } from './get-min-offset-request-header.js';
export { GetMinOffsetResponseHeader } from './get-min-offset-response-header.js';
export { GetProducerConnectionListRequestHeader } from './get-producer-connection-list-request-header.js';
export { GetRouteInfoRequestHeader } from './get-route-info-request-header.js';
export { GetTopicStatsInfoRequestHeader } from './get-topic-stats-info-request-header.js';
export { GetTopicsByClusterRequestHeader } from './get-topics-by-cluster-request-header.js';
export { NotifyConsumerIdsChangedRequestHeader } from './notify-consumer-ids-changed-request-header.js';
export {
  HEADER_PACKAGE,
  NAMESRV_HEADER_PACKAGE,
  RPC_REQUEST_HEADER_CLASS,
  RPC_REQUEST_HEADER_FIELDS,
} from './packages.js';
export { PullMessageRequestHeader } from './pull-message-request-header.js';
export { PullMessageResponseHeader } from './pull-message-response-header.js';
export { PutKVConfigRequestHeader } from './put-kv-config-request-header.js';
export { QueryConsumeQueueRequestHeader } from './query-consume-queue-request-header.js';
export { QueryConsumeTimeSpanRequestHeader } from './query-consume-time-span-request-header.js';
export { QueryConsumerOffsetRequestHeader } from './query-consumer-offset-request-header.js';
export { QueryConsumerOffsetResponseHeader } from './query-consumer-offset-response-header.js';
export { QueryCorrectionOffsetHeader } from './query-correction-offset-header.js';
export { QueryDataVersionRequestHeader } from './query-data-version-request-header.js';
export { QueryDataVersionResponseHeader } from './query-data-version-response-header.js';
export { QueryMessageRequestHeader } from './query-message-request-header.js';
export { QueryMessageResponseHeader } from './query-message-response-header.js';
export { QueryTopicConsumeByWhoRequestHeader } from './query-topic-consume-by-who-request-header.js';
export { RegisterBrokerRequestHeader } from './register-broker-request-header.js';
export { RegisterBrokerResponseHeader } from './register-broker-response-header.js';
export { ReplyMessageRequestHeader } from './reply-message-request-header.js';
export { ResetOffsetRequestHeader } from './reset-offset-request-header.js';
export { ResumeCheckHalfMessageRequestHeader } from './resume-check-half-message-request-header.js';
export { SearchOffsetRequestHeader } from './search-offset-request-header.js';
export { SearchOffsetResponseHeader } from './search-offset-response-header.js';
export {
  createSendMessageRequestHeaderV1,
  createSendMessageRequestHeaderV2,
} from './send-message-converters.js';
export { SendMessageRequestHeader } from './send-message-request-header.js';
export { SendMessageRequestHeaderV2 } from './send-message-request-header-v2.js';
export { SendMessageResponseHeader } from './send-message-response-header.js';
export { UnRegisterBrokerRequestHeader } from './un-register-broker-request-header.js';
export { UnregisterClientRequestHeader } from './unregister-client-request-header.js';
export { UpdateConsumerOffsetRequestHeader } from './update-consumer-offset-request-header.js';
export { ViewBrokerStatsDataRequestHeader } from './view-broker-stats-data-request-header.js';
export { ViewMessageRequestHeader } from './view-message-request-header.js';
export { WipeWritePermOfBrokerRequestHeader } from './wipe-write-perm-of-broker-request-header.js';
export { WipeWritePermOfBrokerResponseHeader } from './wipe-write-perm-of-broker-response-header.js';

/** Every header schema by Java simple class name. */
export const headerSchemas = {
  AddWritePermOfBrokerRequestHeader,
  AddWritePermOfBrokerResponseHeader,
  CheckTransactionStateRequestHeader,
  CloneGroupOffsetRequestHeader,
  ConsumeMessageDirectlyResultRequestHeader,
  ConsumerSendMsgBackRequestHeader,
  CreateTopicRequestHeader,
  DeleteKVConfigRequestHeader,
  DeleteSubscriptionGroupRequestHeader,
  DeleteTopicFromNamesrvRequestHeader,
  DeleteTopicRequestHeader,
  EndTransactionRequestHeader,
  GetBrokerConfigResponseHeader,
  GetConsumeStatsInBrokerHeader,
  GetConsumeStatsRequestHeader,
  GetConsumerConnectionListRequestHeader,
  GetConsumerListByGroupRequestHeader,
  GetConsumerRunningInfoRequestHeader,
  GetConsumerStatusRequestHeader,
  GetEarliestMsgStoretimeRequestHeader,
  GetEarliestMsgStoretimeResponseHeader,
  GetKVConfigRequestHeader,
  GetKVConfigResponseHeader,
  GetKVListByNamespaceRequestHeader,
  GetMaxOffsetRequestHeader,
  GetMaxOffsetResponseHeader,
  GetMinOffsetRequestHeader,
  GetMinOffsetResponseHeader,
  GetProducerConnectionListRequestHeader,
  GetRouteInfoRequestHeader,
  GetTopicStatsInfoRequestHeader,
  GetTopicsByClusterRequestHeader,
  NotifyConsumerIdsChangedRequestHeader,
  PullMessageRequestHeader,
  PullMessageResponseHeader,
  PutKVConfigRequestHeader,
  QueryConsumeQueueRequestHeader,
  QueryConsumeTimeSpanRequestHeader,
  QueryConsumerOffsetRequestHeader,
  QueryConsumerOffsetResponseHeader,
  QueryCorrectionOffsetHeader,
  QueryDataVersionRequestHeader,
  QueryDataVersionResponseHeader,
  QueryMessageRequestHeader,
  QueryMessageResponseHeader,
  QueryTopicConsumeByWhoRequestHeader,
  RegisterBrokerRequestHeader,
  RegisterBrokerResponseHeader,
  ReplyMessageRequestHeader,
  ResetOffsetRequestHeader,
  ResumeCheckHalfMessageRequestHeader,
  SearchOffsetRequestHeader,
  SearchOffsetResponseHeader,
  SendMessageRequestHeader,
  SendMessageRequestHeaderV2,
  SendMessageResponseHeader,
  UnRegisterBrokerRequestHeader,
  UnregisterClientRequestHeader,
  UpdateConsumerOffsetRequestHeader,
  ViewBrokerStatsDataRequestHeader,
  ViewMessageRequestHeader,
  WipeWritePermOfBrokerRequestHeader,
  WipeWritePermOfBrokerResponseHeader,
} as const satisfies Readonly<Record<string, AnyHeaderSchema>>;

export type HeaderSchemaName = keyof typeof headerSchemas;

/** The header a request of each code carries; codes without a header (HEART_BEAT, LOCK_BATCH_MQ...) are absent. */
export const requestHeaderByCode: ReadonlyMap<number, AnyHeaderSchema> = new Map<number, AnyHeaderSchema>([
  [RequestCode.SEND_MESSAGE, SendMessageRequestHeader],
  [RequestCode.PULL_MESSAGE, PullMessageRequestHeader],
  [RequestCode.QUERY_MESSAGE, QueryMessageRequestHeader],
  [RequestCode.QUERY_CONSUMER_OFFSET, QueryConsumerOffsetRequestHeader],
  [RequestCode.UPDATE_CONSUMER_OFFSET, UpdateConsumerOffsetRequestHeader],
  [RequestCode.UPDATE_AND_CREATE_TOPIC, CreateTopicRequestHeader],
  [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, SearchOffsetRequestHeader],
  [RequestCode.GET_MAX_OFFSET, GetMaxOffsetRequestHeader],
  [RequestCode.GET_MIN_OFFSET, GetMinOffsetRequestHeader],
  [RequestCode.GET_EARLIEST_MSG_STORETIME, GetEarliestMsgStoretimeRequestHeader],
  [RequestCode.VIEW_MESSAGE_BY_ID, ViewMessageRequestHeader],
  [RequestCode.UNREGISTER_CLIENT, UnregisterClientRequestHeader],
  [RequestCode.CONSUMER_SEND_MSG_BACK, ConsumerSendMsgBackRequestHeader],
  [RequestCode.END_TRANSACTION, EndTransactionRequestHeader],
  [RequestCode.GET_CONSUMER_LIST_BY_GROUP, GetConsumerListByGroupRequestHeader],
  [RequestCode.CHECK_TRANSACTION_STATE, CheckTransactionStateRequestHeader],
  [RequestCode.NOTIFY_CONSUMER_IDS_CHANGED, NotifyConsumerIdsChangedRequestHeader],
  [RequestCode.PUT_KV_CONFIG, PutKVConfigRequestHeader],
  [RequestCode.GET_KV_CONFIG, GetKVConfigRequestHeader],
  [RequestCode.DELETE_KV_CONFIG, DeleteKVConfigRequestHeader],
  [RequestCode.REGISTER_BROKER, RegisterBrokerRequestHeader],
  [RequestCode.UNREGISTER_BROKER, UnRegisterBrokerRequestHeader],
  [RequestCode.GET_ROUTEINFO_BY_TOPIC, GetRouteInfoRequestHeader],
  [RequestCode.GET_TOPIC_STATS_INFO, GetTopicStatsInfoRequestHeader],
  [RequestCode.GET_CONSUMER_CONNECTION_LIST, GetConsumerConnectionListRequestHeader],
  [RequestCode.GET_PRODUCER_CONNECTION_LIST, GetProducerConnectionListRequestHeader],
  [RequestCode.WIPE_WRITE_PERM_OF_BROKER, WipeWritePermOfBrokerRequestHeader],
  [RequestCode.DELETE_SUBSCRIPTIONGROUP, DeleteSubscriptionGroupRequestHeader],
  [RequestCode.GET_CONSUME_STATS, GetConsumeStatsRequestHeader],
  [RequestCode.DELETE_TOPIC_IN_BROKER, DeleteTopicRequestHeader],
  [RequestCode.DELETE_TOPIC_IN_NAMESRV, DeleteTopicFromNamesrvRequestHeader],
  [RequestCode.GET_KVLIST_BY_NAMESPACE, GetKVListByNamespaceRequestHeader],
  [RequestCode.RESET_CONSUMER_CLIENT_OFFSET, ResetOffsetRequestHeader],
  [RequestCode.GET_CONSUMER_STATUS_FROM_CLIENT, GetConsumerStatusRequestHeader],
  [RequestCode.INVOKE_BROKER_TO_RESET_OFFSET, ResetOffsetRequestHeader],
  [RequestCode.INVOKE_BROKER_TO_GET_CONSUMER_STATUS, GetConsumerStatusRequestHeader],
  [RequestCode.GET_TOPICS_BY_CLUSTER, GetTopicsByClusterRequestHeader],
  [RequestCode.QUERY_TOPIC_CONSUME_BY_WHO, QueryTopicConsumeByWhoRequestHeader],
  [RequestCode.QUERY_CONSUME_TIME_SPAN, QueryConsumeTimeSpanRequestHeader],
  [RequestCode.GET_CONSUMER_RUNNING_INFO, GetConsumerRunningInfoRequestHeader],
  [RequestCode.QUERY_CORRECTION_OFFSET, QueryCorrectionOffsetHeader],
  [RequestCode.CONSUME_MESSAGE_DIRECTLY, ConsumeMessageDirectlyResultRequestHeader],
  [RequestCode.SEND_MESSAGE_V2, SendMessageRequestHeaderV2],
  [RequestCode.CLONE_GROUP_OFFSET, CloneGroupOffsetRequestHeader],
  [RequestCode.VIEW_BROKER_STATS_DATA, ViewBrokerStatsDataRequestHeader],
  [RequestCode.GET_BROKER_CONSUME_STATS, GetConsumeStatsInBrokerHeader],
  [RequestCode.SEND_BATCH_MESSAGE, SendMessageRequestHeaderV2],
  [RequestCode.QUERY_CONSUME_QUEUE, QueryConsumeQueueRequestHeader],
  [RequestCode.QUERY_DATA_VERSION, QueryDataVersionRequestHeader],
  [RequestCode.RESUME_CHECK_HALF_MESSAGE, ResumeCheckHalfMessageRequestHeader],
  [RequestCode.SEND_REPLY_MESSAGE, SendMessageRequestHeader],
  [RequestCode.SEND_REPLY_MESSAGE_V2, SendMessageRequestHeaderV2],
  [RequestCode.PUSH_REPLY_MESSAGE_TO_CLIENT, ReplyMessageRequestHeader],
  [RequestCode.ADD_WRITE_PERM_OF_BROKER, AddWritePermOfBrokerRequestHeader],
]);

/** The header a successful response to each request code carries, where it has one. */
export const responseHeaderByCode: ReadonlyMap<number, AnyHeaderSchema> = new Map<number, AnyHeaderSchema>([
  [RequestCode.SEND_MESSAGE, SendMessageResponseHeader],
  [RequestCode.SEND_MESSAGE_V2, SendMessageResponseHeader],
  [RequestCode.SEND_BATCH_MESSAGE, SendMessageResponseHeader],
  [RequestCode.SEND_REPLY_MESSAGE, SendMessageResponseHeader],
  [RequestCode.SEND_REPLY_MESSAGE_V2, SendMessageResponseHeader],
  [RequestCode.PULL_MESSAGE, PullMessageResponseHeader],
  [RequestCode.QUERY_MESSAGE, QueryMessageResponseHeader],
  [RequestCode.QUERY_CONSUMER_OFFSET, QueryConsumerOffsetResponseHeader],
  [RequestCode.GET_BROKER_CONFIG, GetBrokerConfigResponseHeader],
  [RequestCode.SEARCH_OFFSET_BY_TIMESTAMP, SearchOffsetResponseHeader],
  [RequestCode.GET_MAX_OFFSET, GetMaxOffsetResponseHeader],
  [RequestCode.GET_MIN_OFFSET, GetMinOffsetResponseHeader],
  [RequestCode.GET_EARLIEST_MSG_STORETIME, GetEarliestMsgStoretimeResponseHeader],
  [RequestCode.GET_KV_CONFIG, GetKVConfigResponseHeader],
  [RequestCode.REGISTER_BROKER, RegisterBrokerResponseHeader],
  [RequestCode.WIPE_WRITE_PERM_OF_BROKER, WipeWritePermOfBrokerResponseHeader],
  [RequestCode.QUERY_DATA_VERSION, QueryDataVersionResponseHeader],
  [RequestCode.ADD_WRITE_PERM_OF_BROKER, AddWritePermOfBrokerResponseHeader],
]);
