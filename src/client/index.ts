/** The Node.js client: producers now; consumers build on the same client instance. */

// Errors a client call can reject with, each with a stable `code` (docs/errors.md).
export { ErrorCode, RemotingCommandError, RocketMQError, ValidationError } from '../common/errors.js';
export type { LogMethod, RocketMQLogger } from '../common/logger-interface.js';
export { ConsumeFromWhere, MessageModel } from '../common/protocol/heartbeat-data.js';
export { AclClientRPCHook, type SessionCredentials } from '../remoting/transport/acl-client-rpc-hook.js';
export {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
  RemotingTooMuchRequestError,
} from '../remoting/transport/errors.js';
export { type ClientOptions, DEFAULT_CLIENT_CONFIG } from './client-config.js';
export type { ConsumeMessageContext, ConsumeMessageHook } from './consumer/consume/consume-hooks.js';
export {
  type ConsumeConcurrentlyContext,
  ConsumeConcurrentlyStatus,
  type ConsumeOrderlyContext,
  ConsumeOrderlyStatus,
  ConsumeReturnType,
  type MessageListener,
  type MessageListenerConcurrently,
  type MessageListenerOrderly,
} from './consumer/listener.js';
export type { MessageQueueListener } from './consumer/lite/default-lite-pull-consumer-impl.js';
export {
  createLitePullConsumer,
  type LitePullConsumer,
  type PollOptions,
} from './consumer/lite/lite-pull-consumer.js';
export {
  DEFAULT_LITE_PULL_CONSUMER_OPTIONS,
  type LitePullConsumerOptions,
} from './consumer/lite/lite-pull-consumer-options.js';
export type { TopicMessageQueueChangeListener } from './consumer/lite/message-queue-change-monitor.js';
export { LocalOffsetFileError } from './consumer/offset/local-file-offset-store.js';
export { type PullResult, PullStatus } from './consumer/pull/pull-result.js';
export type { PullCallOptions } from './consumer/pull-consumer/default-mq-pull-consumer-impl.js';
export { createPullConsumer, type PullConsumer } from './consumer/pull-consumer/pull-consumer.js';
export {
  DEFAULT_PULL_CONSUMER_OPTIONS,
  type PullConsumerOptions,
} from './consumer/pull-consumer/pull-consumer-options.js';
export { createPushConsumer, type PushConsumer } from './consumer/push-consumer.js';
export { DEFAULT_PUSH_CONSUMER_OPTIONS, type PushConsumerOptions } from './consumer/push-consumer-options.js';
export {
  AllocateMachineRoomNearby,
  AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle,
  AllocateMessageQueueByConfig,
  AllocateMessageQueueByMachineRoom,
  AllocateMessageQueueConsistentHash,
  type AllocateMessageQueueStrategy,
  type MachineRoomResolver,
} from './consumer/rebalance/allocate/index.js';
export type { SubscriptionExpression } from './consumer/subscription-expression.js';
export {
  CHANNEL_NAMES,
  type CommunicationMode,
  type ConsumeTraceContext,
  type HeartbeatFailureEvent,
  type PullFailureEvent,
  type RebalanceEvent,
  type RouteChangeEvent,
  type SendRetryEvent,
  type SendTraceContext,
} from './diagnostics.js';
export {
  ClientErrorCode,
  ClientStateError,
  isRetriableResponseCode,
  MQBrokerError,
  MQClientError,
} from './errors.js';
export { type SendResult, SendStatus } from './instance/requests/send-message.js';
export { type ClientMetrics, registerClientMetrics } from './metrics/client-metrics.js';
export type { MQAdmin, QueryOptions, QueryResult, ViewMessageOptions } from './mq-admin.js';
export { DEFAULT_CHECK_EXECUTOR_LIMITS } from './producer/check-request-executor.js';
export type { SendOptions, WaitOptions } from './producer/default-mq-producer-impl.js';
export { LocalTransactionState } from './producer/local-transaction-state.js';
export type { MessageInput } from './producer/message-input.js';
export {
  type MessageQueueSelector,
  selectMessageQueueByHash,
  selectMessageQueueByMachineRoom,
  selectMessageQueueByRandom,
} from './producer/message-queue-selector.js';
export { createProducer, type OnewayOptions, type Producer } from './producer/producer.js';
export { DEFAULT_PRODUCER_OPTIONS, type ProducerOptions } from './producer/producer-options.js';
export { MessageType, type SendMessageContext, type SendMessageHook } from './producer/send-hooks.js';
export {
  createTransactionProducer,
  type ExecuteLocalTransaction,
  type TransactionCheckListener,
  type TransactionProducer,
  type TransactionProducerOptions,
  type TransactionSendResult,
} from './producer/transaction-producer.js';
