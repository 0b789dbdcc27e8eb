/**
 * The broker's HA (master-slave replication) settings: the MessageStoreConfig keys of the HA service
 * (the store's own defaults hold those the store reads), how they parse and what they must be.
 */
import type { MessageStoreConfig } from '../store/config.js';
import { HA_MAX_FRAME_BODY } from '../store/ha/ha-frame.js';
import { BOOL, type ConfigKeySpec, checkPositive, INT, OPT_STR, ownedBy } from './broker-config-keys.js';

export interface BrokerHaConfig {
  /**
   * HA port: always listenPort + 1, as BrokerStartup forces it (0 with listenPort 0: the bound port
   * + 1, or any free port when that one is taken).
   */
  haListenPort: number;
  haMasterAddress: string | undefined;
}

/** The settings of the replication stream between master and slave. */
type HaTransferConfig = Pick<
  MessageStoreConfig,
  | 'haSendHeartbeatInterval'
  | 'haHousekeepingInterval'
  | 'haTransferBatchSize'
  | 'haSlaveFallbehindMax'
  | 'slaveTimeout'
>;

const ms = ownedBy('MessageStoreConfig');

/** The HA keys broker.conf may set, with how each parses. */
export const HA_CONFIG_KEYS: {
  readonly [K in keyof BrokerHaConfig | keyof HaTransferConfig | 'haAllowResetSlave']: ConfigKeySpec;
} = {
  haListenPort: ms(INT),
  haMasterAddress: ms(OPT_STR),
  haSendHeartbeatInterval: ms(INT),
  haHousekeepingInterval: ms(INT),
  haTransferBatchSize: ms(INT),
  haSlaveFallbehindMax: ms(INT),
  slaveTimeout: ms(INT),
  haAllowResetSlave: { kind: BOOL, owner: 'rocketmq-ts' },
};

export const DEFAULT_HA_CONFIG: Readonly<BrokerHaConfig> = Object.freeze({
  haListenPort: 10912,
  haMasterAddress: undefined,
});

/**
 * The HA port BrokerStartup sets whatever was asked for: the listen port + 1 (two brokers on one
 * host then never share it). With listenPort 0 the broker derives it from the bound port.
 */
export function haListenPortFor(listenPort: number): number {
  return listenPort === 0 ? 0 : listenPort + 1;
}

export function checkHaListenPort(c: BrokerHaConfig, errors: string[]): void {
  if (!Number.isInteger(c.haListenPort) || c.haListenPort < 0 || c.haListenPort > 65535) {
    errors.push(`haListenPort must be 0..65535, got ${c.haListenPort}`);
  }
}

export function checkHaTransfer(c: HaTransferConfig, errors: string[]): void {
  checkPositive(
    [
      ['haSendHeartbeatInterval', c.haSendHeartbeatInterval],
      ['haHousekeepingInterval', c.haHousekeepingInterval],
      ['haTransferBatchSize', c.haTransferBatchSize],
      ['haSlaveFallbehindMax', c.haSlaveFallbehindMax],
      ['slaveTimeout', c.slaveTimeout],
    ],
    errors,
  );
  // Upstream's slave reads frames into a 4 MiB buffer (ours refuses larger ones): a bigger batch
  // would stall every slave.
  if (c.haTransferBatchSize > HA_MAX_FRAME_BODY) {
    errors.push(`haTransferBatchSize must be at most ${HA_MAX_FRAME_BODY}, got ${c.haTransferBatchSize}`);
  }
}
