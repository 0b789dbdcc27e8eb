/**
 * ConsumeQueue: the per (topic, queueId) logical queue over the commit log, in upstream's on-disk
 * format (store/ConsumeQueue.java, 4.9.8). Files `consumequeue/<topic>/<queueId>/<20-digit byte
 * offset>` hold 20-byte entries `commitLogOffset int64 | size int32 | tagsCode int64`; the logical
 * offset of an entry is its byte position / 20.
 *
 * Writes go to an in-memory tail of the last file and reach the file in one positional write per
 * queue per event-loop turn (a microtask), so a consumer that keeps up is served from memory and a
 * burst of dispatches costs one syscall per queue. The commit log stays the source of truth: the
 * store rebuilds anything lost from it on recovery.
 */

import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ValidationError } from '../common/errors.js';
import { createLogger, type Logger } from '../common/logger.js';
import { validateTopic } from '../common/validators.js';
import {
  type ConsumeQueueEntry,
  CQ_PADDING_SIZE,
  CQ_STORE_UNIT_SIZE,
  CqEntryField,
  cqEntryAt,
  isPaddingEntry,
  isValidEntry,
  validateConsumeQueueFileSize,
  validateQueueId,
} from './consume-queue-entry.js';
import { searchEntryByTime } from './consume-queue-time-search.js';
import type { DispatchBatch, DispatchRequest } from './dispatch-request.js';
import { fileName2Offset, offset2FileName } from './mapped-file.js';
import { removeDirIfEmpty, SegmentFile, SegmentFileError } from './segment-files.js';

/** Largest logical offset whose byte position stays an exact JS number. */
const MAX_LOGICAL_INDEX = BigInt(Math.floor(Number.MAX_SAFE_INTEGER / CQ_STORE_UNIT_SIZE));
const TWO_32 = 4294967296;
/** Entries kept in memory at the end of the last file (bounded per queue). */
const TAIL_ENTRIES = 256;
const TAIL_BYTES = TAIL_ENTRIES * CQ_STORE_UNIT_SIZE;
/** Chunk used when scanning files (a multiple of the entry size). */
const SCAN_CHUNK = 3276 * CQ_STORE_UNIT_SIZE;
/** One scan buffer for all queues: scans are synchronous and never nested. */
let sharedScanBuf: Buffer | undefined;

interface Segment {
  file: SegmentFile;
  /** Logical byte offset of the file's first entry (its name). */
  from: number;
  /** Bytes holding entries (includes those still only in the tail). */
  wrote: number;
  /** Bytes handed to the OS. */
  committed: number;
  /** Bytes known to be on disk (fdatasync). */
  flushed: number;
  /** Created while the queue had no file (upstream `isFirstCreateInQueue`). */
  firstCreate: boolean;
}

export interface ConsumeQueueOptions {
  /** The consume-queue root, `<storePathRootDir>/consumequeue`. */
  storePath: string;
  /** Bytes per file (`mappedFileSizeConsumeQueue`), a multiple of 20. */
  mappedFileSize: number;
  logger?: Logger;
  /**
   * Write entries buffered during a turn in a microtask (default true). With false the owner calls
   * `commit()` itself; reads see buffered entries either way.
   */
  autoCommit?: boolean;
}

export class ConsumeQueue {
  readonly topic: string;
  readonly queueId: number;
  /** `<storePath>/<topic>/<queueId>`. */
  readonly dir: string;
  private readonly topicDir: string;
  private readonly fileSize: number;
  private readonly log: Logger;
  private readonly autoCommit: boolean;
  private segments: Segment[] = [];
  private maxPhysicOffset = -1n;
  private minLogicOffset = 0;
  private tail: Buffer | undefined;
  /** Position (in the last file) of tail[0]. */
  private tailStart = 0;
  private commitScheduled = false;
  private failure: Error | undefined;
  private flushChain: Promise<void> = Promise.resolve();
  private readonly entryBuf = Buffer.alloc(CQ_STORE_UNIT_SIZE);
  // DataView stores of int64 skip the argument checks Buffer.writeBigInt64BE makes on every call.
  private readonly entryView = new DataView(
    this.entryBuf.buffer,
    this.entryBuf.byteOffset,
    CQ_STORE_UNIT_SIZE,
  );

