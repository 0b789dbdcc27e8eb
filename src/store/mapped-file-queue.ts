/**
 * The ordered segment files of one directory (upstream `MappedFileQueue`): a commit log or one consume
 * queue. Offsets are global (file start + position); each file covers `[fileFromOffset,
 * fileFromOffset + mappedFileSize)`. Only the last file is ever appended to.
 */

import * as fs from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../common/clock.js';
import type { Logger } from '../common/logger.js';
import { describeError, type FileIO, fsyncDirectory, nodeFileIO } from './file-io.js';
import { fileName2Offset, MappedFile } from './mapped-file.js';
import { StoreCorruptionError, StoreIOError } from './store-error.js';

/** Upstream deletes at most this many files per call, to spread the I/O. */
const DELETE_FILES_BATCH_MAX = 10;

export interface MappedFileQueueOptions {
  io?: FileIO;
  logger?: Logger;
}

export class MappedFileQueue {
  readonly storePath: string;
  readonly mappedFileSize: number;
  private readonly io: FileIO;
  private readonly logger: Logger | undefined;
  private mappedFiles: MappedFile[] = [];
  private flushedWhere = 0;
  private storeTimestamp = 0;

  constructor(storePath: string, mappedFileSize: number, options: MappedFileQueueOptions = {}) {
    if (!Number.isInteger(mappedFileSize) || mappedFileSize <= 0) {
      throw new RangeError(`mapped file size ${mappedFileSize} is not a positive integer`);
    }
    this.storePath = storePath;
    this.mappedFileSize = mappedFileSize;
    this.io = options.io ?? nodeFileIO;
    this.logger = options.logger;
  }

  /**
   * Opens every segment of the directory in offset order, positions at the file end (recovery sets the
   * real ones). Refuses names that are not 20-digit offsets, sizes other than `mappedFileSize` and gaps
   * between files. The last file alone may be shorter: that is a cut-back interrupted between its two
   * truncates (see MappedFile.truncateTo), and MappedFile.open extends it again.
   */
  load(): void {
    let names: string[];
    try {
      names = fs.readdirSync(this.storePath);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw new StoreIOError(this.storePath, `cannot list directory: ${describeError(err)}`, { cause: err });
    }
    const entries: Array<{ name: string; offset: number }> = [];
    for (const name of names) {
      const offset = fileName2Offset(name);
      if (offset === undefined) {
        throw new StoreCorruptionError(
          join(this.storePath, name),
          -1,
          -1,
          'unexpected file in a segment directory (names must be 20-digit offsets)',
        );
      }
      entries.push({ name, offset });
    }
    entries.sort((a, b) => a.offset - b.offset);
    const files: MappedFile[] = [];
    try {
      for (let i = 0; i < entries.length; i++) {
        const entry = entries[i]!;
        const path = join(this.storePath, entry.name);
        if (entry.offset % this.mappedFileSize !== 0) {
          throw new StoreCorruptionError(
            path,
            -1,
            entry.offset,
            `start offset is not a multiple of the segment size ${this.mappedFileSize}`,
          );
        }
        const prev = files[files.length - 1];
        if (prev !== undefined && prev.fileFromOffset + this.mappedFileSize !== entry.offset) {
          throw new StoreCorruptionError(
            path,
            -1,
            entry.offset,
            `gap in the segment files: the previous file ${prev.name} ends at ${prev.fileFromOffset + this.mappedFileSize}`,
          );
        }
        const file = MappedFile.open(path, this.mappedFileSize, {
          io: this.io,
          logger: this.logger,
          allowShort: i === entries.length - 1,
        });
        files.push(file);
        file.setWrotePosition(this.mappedFileSize);
        file.setFlushedPosition(this.mappedFileSize);
      }
    } catch (err) {
      for (const f of files) f.shutdown();
      throw err;
    }
    for (const f of this.mappedFiles) f.shutdown();
    this.mappedFiles = files;
  }

  /** Upstream `checkSelf`: descriptions of neighbouring files whose offsets do not follow each other. */
  checkSelf(): string[] {
    const problems: string[] = [];
    for (let i = 1; i < this.mappedFiles.length; i++) {
      const pre = this.mappedFiles[i - 1]!;
      const cur = this.mappedFiles[i]!;
      if (cur.fileFromOffset - pre.fileFromOffset !== this.mappedFileSize) {
        problems.push(`offsets of ${pre.name} and ${cur.name} do not follow each other`);
      }
    }
    return problems;
  }

  getMappedFiles(): readonly MappedFile[] {
    return this.mappedFiles;
  }

  getFirstMappedFile(): MappedFile | undefined {
    return this.mappedFiles[0];
  }

  getLastMappedFile(): MappedFile | undefined {
    return this.mappedFiles[this.mappedFiles.length - 1];
  }

  /**
   * Upstream `getLastMappedFile(startOffset, needCreate)`: the last file, or a new one when there is none
   * (starting at the segment holding `startOffset`) or the last is full. Creation errors are thrown.
   */
  getLastMappedFileOrCreate(startOffset: number, needCreate = true): MappedFile | undefined {
    const last = this.getLastMappedFile();
    let createOffset = -1;
    if (last === undefined) createOffset = startOffset - (startOffset % this.mappedFileSize);
    else if (last.isFull()) createOffset = last.fileFromOffset + this.mappedFileSize;
    if (createOffset >= 0 && needCreate) return this.createMappedFile(createOffset);
    return last;
  }

