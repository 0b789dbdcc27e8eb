/**
 * The broker's HA (master-slave replication) settings: the MessageStoreConfig keys of the HA service
 * (the store's own defaults hold those the store reads), how they parse and what they must be.
 */
import type { MessageStoreConfig } from '../store/config.js';
import { HA_MAX_FRAME_BODY } from '../store/ha/ha-frame.js';
import { BOOL, type ConfigKeySpec, checkPositive, INT, OPT_STR, ownedBy } from './broker-config-keys.js';

/** `haAuthMode`: `acl` signs the HA connection with ACL on; `plain` is upstream's wire whatever ACL says. */
export type HaAuthMode = 'acl' | 'plain';

export interface BrokerHaConfig {
  /**
   * HA port: always listenPort + 1, as BrokerStartup forces it (0 with listenPort 0: the bound port
   * + 1, or any free port when that one is taken).
   */
  haListenPort: number;
  haMasterAddress: string | undefined;
  /**
   * Address the HA port binds; unset [default]: brokerIP2, the address the broker registers as its
   * HA address (upstream binds every interface). Ours.
   */
  haListenHost: string | undefined;
  /**
   * Replicas of the broker group, the master included (upstream 5.x's MessageStoreConfig key) [1]:
   * an ASYNC_MASTER opens its HA port only when this is above 1. A SYNC_MASTER and a SLAVE always
   * open it.
   */
  totalReplicas: number;
  /**
   * `acl` [default]: with aclEnable, a slave opens its HA connection with a handshake signed by an
   * admin account (innerClientAuthenticationCredentials on the slave) and the master serves nothing
   * before it has verified one; `plain`: upstream's wire, for official 4.9.x slaves and masters.
   * Ours.
   */
  haAuthMode: HaAuthMode;
  /** How far a handshake's timestamp may be from the master's clock, ms [60000]. Ours. */
  haAuthMaxSkewMillis: number;
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
  haListenHost: { kind: OPT_STR, owner: 'rocketmq-ts' },
  totalReplicas: { kind: INT, owner: 'rocketmq-ts' },
  haAuthMode: { kind: { type: 'enum', values: ['acl', 'plain'] }, owner: 'rocketmq-ts' },
  haAuthMaxSkewMillis: { kind: INT, owner: 'rocketmq-ts' },
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
  haListenHost: undefined,
  totalReplicas: 1,
  haAuthMode: 'acl',
  haAuthMaxSkewMillis: 60_000,
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
  if (!Number.isInteger(c.totalReplicas) || c.totalReplicas < 1) {
    errors.push(`totalReplicas must be an integer >= 1, got ${c.totalReplicas}`);
  }
  if (c.haAuthMode !== 'acl' && c.haAuthMode !== 'plain') {
    errors.push(`haAuthMode must be acl or plain, got ${String(c.haAuthMode)}`);
  }
  checkPositive([['haAuthMaxSkewMillis', c.haAuthMaxSkewMillis]], errors);
}

/**
 * Whether this broker's role needs the HA port: a slave, a SYNC_MASTER (it waits for a slave on every
 * send), or an ASYNC_MASTER told to expect slaves (totalReplicas above 1).
 */
export function haListenerNeeded(c: Pick<BrokerHaConfig, 'totalReplicas'> & { brokerRole: string }): boolean {
  return c.brokerRole === 'SLAVE' || c.brokerRole === 'SYNC_MASTER' || c.totalReplicas > 1;
}

/** Whether the HA connection is signed: ACL on and haAuthMode=acl. */
export function haSigned(c: Pick<BrokerHaConfig, 'haAuthMode'> & { aclEnable: boolean }): boolean {
  return c.aclEnable && c.haAuthMode === 'acl';
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

/** A slave that must sign its HA handshake needs an account to sign it with. */
export function checkHaAuth(
  c: Pick<BrokerHaConfig, 'haAuthMode'> & {
    brokerRole: string;
    aclEnable: boolean;
    innerClientAuthenticationCredentials: string | undefined;
  },
  errors: string[],
): void {
  if (c.brokerRole === 'SLAVE' && haSigned(c) && c.innerClientAuthenticationCredentials === undefined) {
    errors.push(
      'a SLAVE with aclEnable=true and haAuthMode=acl signs its HA handshake with innerClientAuthenticationCredentials (an admin account of the master): set it, or haAuthMode=plain for a master that does not check',
    );
  }
}
