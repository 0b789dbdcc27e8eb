/**
 * Scanning the commit log's files: recovery after a restart (upstream `recoverNormally` /
 * `recoverAbnormally`) and the walk that rebuilds consume queues (upstream's reput). Files are read
 * in large chunks with positional reads; records are checked by `checkMessageAndReturnSize`.
 *
 * Stricter than upstream: where the scan stops before the end of the data, the rest of the log is
 * searched for a valid record (message magic with a matching PHYSICALOFFSET and CRC, or a BLANK that
 * fills its file). Finding one means damage in the middle of the log — truncating there would drop
 * data that was written after it — so recovery refuses with the file name and offset, unless
 * `allowMidLogTruncation` is set.
 */

import type { Logger } from '../common/logger.js';
import { BLANK_MAGIC_CODE, MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2 } from '../common/message/message.js';
import { getTransactionValue, MessageSysFlag } from '../common/message/sysflag.js';
import { type CrcAhead, startCrcAhead } from './crc-ahead.js';
import type { DelayLevelTable } from './delay-level.js';
import type { DispatchRequest } from './dispatch-request.js';
import { type MappedFile, OS_PAGE_SIZE } from './mapped-file.js';
import type { MappedFileQueue } from './mapped-file-queue.js';
import { bytesToScan, type RecoveryProgressListener, RecoveryProgressMeter } from './recovery-progress.js';
import { StoreCorruptionError } from './store-error.js';
import {
  CheckedRecord,
  checkMessageAndReturnSize,
  needsMoreBytes,
  RecordKind,
  STORE_TIMESTAMP_HEAD_SIZE,
  storeTimestampOf,
} from './stored-record-reader.js';

/** Reads of 1 MiB keep the bytes in cache between the read, the parse and the CRC (8 MiB were slower). */
const DEFAULT_CHUNK_SIZE = 1024 * 1024;
/** How often a scan tells its CRC worker where it is. */
const PUBLISH_EVERY_RECORDS = 256;
/** Bytes after a stop point always searched for valid records. */
const TAIL_WINDOW = 8 * 1024 * 1024;
/** Allocated blocks beyond the data that file-system metadata (extent trees) may account for. */
const ALLOCATION_SLACK = 256 * 1024;
/** A TOTALSIZE above this is taken for damage rather than read (no allocation sized by bad bytes). */
const MAX_SCANNED_RECORD_SIZE = 256 * 1024 * 1024;

/** A positional-read window over one file at a time. */
class ChunkReader {
  buf: Buffer;
  file: MappedFile | undefined;
  /** File position of buf[0]. */
  start = 0;
  length = 0;

  constructor(size: number) {
    this.buf = Buffer.allocUnsafe(size);
  }

  /** Makes `[pos, pos+need)` of `file` readable at `buf[pos - start]`; false past the file end. */
  ensure(file: MappedFile, pos: number, need: number): boolean {
    if (this.file === file && pos >= this.start && pos + need <= this.start + this.length) return true;
    if (pos + need > file.fileSize) return false;
    if (need > this.buf.length) this.buf = Buffer.allocUnsafe(need);
    this.file = file;
    this.start = pos;
    this.length = file.readInto(this.buf, 0, Math.min(this.buf.length, file.fileSize - pos), pos);
    return need <= this.length;
  }

  /** Bytes available from `pos` in the window. */
  available(pos: number): number {
    return this.start + this.length - pos;
  }

  /** Forgets the window (the file changed underneath, e.g. after a truncation). */
  reset(): void {
    this.file = undefined;
    this.length = 0;
  }
}

export interface ScanOptions {
  checkCRC: boolean;
  delayLevels: DelayLevelTable;
  /** Called for each valid message record, in log order. */
  onRecord?: (record: ScannedRecord) => void;
}

/** A valid message record met by a scan; scanners reuse one object, so copy what must outlive the call. */
export class ScannedRecord {
  topic = '';
  queueId = 0;
  queueOffset = 0;
  sysFlag = 0;
  storeTimestamp = 0;
  physicalOffset = 0;
  size = 0;
  /** Built only when the scan dispatches. */
  request: DispatchRequest | undefined = undefined;