  /**
   * Creates the file after the last one (or the one holding `startOffset` in an empty queue) even if
   * the last is not marked full yet: the commit log rolls over while the blank record that fills the
   * previous file is still being written.
   */
  createNextMappedFile(startOffset = 0): MappedFile {
    const last = this.getLastMappedFile();
    const offset =
      last === undefined
        ? startOffset - (startOffset % this.mappedFileSize)
        : last.fileFromOffset + this.mappedFileSize;
    return this.createMappedFile(offset);
  }

  private createMappedFile(offset: number): MappedFile {
    const file = MappedFile.create(this.storePath, offset, this.mappedFileSize, {
      io: this.io,
      logger: this.logger,
    });
    if (this.mappedFiles.length === 0) file.firstCreateInQueue = true;
    this.mappedFiles.push(file);
    return file;
  }

  /** Upstream `findMappedFileByOffset`: the file holding `offset`, or the first one if asked. */
  findMappedFileByOffset(offset: number, returnFirstOnNotFound = false): MappedFile | undefined {
    const first = this.mappedFiles[0];
    if (first === undefined) return undefined;
    const index =
      Math.floor(offset / this.mappedFileSize) - Math.floor(first.fileFromOffset / this.mappedFileSize);
    const file = index >= 0 ? this.mappedFiles[index] : undefined;
    if (
      file !== undefined &&
      offset >= file.fileFromOffset &&
      offset < file.fileFromOffset + this.mappedFileSize
    ) {
      return file;
    }
    return returnFirstOnNotFound ? first : undefined;
  }

  /** Upstream `getMappedFileByTime`: the first file modified at or after `timestamp`, else the last. */
  getMappedFileByTime(timestamp: number): MappedFile | undefined {
    for (const f of this.mappedFiles) {
      if (f.getLastModifiedTimestamp() >= timestamp) return f;
    }
    return this.getLastMappedFile();
  }

  /** Start of the first file, -1 when there is none. */
  getMinOffset(): number {
    const first = this.mappedFiles[0];
    return first === undefined ? -1 : first.fileFromOffset;
  }

  /** End of the readable bytes of the last file, 0 when there is none. */
  getMaxOffset(): number {
    const last = this.getLastMappedFile();
    return last === undefined ? 0 : last.fileFromOffset + last.getReadPosition();
  }

  getMaxWrotePosition(): number {
    const last = this.getLastMappedFile();
    return last === undefined ? 0 : last.fileFromOffset + last.getWrotePosition();
  }

  remainHowManyDataToFlush(): number {
    return this.getMaxOffset() - this.flushedWhere;
  }

  getFlushedWhere(): number {
    return this.flushedWhere;
  }

  setFlushedWhere(offset: number): void {
    this.flushedWhere = offset;
  }

  /** Store timestamp of the last file flushed in full (checkpoint input). */
  getStoreTimestamp(): number {
    return this.storeTimestamp;
  }

  /**
   * Upstream `truncateDirtyFiles`: the file holding `offset` is cut back to it (the bytes after it become
   * zeros), every file starting after it is deleted.
   */
  truncateDirtyFiles(offset: number): void {
    const removed: MappedFile[] = [];
    let cut: MappedFile | undefined;
    for (const file of this.mappedFiles) {
      const tail = file.fileFromOffset + this.mappedFileSize;
      if (tail <= offset) continue;
      if (offset >= file.fileFromOffset) cut = file;
      else removed.push(file);
    }
    // Later files go first: a crash in between then leaves the cut file last, where load accepts a
    // short file (MappedFile.truncateTo shrinks before it extends).
    this.removeFiles(removed);
    if (cut !== undefined) {
      const pos = offset - cut.fileFromOffset;
      cut.truncateTo(pos);
      cut.setWrotePosition(pos);
      cut.setFlushedPosition(pos);
    }
    if (this.flushedWhere > offset) this.flushedWhere = offset;
  }

  /** Upstream `deleteLastMappedFile` (consume queue recovery). */
  deleteLastMappedFile(): void {
    const last = this.getLastMappedFile();
    if (last !== undefined) this.removeFiles([last]);
  }

  private removeFiles(files: readonly MappedFile[]): void {
    if (files.length === 0) return;
    const failed: string[] = [];
    for (const f of files) {
      if (!f.destroy()) failed.push(f.fileName);
      this.logger?.info('deleted segment file', { file: f.fileName });
    }
    const gone = new Set(files);
    this.mappedFiles = this.mappedFiles.filter((f) => !gone.has(f));
    try {
      fsyncDirectory(this.storePath, this.io);
    } catch (err) {
      throw new StoreIOError(this.storePath, `fsync of the directory failed: ${describeError(err)}`, {
        cause: err,
      });
    }
    if (failed.length > 0) throw new StoreIOError(failed[0]!, 'cannot delete segment file');
  }

