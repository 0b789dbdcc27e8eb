// Written by scripts/entries.mjs from build/src/client/index.js: do not edit.
import { load } from './load.js';

export const {
  AclClientRPCHook, AllocateMachineRoomNearby, AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle, AllocateMessageQueueByConfig,
  AllocateMessageQueueByMachineRoom, AllocateMessageQueueConsistentHash, CHANNEL_NAMES,
  ClientErrorCode, ClientStateError, ConsumeConcurrentlyStatus, ConsumeFromWhere,
  ConsumeOrderlyStatus, ConsumeReturnType, DEFAULT_CHECK_EXECUTOR_LIMITS, DEFAULT_CLIENT_CONFIG,
  DEFAULT_LITE_PULL_CONSUMER_OPTIONS, DEFAULT_PRODUCER_OPTIONS, DEFAULT_PULL_CONSUMER_OPTIONS,
  DEFAULT_PUSH_CONSUMER_OPTIONS, ErrorCode, LocalOffsetFileError, LocalTransactionState,
  MQBrokerError, MQClientError, Message, MessageExt, MessageModel, MessageQueue, MessageType,
  PullStatus, RemotingAbortedError, RemotingCommandError, RemotingConnectError,
  RemotingConnectionClosedError, RemotingTimeoutError, RemotingTooMuchRequestError, RocketMQError,
  SendStatus, ValidationError, createLitePullConsumer, createProducer, createPullConsumer,
  createPushConsumer, createTransactionProducer, isRetriableResponseCode, registerClientMetrics,
  selectMessageQueueByHash, selectMessageQueueByMachineRoom, selectMessageQueueByRandom,
  subscribeChannel, subscribeTrace,
} = await load('client/index.js');