  constructor(topic: string, queueId: number, options: ConsumeQueueOptions) {
    validateTopic(topic);
    validateQueueId(queueId);
    validateConsumeQueueFileSize(options.mappedFileSize);
    this.topic = topic;
    this.queueId = queueId;
    this.topicDir = join(options.storePath, topic);
    this.dir = join(this.topicDir, String(queueId));
    this.fileSize = options.mappedFileSize;
    this.log = options.logger ?? createLogger('store.consumeQueue');
    this.autoCommit = options.autoCommit ?? true;
  }

  // ---------------------------------------------------------------- load and recovery

  /**
   * Opens the existing files (upstream `load`): every file must be named by its 20-digit offset, be
   * exactly `mappedFileSize` long and follow the previous one. Call `recover()` next.
   */
  load(): void {
    if (this.segments.length > 0) throw new SegmentFileError(this.dir, 'consume queue is already loaded');
    if (!existsSync(this.dir)) return;
    const names = readdirSync(this.dir).sort();
    const segments: Segment[] = [];
    try {
      for (const name of names) {
        const path = join(this.dir, name);
        const from = fileName2Offset(name);
        if (from === undefined || from % this.fileSize !== 0) {
          throw new SegmentFileError(
            path,
            `unexpected file in consume queue directory (names are 20-digit offsets, multiples of ${this.fileSize})`,
          );
        }
        const prev = segments.at(-1);
        if (prev !== undefined && from !== prev.from + this.fileSize) {
          throw new SegmentFileError(
            path,
            `file does not follow ${prev.file.fileName}: a consume queue file is missing`,
          );
        }
        const file = SegmentFile.open(path, this.fileSize);
        // As upstream: a loaded file counts as full until recover() finds its end.
        segments.push({
          file,
          from,
          wrote: this.fileSize,
          committed: this.fileSize,
          flushed: this.fileSize,
          firstCreate: false,
        });
      }
    } catch (err) {
      for (const s of segments) s.file.close();
      throw err;
    }
    this.segments = segments;
    // Upstream starts at 0 and waits for correctMinOffset; the first file is a safer lower bound.
    this.minLogicOffset = segments[0]?.from ?? 0;
  }

  /**
   * Finds the end of the queue (upstream `recover`): scans from the third-last file to the first
   * entry that is not `offset >= 0 && size > 0`, drops files past it and sets maxPhysicOffset.
   */
  recover(): void {
    if (this.segments.length === 0) return;
    this.commit();
    this.tail = undefined;
    let index = Math.max(0, this.segments.length - 3);
    let seg = this.segments[index] as Segment;
    let processOffset = seg.from;
    let mappedFileOffset = 0;
    for (;;) {
      mappedFileOffset = 0;
      this.scan(seg, 0, this.fileSize, (buf, at, pos) => {
        if (!isValidEntry(buf, at)) return false;
        mappedFileOffset = pos + CQ_STORE_UNIT_SIZE;
        this.maxPhysicOffset = buf.readBigInt64BE(at) + BigInt(buf.readInt32BE(at + CqEntryField.SIZE));
        return true;
      });
      if (mappedFileOffset === this.fileSize) {
        index++;
        const next = this.segments[index];
        if (next === undefined) break;
        seg = next;
        processOffset = seg.from;
      } else {
        this.log.info('recover consume queue over', {
          topic: this.topic,
          queueId: this.queueId,
          file: seg.file.fileName,
        });
        break;
      }
    }
    processOffset += mappedFileOffset;
    this.truncateDirtyFiles(processOffset);
  }

