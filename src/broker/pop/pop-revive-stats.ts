/**
 * Counters of the ack and revive paths since the broker started (the metrics issue turns them into
 * series later). Plain numbers: one process, one event loop.
 */
export class PopReviveStats {
  /** Messages settled by ACK_MESSAGE / BATCH_ACK_MESSAGE requests (as the requests said). */
  ackRequests = 0;
  /** CHANGE_MESSAGE_INVISIBLETIME requests that wrote a new checkpoint (or moved a FIFO queue's time). */
  changeInvisibleTimes = 0;
  /** Bits the revive service set from ack records (each settles one popped message). */
  acked = 0;
  /** Acked offsets matching no pending checkpoint bit: late (already revived), repeated or forged. */
  lateOrUnknownAcks = 0;
  /** Messages re-put into a retry topic. */
  revived = 0;
  /** Messages moved to `%DLQ%<group>` instead (reconsumeTimes reached the group's retryMaxTimes). */
  deadLettered = 0;
  /** Un-acked messages whose stored original is gone (deleted by retention): nothing to revive. */
  reviveMissing = 0;
  /** Checkpoints whose topic or group no longer exists (dropped, as upstream). */
  reviveSkipped = 0;
  /** Re-puts the store refused (retried at the next round). */
  reviveFailures = 0;
  /** Checkpoints read from the revive queues. */
  checkPoints = 0;
}
