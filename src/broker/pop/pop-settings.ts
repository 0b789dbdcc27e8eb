/**
 * Settings the POP_MESSAGE side reads but other parts of the broker own: `reviveQueueNum` and
 * `enableRetryTopicV2` (the revive side's BrokerConfig keys) and `timerWheelEnable` (the timer's
 * MessageStoreConfig key). Read through here with upstream's defaults so this side works whether or
 * not those keys are declared in the broker's config yet.
 */
import type { BrokerConfig } from '../broker-config.js';

interface OwnedElsewhere {
  reviveQueueNum?: number;
  enableRetryTopicV2?: boolean;
  timerWheelEnable?: boolean;
}

/** Upstream BrokerConfig.reviveQueueNum default. */
export const DEFAULT_REVIVE_QUEUE_NUM = 8;

export function reviveQueueNumOf(config: BrokerConfig): number {
  const v = (config as BrokerConfig & OwnedElsewhere).reviveQueueNum;
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : DEFAULT_REVIVE_QUEUE_NUM;
}

export function enableRetryTopicV2Of(config: BrokerConfig): boolean {
  return (config as BrokerConfig & OwnedElsewhere).enableRetryTopicV2 === true;
}

/** Upstream MessageStoreConfig.timerWheelEnable default: true. */
export function timerWheelEnableOf(config: BrokerConfig): boolean {
  return (config as BrokerConfig & OwnedElsewhere).timerWheelEnable !== false;
}