  /** Upstream `MappedFileQueue.truncateDirtyFiles`: files past `offset` go, the one holding it ends there. */
  private truncateDirtyFiles(offset: number): void {
    this.commit();
    const kept: Segment[] = [];
    for (const seg of this.segments) {
      if (seg.from + this.fileSize > offset) {
        if (offset >= seg.from) {
          const pos = offset - seg.from;
          seg.wrote = pos;
          seg.committed = pos;
          seg.flushed = Math.min(seg.flushed, pos);
        } else {
          seg.file.destroy();
          continue;
        }
      }
      kept.push(seg);
    }
    this.segments = kept;
    this.resetTail();
  }

  /**
   * Drops entries that point at or past `phyOffset`, the commit log's end after its recovery
   * (upstream `truncateDirtyLogicFiles`). The dropped bytes are zeroed so a later recovery cannot
   * bring them back.
   */
  truncateDirtyLogicFiles(phyOffset: bigint): void {
    this.commit();
    this.maxPhysicOffset = phyOffset;
    for (;;) {
      const seg = this.segments.at(-1);
      if (seg === undefined) break;
      const oldWrote = seg.wrote;
      let newWrote = 0;
      let dropFile = false;
      let newMax = this.maxPhysicOffset;
      this.scan(seg, 0, oldWrote, (buf, at, pos) => {
        const offset = buf.readBigInt64BE(at);
        const size = buf.readInt32BE(at + CqEntryField.SIZE);
        if (offset < 0n || size <= 0) return false;
        if (offset >= phyOffset) {
          if (pos === 0) dropFile = true;
          return false;
        }
        newWrote = pos + CQ_STORE_UNIT_SIZE;
        newMax = offset + BigInt(size);
        return true;
      });
      if (dropFile) {
        seg.file.destroy();
        this.segments.pop();
        this.resetTail();
        continue;
      }
      this.maxPhysicOffset = newWrote > 0 ? newMax : this.maxPhysicOffset;
      if (newWrote < oldWrote) this.zeroRange(seg, newWrote, oldWrote);
      seg.wrote = newWrote;
      seg.committed = newWrote;
      seg.flushed = Math.min(seg.flushed, newWrote);
      break;
    }
    // Ours: with every file gone the queue restarts like a new one (upstream keeps a stale minimum
    // above the maximum, hiding the first entries written next).
    if (this.segments.length === 0) this.minLogicOffset = 0;
    this.resetTail();
  }

  private zeroRange(seg: Segment, from: number, to: number): void {
    const zeros = Buffer.alloc(Math.min(to - from, SCAN_CHUNK));
    for (let pos = from; pos < to; pos += zeros.length) {
      this.guardedWrite(seg, zeros, 0, Math.min(zeros.length, to - pos), pos);
    }
  }

  // ---------------------------------------------------------------- writing

  /** Appends the entry of one dispatched record (upstream `putMessagePositionInfo`). */
  putMessagePositionInfo(request: DispatchRequest): boolean {
    return this.putEntry(
      request.commitLogOffset,
      request.msgSize,
      request.tagsCode,
      request.consumeQueueOffset,
    );
  }

