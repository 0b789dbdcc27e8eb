/**
 * Reading a consume queue for a pull (upstream DefaultMessageStore.getMessage, 4.9.8): the status
 * decision, the walk over the queue's entries with the filter and the transfer limits, the
 * next-begin offset and the suggest-slave flag. Records are returned as slices of the bytes read
 * from the commit log, never re-encoded. Records in the commit log's in-memory tail are copied out of
 * it, entries that follow each other with one copy; older ones, and the consume-queue entries, come
 * through the PullReadCache's read-ahead.
 */

import type { CommitLog } from './commit-log.js';
import type { MessageStoreConfig } from './config.js';
import type { ConsumeQueue } from './consume-queue.js';
import { CQ_STORE_UNIT_SIZE, CqEntryField } from './consume-queue-entry.js';
import { type GetMessageResult, GetMessageStatus, type MessageFilter } from './message-store.js';
import type { PullReadCache } from './pull-read-cache.js';
import { SlabAllocator } from './slab-allocator.js';

export type TransferLimits = Pick<
  MessageStoreConfig,
  | 'maxTransferCountOnMessageInMemory'
  | 'maxTransferBytesOnMessageInMemory'
  | 'maxTransferCountOnMessageInDisk'
  | 'maxTransferBytesOnMessageInDisk'
  | 'mappedFileSizeConsumeQueue'
>;

export interface GetMessageContext {
  readonly commitLog: CommitLog;
  readonly limits: TransferLimits;
  /** Commit-log bytes assumed to be in the page cache (upstream TOTAL_PHYSICAL_MEMORY_SIZE × ratio). */
  readonly memory: number;
  /**
   * Upstream nextOffsetCorrection: false on a slave without offsetCheckInSlave, which then keeps the
   * requested offset as the next one instead of correcting it.
   */
  readonly correctOffsets: boolean;
  /** Read-ahead of consume-queue entries and of commit-log bytes older than the in-memory tail. */
  readonly readCache?: PullReadCache | undefined;
}

/** Upstream's lower bound of bytes of consume queue looked at per pull (`16000`). */
const MIN_FILTER_BYTES = 16000;
/** Entries read from the consume queue at a time (the walk may go on in the same file). */
const CQ_CHUNK_ENTRIES = MIN_FILTER_BYTES / CQ_STORE_UNIT_SIZE;
/**
 * Records that lie back to back (a batch, or a queue that had the log to itself) are read exactly,
 * in one read whose buffer becomes the body; a record followed by fewer than this many such neighbours
 * comes through the read cache's blocks.
 */
const MIN_RUN_READ_EXACTLY = 3;
/** Tag codes at or below this are consume-queue-ext addresses upstream (Integer.MIN_VALUE - 1). */
const MAX_EXT_ADDR = -2147483649n;

/** Upstream `checkInDiskByCommitOffset`: the record is further behind the end than memory holds. */
export function checkInDiskByCommitOffset(offsetPy: number, maxOffsetPy: number, memory: number): boolean {
  return maxOffsetPy - offsetPy > memory;
}

/** Upstream `isTheBatchFull`. */
export function isTheBatchFull(
  limits: TransferLimits,
  sizePy: number,
  maxMsgNums: number,
  bufferTotal: number,
  messageTotal: number,
  isInDisk: boolean,
): boolean {
  if (bufferTotal === 0 || messageTotal === 0) return false;
  if (maxMsgNums <= messageTotal) return true;
  if (isInDisk) {
    if (bufferTotal + sizePy > limits.maxTransferBytesOnMessageInDisk) return true;
    if (messageTotal > limits.maxTransferCountOnMessageInDisk - 1) return true;
  } else {
    if (bufferTotal + sizePy > limits.maxTransferBytesOnMessageInMemory) return true;
    if (messageTotal > limits.maxTransferCountOnMessageInMemory - 1) return true;
  }
  return false;
}

/** A result without messages. */
export function emptyResult(
  status: GetMessageStatus,
  nextBeginOffset: bigint,
  minOffset: bigint,
  maxOffset: bigint,
): GetMessageResult {
  return {
    status,
    nextBeginOffset,
    minOffset,
    maxOffset,
    suggestPullingFromSlave: false,
    messages: [],
    bufferTotalSize: 0,
    messageQueueOffsets: [],
  };
}

/** Commit-log bytes read for one run of adjacent records; records are sliced out of it. */
class ReadWindow {
  buf: Buffer | undefined;
  start = 0;
  end = 0;

  slice(offset: number, size: number): Buffer | undefined {
    if (this.buf === undefined || offset < this.start || offset + size > this.end) return undefined;
    return this.buf.subarray(offset - this.start, offset - this.start + size);
  }
}

