/**
 * What request handlers see of the broker's POP revive side (BrokerContext.popRevive); a leaf, so
 * the context does not import the services that import the context.
 */
import type { PopInflightMessageCounter } from './pop-inflight-message-counter.js';
import type { PopReviveStats } from './pop-revive-stats.js';

export interface PopReviveView {
  /** `rmq_sys_REVIVE_LOG_<brokerClusterName>`. */
  readonly reviveTopic: string;
  readonly reviveQueueNum: number;
  readonly stats: PopReviveStats;
  readonly inflight: PopInflightMessageCounter;
  /** Creates the revive topic when missing (before a CK or ACK record is written). */
  ensureReviveTopic(): void;
  /** Un-acked messages of pending checkpoints for `topic` and `group`, over every revive queue. */
  pendingUnacked(topic: string, group: string): number;
  /** One round of every revive service now (tests; the services' timers run them otherwise). */
  reviveNow(): Promise<void>;
}