  /**
   * Writes `offset | size | tagsCode` at logical offset `cqOffset`. A record already indexed (its end
   * is not past maxPhysicOffset, or cqOffset is below the queue's end) is ignored and reported as
   * done; a queue whose first file starts past 0 is pre-filled with padding entries; any other gap
   * is logged and the entry goes at the queue's end, as upstream does.
   */
  putEntry(offset: bigint, size: number, tagsCode: bigint, cqOffset: bigint): boolean {
    this.checkWritable();
    if (!Number.isInteger(size) || size <= 0 || size > 0x7fffffff) {
      throw new ValidationError(`consume queue entry size ${size} is not a positive int32`);
    }
    if (offset < 0n || cqOffset < 0n || cqOffset > MAX_LOGICAL_INDEX) {
      throw new ValidationError(
        `consume queue entry offset ${offset} / queue offset ${cqOffset} out of range`,
      );
    }
    if (offset + BigInt(size) <= this.maxPhysicOffset) {
      this.log.warn('maybe try to build consume queue repeatedly', {
        topic: this.topic,
        queueId: this.queueId,
        maxPhysicOffset: this.maxPhysicOffset,
        phyOffset: offset,
      });
      return true;
    }
    const expectLogicOffset = Number(cqOffset) * CQ_STORE_UNIT_SIZE;
    const seg = this.lastSegmentFor(expectLogicOffset);
    if (seg.firstCreate && cqOffset !== 0n && seg.wrote === 0) {
      this.minLogicOffset = expectLogicOffset;
      this.fillPreBlank(seg, expectLogicOffset);
    }
    const currentLogicOffset = seg.from + seg.wrote;
    // Upstream skips this check for queue offset 0. A re-dispatch of entry 0 to a queue whose
    // recovered files hold no valid commit-log offset (maxPhysicOffset -1) then lands at the queue's
    // end as a second, wrong entry; the queue offset says it is there already.
    if (expectLogicOffset < currentLogicOffset) {
      this.log.warn('build consume queue repeatedly', {
        topic: this.topic,
        queueId: this.queueId,
        expectLogicOffset,
        currentLogicOffset,
      });
      return true;
    }
    if (cqOffset !== 0n) {
      if (expectLogicOffset !== currentLogicOffset) {
        this.log.error('[BUG] logic queue order maybe wrong', {
          topic: this.topic,
          queueId: this.queueId,
          expectLogicOffset,
          currentLogicOffset,
        });
      }
    }
    this.maxPhysicOffset = offset + BigInt(size);
    const v = this.entryView;
    v.setBigInt64(CqEntryField.COMMIT_LOG_OFFSET, offset);
    v.setInt32(CqEntryField.SIZE, size);
    v.setBigInt64(CqEntryField.TAGS_CODE, BigInt.asIntN(64, tagsCode));
    this.appendToTail(seg, this.entryBuf);
    return true;
  }

  /**
   * The entries of a batch's records (putMessagePositionInfo for each). When they continue the queue
   * at the end of its last file, which has room for all, they are checked once and appended in one
   * pass; anything else takes putEntry's path record by record.
   */
  putBatchPositionInfo(batch: DispatchBatch): boolean {
    const count = batch.count;
    const first = batch.commitLogOffset;
    const expectLogicOffset = batch.consumeQueueOffset * CQ_STORE_UNIT_SIZE;
    const seg = this.segments.at(-1);
    if (
      count === 0 ||
      this.failure !== undefined ||
      seg === undefined ||
      seg.wrote === 0 ||
      seg.from + seg.wrote !== expectLogicOffset ||
      seg.wrote + count * CQ_STORE_UNIT_SIZE > this.fileSize ||
      !Number.isSafeInteger(expectLogicOffset + count * CQ_STORE_UNIT_SIZE) ||
      BigInt(first + batch.msgSize(0)) <= this.maxPhysicOffset
    ) {
      let phys = first;
      for (let i = 0; i < count; i++) {
        const size = batch.msgSize(i);
        this.putEntry(BigInt(phys), size, BigInt(batch.tagsCode(i)), BigInt(batch.consumeQueueOffset + i));
        phys += size;
      }
      return true;
    }
    const v = this.entryView;
    let phys = first;
    for (let i = 0; i < count; i++) {
      const size = batch.msgSize(i);
      const tagsCode = batch.tagsCode(i);
      v.setInt32(CqEntryField.COMMIT_LOG_OFFSET, Math.floor(phys / TWO_32));
      v.setInt32(CqEntryField.COMMIT_LOG_OFFSET + 4, phys | 0);
      v.setInt32(CqEntryField.SIZE, size);
      // The tag hash is an int32, stored sign-extended to int64.
      v.setInt32(CqEntryField.TAGS_CODE, tagsCode < 0 ? -1 : 0);
      v.setInt32(CqEntryField.TAGS_CODE + 4, tagsCode);
      this.appendToTail(seg, this.entryBuf);
      phys += size;
    }
    this.maxPhysicOffset = BigInt(phys);
    return true;
  }

