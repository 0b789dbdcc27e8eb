/**
 * The binary search of upstream ConsumeQueue.getOffsetInQueueByTime over one consume-queue file:
 * entries whose commit-log offset is below the store's minimum are skipped, an exact store time wins,
 * else the nearer of the two neighbours (the left one on a tie), else whichever side exists.
 */
import { CQ_STORE_UNIT_SIZE, CqEntryField } from './consume-queue-entry.js';

/**
 * Position in the file of the entry closest to `timestamp`, searching [low, high] (entry positions);
 * -1 when there is none. `entryAt` returns a buffer holding the entry at a position at offset 0;
 * `pickupStoreTimestamp` reads a record's store time from the commit log, negative when it cannot,
 * which ends the search with undefined (upstream then answers queue offset 0).
 */
export function searchEntryByTime(
  low: number,
  high: number,
  timestamp: bigint,
  minPhyOffset: bigint,
  pickupStoreTimestamp: (phyOffset: bigint, size: number) => bigint,
  entryAt: (position: number) => Buffer,
): number | undefined {
  let targetOffset = -1;
  let leftOffset = -1;
  let rightOffset = -1;
  let leftIndexValue = -1n;
  let rightIndexValue = -1n;
  while (high >= low) {
    const midOffset = Math.floor((low + high) / (2 * CQ_STORE_UNIT_SIZE)) * CQ_STORE_UNIT_SIZE;
    const buf = entryAt(midOffset);
    const phyOffset = buf.readBigInt64BE(0);
    const size = buf.readInt32BE(CqEntryField.SIZE);
    if (phyOffset < minPhyOffset) {
      low = midOffset + CQ_STORE_UNIT_SIZE;
      leftOffset = midOffset;
      continue;
    }
    const storeTime = pickupStoreTimestamp(phyOffset, size);
    if (storeTime < 0n) return undefined;
    if (storeTime === timestamp) {
      targetOffset = midOffset;
      break;
    }
    if (storeTime > timestamp) {
      high = midOffset - CQ_STORE_UNIT_SIZE;
      rightOffset = midOffset;
      rightIndexValue = storeTime;
    } else {
      low = midOffset + CQ_STORE_UNIT_SIZE;
      leftOffset = midOffset;
      leftIndexValue = storeTime;
    }
  }
  if (targetOffset !== -1) return targetOffset;
  if (leftIndexValue === -1n) return rightOffset;
  if (rightIndexValue === -1n) return leftOffset;
  const dl = timestamp - leftIndexValue;
  const dr = timestamp - rightIndexValue;
  return (dl < 0n ? -dl : dl) > (dr < 0n ? -dr : dr) ? rightOffset : leftOffset;
}