  copyFrom(r: CheckedRecord, physicalOffset: number): this {
    this.topic = r.topic;
    this.queueId = r.queueId;
    this.queueOffset = r.queueOffset;
    this.sysFlag = r.sysFlag;
    this.storeTimestamp = r.storeTimestamp;
    this.physicalOffset = physicalOffset;
    this.size = r.size;
    this.request = r.request;
    return this;
  }
}

export type StopKind = 'blank' | 'eof' | 'end' | 'corrupt' | 'limit';

export interface FileScanStop {
  kind: StopKind;
  /** Position in the file where the scan stopped (the first byte not accepted). */
  position: number;
  reason: string;
}

export class RecordScanner {
  private readonly reader: ChunkReader;
  private readonly out = new CheckedRecord();
  private readonly current = new ScannedRecord();
  scannedBytes = 0;
  /** Body CRCs checked ahead on a worker thread, during a recovery scan that started one. */
  ahead: CrcAhead | undefined = undefined;
  /** Told of each chunk read, during a recovery scan someone watches. */
  progress: RecoveryProgressMeter | undefined = undefined;

  constructor(chunkSize = DEFAULT_CHUNK_SIZE) {
    this.reader = new ChunkReader(chunkSize);
  }

  reset(): void {
    this.reader.reset();
  }

  /**
   * Walks the records of `file` from `from` until a BLANK, the end of the file, never-written bytes,
   * a record that fails a check, or `limit`. A "suspect" record (see stored-record-reader) is passed
   * on only once the record after it checks out; otherwise the scan stops at it.
   */
  scanFile(
    file: MappedFile,
    from: number,
    options: ScanOptions,
    buildRequest: boolean,
    limit = file.fileSize,
  ): FileScanStop {
    const check = {
      checkCRC: options.checkCRC,
      buildRequest,
      delayLevels: options.delayLevels,
      crcValidUpTo: 0,
    };
    const out = this.out;
    const reader = this.reader;
    const onRecord = options.onRecord;
    const current = this.current;
    const ahead = options.checkCRC ? this.ahead : undefined;
    const progress = this.progress;
    let untilPublish = 0;
    let pos = from;
    // A record ending in NUL is held back until the next one checks out.
    let suspect: ScannedRecord | undefined;
    const stop = (kind: StopKind, position: number, reason: string): FileScanStop => {
      if (suspect !== undefined) {
        if (kind === 'blank' || kind === 'limit') {
          onRecord?.(suspect);
        } else {
          return {
            kind: 'corrupt',
            position: suspect.physicalOffset - file.fileFromOffset,
            reason: 'the last record ends in a NUL byte and nothing valid follows it: torn write',
          };
        }
      }
      return { kind, position, reason };
    };
    for (;;) {
      if (pos >= limit) return stop('limit', pos, 'reached the end of the readable data');
      const remaining = file.fileSize - pos;
      if (remaining === 0) return stop('eof', pos, 'end of file');
      if (reader.available(pos) < 8 || pos < reader.start || reader.file !== file) {
        reader.ensure(file, pos, Math.min(8, remaining));
        progress?.tick(file.fileFromOffset + pos);
      }
      if (ahead !== undefined) {
        const at = file.fileFromOffset + pos;
        if (at >= check.crcValidUpTo) check.crcValidUpTo = ahead.frontier();
        if (--untilPublish < 0) {
          ahead.publish(at);
          untilPublish = PUBLISH_EVERY_RECORDS;
        }
      }
      let r = checkMessageAndReturnSize(
        reader.buf,
        pos - reader.start,
        reader.available(pos),
        file.fileFromOffset + pos,
        remaining,
        check,
        out,
      );
      if (needsMoreBytes(r)) {
        if (r.size > MAX_SCANNED_RECORD_SIZE) {
          return stop('corrupt', pos, `TOTALSIZE ${r.size} is implausibly large`);
        }
        reader.ensure(file, pos, r.size);
        r = checkMessageAndReturnSize(
          reader.buf,
          pos - reader.start,
          reader.available(pos),
          file.fileFromOffset + pos,
          remaining,
          check,
          out,
        );
      }
      if (r.kind === RecordKind.MESSAGE) {
        if (suspect !== undefined) {
          onRecord?.(suspect);
          suspect = undefined;
        }
        if (r.suspect) suspect = new ScannedRecord().copyFrom(r, file.fileFromOffset + pos);
        else onRecord?.(current.copyFrom(r, file.fileFromOffset + pos));
        pos += r.size;
        this.scannedBytes += r.size;
        continue;
      }
      if (r.kind === RecordKind.BLANK) return stop('blank', pos, 'BLANK record');
      if (r.kind === RecordKind.END) return stop('end', pos, 'never-written bytes');
      return stop('corrupt', pos, r.reason);
    }
  }

