/**
 * The commit log's reads (upstream CommitLog's getData, getMessage, pickupStoreTimestamp, ...): what a
 * reader may see of the written log, from the tail cache of the newest bytes or from the files. The
 * CommitLog extends it with appends, recovery and retention.
 */

import { scanRecords } from './commit-log-recovery.js';
import type { CommitLogTail } from './commit-log-tail.js';
import type { DelayLevelTable } from './delay-level.js';
import type { DispatchRequest } from './dispatch-request.js';
import type { MappedFileQueue } from './mapped-file-queue.js';
import {
  type CheckedRecord,
  checkMessageAndReturnSize as checkMessage,
  STORE_TIMESTAMP_HEAD_SIZE,
  storeTimestampOf,
} from './stored-record-reader.js';

export abstract class CommitLogReads {
  constructor(
    readonly mappedFileQueue: MappedFileQueue,
    /** The newest written bytes, which are also the turns' write buffers. */
    protected readonly tail: CommitLogTail,
    protected readonly delayLevels: DelayLevelTable,
  ) {}

  /** Upstream `getMinOffset`: start of the first file, -1 when there is none. */
  getMinOffset(): number {
    return this.mappedFileQueue.getMinOffset();
  }

  /** End of the written (readable) data: where the next record goes once queued appends are out. */
  getMaxOffset(): number {
    return this.mappedFileQueue.getMaxOffset();
  }

  /** Offset up to which the data is durable. */
  getFlushedWhere(): number {
    return this.mappedFileQueue.getFlushedWhere();
  }

  /**
   * Up to `maxSize` stored bytes from `offset`, never past the written data of its file (upstream
   * `getData`, which returns the rest of the file). Undefined when `offset` is not readable. The
   * buffer may be shared with other readers (see CommitLogTail): never write to it.
   */
  getData(offset: number, maxSize: number): Buffer | undefined {
    const file = this.mappedFileQueue.findMappedFileByOffset(offset, offset === 0);
    if (file === undefined) return undefined;
    const pos = offset - file.fileFromOffset;
    const readable = file.getReadPosition() - pos;
    if (pos < 0 || readable <= 0) return undefined;
    const size = Math.min(maxSize, readable);
    return this.tail.read(offset, size) ?? file.selectMappedBuffer(pos, size);
  }

  /**
   * getData into the caller's memory: up to `target.length` written bytes from `offset`, never past
   * its file, read from the file; returns the count, 0 when `offset` is not readable.
   */
  readData(offset: number, target: Buffer): number {
    this.tail.noteRead(offset);
    const file = this.mappedFileQueue.findMappedFileByOffset(offset, offset === 0);
    if (file === undefined || file.isClosed) return 0;
    const pos = offset - file.fileFromOffset;
    const readable = file.getReadPosition() - pos;
    if (pos < 0 || readable <= 0) return 0;
    return file.readInto(target, 0, Math.min(target.length, readable), pos);
  }

  /**
   * Exactly `size` stored bytes from `offset` (upstream `getMessage`), or undefined. The buffer may be
   * shared with other readers (see CommitLogTail): never write to it.
   */
  getMessage(offset: number, size: number): Buffer | undefined {
    const file = this.mappedFileQueue.findMappedFileByOffset(offset, offset === 0);
    if (file === undefined) return undefined;
    const pos = offset - file.fileFromOffset;
    if (pos < 0 || size <= 0 || pos + size > file.getReadPosition()) {
      return file.selectMappedBuffer(pos, size);
    }
    return this.tail.read(offset, size) ?? file.selectMappedBuffer(pos, size);
  }

  /** Bytes of the newest log held in memory, and the lowest offset among them (-1 when none). */
  tailCacheStats(): { bytes: number; minOffset: number } {
    return { bytes: this.tail.size, minOffset: this.tail.minOffset };
  }

  /** Upstream `pickupStoreTimestamp`: STORETIMESTAMP of the record at `offset`, -1 if unreadable. */
  pickupStoreTimestamp(offset: number, size: number): number {
    if (offset < this.getMinOffset()) return -1;
    const head = this.getMessage(offset, Math.min(size, STORE_TIMESTAMP_HEAD_SIZE));
    const timestamp = head === undefined ? undefined : storeTimestampOf(head);
    return timestamp === undefined ? -1 : Number(timestamp);
  }

  /** Upstream `rollNextFile`: start of the file after the one holding `offset`. */
  rollNextFile(offset: number): number {
    const size = this.mappedFileQueue.mappedFileSize;
    return offset + size - (offset % size);
  }

  /**
   * Parses the record at `buf[pos]` (upstream `checkMessageAndReturnSize`): see stored-record-reader.
   * `physicalOffset` is where the record lies in the log, `fileRemaining` the bytes of its file from there.
   */
  checkMessageAndReturnSize(
    buf: Buffer,
    pos: number,
    physicalOffset: number,
    fileRemaining: number,
    checkCRC = true,
  ): CheckedRecord {
    return checkMessage(buf, pos, buf.length - pos, physicalOffset, fileRemaining, {
      checkCRC,
      buildRequest: true,
      delayLevels: this.delayLevels,
    });
  }

  /**
   * Walks the records in `[fromOffset, toOffset)` (a record start up to the written end) and calls
   * `callback` with each one's DispatchRequest — the reput that rebuilds consume queues and the index.
   * Resolves with the offset reached. A record that fails its check there is damage: StoreCorruptionError.
   */
  forEachRecord(
    fromOffset: number,
    callback: (request: DispatchRequest) => void,
    toOffset = this.getMaxOffset(),
  ): number {
    return scanRecords(this.mappedFileQueue, this.delayLevels, fromOffset, callback, toOffset);
  }
}