  /** Upstream `getLastMappedFile(startOffset)`: the last file, a new one when there is none or it is full. */
  private lastSegmentFor(startOffset: number): Segment {
    const last = this.segments.at(-1);
    if (last !== undefined && last.wrote < this.fileSize) return last;
    let from: number;
    if (last === undefined) {
      from = startOffset - (startOffset % this.fileSize);
    } else {
      this.commit();
      from = last.from + this.fileSize;
    }
    let file: SegmentFile;
    try {
      file = SegmentFile.create(this.dir, offset2FileName(from), this.fileSize);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      throw err;
    }
    const seg: Segment = { file, from, wrote: 0, committed: 0, flushed: 0, firstCreate: last === undefined };
    this.segments.push(seg);
    this.resetTail();
    return seg;
  }

  private fillPreBlank(seg: Segment, untilWhere: number): void {
    const until = untilWhere % this.fileSize;
    const chunk = Buffer.alloc(Math.min(until, SCAN_CHUNK));
    for (let at = 0; at < chunk.length; at += CQ_STORE_UNIT_SIZE) {
      chunk.writeInt32BE(CQ_PADDING_SIZE, at + CqEntryField.SIZE);
    }
    for (let pos = 0; pos < until; pos += chunk.length) {
      this.guardedWrite(seg, chunk, 0, Math.min(chunk.length, until - pos), pos);
    }
    seg.wrote = until;
    seg.committed = until;
    this.log.info('fill pre blank space', { file: seg.file.fileName, until });
    this.resetTail();
  }

  private appendToTail(seg: Segment, entry: Buffer): void {
    let tail = this.tail;
    if (tail === undefined) {
      tail = Buffer.allocUnsafe(TAIL_BYTES);
      this.tail = tail;
      this.tailStart = seg.wrote;
    }
    if (seg.wrote - this.tailStart + CQ_STORE_UNIT_SIZE > TAIL_BYTES) {
      this.commit();
      // Keep the newer half in memory for readers close to the end.
      const keepFrom = seg.wrote - TAIL_BYTES / 2;
      tail.copyWithin(0, keepFrom - this.tailStart, seg.wrote - this.tailStart);
      this.tailStart = keepFrom;
    }
    entry.copy(tail, seg.wrote - this.tailStart);
    seg.wrote += CQ_STORE_UNIT_SIZE;
    if (this.autoCommit && !this.commitScheduled) {
      this.commitScheduled = true;
      queueMicrotask(this.scheduledCommit);
    }
  }

  private readonly scheduledCommit = (): void => {
    this.commitScheduled = false;
    try {
      this.commit();
    } catch (err) {
      this.log.error('consume queue write failed', {
        topic: this.topic,
        queueId: this.queueId,
        error: err instanceof Error ? err.message : String(err),
      });
    }
  };

  /** Hands the entries buffered in memory to the OS (one positional write). */
  commit(): void {
    const seg = this.segments.at(-1);
    const tail = this.tail;
    if (seg === undefined || tail === undefined || seg.committed >= seg.wrote) return;
    this.checkWritable();
    this.guardedWrite(seg, tail, seg.committed - this.tailStart, seg.wrote - seg.committed, seg.committed);
    seg.committed = seg.wrote;
  }

  private guardedWrite(seg: Segment, src: Buffer, srcOffset: number, length: number, position: number): void {
    try {
      seg.file.writeSync(position, src, srcOffset, length);
    } catch (err) {
      this.failure = err instanceof Error ? err : new Error(String(err));
      throw err;
    }
  }

  private checkWritable(): void {
    if (this.failure !== undefined) {
      throw new SegmentFileError(
        this.dir,
        `consume queue refuses writes after an earlier failure: ${this.failure.message}`,
        undefined,
        { cause: this.failure },
      );
    }
  }