  /**
   * True when a message record (magic, PHYSICALOFFSET at its position, fields, CRC) or a BLANK filling
   * the rest of its file starts at `pos`.
   */
  private validRecordAt(file: MappedFile, pos: number, options: ScanOptions): boolean {
    const remaining = file.fileSize - pos;
    if (remaining < 8 || !this.reader.ensure(file, pos, 8)) return false;
    const check = { checkCRC: options.checkCRC, buildRequest: false, delayLevels: options.delayLevels };
    let r = checkMessageAndReturnSize(
      this.reader.buf,
      pos - this.reader.start,
      this.reader.available(pos),
      file.fileFromOffset + pos,
      remaining,
      check,
      this.out,
    );
    if (needsMoreBytes(r)) {
      if (r.size > MAX_SCANNED_RECORD_SIZE || !this.reader.ensure(file, pos, r.size)) return false;
      r = checkMessageAndReturnSize(
        this.reader.buf,
        pos - this.reader.start,
        this.reader.available(pos),
        file.fileFromOffset + pos,
        remaining,
        check,
        this.out,
      );
    }
    return r.kind === RecordKind.MESSAGE || r.kind === RecordKind.BLANK;
  }

  /**
   * Searches `file` from `from` for the start of a valid record, looking for the magic codes with
   * Buffer.indexOf. Returns its position or -1.
   */
  findValidRecord(file: MappedFile, from: number, options: ScanOptions, end = file.fileSize): number {
    const magics = [MESSAGE_MAGIC_CODE, MESSAGE_MAGIC_CODE_V2, BLANK_MAGIC_CODE].map((m) => {
      const b = Buffer.allocUnsafe(4);
      b.writeInt32BE(m, 0);
      return b;
    });
    const window = Buffer.allocUnsafe(Math.min(DEFAULT_CHUNK_SIZE, Math.max(8, end - from)));
    // Windows overlap by 3 bytes so a magic code across a boundary is still seen.
    for (let start = from + 4; start < end; start += window.length - 3) {
      const len = file.readInto(window, 0, Math.min(window.length, end - start), start);
      const candidates: number[] = [];
      for (const magic of magics) {
        for (let i = window.indexOf(magic, 0); i >= 0 && i + 4 <= len; i = window.indexOf(magic, i + 1)) {
          candidates.push(start + i - 4);
        }
      }
      candidates.sort((a, b) => a - b);
      for (const c of candidates) {
        if (c >= from && this.validRecordAt(file, c, options)) return c;
      }
      if (start + len >= end) break;
    }
    return -1;
  }
}

export interface RecoveryContext {
  queue: MappedFileQueue;
  scanner: RecordScanner;
  options: ScanOptions;
  /** Build DispatchRequests (abnormal recovery dispatches every record it scans). */
  buildRequests: boolean;
  allowMidLogTruncation: boolean;
  logger: Logger;
  /** Scans of files holding at least this many bytes check body CRCs ahead on a worker thread. */
  parallelCrcMinBytes: number;
  /** Who hears how far the scan is, how often at most (ms), and the clock that measures it. */
  progress?: { listener: RecoveryProgressListener; interval: number; now: () => number };
}

export interface RecoveryResult {
  /** Commit-log offset where the recovered data ends: the next append goes here. */
  processOffset: number;
  /** Set when the scan stopped at something other than the clean end of the data. */
  stoppedAt: { fileName: string; offset: number; reason: string } | undefined;
  /** Bytes of the segment where the scan stopped that were found non-empty past processOffset. */
  droppedFiles: string[];
  /** Upstream: consume queues must drop entries at or past processOffset when this is true. */
  truncateConsumeQueue: boolean;
  /** Bytes of valid records scanned. */
  scannedBytes: number;
}

