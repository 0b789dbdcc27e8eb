/**
 * One consume-queue entry in upstream's on-disk format (store/ConsumeQueue.java, 4.9.8): 20 bytes
 * `commitLogOffset int64 | size int32 | tagsCode int64`, the padding entry written before a queue's
 * first real one, and the checks on names and sizes made before any consume-queue path is built.
 */
import { ValidationError } from '../common/errors.js';

/** Bytes of one entry (`ConsumeQueue.CQ_STORE_UNIT_SIZE`). */
export const CQ_STORE_UNIT_SIZE = 20;
/** Byte positions of the fields inside an entry. */
export const CqEntryField = { COMMIT_LOG_OFFSET: 0, SIZE: 8, TAGS_CODE: 12 } as const;
/** Size field of the padding entries (`0 | Integer.MAX_VALUE | 0`) written before a queue's first real entry. */
export const CQ_PADDING_SIZE = 0x7fffffff;

/** Largest queueId accepted (Java int). */
const MAX_QUEUE_ID = 0x7fffffff;

export interface ConsumeQueueEntry {
  commitLogOffset: bigint;
  size: number;
  tagsCode: bigint;
}

/** Decodes entry `i` of a buffer returned by `getIndexBuffer`. */
export function cqEntryAt(buffer: Buffer, i: number): ConsumeQueueEntry {
  const at = i * CQ_STORE_UNIT_SIZE;
  return {
    commitLogOffset: buffer.readBigInt64BE(at + CqEntryField.COMMIT_LOG_OFFSET),
    size: buffer.readInt32BE(at + CqEntryField.SIZE),
    tagsCode: buffer.readBigInt64BE(at + CqEntryField.TAGS_CODE),
  };
}

/** Upstream's validity test for an entry during recovery: offset >= 0 && size > 0. */
export function isValidEntry(buf: Buffer, at: number): boolean {
  return buf.readInt32BE(at) >= 0 && buf.readInt32BE(at + CqEntryField.SIZE) > 0;
}

export function isPaddingEntry(buf: Buffer, at: number): boolean {
  return buf.readBigInt64BE(at) === 0n && buf.readInt32BE(at + CqEntryField.SIZE) === CQ_PADDING_SIZE;
}

/** Rejects a queueId that is not a Java int >= 0, before anything touches the file system. */
export function validateQueueId(queueId: number): void {
  if (!Number.isInteger(queueId) || queueId < 0 || queueId > MAX_QUEUE_ID) {
    throw new ValidationError(`queueId ${queueId} is not an integer between 0 and ${MAX_QUEUE_ID}`);
  }
}

export function validateConsumeQueueFileSize(size: number): void {
  if (!Number.isSafeInteger(size) || size < CQ_STORE_UNIT_SIZE || size % CQ_STORE_UNIT_SIZE !== 0) {
    throw new ValidationError(
      `mappedFileSizeConsumeQueue ${size} must be a positive multiple of ${CQ_STORE_UNIT_SIZE} bytes`,
    );
  }
}
