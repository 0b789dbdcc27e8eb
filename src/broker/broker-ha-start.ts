/**
 * Starting the broker's HA service: HA on listenPort + 1 (with listenPort 0, any free port if that
 * one is taken), as BrokerStartup forces it, bound to haListenHost or else brokerIP2, and only where
 * the role needs it (haListenerNeeded); a slave with haMasterAddress (upstream: 6 characters or
 * more) follows that address, any other the one its registration returns.
 */
import { RocketMQError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import type { HAService, HATransport } from '../store/ha/ha-service.js';
import type { BrokerConfig } from './broker-config.js';
import { haListenerNeeded } from './broker-config-ha.js';

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** True when a slave follows the master its registration names (no fixed haMasterAddress). */
export function followsRegisteredMaster(config: BrokerConfig): boolean {
  const fixed = config.haMasterAddress;
  return config.brokerRole === 'SLAVE' && (fixed === undefined || fixed.length < 6);
}

/** Starts `ha`; the HA port it listens on, undefined when the role opens none. */
export async function startBrokerHA(
  ha: HAService,
  transport: HATransport,
  config: BrokerConfig,
  listenPort: number,
  logger: Logger,
): Promise<number | undefined> {
  ha.secure(transport);
  let haPort: number | undefined;
  if (!haListenerNeeded(config)) {
    await ha.start();
    logger.info('HA port not opened: an ASYNC_MASTER with totalReplicas=1 expects no slave');
  } else {
    const host = config.haListenHost ?? config.brokerIP2;
    try {
      haPort = await ha.start({ port: listenPort + 1, host });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // A port in use keeps its error (the CLI names the port); any other says what to set.
      if (config.listenPort !== 0 && code === 'EADDRINUSE') throw error;
      // listenPort 0 (tests) took a free port whose neighbour may be taken: any free port then.
      if (code !== 'EADDRINUSE') {
        throw new RocketMQError(
          `HA port ${host}:${listenPort + 1} cannot listen (${describe(error)}); haListenHost names the address to bind when brokerIP2 is not one of this host's`,
          1,
          { cause: error },
        );
      }
      haPort = await ha.start({ port: 0, host });
      logger.warn('listenPort + 1 is taken: HA listens on another port', { haPort });
    }
  }
  const fixed = config.haMasterAddress;
  if (config.brokerRole === 'SLAVE' && fixed !== undefined && fixed.length >= 6) {
    ha.updateMasterAddress(fixed);
  }
  return haPort;
}
