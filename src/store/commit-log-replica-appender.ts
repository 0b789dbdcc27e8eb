/**
 * A slave's appends of its master's bytes (upstream `CommitLog.appendData`): where they may go, the
 * check of the records they complete (commit-log-replica.ts), the write, and the hand-over of those
 * records to the commit log, which takes their queue offsets, dispatches them and wakes flush and HA.
 */

import { type ReplicaRecord, ReplicaRecordParser } from './commit-log-replica.js';
import type { DelayLevelTable } from './delay-level.js';
import type { MappedFile } from './mapped-file.js';
import type { MappedFileQueue } from './mapped-file-queue.js';

/** What the appender needs of its commit log. */
export interface ReplicaHost {
  /** Why the log cannot take replicated bytes now (closed, failed, taking appends of its own). */
  replicaRefusal(): string | undefined;
  /** A write failed: the log refuses every later write, as after a failed append. */
  failWrites(err: unknown): void;
  /** The written bytes completed `records` (possibly none). */
  replicated(records: readonly ReplicaRecord[]): void;
}

export class ReplicaAppender {
  private parser: ReplicaRecordParser | undefined;

  constructor(
    private readonly files: MappedFileQueue,
    private readonly maxMessageSize: number,
    private readonly delayLevels: DelayLevelTable,
    private readonly host: ReplicaHost,
  ) {}

  /**
   * `data` must go exactly at the end of the log (an empty log starts at the file boundary the master
   * starts from) and stay within one file. Returns undefined when written, else why not; a refusal
   * writes nothing, except that the first part of a record whose rest failed is cut off again.
   */
  append(startOffset: number, data: Buffer): string | undefined {
    const refusal = this.host.replicaRefusal();
    if (refusal !== undefined) return refusal;
    const files = this.files;
    const fileSize = files.mappedFileSize;
    const last = files.getLastMappedFile();
    const end = files.getMaxOffset();
    if (last === undefined) {
      if (startOffset % fileSize !== 0) {
        return `an empty commit log can only start at a file boundary (multiple of ${fileSize}), not at ${startOffset}`;
      }
    } else if (startOffset !== end) {
      return `data for offset ${startOffset}, but the commit log ends at ${end}`;
    }
    const inFile = startOffset % fileSize;
    if (inFile + data.length > fileSize) {
      return `${data.length} bytes at ${startOffset} cross a commit-log file of ${fileSize} bytes (mappedFileSizeCommitLog must be the same on master and slave)`;
    }
    if (data.length === 0) return undefined;
    if (this.parser === undefined) {
      this.parser = new ReplicaRecordParser(fileSize, this.maxMessageSize, this.delayLevels);
      this.parser.reset(startOffset);
    }
    const checked = this.parser.check(startOffset, data);
    if (!checked.ok) {
      // A failed check leaves the parser as it was, unless written bytes had to be cut off.
      if (checked.cutBackTo !== undefined) {
        files.truncateDirtyFiles(checked.cutBackTo);
        this.parser.reset(checked.cutBackTo);
      }
      return checked.reason;
    }
    let file: MappedFile;
    try {
      file = last === undefined || last.isFull() ? files.createNextMappedFile(startOffset) : last;
      file.writeSync(inFile, data, 0, data.length);
    } catch (err) {
      this.host.failWrites(err);
      return `write failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    file.setWrotePosition(inFile + data.length);
    const lastRecord = checked.records.at(-1);
    if (lastRecord !== undefined && lastRecord.storeTimestamp > 0)
      file.setStoreTimestamp(lastRecord.storeTimestamp);
    this.host.replicated(checked.records);
    return undefined;
  }

  /** Forgets where the master's records stand: the next append starts a new log (haAllowResetSlave). */
  reset(): void {
    this.parser = undefined;
  }

  /** Where the replicated records have been dispatched up to (-1 before the first append). */
  get dispatchedTo(): number {
    return this.parser?.dispatchedTo ?? -1;
  }
}
