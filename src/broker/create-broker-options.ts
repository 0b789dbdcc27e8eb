/** What createBroker takes besides broker.conf's settings. */
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { RocketMQLogger } from '../common/logger-interface.js';
import type { RemotingServerOverrides, TlsSystemConfig } from '../remoting/transport/index.js';
import type { RecoveryProgressListener } from '../store/recovery-progress.js';
import type { BrokerConfigEnvironment, BrokerConfigOverrides } from './broker-config.js';
import type { ConsumerFilterHooks } from './client/default-consumer-ids-change-listener.js';
import type { ConfigFileIO } from './config-manager.js';
import type { BrokerMessageStore } from './message-store.js';
import type { BrokerRequestHandler } from './processor/broker-context.js';

export interface CreateBrokerOptions {
  /** Settings over the defaults (a loadBrokerConfig result's `config` is a complete one). */
  config?: BrokerConfigOverrides;
  /** File properties no setting holds, reported by GET_BROKER_CONFIG. */
  extraProperties?: ReadonlyMap<string, string>;
  /** Where machine-dependent defaults come from (tests fix them). */
  env?: BrokerConfigEnvironment;
  clock?: Clock;
  /** Any pino-style logger; by default JSON lines on stderr at `RMQ_LOG_LEVEL`. */
  logger?: Logger | RocketMQLogger;
  /** Defaults to a DefaultMessageStore over storePathRootDir, owned (loaded, started, shut down) by the broker. */
  messageStore?: BrokerMessageStore;
  /** More handlers (send, pull...), registered after the built-in ones (a code here replaces one). */
  handlers?: ReadonlyMap<number, BrokerRequestHandler>;
  /** Transport settings beyond those broker.conf carries (their `tls` over the one below). */
  remoting?: RemotingServerOverrides;
  /**
   * upstream's TLS system properties (a loadBrokerConfig result's `tls`), under tls.config.file:
   * the server mode of both ports, and with tlsEnable TLS to the name servers.
   */
  tls?: Partial<TlsSystemConfig>;
  /** Replaces the broker's own ConsumerFilterManager as the receiver of the groups' subscriptions. */
  consumerFilter?: ConsumerFilterHooks;
  /** How the metadata files are read and written (tests pass an in-memory one). */
  configFileIO?: ConfigFileIO;
  /** Hears how far the own store's commit-log recovery is (`rmq` prints it on a terminal). */
  onRecoveryProgress?: RecoveryProgressListener;
}
