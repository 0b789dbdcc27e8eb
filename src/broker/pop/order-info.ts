/**
 * OrderInfo (5.5.0 `QueueLevelConsumerManager.OrderInfo`, earlier `ConsumerOrderInfoManager.OrderInfo`):
 * what a FIFO pop of one queue handed out and what of it is settled. `offsetList[0]` is the first
 * message's queue offset, `offsetList[i]` (i > 0) the distance of the i-th message from it; bit i of
 * `commitOffsetBit` is set once the i-th message is acked. Java longs are bigints, times are ms.
 */

export interface OrderInfo {
  popTime: bigint;
  /** The invisible time of the pop (`i`); absent or <= 0 in old records. */
  invisibleTime: bigint | undefined;
  /** `o`: first offset, then distances. */
  offsetList: bigint[];
  /** `ot`: queue offset -> next visible time, for messages whose invisible time was changed. */
  offsetNextVisibleTime: Map<bigint, bigint> | undefined;
  /** `oc`: queue offset -> times the message was handed out before (only counts > 0). */
  offsetConsumedCount: Map<bigint, number> | undefined;
  /** `l`: when the queue was last popped. */
  lastConsumeTimestamp: number;
  /** `cm`: ack bits (a Java long). */
  commitOffsetBit: bigint;
  /** `a`: the attempt id of the pop, for idempotent retries. */
  attemptId: string | undefined;
}

/** OrderInfo.buildOffsetList: the first offset, then each offset's distance from it. */
export function buildOffsetList(queueOffsets: readonly bigint[]): bigint[] {
  if (queueOffsets.length <= 1) return [...queueOffsets];
  const first = queueOffsets[0] as bigint;
  return [first, ...queueOffsets.slice(1).map((o) => o - first)];
}

export function newOrderInfo(
  attemptId: string | undefined,
  popTime: bigint,
  invisibleTime: bigint,
  queueOffsets: readonly bigint[],
  lastConsumeTimestamp: number,
): OrderInfo {
  return {
    popTime,
    invisibleTime,
    offsetList: buildOffsetList(queueOffsets),
    offsetNextVisibleTime: undefined,
    offsetConsumedCount: undefined,
    lastConsumeTimestamp,
    commitOffsetBit: 0n,
    attemptId,
  };
}

/** The queue offset at index i of an offset list. */
export function queueOffsetAt(offsetList: readonly bigint[], i: number): bigint {
  const first = offsetList[0] as bigint;
  return i === 0 ? first : first + (offsetList[i] as bigint);
}

export function isNotAck(info: OrderInfo, i: number): boolean {
  return (info.commitOffsetBit & (1n << BigInt(i))) === 0n;
}

function nextVisibleTimeAt(info: OrderInfo, i: number, invisibleTime: bigint): bigint {
  return info.offsetNextVisibleTime?.get(queueOffsetAt(info.offsetList, i)) ?? info.popTime + invisibleTime;
}

/**
 * OrderInfo.needBlock: a queue stays blocked while one of its popped messages is un-acked and still
 * invisible, unless the request repeats the pop's attempt id. An old record without invisible time
 * takes the request's (and keeps it, as upstream).
 */
export function needBlock(
  info: OrderInfo,
  attemptId: string | undefined,
  currentInvisibleTime: bigint,
  now: number,
): boolean {
  if (info.offsetList.length === 0) return false;
  if (info.attemptId !== undefined && info.attemptId === attemptId) return false;
  if (info.invisibleTime === undefined || info.invisibleTime <= 0n) info.invisibleTime = currentInvisibleTime;
  const nowB = BigInt(now);
  for (let i = 0; i < info.offsetList.length; i++) {
    if (isNotAck(info, i) && nowB < nextVisibleTimeAt(info, i, info.invisibleTime)) return true;
  }
  return false;
}

/**
 * OrderInfo.getLockFreeTimestamp: when the queue unblocks (the first un-acked message's visible
 * time if still ahead), `now` when it is already free, undefined when unknown.
 */
export function lockFreeTimestamp(info: OrderInfo, now: number): number | undefined {
  if (info.offsetList.length === 0) return undefined;
  const nowB = BigInt(now);
  for (let i = 0; i < info.offsetList.length; i++) {
    if (!isNotAck(info, i)) continue;
    if (info.invisibleTime === undefined || info.invisibleTime <= 0n) return undefined;
    const t = nextVisibleTimeAt(info, i, info.invisibleTime);
    if (nowB < t) return Number(t);
  }
  return now;
}

/** OrderInfo.getNextOffset: the first un-acked offset, or one past the last when all are acked; -2 when empty. */
export function nextOffset(info: OrderInfo): bigint {
  const n = info.offsetList.length;
  if (n === 0) return -2n;
  for (let i = 0; i < n; i++) if (isNotAck(info, i)) return queueOffsetAt(info.offsetList, i);
  return queueOffsetAt(info.offsetList, n - 1) + 1n;
}

/**
 * OrderInfo.mergeOffsetConsumedCount: a repeated attempt keeps the previous counts; otherwise each
 * offset handed out again counts one more than before.
 */
export function mergeOffsetConsumedCount(
  info: OrderInfo,
  preAttemptId: string | undefined,
  preOffsetList: readonly bigint[],
  prevCounts: ReadonlyMap<bigint, number> | undefined,
): void {
  const prev = prevCounts ?? new Map<bigint, number>();
  if (preAttemptId !== undefined && preAttemptId === info.attemptId) {
    info.offsetConsumedCount = new Map(prev);
    return;
  }
  const preSet = new Set<bigint>();
  for (let i = 0; i < preOffsetList.length; i++) preSet.add(queueOffsetAt(preOffsetList, i));
  const counts = new Map<bigint, number>();
  for (let i = 0; i < info.offsetList.length; i++) {
    const off = queueOffsetAt(info.offsetList, i);
    if (preSet.has(off)) counts.set(off, (prev.get(off) ?? 0) + 1);
  }
  info.offsetConsumedCount = counts;
}
