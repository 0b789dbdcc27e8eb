/** Options and the append bookkeeping of the commit log (commit-log.ts holds the log itself). */
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { StoreCheckpoint } from './checkpoint.js';
import type { MessageStoreConfig } from './config.js';
import type { DelayLevelTable } from './delay-level.js';
import { type DispatchBatch, DispatchRequest } from './dispatch-request.js';
import type { FileIO } from './file-io.js';
import type { MappedFile } from './mapped-file.js';
import { BatchEntryField, type PreparedBatch } from './prepared-batch.js';
import {
  AppendMessageResult,
  AppendMessageStatus,
  type PutMessageResult,
  PutMessageStatus,
} from './put-message-result.js';
import type { RecoveryProgressListener } from './recovery-progress.js';
import type { PreparedMessage, Refusal } from './stored-record-writer.js';
import { TIMER_TOPIC, timerTagsCode } from './timer/timer-config.js';

export interface CommitLogOptions {
  clock?: Clock;
  logger?: Logger;
  /** File system calls (tests inject failures, slow or counted fsyncs). */
  io?: FileIO;
  /** Receives physicMsgTimestamp after each flush; abnormal recovery starts from it. */
  checkpoint?: StoreCheckpoint;
  /** Upstream `messageDelayLevel` (not in MessageStoreConfig yet). */
  messageDelayLevel?: string;
  /** Overrides the config's osPageCacheBusyTimeOutMills (tests). */
  osPageCacheBusyTimeOutMills?: number;
  /** Bytes of appends allowed to queue behind the running write before OS_PAGECACHE_BUSY [64 MiB]. */
  maxPendingBytes?: number;
  /** Largest single write [4 MiB]; more queued bytes go out in the next write. */
  maxWriteBytes?: number;
  /**
   * After a write ran out of space (ENOSPC, EDQUOT, EFBIG), how long appends are refused before one is
   * tried again [10 s, upstream's cleanResourceInterval, at which it re-checks the disk].
   */
  diskFullRetryInterval?: number;
  /** Upstream `checkCRCOnRecover` [true]. */
  checkCRCOnRecover?: boolean;
  /**
   * Recovery scans over at least this many bytes of commit log check body CRCs ahead on a worker
   * thread (crc-ahead.ts) [128 MiB]; 0 always, Infinity never.
   */
  parallelCrcMinBytes?: number;
  /** Hears how far a recovery scan is (a CLI prints it); nothing is measured without it. */
  onRecoveryProgress?: RecoveryProgressListener;
  /** ms between two recovery progress reports at most [DEFAULT_RECOVERY_PROGRESS_INTERVAL, 1 s]. */
  recoveryProgressInterval?: number;
  /**
   * 'sync' [default]: the turn's write is a blocking pwrite into the page cache (what upstream's
   * mapped-memory copy amounts to); 'async': a libuv thread-pool write, the event loop keeps running.
   */
  writeMode?: 'sync' | 'async';
}

/** Settings of MessageStoreConfig the commit log reads. */
export type CommitLogConfig = Pick<
  MessageStoreConfig,
  | 'storePathRootDir'
  | 'mappedFileSizeCommitLog'
  | 'flushDiskType'
  | 'flushIntervalCommitLog'
  | 'flushCommitLogLeastPages'
  | 'flushCommitLogThoroughInterval'
  | 'syncFlushTimeout'
  | 'maxMessageSize'
  | 'allowMidLogTruncation'
  | 'commitLogTailCacheBytes'
  | 'osPageCacheBusyTimeOutMills'
>;

/** An append waiting for its turn's write. */
export class PendingAppend {
  physicalOffset = 0;
  queueOffset = 0;
  /** Index of the write segment holding the record, -1 when it got none. */
  segment = -1;
  /** SYNC_FLUSH: the result, held until group commit says how the fdatasync went. */
  result: PutMessageResult | undefined = undefined;
  /** SYNC_MASTER: the wait for a slave, begun when the record was written. */
  replica: Promise<PutMessageStatus> | undefined = undefined;
  constructor(
    readonly item: PreparedMessage | PreparedBatch,
    readonly resolve: (result: PutMessageResult) => void,
  ) {}
}

/** Answers an append whose write (and flush) is done, once its slave wait, if any, is over too. */
export function settleAppend(p: PendingAppend, put: PutMessageResult): void {
  const replica = p.replica;
  if (replica === undefined) {
    p.resolve(put);
    return;
  }
  replica.then((status) => {
    if (status !== PutMessageStatus.PUT_OK) put.putMessageStatus = status;
    p.resolve(put);
  });
}

