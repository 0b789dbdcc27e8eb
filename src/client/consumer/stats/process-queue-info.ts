/**
 * Upstream ProcessQueue.fillProcessQueueInfo: a ProcessQueue's state as the ProcessQueueInfo of
 * GET_CONSUMER_RUNNING_INFO. The committed offset comes from the offset store, not the queue
 * (upstream sets it first, from readOffset(mq, MEMORY_FIRST_THEN_STORE)).
 */
import { emptyProcessQueueInfo, type ProcessQueueInfo } from '../../../common/protocol/process-queue-info.js';
import type { ProcessQueue } from '../process-queue.js';

const MIB = 1024 * 1024;

/** What the filler reads of a ProcessQueue. */
export type ProcessQueueState = Pick<
  ProcessQueue,
  | 'msgTreeMap'
  | 'consumingMsgOrderlyTreeMap'
  | 'msgSize'
  | 'locked'
  | 'tryUnlockTimes'
  | 'lastLockTimestamp'
  | 'dropped'
  | 'lastPullTimestamp'
  | 'lastConsumeTimestamp'
>;

/** Java `(long) x` of a JS number that holds a Java long's value. */
function long(n: number): bigint {
  return BigInt(Math.trunc(n));
}

export function fillProcessQueueInfo(pq: ProcessQueueState, commitOffset: bigint): ProcessQueueInfo {
  const info = emptyProcessQueueInfo();
  info.commitOffset = commitOffset;
  const cachedFirst = pq.msgTreeMap.firstKey();
  const cachedLast = pq.msgTreeMap.lastKey();
  if (cachedFirst !== undefined && cachedLast !== undefined) {
    info.cachedMsgMinOffset = long(cachedFirst);
    info.cachedMsgMaxOffset = long(cachedLast);
    info.cachedMsgCount = pq.msgTreeMap.size;
  }
  // Upstream's (int) (bytes / MiB): long division, then the int cast.
  info.cachedMsgSizeInMiB = Math.trunc(pq.msgSize / MIB) | 0;
  const takenFirst = pq.consumingMsgOrderlyTreeMap.firstKey();
  const takenLast = pq.consumingMsgOrderlyTreeMap.lastKey();
  if (takenFirst !== undefined && takenLast !== undefined) {
    info.transactionMsgMinOffset = long(takenFirst);
    info.transactionMsgMaxOffset = long(takenLast);
    info.transactionMsgCount = pq.consumingMsgOrderlyTreeMap.size;
  }
  info.locked = pq.locked;
  info.tryUnlockTimes = long(pq.tryUnlockTimes);
  info.lastLockTimestamp = long(pq.lastLockTimestamp);
  info.droped = pq.dropped;
  info.lastPullTimestamp = long(pq.lastPullTimestamp);
  info.lastConsumeTimestamp = long(pq.lastConsumeTimestamp);
  return info;
}
