/**
 * Settings of POP_MESSAGE and its long polling: upstream BrokerConfig keys with their 5.5.0 defaults.
 * (reviveQueueNum and enableRetryTopicV2 belong to the revive side, timerWheelEnable to the timer;
 * see src/broker/pop/pop-settings.ts for how this side reads them.)
 */
import { BOOL, type ConfigKeySpec, INT, LONG, ownedBy } from './broker-config-keys.js';

export interface BrokerPopConfig {
  /** Pops parked per `topic@group@queueId` beyond which a pop gets POLLING_FULL [1024]. */
  popPollingSize: number;
  /** Distinct `topic@group@queueId` keys with parked pops; a new key beyond it gets POLLING_FULL [100000]. */
  popPollingMapSize: number;
  /** Pops parked in all; beyond it a pop gets POLLING_FULL [100000]. */
  maxPopPollingSize: number;
  /** Percent of pops that read the group's POP retry topic before the topic [20]; the rest read it after, when the batch is not full. */
  popFromRetryProbability: number;
  /** Return retried messages under their retry topic instead of re-topic'ing them to the original one [false]. */
  popResponseReturnActualRetryTopic: boolean;
  /** A new group popping with initMode MAX starts at 0 when the queue's first message is still in memory [true]. */
  initPopOffsetByCheckMsgInMem: boolean;
  /** Wake parked FIFO pops as soon as their queue's block ends (acked, or invisible no more) [true]. */
  enableNotifyAfterPopOrderLockRelease: boolean;
}

const upstream = ownedBy('BrokerConfig');

export const POP_CONFIG_KEYS: { readonly [K in keyof BrokerPopConfig]: ConfigKeySpec } = {
  popPollingSize: upstream(INT),
  popPollingMapSize: upstream(INT),
  maxPopPollingSize: upstream(LONG),
  popFromRetryProbability: upstream(INT),
  popResponseReturnActualRetryTopic: upstream(BOOL),
  initPopOffsetByCheckMsgInMem: upstream(BOOL),
  enableNotifyAfterPopOrderLockRelease: upstream(BOOL),
};

export const DEFAULT_POP_CONFIG: Readonly<BrokerPopConfig> = Object.freeze({
  popPollingSize: 1024,
  popPollingMapSize: 100000,
  maxPopPollingSize: 100000,
  popFromRetryProbability: 20,
  popResponseReturnActualRetryTopic: false,
  initPopOffsetByCheckMsgInMem: true,
  enableNotifyAfterPopOrderLockRelease: true,
});

export function checkPopConfig(c: BrokerPopConfig, errors: string[]): void {
  for (const [name, v] of [
    ['popPollingSize', c.popPollingSize],
    ['popPollingMapSize', c.popPollingMapSize],
    ['maxPopPollingSize', c.maxPopPollingSize],
  ] as const) {
    if (!Number.isInteger(v) || v < 0) errors.push(`${name} must be >= 0, got ${v}`);
  }
  if (
    !Number.isInteger(c.popFromRetryProbability) ||
    c.popFromRetryProbability < 0 ||
    c.popFromRetryProbability > 100
  ) {
    errors.push(`popFromRetryProbability must be 0..100, got ${c.popFromRetryProbability}`);
  }
}