/** Upstream getMessage for an existing queue. */
export function getMessageFromQueue(
  ctx: GetMessageContext,
  cq: ConsumeQueue,
  offset: bigint,
  maxMsgNums: number,
  filter: MessageFilter | undefined,
): GetMessageResult {
  const correct = (newOffset: bigint): bigint => (ctx.correctOffsets ? newOffset : offset);
  const minOffset = cq.getMinOffsetInQueue();
  const maxOffset = cq.getMaxOffsetInQueue();
  if (maxOffset === 0n) {
    return emptyResult(GetMessageStatus.NO_MESSAGE_IN_QUEUE, correct(0n), minOffset, maxOffset);
  }
  if (offset < minOffset) {
    return emptyResult(GetMessageStatus.OFFSET_TOO_SMALL, correct(minOffset), minOffset, maxOffset);
  }
  if (offset === maxOffset) {
    return emptyResult(GetMessageStatus.OFFSET_OVERFLOW_ONE, correct(offset), minOffset, maxOffset);
  }
  if (offset > maxOffset) {
    return emptyResult(GetMessageStatus.OFFSET_OVERFLOW_BADLY, correct(maxOffset), minOffset, maxOffset);
  }
  const readCache = ctx.readCache;
  const entries = (index: bigint, max: number): Buffer | undefined =>
    readCache === undefined ? cq.getIndexBuffer(index, max) : readCache.entries(cq, index, max);
  // Upstream walks at most this many bytes of entries, and never past the file holding `offset`.
  const maxFilterEntries = Math.ceil(
    Math.max(MIN_FILTER_BYTES, maxMsgNums * CQ_STORE_UNIT_SIZE) / CQ_STORE_UNIT_SIZE,
  );
  let chunk = entries(offset, Math.min(CQ_CHUNK_ENTRIES, maxFilterEntries));
  if (chunk === undefined) {
    return emptyResult(
      GetMessageStatus.OFFSET_FOUND_NULL,
      correct(cq.rollNextFile(offset)),
      minOffset,
      maxOffset,
    );
  }

  const { commitLog, limits } = ctx;
  const maxOffsetPy = commitLog.getMaxOffset();
  const result = emptyResult(GetMessageStatus.NO_MATCHED_MESSAGE, offset, minOffset, maxOffset);
  const messages = result.messages;
  const queueOffsets = result.messageQueueOffsets;
  let bufferTotal = 0;
  let status: GetMessageStatus = GetMessageStatus.NO_MATCHED_MESSAGE;
  let nextPhyFileStartOffset = Number.NEGATIVE_INFINITY;
  let maxPhyOffsetPulling = 0;
  const entriesPerFile = BigInt(limits.mappedFileSizeConsumeQueue / CQ_STORE_UNIT_SIZE);
  const window = new ReadWindow();
  // Records below the in-memory tail come through the read cache; those in it are copied out of it.
  const tailFrom = readCache === undefined ? 0 : commitLog.tailCacheStats().minOffset;
  readCache?.beginPull();
  /** Some records are borrowed from the read cache: the result gets a copy. */
  let borrowed = false;
  let examined = 0;
  let chunkBase = 0;

  walk: for (;;) {
    const chunkEntries = chunk.length / CQ_STORE_UNIT_SIZE;
    for (let k = 0; k < chunkEntries && examined < maxFilterEntries; k++, examined++) {
      const at = k * CQ_STORE_UNIT_SIZE;
      const offsetPy = commitLogOffsetAt(chunk, at);
      const sizePy = chunk.readInt32BE(at + CqEntryField.SIZE);
      let tagsCode: bigint | undefined = chunk.readBigInt64BE(at + CqEntryField.TAGS_CODE);
      maxPhyOffsetPulling = offsetPy;
      if (offsetPy < nextPhyFileStartOffset) continue;
      const isInDisk = checkInDiskByCommitOffset(offsetPy, maxOffsetPy, ctx.memory);
      if (isTheBatchFull(limits, sizePy, maxMsgNums, bufferTotal, messages.length, isInDisk)) break walk;
      // No consume-queue-ext here: an ext address means the tag code is unknown, as upstream logs.
      if (tagsCode <= MAX_EXT_ADDR) tagsCode = undefined;
      if (filter !== undefined && !filter.isMatchedByConsumeQueue(tagsCode)) {
        if (bufferTotal === 0) status = GetMessageStatus.NO_MATCHED_MESSAGE;
        continue;
      }
      let record = sizePy > 0 ? window.slice(offsetPy, sizePy) : undefined;
      if (record === undefined && sizePy > 0) {
        if (
          readCache !== undefined &&
          (tailFrom < 0 || offsetPy < tailFrom) &&
          adjacentAfter(chunk, k, chunkEntries, offsetPy + sizePy) < MIN_RUN_READ_EXACTLY
        ) {
          record = readCache.record(offsetPy, sizePy);
          borrowed = true;
        } else {
          const budget =
            (isInDisk ? limits.maxTransferBytesOnMessageInDisk : limits.maxTransferBytesOnMessageInMemory) -
            bufferTotal;
          const countLeft =
            Math.min(
              maxMsgNums,
              isInDisk ? limits.maxTransferCountOnMessageInDisk : limits.maxTransferCountOnMessageInMemory,
            ) - messages.length;
          record = readRun(commitLog, window, chunk, k, chunkEntries, offsetPy, sizePy, budget, countLeft);
        }
      }
      if (record === undefined) {
        if (bufferTotal === 0) status = GetMessageStatus.MESSAGE_WAS_REMOVING;
        nextPhyFileStartOffset = commitLog.rollNextFile(offsetPy);
        continue;
      }
      if (filter !== undefined && !filter.isMatchedByCommitLog(record)) {
        if (bufferTotal === 0) status = GetMessageStatus.NO_MATCHED_MESSAGE;
        continue;
      }
      messages.push(record);
      queueOffsets.push(offset + BigInt(chunkBase + k));
      bufferTotal += sizePy;
      status = GetMessageStatus.FOUND;
      nextPhyFileStartOffset = Number.NEGATIVE_INFINITY;
    }
    if (examined >= maxFilterEntries) break;
    const next = offset + BigInt(examined);
    // The walk stays in the file holding `offset`, as upstream's buffer ends with that file.
    if (next % entriesPerFile === 0n) break;
    const more = entries(next, Math.min(CQ_CHUNK_ENTRIES, maxFilterEntries - examined));
    if (more === undefined) break;
    chunk = more;
    chunkBase = examined;
  }

  if (borrowed) ownRecords(messages, bufferTotal);
  result.status = status;
  result.nextBeginOffset = offset + BigInt(examined);
  result.bufferTotalSize = bufferTotal;
  result.suggestPullingFromSlave = maxOffsetPy - maxPhyOffsetPulling > ctx.memory;
  return result;
}

