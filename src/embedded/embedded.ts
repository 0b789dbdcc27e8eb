/**
 * startEmbedded: a name server and a broker on ephemeral loopback ports, for a user's own tests.
 * Without `storeDir` the data lives in a fresh temporary directory removed by close().
 */
import '../common/async-dispose.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../broker/broker-config.js';
import { adoptLogger, type Logger } from '../common/logger.js';
import type { RocketMQLogger } from '../common/logger-interface.js';
import type { TlsSystemConfig } from '../remoting/transport/tls-system-config.js';
import { startStandalone } from './standalone.js';

export interface EmbeddedOptions extends BrokerConfigOverrides {
  /** Where the store and metadata go; kept after close(). Default: a temp dir, removed by close(). */
  storeDir?: string;
  /** Defaults to a logger that prints nothing below `error`. */
  logger?: Logger | RocketMQLogger;
  /** TLS of the name server and the broker (see StandaloneOptions.tls). */
  tls?: Partial<TlsSystemConfig>;
}

export interface Embedded {
  /** `127.0.0.1:<port>`: the namesrvAddr for clients. */
  readonly namesrvAddr: string;
  /** `127.0.0.1:<port>`: the broker's address. */
  readonly brokerAddr: string;
  /** The data directory in use. */
  readonly storeDir: string;
  /** Stops both (the broker flushes and unregisters first); removes a temporary store. Idempotent. */
  close(): Promise<void>;
  /** `await using`: calls close() when the scope ends. */
  [Symbol.asyncDispose](): Promise<void>;
}

export async function startEmbedded(options: EmbeddedOptions = {}): Promise<Embedded> {
  const { storeDir, logger, tls, ...settings } = options;
  const temporary = storeDir === undefined;
  const dataDir = storeDir ?? mkdtempSync(join(tmpdir(), 'rocketmq-ts-'));
  try {
    const pair = await startStandalone({
      dataDir,
      namesrvPort: 0,
      host: '127.0.0.1',
      broker: {
        brokerIP1: '127.0.0.1',
        brokerIP2: '127.0.0.1',
        ...settings,
        listenPort: settings.listenPort ?? 0,
      },
      logger: adoptLogger(logger, 'rmq', 'error'),
      ...(tls === undefined ? {} : { tls }),
    });
    let closing: Promise<void> | undefined;
    const close = (): Promise<void> => {
      closing ??= pair.close().finally(() => {
        if (temporary) rmSync(dataDir, { recursive: true, force: true });
      });
      return closing;
    };
    return {
      namesrvAddr: pair.namesrvAddr,
      brokerAddr: pair.brokerAddr,
      storeDir: dataDir,
      close,
      [Symbol.asyncDispose]: close,
    };
  } catch (error) {
    if (temporary) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