/**
 * Recovery from file `startIndex`: scan, decide where the data ends, refuse mid-log damage, cut the
 * torn tail and delete later files. `maxPhyOffsetOfConsumeQueue` is the end of the highest record the
 * consume queues reference (-1 when none).
 */
export function recoverFrom(
  ctx: RecoveryContext,
  startIndex: number,
  maxPhyOffsetOfConsumeQueue: number,
): RecoveryResult {
  const files = ctx.queue.getMappedFiles();
  ctx.scanner.reset();
  ctx.scanner.scannedBytes = 0;
  if (files.length === 0) {
    ctx.queue.setFlushedWhere(0);
    return {
      processOffset: 0,
      stoppedAt: undefined,
      droppedFiles: [],
      truncateConsumeQueue: maxPhyOffsetOfConsumeQueue >= 0,
      scannedBytes: 0,
    };
  }
  let index = Math.max(0, Math.min(startIndex, files.length - 1));
  let file = files[index]!;
  let stop: FileScanStop;
  if (ctx.options.checkCRC) {
    ctx.scanner.ahead = startCrcAhead(
      files.slice(index),
      file.fileFromOffset,
      ctx.parallelCrcMinBytes,
      ctx.logger,
    );
  }
  const meter =
    ctx.progress === undefined
      ? undefined
      : new RecoveryProgressMeter(
          file.fileFromOffset,
          bytesToScan(files.slice(index), file.fileFromOffset),
          ctx.progress.now,
          ctx.progress.interval,
          ctx.progress.listener,
        );
  ctx.scanner.progress = meter;
  try {
    for (;;) {
      stop = ctx.scanner.scanFile(file, 0, ctx.options, ctx.buildRequests);
      if ((stop.kind === 'blank' || stop.kind === 'eof') && index + 1 < files.length) {
        index++;
        file = files[index]!;
        continue;
      }
      break;
    }
  } finally {
    ctx.scanner.ahead?.stop();
    ctx.scanner.ahead = undefined;
    ctx.scanner.progress = undefined;
  }
  const processOffset = file.fileFromOffset + stop.position;
  meter?.finish(processOffset);
  let stoppedAt: RecoveryResult['stoppedAt'];
  if (stop.kind === 'corrupt' || stop.kind === 'end') {
    const found = findValidRecordAfter(ctx, index, stop.position);
    if (stop.kind === 'corrupt' || found !== undefined) {
      stoppedAt = { fileName: file.fileName, offset: stop.position, reason: stop.reason };
    }
    if (found !== undefined) {
      const message =
        `${stop.kind === 'end' ? 'never-written bytes' : `corrupt record (${stop.reason})`} followed by a valid ` +
        `record at ${found.file.fileName} offset ${found.position} (commit-log offset ${found.file.fileFromOffset + found.position})`;
      if (!ctx.allowMidLogTruncation) {
        throw new StoreCorruptionError(
          file.fileName,
          stop.position,
          processOffset,
          `mid-log damage: ${message}; refusing to truncate the commit log (set allowMidLogTruncation to drop everything from here)`,
        );
      }
      ctx.logger.error('mid-log damage: truncating the commit log as allowMidLogTruncation says', {
        file: file.fileName,
        offset: stop.position,
        detail: message,
      });
    } else if (stop.kind === 'corrupt') {
      ctx.logger.warn('torn tail: cutting the commit log back to the last intact record', {
        file: file.fileName,
        offset: stop.position,
        reason: stop.reason,
      });
    }
  }
  const droppedFiles = files.filter((f) => f.fileFromOffset > processOffset).map((f) => f.fileName);
  // Every position before the stop is whole; the stop file is cut back, later files are deleted.
  for (let i = 0; i < index; i++) {
    files[i]!.setWrotePosition(files[i]!.fileSize);
    files[i]!.setFlushedPosition(files[i]!.fileSize);
  }
  ctx.queue.truncateDirtyFiles(processOffset);
  ctx.queue.setFlushedWhere(processOffset);
  ctx.scanner.reset();
  return {
    processOffset,
    stoppedAt,
    droppedFiles,
    truncateConsumeQueue: maxPhyOffsetOfConsumeQueue >= processOffset,
    scannedBytes: ctx.scanner.scannedBytes,
  };
}

