/**
 * `rocketmq-ts/server`: the broker, the name server and both in one process (`startEmbedded` for
 * tests, `startStandalone` for `rmq start`), with the broker's configuration.
 */
export { type BrokerConfig, type BrokerConfigOverrides, loadBrokerConfig } from './broker/broker-config.js';
export { BrokerController, type CreateBrokerOptions, createBroker } from './broker/broker-controller.js';
// Errors of the servers and their stores a caller of createBroker/startEmbedded can receive (docs/errors.md);
// the client's are exported with the client.
export { HttpPortInUseError } from './common/platform/http-server.js';
export { type Embedded, type EmbeddedOptions, startEmbedded } from './embedded/embedded.js';
export { type Standalone, type StandaloneOptions, startStandalone } from './embedded/standalone.js';
export { FilterCompileError, FilterEvaluationError, SqlParseError } from './filter/errors.js';
export type { NamedFilterFunction, NamedFilterMessage } from './filter/named-filter.js';
export { type CreateNamesrvOptions, createNamesrv, NamesrvController } from './namesrv/index.js';
export type { TlsSystemConfig } from './remoting/transport/tls-system-config.js';
export { SegmentFileError } from './store/segment-files.js';
export { StoreCorruptionError, StoreIOError } from './store/store-error.js';
