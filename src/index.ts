/**
 * rocketmq-ts: Apache RocketMQ for Node.js (clients, name server, broker), wire-compatible with the
 * official Java implementation. The programmatic entry points; deeper parts are importable by path.
 */
export * from './admin/index.js';
export { type BrokerConfig, type BrokerConfigOverrides, loadBrokerConfig } from './broker/broker-config.js';
export { BrokerController, type CreateBrokerOptions, createBroker } from './broker/broker-controller.js';
export * from './client/index.js';
export { RocketMQError, ValidationError } from './common/errors.js';
export { Message, MessageExt, type MessageInit } from './common/message/message.js';
export { MessageQueue } from './common/message/message-queue.js';
// Errors of the servers and their stores a caller of createBroker/startEmbedded can receive (docs/errors.md);
// the client's are exported with the client.
export { HttpPortInUseError } from './common/platform/http-server.js';
export { type Embedded, type EmbeddedOptions, startEmbedded } from './embedded/embedded.js';
export { type Standalone, type StandaloneOptions, startStandalone } from './embedded/standalone.js';
export { FilterCompileError, FilterEvaluationError, SqlParseError } from './filter/errors.js';
export { type CreateNamesrvOptions, createNamesrv, NamesrvController } from './namesrv/index.js';
export {
  RemotingAbortedError,
  RemotingConnectError,
  RemotingConnectionClosedError,
  RemotingTimeoutError,
} from './remoting/transport/errors.js';
export type { TlsClientAuth, TlsClientOptions, TlsMode } from './remoting/transport/tls-settings.js';
export type { TlsSystemConfig } from './remoting/transport/tls-system-config.js';
export { SegmentFileError } from './store/segment-files.js';
export { StoreCorruptionError, StoreIOError } from './store/store-error.js';