/**
 * Looks for a valid record after `position` in file `index` and anywhere in the later files. The
 * first TAIL_WINDOW bytes after the stop (where the records after a damaged one would be) are always
 * searched; the rest of a file only when the file system has allocated more than that window and a
 * little metadata can explain (reading never-written holes of a 1 GiB file costs seconds).
 */
function findValidRecordAfter(
  ctx: RecoveryContext,
  index: number,
  position: number,
): { file: MappedFile; position: number } | undefined {
  const files = ctx.queue.getMappedFiles();
  for (let i = index; i < files.length; i++) {
    const file = files[i]!;
    const from = i === index ? position + 1 : 0;
    const windowEnd = Math.min(file.fileSize, from + TAIL_WINDOW);
    const allocated = file.allocatedBytes();
    if (allocated === 0) continue;
    const inWindow = ctx.scanner.findValidRecord(file, from, ctx.options, windowEnd);
    if (inWindow >= 0) return { file, position: inWindow };
    const explained = Math.ceil(windowEnd / OS_PAGE_SIZE) * OS_PAGE_SIZE + ALLOCATION_SLACK;
    if (windowEnd < file.fileSize && allocated > explained) {
      const found = ctx.scanner.findValidRecord(file, windowEnd - 8, ctx.options, file.fileSize);
      if (found >= 0) return { file, position: found };
    }
  }
  return undefined;
}

/** True for records that take a queue offset (not PREPARED or ROLLBACK transaction parts). */
export function takesQueueOffset(sysFlag: number): boolean {
  const t = getTransactionValue(sysFlag);
  return t === MessageSysFlag.TRANSACTION_NOT_TYPE || t === MessageSysFlag.TRANSACTION_COMMIT_TYPE;
}

/**
 * Walks the records in `[fromOffset, toOffset)` (a record start up to the written end) and calls
 * `callback` with each one's DispatchRequest: the reput that rebuilds consume queues and the index.
 * Returns the offset reached. A record that fails its check there is damage: StoreCorruptionError.
 */
export function scanRecords(
  queue: MappedFileQueue,
  delayLevels: DelayLevelTable,
  fromOffset: number,
  callback: (request: DispatchRequest) => void,
  toOffset: number,
): number {
  const scanner = new RecordScanner(4 * 1024 * 1024);
  const options = {
    checkCRC: false,
    delayLevels,
    onRecord: (r: ScannedRecord) => {
      if (r.request !== undefined) callback(r.request);
    },
  };
  let offset = fromOffset;
  while (offset < toOffset) {
    const file = queue.findMappedFileByOffset(offset);
    if (file === undefined) break;
    const limit = Math.min(file.getReadPosition(), toOffset - file.fileFromOffset);
    const stop = scanner.scanFile(file, offset - file.fileFromOffset, options, true, limit);
    if (stop.kind === 'blank' || stop.kind === 'eof' || stop.position >= file.fileSize) {
      offset = file.fileFromOffset + file.fileSize;
      continue;
    }
    offset = file.fileFromOffset + stop.position;
    if (stop.kind === 'limit') break;
    throw new StoreCorruptionError(
      file.fileName,
      stop.position,
      offset,
      `record does not check out: ${stop.reason}`,
    );
  }
  return Math.min(offset, toOffset);
}

/**
 * Upstream `isMappedFileMatchedRecover`: abnormal recovery may start at `file` when its first record
 * was stored at or before the checkpoint's minimum timestamp (undefined: no checkpoint).
 */
export function isMappedFileMatchedRecover(
  file: MappedFile,
  checkpointMinTimestamp: bigint | undefined,
): boolean {
  if (checkpointMinTimestamp === undefined) return false;
  const head = Buffer.alloc(STORE_TIMESTAMP_HEAD_SIZE);
  file.readInto(head, 0, head.length, 0);
  const magic = head.readInt32BE(4);
  if (magic !== MESSAGE_MAGIC_CODE && magic !== MESSAGE_MAGIC_CODE_V2) return false;
  const storeTimestamp = storeTimestampOf(head) ?? 0n;
  return storeTimestamp !== 0n && storeTimestamp <= checkpointMinTimestamp;
}
