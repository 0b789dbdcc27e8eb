/**
 * Settings of the POP ack and revive paths: upstream BrokerConfig keys with their 5.5.0 defaults.
 * Decision 2 of the POP design (CK and ACK records written at once, not through the timer store)
 * leaves reviveAckWaitMs without a use: a revive round reads every ack written before it.
 */
import { BOOL, type ConfigKeySpec, INT, LONG, ownedBy } from './broker-config-keys.js';

export interface BrokerPopReviveConfig {
  /** Queues of the revive topic `rmq_sys_REVIVE_LOG_<cluster>`, one revive service each [8]. Read at start. */
  reviveQueueNum: number;
  /** Milliseconds between two rounds of each revive service [1000]. */
  reviveInterval: number;
  /** POP retry topics named `%RETRY%<group>+<topic>` (V2) instead of `%RETRY%<group>_<topic>` [false]. */
  enableRetryTopicV2: boolean;
}

const upstream = ownedBy('BrokerConfig');

export const POP_REVIVE_CONFIG_KEYS: { readonly [K in keyof BrokerPopReviveConfig]: ConfigKeySpec } = {
  reviveQueueNum: upstream(INT),
  reviveInterval: upstream(LONG),
  enableRetryTopicV2: upstream(BOOL),
};

export const DEFAULT_POP_REVIVE_CONFIG: Readonly<BrokerPopReviveConfig> = Object.freeze({
  reviveQueueNum: 8,
  reviveInterval: 1000,
  enableRetryTopicV2: false,
});

export function checkPopReviveConfig(c: BrokerPopReviveConfig, errors: string[]): void {
  if (!Number.isInteger(c.reviveQueueNum) || c.reviveQueueNum < 1 || c.reviveQueueNum > 512) {
    errors.push(`reviveQueueNum must be 1..512, got ${c.reviveQueueNum}`);
  }
  if (!Number.isFinite(c.reviveInterval) || c.reviveInterval <= 0) {
    errors.push(`reviveInterval must be > 0, got ${c.reviveInterval}`);
  }
}