  /** The tail always belongs to the last file and starts at its end, with nothing pending. */
  private resetTail(): void {
    const last = this.segments.at(-1);
    this.tailStart = last?.wrote ?? 0;
  }

  /**
   * fdatasync of files holding entries not yet on disk (upstream `flush(flushLeastPages)`): a file is
   * synced when full or when at least `flushLeastPages` 4 KiB pages are dirty (0: anything dirty).
   */
  flush(flushLeastPages = 0): Promise<void> {
    const run = this.flushChain.then(() => this.doFlush(flushLeastPages));
    this.flushChain = run.catch(() => undefined);
    return run;
  }

  private async doFlush(flushLeastPages: number): Promise<void> {
    this.commit();
    for (const seg of [...this.segments]) {
      const target = seg.committed;
      if (target <= seg.flushed) continue;
      const full = seg.wrote === this.fileSize;
      if (
        !full &&
        flushLeastPages > 0 &&
        Math.floor(target / 4096) - Math.floor(seg.flushed / 4096) < flushLeastPages
      ) {
        continue;
      }
      try {
        await seg.file.datasync(target);
      } catch (err) {
        this.failure = err instanceof Error ? err : new Error(String(err));
        throw err;
      }
      seg.flushed = Math.max(seg.flushed, target);
    }
  }

  // ---------------------------------------------------------------- reading

  /**
   * Entries from logical offset `startIndex` to the end of the file holding it, at most
   * `maxEntries` of them (upstream `getIndexBuffer`, bounded). Undefined when the offset is below the
   * minimum, past the end, or its file is gone. The buffer is the caller's own copy.
   */
  getIndexBuffer(startIndex: bigint, maxEntries = this.fileSize / CQ_STORE_UNIT_SIZE): Buffer | undefined {
    if (startIndex < 0n || startIndex > MAX_LOGICAL_INDEX || maxEntries < 1) return undefined;
    const offset = Number(startIndex) * CQ_STORE_UNIT_SIZE;
    if (offset < this.minLogicOffset) return undefined;
    const seg = this.findSegment(offset);
    if (seg === undefined) return undefined;
    const pos = offset - seg.from;
    if (pos >= seg.wrote) return undefined;
    const length = Math.min(seg.wrote - pos, Math.floor(maxEntries) * CQ_STORE_UNIT_SIZE);
    const out = Buffer.allocUnsafe(length);
    this.readRange(seg, pos, length, out, 0);
    return out;
  }

  /** One entry, or undefined where getIndexBuffer would give nothing. */
  getEntry(index: bigint): ConsumeQueueEntry | undefined {
    const buf = this.getIndexBuffer(index, 1);
    return buf === undefined ? undefined : cqEntryAt(buf, 0);
  }

  private findSegment(offset: number): Segment | undefined {
    const first = this.segments[0];
    if (first === undefined || offset < first.from) return undefined;
    const seg = this.segments[Math.floor((offset - first.from) / this.fileSize)];
    return seg !== undefined && offset >= seg.from && offset < seg.from + this.fileSize ? seg : undefined;
  }

  /** Copies [pos, pos+length) of a file, taking what the in-memory tail holds from there. */
  private readRange(seg: Segment, pos: number, length: number, dst: Buffer, dstOffset: number): void {
    const tail = this.tail;
    const end = pos + length;
    if (tail !== undefined && seg === this.segments.at(-1) && end > this.tailStart && pos < seg.wrote) {
      const memFrom = Math.max(pos, this.tailStart);
      const memTo = Math.min(end, seg.wrote);
      if (pos < memFrom) seg.file.read(dst, dstOffset, memFrom - pos, pos);
      tail.copy(dst, dstOffset + (memFrom - pos), memFrom - this.tailStart, memTo - this.tailStart);
      if (memTo < end) seg.file.read(dst, dstOffset + (memTo - pos), end - memTo, memTo);
      return;
    }
    seg.file.read(dst, dstOffset, length, pos);
  }

