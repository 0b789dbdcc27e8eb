/** Options and the append bookkeeping of the commit log (commit-log.ts holds the log itself). */
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import type { StoreCheckpoint } from './checkpoint.js';
import type { MessageStoreConfig } from './config.js';
import type { FileIO } from './file-io.js';
import type { MappedFile } from './mapped-file.js';
import { type PutMessageResult, PutMessageStatus } from './put-message-result.js';
import type { PreparedBatch, PreparedMessage, Refusal } from './stored-record-writer.js';

export interface CommitLogOptions {
  clock?: Clock;
  logger?: Logger;
  /** File system calls (tests inject failures, slow or counted fsyncs). */
  io?: FileIO;
  /** Receives physicMsgTimestamp after each flush; abnormal recovery starts from it. */
  checkpoint?: StoreCheckpoint;
  /** Upstream `messageDelayLevel` (not in MessageStoreConfig yet). */
  messageDelayLevel?: string;
  /** Upstream `osPageCacheBusyTimeOutMills` [1000]: a write running longer makes appends OS_PAGECACHE_BUSY. */
  osPageCacheBusyTimeOutMills?: number;
  /** Bytes of appends allowed to queue behind the running write before OS_PAGECACHE_BUSY [64 MiB]. */
  maxPendingBytes?: number;
  /** Largest single write [4 MiB]; more queued bytes go out in the next write. */
  maxWriteBytes?: number;
  /** Upstream `checkCRCOnRecover` [true]. */
  checkCRCOnRecover?: boolean;
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
>;

/** An append waiting for its turn's write. */
export class PendingAppend {
  physicalOffset = 0;
  queueOffset = 0;
  /** Index of the write segment holding the record, -1 when it got none. */
  segment = -1;
  constructor(
    readonly item: PreparedMessage | PreparedBatch,
    readonly resolve: (result: PutMessageResult) => void,
  ) {}
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
