/**
 * The Node.js client (`rocketmq-ts/client`): producers, push, pull and lite pull consumers, messages
 * and errors. It loads no broker, store or name server module (test/unit/package/entry-points).
 */

// Errors a client call can reject with, each with a stable `code` (docs/errors.md).
export { ErrorCode, RemotingCommandError, RocketMQError, ValidationError } from '../common/errors.js';
export type { LogMethod, RocketMQLogger } from '../common/logger-interface.js';
export { Message, MessageExt, type MessageInit } from '../common/message/message.js';
export { MessageQueue } from '../common/message/message-queue.js';
export { ConsumeFromWhere, MessageModel } from '../common/protocol/heartbeat-data.js';
export { AclClientRPCHook, type SessionCredentials } from '../remoting/transport/acl-client-rpc-hook.js';
export {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
  RemotingTooMuchRequestError,
} from '../remoting/transport/errors.js';
export type { TlsClientAuth, TlsClientOptions, TlsMode } from '../remoting/transport/tls-settings.js';
export { type ClientOptions, DEFAULT_CLIENT_CONFIG } from './client-config.js';
export type { ConsumeMessageContext, ConsumeMessageHook } from './consumer/consume/consume-hooks.js';
export {
  type ConsumeConcurrentlyContext,
  ConsumeConcurrentlyStatus,
  type ConsumeOrderlyContext,
  ConsumeOrderlyStatus,
  ConsumeReturnType,
  type ListenerAnswer,
  type MessageListener,
  type MessageListenerConcurrently,
  type MessageListenerOrderly,
} from './consumer/listener.js';
export {
  createLitePullConsumer,
  type LitePullConsumer,
  type MessageQueueListener,
  type PollOptions,
  type TopicMessageQueueChangeListener,
} from './consumer/lite/lite-pull-consumer.js';
export {
  DEFAULT_LITE_PULL_CONSUMER_OPTIONS,
  type LitePullConsumerOptions,
} from './consumer/lite/lite-pull-consumer-options.js';
export { LocalOffsetFileError } from './consumer/offset/local-file-offset-store.js';
export { type PullResult, PullStatus } from './consumer/pull/pull-result.js';
export {
  createPullConsumer,
  type PullCallOptions,
  type PullConsumer,
} from './consumer/pull-consumer/pull-consumer.js';
export {
  DEFAULT_PULL_CONSUMER_OPTIONS,
  type PullConsumerOptions,
} from './consumer/pull-consumer/pull-consumer-options.js';
export { createPushConsumer, type PushConsumer } from './consumer/push/push-consumer.js';
export {
  DEFAULT_PUSH_CONSUMER_OPTIONS,
  type PushConsumerOptions,
} from './consumer/push/push-consumer-options.js';
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
  type ChannelEvents,
  type CommunicationMode,
  type ConsumeTraceContext,
  type HeartbeatFailureEvent,
  type PullFailureEvent,
  type RebalanceEvent,
  type RouteChangeEvent,
  type SendRetryEvent,
  type SendTraceContext,
  subscribeChannel,
  subscribeTrace,
  type TraceContexts,
  type TraceHandlers,
} from './diagnostics.js';
export {
  ClientErrorCode,
  ClientStateError,
  isRetriableResponseCode,
  MQBrokerError,
  MQClientError,
} from './errors.js';
export { type ClientMetrics, registerClientMetrics } from './metrics/client-metrics.js';
export type { MQAdmin, QueryOptions, QueryResult, ViewMessageOptions } from './mq-admin.js';
export { DEFAULT_CHECK_EXECUTOR_LIMITS } from './producer/check-request-executor.js';
export { type LocalTransactionAnswer, LocalTransactionState } from './producer/local-transaction-state.js';
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
export type { SendOptions, WaitOptions } from './producer/send-options.js';
export { type SendResult, SendStatus } from './producer/send-result.js';
export {
  createTransactionProducer,
  type ExecuteLocalTransaction,
  type TransactionCheckListener,
  type TransactionProducer,
  type TransactionProducerOptions,
  type TransactionSendResult,
} from './producer/transaction-producer.js';
