/**
 * The peer of most interop tests: our name server and broker in this process, on ephemeral loopback
 * ports, over a fresh temp directory (the store in `<dir>/data`; the rest of `dir` is the test's, e.g.
 * for client logs). `close()` stops both and removes the directory, unless RMQ_INTEROP_KEEP=1 keeps it
 * to look at, as the harness does with its own.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrokerConfigOverrides } from '../../src/broker/broker-config.js';
import { createLogger } from '../../src/common/logger.js';
import { type Standalone, startStandalone } from '../../src/embedded/standalone.js';

export interface LoopbackPair extends Standalone {
  readonly dir: string;
}

export async function startLoopbackPair(
  name: string,
  broker: BrokerConfigOverrides = {},
): Promise<LoopbackPair> {
  const dir = mkdtempSync(join(tmpdir(), `rmq-interop-${name}-`));
  const removeDir = (): void => {
    if (process.env.RMQ_INTEROP_KEEP === '1') process.stderr.write(`${name}: kept ${dir}\n`);
    else rmSync(dir, { recursive: true, force: true });
  };
  let pair: Standalone;
  try {
    pair = await startStandalone({
      dataDir: join(dir, 'data'),
      namesrvPort: 0,
      host: '127.0.0.1',
      broker: {
        listenPort: 0,
        brokerIP1: '127.0.0.1',
        brokerIP2: '127.0.0.1',
        brokerName: 'broker-ts',
        ...broker,
      },
      logger: createLogger(name, { level: 'error' }),
    });
  } catch (err) {
    removeDir();
    throw err;
  }
  return {
    dir,
    namesrv: pair.namesrv,
    broker: pair.broker,
    namesrvAddr: pair.namesrvAddr,
    brokerAddr: pair.brokerAddr,
    close: async () => {
      try {
        await pair.close();
      } finally {
        removeDir();
      }
    },
  };
}
