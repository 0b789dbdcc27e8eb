/**
 * rocketmq-ts: Apache RocketMQ's name server and broker for Node.js, wire-compatible with the
 * official clients. The programmatic entry points; deeper parts are importable by path.
 */
export { type BrokerConfig, type BrokerConfigOverrides, loadBrokerConfig } from './broker/broker-config.js';
export { BrokerController, type CreateBrokerOptions, createBroker } from './broker/broker-controller.js';
export { type Embedded, type EmbeddedOptions, startEmbedded } from './embedded/embedded.js';
export { type Standalone, type StandaloneOptions, startStandalone } from './embedded/standalone.js';
export { type CreateNamesrvOptions, createNamesrv, NamesrvController } from './namesrv/index.js';