  /**
   * Upstream `deleteExpiredFileByTime`: deletes files from the oldest on, never the last (active) one,
   * while their last modification is at least `expiredTime` ms before `clock.now()` (or at once when
   * `cleanImmediately`); stops at the first file still live so no hole opens in the middle. Pauses
   * `deleteFilesInterval` ms between files; at most 10 files per call. `intervalForcibly` is upstream's
   * wait for readers of a mapped file; positional reads hold no mapping, so it has nothing to wait for.
   */
  async deleteExpiredFileByTime(
    expiredTime: number,
    deleteFilesInterval: number,
    _intervalForcibly: number,
    cleanImmediately: boolean,
    clock: Clock,
  ): Promise<number> {
    const candidates = this.mappedFiles.slice(0, -1);
    let deleted = 0;
    for (let i = 0; i < candidates.length; i++) {
      const file = candidates[i]!;
      if (this.mappedFiles[0] !== file) break;
      const liveMax = file.getLastModifiedTimestamp() + expiredTime;
      if (!(clock.now() >= liveMax || cleanImmediately)) break;
      this.removeFiles([file]);
      deleted++;
      if (deleted >= DELETE_FILES_BATCH_MAX) break;
      if (deleteFilesInterval > 0 && i + 1 < candidates.length) {
        await new Promise<void>((resolve) => clock.setTimeout(resolve, deleteFilesInterval));
      }
    }
    return deleted;
  }

  /**
   * Upstream `deleteExpiredFileByOffset` (consume queues): deletes leading files whose last `unitSize`
   * entry starts with a commit-log offset below `offset`; never the last file.
   */
  deleteExpiredFileByOffset(offset: number, unitSize: number): number {
    const removed: MappedFile[] = [];
    const files = this.mappedFiles.slice(0, -1);
    for (const file of files) {
      const last = file.selectMappedBuffer(this.mappedFileSize - unitSize, 8);
      if (last === undefined) break;
      const maxOffsetInLogicQueue = Number(last.readBigInt64BE(0));
      if (maxOffsetInLogicQueue >= offset) break;
      removed.push(file);
    }
    this.removeFiles(removed);
    return removed.length;
  }

  /**
   * Upstream `flush(leastPages)`: fdatasync the file holding `flushedWhere`; true when nothing moved.
   */
  async flush(leastPages: number): Promise<boolean> {
    const file = this.findMappedFileByOffset(this.flushedWhere, this.flushedWhere === 0);
    if (file === undefined) return true;
    const timestamp = file.getStoreTimestamp();
    const position = await file.flush(leastPages);
    const where = file.fileFromOffset + position;
    const unchanged = where === this.flushedWhere;
    if (where > this.flushedWhere) this.flushedWhere = where;
    if (leastPages === 0 || file.isFull()) this.storeTimestamp = timestamp;
    return unchanged;
  }

  /**
   * Flushes, oldest file first, everything written when the call starts (one fdatasync per dirty
   * file); bytes written meanwhile are left to the next call. Resolves with `flushedWhere`.
   */
  async flushAll(): Promise<number> {
    const target = this.getMaxWrotePosition();
    while (this.flushedWhere < target) {
      const before = this.flushedWhere;
      await this.flush(0);
      if (this.flushedWhere === before) break;
    }
    return this.flushedWhere;
  }

  /** Blocking flushAll for shutdown. */
  flushAllSync(): number {
    for (;;) {
      const file = this.findMappedFileByOffset(this.flushedWhere, this.flushedWhere === 0);
      if (file === undefined) break;
      const timestamp = file.getStoreTimestamp();
      const where = file.fileFromOffset + file.flushSync(0);
      this.storeTimestamp = timestamp;
      if (where <= this.flushedWhere) break;
      this.flushedWhere = where;
    }
    return this.flushedWhere;
  }

  /**
   * Upstream `resetOffset`: moves the write position back to `offset` (at most two files back),
   * dropping later files from the queue. Bytes are not touched; truncateDirtyFiles also zeroes them.
   */
  resetOffset(offset: number): boolean {
    const last = this.getLastMappedFile();
    if (
      last !== undefined &&
      last.fileFromOffset + last.getWrotePosition() - offset > this.mappedFileSize * 2
    ) {
      return false;
    }
    const removed: MappedFile[] = [];
    for (let i = this.mappedFiles.length - 1; i >= 0; i--) {
      const f = this.mappedFiles[i]!;
      if (offset >= f.fileFromOffset) {
        const where = offset - f.fileFromOffset;
        f.setWrotePosition(where);
        f.setFlushedPosition(where);
        break;
      }
      removed.push(f);
    }
    this.removeFiles(removed);
    return true;
  }

  /** Closes every file. */
  shutdown(): void {
    for (const f of this.mappedFiles) f.shutdown();
  }

  /** Deletes every file and the directory itself. */
  destroy(): void {
    for (const f of this.mappedFiles) f.destroy();
    this.mappedFiles = [];
    this.flushedWhere = 0;
    try {
      fs.rmdirSync(this.storePath);
    } catch {
      // Not empty (foreign files) or already gone: leave it.
    }
  }
}