  /** Visits entries in [start, end) of a file in chunks; the visitor returns false to stop. */
  private scan(
    seg: Segment,
    start: number,
    end: number,
    visit: (buf: Buffer, at: number, pos: number) => boolean,
  ): void {
    sharedScanBuf ??= Buffer.allocUnsafe(SCAN_CHUNK);
    const buf = sharedScanBuf;
    for (let pos = start; pos < end; ) {
      const n = Math.min(SCAN_CHUNK, end - pos);
      this.readRange(seg, pos, n, buf, 0);
      for (let at = 0; at + CQ_STORE_UNIT_SIZE <= n; at += CQ_STORE_UNIT_SIZE) {
        if (!visit(buf, at, pos + at)) return;
      }
      pos += n;
    }
  }

  /** Commit-log end (offset + size) of the last entry, -1 if the last file holds none (upstream `getLastOffset`). */
  getLastOffset(): bigint {
    const seg = this.segments.at(-1);
    if (seg === undefined || seg.wrote === 0) return -1n;
    const buf = this.entryBufForRead();
    this.readRange(seg, seg.wrote - CQ_STORE_UNIT_SIZE, CQ_STORE_UNIT_SIZE, buf, 0);
    if (!isValidEntry(buf, 0)) return -1n;
    return buf.readBigInt64BE(0) + BigInt(buf.readInt32BE(CqEntryField.SIZE));
  }

  private readonly readEntryBuf = Buffer.alloc(CQ_STORE_UNIT_SIZE);
  private entryBufForRead(): Buffer {
    return this.readEntryBuf;
  }

  /**
   * Logical offset of the message stored closest to `timestamp` (upstream binary search: picks the
   * file by modification time, skips entries below `minPhyOffset`, returns the nearer neighbour when
   * there is no exact match). `pickupStoreTimestamp` reads a record's store time from the commit
   * log, negative when it cannot.
   */
  getOffsetInQueueByTime(
    timestamp: bigint,
    minPhyOffset: bigint,
    pickupStoreTimestamp: (phyOffset: bigint, size: number) => bigint,
  ): bigint {
    const seg = this.segmentByTime(Number(timestamp));
    if (seg === undefined) return 0n;
    const low = this.minLogicOffset > seg.from ? this.minLogicOffset - seg.from : 0;
    const high = seg.wrote - CQ_STORE_UNIT_SIZE;
    const buf = this.entryBufForRead();
    const offset = searchEntryByTime(low, high, timestamp, minPhyOffset, pickupStoreTimestamp, (pos) => {
      this.readRange(seg, pos, CQ_STORE_UNIT_SIZE, buf, 0);
      return buf;
    });
    if (offset === undefined) return 0n;
    // Java long division truncates toward zero, as BigInt division does (offset may be -1).
    return BigInt(seg.from + offset) / BigInt(CQ_STORE_UNIT_SIZE);
  }

  /** Upstream `getMappedFileByTime`: the first file modified at or after `timestamp`, else the last. */
  private segmentByTime(timestamp: number): Segment | undefined {
    for (const seg of this.segments) {
      if (seg.file.getLastModifiedTimestamp() >= timestamp) return seg;
    }
    return this.segments.at(-1);
  }

  // ---------------------------------------------------------------- offsets and retention

  getMinOffsetInQueue(): bigint {
    return BigInt(Math.floor(this.minLogicOffset / CQ_STORE_UNIT_SIZE));
  }

  /** The next logical offset (upstream `getMaxOffsetInQueue`). */
  getMaxOffsetInQueue(): bigint {
    const last = this.segments.at(-1);
    return last === undefined ? 0n : BigInt((last.from + last.wrote) / CQ_STORE_UNIT_SIZE);
  }

