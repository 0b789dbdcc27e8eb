/**
 * A name server and a broker in one process, the broker registered with that name server: what
 * `rmq start` runs and what `startEmbedded` gives a user's test suite. Everything the pair writes
 * (store, metadata, the name server's KV config) lives under one data directory.
 */
import { join, resolve } from 'node:path';
import type { BrokerConfigOverrides } from '../broker/broker-config.js';
import { type BrokerController, createBroker } from '../broker/broker-controller.js';
import { adoptLogger, type Logger } from '../common/logger.js';
import type { RocketMQLogger } from '../common/logger-interface.js';
import { createNamesrv, type NamesrvController } from '../namesrv/index.js';
import type { TlsSystemConfig } from '../remoting/transport/tls-system-config.js';
import type { RecoveryProgressListener } from '../store/recovery-progress.js';

export interface StandaloneOptions {
  /** Root of everything written: the store (storePathRootDir) and `namesrv/kvConfig.json`. */
  dataDir: string;
  /** Name server port [9876]; 0 picks a free one. */
  namesrvPort?: number;
  /** Broker settings (a loaded broker.conf, flags); dataDir and the name server address win. */
  broker?: BrokerConfigOverrides;
  /** broker.conf properties no setting holds, reported by GET_BROKER_CONFIG. */
  brokerExtraProperties?: ReadonlyMap<string, string>;
  /** Address both listen on [all interfaces]. */
  host?: string;
  /**
   * TLS of both (upstream's TLS system properties). The broker reaches its name server with TLS when
   * tlsEnable is set, and by default when tlsMode is enforcing (it could not register otherwise).
   */
  tls?: Partial<TlsSystemConfig>;
  /** Any pino-style logger; by default JSON lines on stderr at `RMQ_LOG_LEVEL`. */
  logger?: Logger | RocketMQLogger;
  /** Hears how far the broker's commit-log recovery is (`rmq start` prints it on a terminal). */
  onRecoveryProgress?: RecoveryProgressListener;
}

export interface Standalone {
  readonly namesrv: NamesrvController;
  readonly broker: BrokerController;
  /** `host:port` of the name server, as clients' namesrvAddr takes it. */
  readonly namesrvAddr: string;
  /** `brokerIP1:port` of the broker, as the name server hands it out. */
  readonly brokerAddr: string;
  /** Stops the broker (flush, persist, unregister) and then the name server. Idempotent. */
  close(): Promise<void>;
}

/** Starts the name server, then the broker pointed at it; a failed broker start stops the name server. */
export async function startStandalone(options: StandaloneOptions): Promise<Standalone> {
  const logger = adoptLogger(options.logger, 'rmq');
  const dataDir = resolve(options.dataDir);
  const host = options.host;
  const namesrv = createNamesrv({
    listenPort: options.namesrvPort ?? 9876,
    kvConfigPath: join(dataDir, 'namesrv', 'kvConfig.json'),
    settings: host === undefined ? {} : { listenHost: host },
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    logger: logger.child('namesrv'),
  });
  const nsAddress = await namesrv.start();
  // A name server bound to every interface is reached on loopback by the broker beside it.
  const nsHost = host === undefined || host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  const namesrvAddr = `${nsHost}:${nsAddress.port}`;
  let broker: BrokerController;
  try {
    broker = createBroker({
      config: {
        ...options.broker,
        ...(host === undefined ? {} : { listenHost: host }),
        storePathRootDir: dataDir,
        namesrvAddr,
      },
      ...(options.brokerExtraProperties === undefined
        ? {}
        : { extraProperties: options.brokerExtraProperties }),
      ...(options.tls === undefined
        ? {}
        : {
            tls: { ...options.tls, tlsEnable: options.tls.tlsEnable ?? options.tls.tlsMode === 'enforcing' },
          }),
      logger: logger.child('broker'),
      ...(options.onRecoveryProgress === undefined ? {} : { onRecoveryProgress: options.onRecoveryProgress }),
    });
    await broker.start();
  } catch (error) {
    await namesrv.shutdown();
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    namesrv,
    broker,
    namesrvAddr,
    brokerAddr: broker.brokerAddr,
    close() {
      closing ??= (async () => {
        try {
          await broker.shutdown();
        } finally {
          await namesrv.shutdown();
        }
      })();
      return closing;
    },
  };
}
