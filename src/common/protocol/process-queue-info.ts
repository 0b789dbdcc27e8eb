/**
 * ProcessQueueInfo (`common/.../protocol/body/ProcessQueueInfo.java`): one queue's local state in a
 * ConsumerRunningInfo's mqTable — the committed offset, the cached messages, the orderly "taken"
 * ones, the broker lock and the timestamps of the last pull and consumption. fastjson writes every
 * field (sorted; `droped` is upstream's spelling, kept on the wire).
 */
import type { FjEmittableRecord } from '../fastjson/index.js';
import type { BodyReader } from './body-reader.js';

export interface ProcessQueueInfo {
  /** The offset store's offset of the queue (memory first, then the store). */
  commitOffset: bigint;
  /** First and last cached offsets, and how many are cached (0 when none). */
  cachedMsgMinOffset: bigint;
  cachedMsgMaxOffset: bigint;
  /** A Java int. */
  cachedMsgCount: number;
  /** Cached body bytes in whole MiB, rounded down (a Java int). */
  cachedMsgSizeInMiB: number;
  /** Orderly: first and last offsets taken for the listener and not yet committed, and how many. */
  transactionMsgMinOffset: bigint;
  transactionMsgMaxOffset: bigint;
  /** A Java int. */
  transactionMsgCount: number;
  locked: boolean;
  tryUnlockTimes: bigint;
  lastLockTimestamp: bigint;
  droped: boolean;
  lastPullTimestamp: bigint;
  lastConsumeTimestamp: bigint;
}

/** A new ProcessQueueInfo as Java makes it: zeros and false. */
export function emptyProcessQueueInfo(): ProcessQueueInfo {
  return {
    commitOffset: 0n,
    cachedMsgMinOffset: 0n,
    cachedMsgMaxOffset: 0n,
    cachedMsgCount: 0,
    cachedMsgSizeInMiB: 0,
    transactionMsgMinOffset: 0n,
    transactionMsgMaxOffset: 0n,
    transactionMsgCount: 0,
    locked: false,
    tryUnlockTimes: 0n,
    lastLockTimestamp: 0n,
    droped: false,
    lastPullTimestamp: 0n,
    lastConsumeTimestamp: 0n,
  };
}

export function processQueueInfoValue(i: ProcessQueueInfo): FjEmittableRecord {
  return {
    cachedMsgCount: i.cachedMsgCount,
    cachedMsgMaxOffset: i.cachedMsgMaxOffset,
    cachedMsgMinOffset: i.cachedMsgMinOffset,
    cachedMsgSizeInMiB: i.cachedMsgSizeInMiB,
    commitOffset: i.commitOffset,
    droped: i.droped,
    lastConsumeTimestamp: i.lastConsumeTimestamp,
    lastLockTimestamp: i.lastLockTimestamp,
    lastPullTimestamp: i.lastPullTimestamp,
    locked: i.locked,
    transactionMsgCount: i.transactionMsgCount,
    transactionMsgMaxOffset: i.transactionMsgMaxOffset,
    transactionMsgMinOffset: i.transactionMsgMinOffset,
    tryUnlockTimes: i.tryUnlockTimes,
  };
}

/** Absent or null fields read as Java's initial values. */
export function readProcessQueueInfo(r: BodyReader): ProcessQueueInfo {
  const long = (k: string) => r.optional(k)?.long() ?? 0n;
  const int = (k: string) => r.optional(k)?.int() ?? 0;
  const bool = (k: string) => r.optional(k)?.boolean() ?? false;
  return {
    commitOffset: long('commitOffset'),
    cachedMsgMinOffset: long('cachedMsgMinOffset'),
    cachedMsgMaxOffset: long('cachedMsgMaxOffset'),
    cachedMsgCount: int('cachedMsgCount'),
    cachedMsgSizeInMiB: int('cachedMsgSizeInMiB'),
    transactionMsgMinOffset: long('transactionMsgMinOffset'),
    transactionMsgMaxOffset: long('transactionMsgMaxOffset'),
    transactionMsgCount: int('transactionMsgCount'),
    locked: bool('locked'),
    tryUnlockTimes: long('tryUnlockTimes'),
    lastLockTimestamp: long('lastLockTimestamp'),
    droped: bool('droped'),
    lastPullTimestamp: long('lastPullTimestamp'),
    lastConsumeTimestamp: long('lastConsumeTimestamp'),
  };
}