  getMessageTotalInQueue(): bigint {
    return this.getMaxOffsetInQueue() - this.getMinOffsetInQueue();
  }

  /** Commit-log end of the last entry written (upstream `maxPhysicOffset`; -1 when none). */
  getMaxPhysicOffset(): bigint {
    return this.maxPhysicOffset;
  }

  setMaxPhysicOffset(value: bigint): void {
    this.maxPhysicOffset = value;
  }

  /** Minimum logical offset in bytes (upstream `getMinLogicOffset`). */
  getMinLogicOffset(): number {
    return this.minLogicOffset;
  }

  setMinLogicOffset(value: number): void {
    this.minLogicOffset = value;
  }

  /** First logical offset of the file after the one holding `index` (upstream `rollNextFile`). */
  rollNextFile(index: bigint): bigint {
    const perFile = BigInt(this.fileSize / CQ_STORE_UNIT_SIZE);
    return index + perFile - (index % perFile);
  }

  /**
   * Moves the minimum logical offset to the first entry pointing at or past `minPhyOffset` (upstream
   * `correctMinOffset`). As upstream 5.x: when even the last entry is below it, the queue holds no
   * readable entry and the minimum becomes the maximum. Padding entries never count.
   */
  correctMinOffset(minPhyOffset: bigint): void {
    const last = this.segments.at(-1);
    if (last === undefined) return;
    if (last.wrote > 0) {
      const buf = this.entryBufForRead();
      this.readRange(last, last.wrote - CQ_STORE_UNIT_SIZE, CQ_STORE_UNIT_SIZE, buf, 0);
      if (buf.readBigInt64BE(0) < minPhyOffset) {
        this.minLogicOffset = last.from + last.wrote;
        return;
      }
    }
    for (const seg of this.segments) {
      let found = -1;
      this.scan(seg, 0, seg.wrote, (b, at, pos) => {
        if (b.readBigInt64BE(at) >= minPhyOffset && !isPaddingEntry(b, at)) {
          found = pos;
          return false;
        }
        return true;
      });
      if (found >= 0) {
        this.minLogicOffset = seg.from + found;
        return;
      }
    }
  }

  /**
   * Deletes leading files whose last entry points below `minPhyOffset`, never the last file, then
   * corrects the minimum offset (upstream `deleteExpiredFile`). Returns the number deleted.
   */
  deleteExpiredFile(minPhyOffset: bigint): number {
    this.commit();
    let count = 0;
    const buf = this.entryBufForRead();
    while (this.segments.length > 1) {
      const seg = this.segments[0] as Segment;
      if (seg.wrote < this.fileSize) break;
      this.readRange(seg, this.fileSize - CQ_STORE_UNIT_SIZE, CQ_STORE_UNIT_SIZE, buf, 0);
      if (buf.readBigInt64BE(0) >= minPhyOffset) break;
      seg.file.destroy();
      this.segments.shift();
      count++;
    }
    this.correctMinOffset(minPhyOffset);
    return count;
  }

  // ---------------------------------------------------------------- lifecycle

  /** Writes what is buffered and closes the files (the queue can be loaded again). */
  close(): void {
    try {
      this.commit();
    } finally {
      for (const seg of this.segments) seg.file.close();
      this.segments = [];
      this.tail = undefined;
    }
  }

  /** Deletes every file and the queue directory (upstream `destroy`). */
  destroy(): void {
    for (const seg of this.segments) seg.file.destroy();
    this.segments = [];
    this.tail = undefined;
    this.tailStart = 0;
    this.maxPhysicOffset = -1n;
    this.minLogicOffset = 0;
    removeDirIfEmpty(this.dir);
    removeDirIfEmpty(this.topicDir);
  }

  /** Names of the files, oldest first (for tests and admin tools). */
  fileNames(): string[] {
    return this.segments.map((s) => s.file.fileName);
  }

  /** Whether an earlier write or sync failed; such a queue refuses writes. */
  get failed(): Error | undefined {
    return this.failure;
  }
}