/** The records of a written batch as its dispatchers see them. */
export class AppendedBatch implements DispatchBatch {
  private readonly requests: Array<DispatchRequest | undefined>;

  readonly commitLogOffset: number;

  constructor(
    private readonly batch: PreparedBatch,
    /** Commit-log offset of every record. */
    private readonly offsets: readonly number[],
    readonly consumeQueueOffset: number,
    readonly storeTimestamp: number,
    private readonly tsBig: bigint,
  ) {
    this.commitLogOffset = offsets[0] ?? 0;
    this.requests = new Array<DispatchRequest | undefined>(batch.count);
  }

  get topic(): string {
    return this.batch.topic;
  }

  get queueId(): number {
    return this.batch.queueId;
  }

  get sysFlag(): number {
    return this.batch.sysFlag;
  }

  get count(): number {
    return this.batch.count;
  }

  msgSize(index: number): number {
    return this.batch.entry(index, BatchEntryField.SIZE);
  }

  tagsCode(index: number): number {
    return this.batch.entry(index, BatchEntryField.TAGS_CODE);
  }

  keys(index: number): string {
    return this.batch.keysOf(index);
  }

  uniqKeyHash(index: number, seed: number): number | undefined {
    return this.batch.uniqKeyHash(index, seed);
  }

  request(index: number): DispatchRequest {
    let r = this.requests[index];
    if (r === undefined) {
      const tagsCode = this.batch.entry(index, BatchEntryField.TAGS_CODE);
      r = new DispatchRequest(
        this.batch.topic,
        this.batch.queueId,
        BigInt(this.offsets[index] ?? 0),
        this.batch.entry(index, BatchEntryField.SIZE),
        tagsCode === 0 ? 0n : BigInt(tagsCode),
        this.tsBig,
        BigInt(this.consumeQueueOffset + index),
        this.batch.sysFlag,
        0n,
        this.batch,
        index,
      );
      this.requests[index] = r;
    }
    return r;
  }
}

/**
 * What a written append reports (upstream doAppend's AppendMessageResult); its records go to
 * `dispatch` (a batch's to `dispatchBatch`) first, field for field what parsing the stored bytes
 * would give.
 */
export function appendedResult(
  p: PendingAppend,
  storeTimestamp: number,
  tsBig: bigint,
  delayLevels: DelayLevelTable,
  dispatch: ((request: DispatchRequest) => void) | undefined,
  dispatchBatch: ((batch: AppendedBatch) => void) | undefined,
): AppendMessageResult {
  const item = p.item;
  const physBig = BigInt(p.physicalOffset);
  const queueBig = BigInt(p.queueOffset);
  if (item.kind === 0) {
    if (dispatch !== undefined) {
      const tagsCode =
        item.delayLevel > 0
          ? BigInt(delayLevels.computeDeliverTimestamp(item.delayLevel, storeTimestamp))
          : item.topic === TIMER_TOPIC
            ? timerTagsCode(item.propertiesString, storeTimestamp)
            : item.tagsCode;
      dispatch(
        new DispatchRequest(
          item.topic,
          item.queueId,
          physBig,
          item.size,
          tagsCode,
          tsBig,
          queueBig,
          item.sysFlag,
          item.preparedTransactionOffset,
          item.propertiesString,
        ),
      );
    }
    return new AppendMessageResult(
      AppendMessageStatus.PUT_OK,
      physBig,
      item.size,
      tsBig,
      queueBig,
      1,
      item.storeHost,
    );
  }
  const offsets = new Array<number>(item.count);
  let phys = p.physicalOffset;
  for (let k = 0; k < item.count; k++) {
    offsets[k] = phys;
    phys += item.entry(k, BatchEntryField.SIZE);
  }
  dispatchBatch?.(new AppendedBatch(item, offsets, p.queueOffset, storeTimestamp, tsBig));
  return new AppendMessageResult(
    AppendMessageStatus.PUT_OK,
    physBig,
    item.size,
    tsBig,
    queueBig,
    item.count,
    item.storeHost,
    offsets,
  );
}

/** One positional write of a turn: a byte range of the turn's buffer into one file. */
export class WriteSegment {
  done = false;
  constructor(
    readonly file: MappedFile,
    readonly filePosition: number,
    readonly start: number,
    readonly end: number,
    /** The file's write position once this segment is written (its size after a BLANK). */
    readonly endPosition: number,
  ) {}
}

/** A message field the record cannot carry (e.g. a host that is not an IP literal). */
export function illegal(err: unknown): Refusal {
  return {
    status: PutMessageStatus.MESSAGE_ILLEGAL,
    reason: err instanceof Error ? err.message : String(err),
  };
}
