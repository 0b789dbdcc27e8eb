// Written by scripts/entries.mjs from build/src/index.js: do not edit.
import { load } from './load.js';

export const {
  AclClientRPCHook, AllocateMachineRoomNearby, AllocateMessageQueueAveragely,
  AllocateMessageQueueAveragelyByCircle, AllocateMessageQueueByConfig,
  AllocateMessageQueueByMachineRoom, AllocateMessageQueueConsistentHash, BrokerController,
  CHANNEL_NAMES, ClientErrorCode, ClientStateError, ConsumeConcurrentlyStatus, ConsumeFromWhere,
  ConsumeOrderlyStatus, ConsumeReturnType, DEFAULT_ADMIN_OPTIONS, DEFAULT_CHECK_EXECUTOR_LIMITS,
  DEFAULT_CLIENT_CONFIG, DEFAULT_DASHBOARD_OPTIONS, DEFAULT_LITE_PULL_CONSUMER_OPTIONS,
  DEFAULT_PRODUCER_OPTIONS, DEFAULT_PULL_CONSUMER_OPTIONS, DEFAULT_PUSH_CONSUMER_OPTIONS,
  ErrorCode, FilterCompileError, FilterEvaluationError, HttpPortInUseError, LocalOffsetFileError,
  LocalTransactionState, MQBrokerError, MQClientError, Message, MessageExt, MessageModel,
  MessageQueue, MessageType, NamesrvController, PullStatus, RemotingAbortedError,
  RemotingCommandError, RemotingConnectError, RemotingConnectionClosedError, RemotingTimeoutError,
  RemotingTooMuchRequestError, RocketMQError, SegmentFileError, SendStatus, SqlParseError,
  StoreCorruptionError, StoreIOError, ValidationError, createAdmin, createBroker, createDashboard,
  createLitePullConsumer, createNamesrv, createProducer, createPullConsumer, createPushConsumer,
  createTransactionProducer, isRetriableResponseCode, loadBrokerConfig, mountDashboard,
  registerClientMetrics, selectMessageQueueByHash, selectMessageQueueByMachineRoom,
  selectMessageQueueByRandom, startEmbedded, startStandalone, subscribeChannel, subscribeTrace,
} = await load('index.js');