/** Where the bodies of pulls that borrowed from the read cache are copied to. */
const BODY_SLAB_SIZE = 1024 * 1024;
const bodies = new SlabAllocator(BODY_SLAB_SIZE);

/**
 * Copies the records into one buffer of their own (the body a pull answers with) and points each at
 * its place there: the read cache lends its memory for one pull only.
 */
function ownRecords(messages: Buffer[], totalSize: number): void {
  const body = bodies.alloc(totalSize);
  let at = 0;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i] as Buffer;
    // TypedArray#set: Buffer#copy builds a view per call and checks its arguments in JavaScript.
    body.set(m, at);
    messages[i] = body.subarray(at, at + m.length);
    at += m.length;
  }
}

/**
 * The commit-log offset of the entry at byte `at` of a consume-queue buffer, as a number: two 32-bit
 * reads instead of a BigInt (offsets stay far below 2^53).
 */
function commitLogOffsetAt(chunk: Buffer, at: number): number {
  const p = at + CqEntryField.COMMIT_LOG_OFFSET;
  return chunk.readInt32BE(p) * 0x1_0000_0000 + chunk.readUInt32BE(p + 4);
}

/** How many entries after entry `k` of `chunk` follow on from `end` (at most MIN_RUN_READ_EXACTLY). */
function adjacentAfter(chunk: Buffer, k: number, chunkEntries: number, end: number): number {
  let n = 0;
  for (let j = k + 1; j < chunkEntries && n < MIN_RUN_READ_EXACTLY; j++, n++) {
    const at = j * CQ_STORE_UNIT_SIZE;
    if (commitLogOffsetAt(chunk, at) !== end) break;
    end += chunk.readInt32BE(at + CqEntryField.SIZE);
  }
  return n;
}

/**
 * Reads the record at `offsetPy` together with the entries after it that follow it directly in the
 * commit log, as far as the transfer budget allows; falls back to the single record.
 */
function readRun(
  commitLog: CommitLog,
  window: ReadWindow,
  chunk: Buffer,
  k: number,
  chunkEntries: number,
  offsetPy: number,
  sizePy: number,
  budget: number,
  countLeft: number,
): Buffer | undefined {
  let end = offsetPy + sizePy;
  let count = 1;
  for (let j = k + 1; j < chunkEntries && count < countLeft; j++, count++) {
    const at = j * CQ_STORE_UNIT_SIZE;
    const next = commitLogOffsetAt(chunk, at);
    const size = chunk.readInt32BE(at + CqEntryField.SIZE);
    if (next !== end || end + size - offsetPy > budget) break;
    end += size;
  }
  let data = end > offsetPy + sizePy ? commitLog.getMessage(offsetPy, end - offsetPy) : undefined;
  if (data === undefined) {
    end = offsetPy + sizePy;
    data = commitLog.getMessage(offsetPy, sizePy);
  }
  if (data === undefined) return undefined;
  window.buf = data;
  window.start = offsetPy;
  window.end = end;
  return data.subarray(0, sizePy);
}
