/**
 * One fixed-size segment file of a commit log or consume queue (upstream `MappedFile`), named by the
 * 20-digit offset of its first byte. Node has no mmap, so the file is opened once and written and read
 * with positional calls. The file is created at full size (sparse) so a reader of the directory — ours
 * or the official broker — sees the same layout as upstream's mapped files.
 *
 * Positions: `wrotePosition` is where the bytes handed to the OS end (what readers may see),
 * `flushedPosition` where fdatasync has made them durable. After a failed write or fsync the file refuses
 * every further write: the page cache may no longer match the disk, and appending after a hole would
 * turn a lost tail into mid-log damage.
 */

import { basename, dirname, join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { describeError, type FileIO, fsyncDirectory, nodeFileIO } from './file-io.js';
import { StoreCorruptionError, StoreIOError } from './store-error.js';

export const OS_PAGE_SIZE = 4096;

const FILE_NAME_DIGITS = 20;
const FILE_NAME_PATTERN = /^\d{20}$/;

/** `UtilAll.offset2FileName`: the offset as 20 zero-padded decimal digits. */
export function offset2FileName(offset: number): string {
  if (!Number.isSafeInteger(offset) || offset < 0) {
    throw new RangeError(`file offset ${offset} is not a non-negative safe integer`);
  }
  return String(offset).padStart(FILE_NAME_DIGITS, '0');
}

/** The start offset a segment file name stands for, or undefined when the name is not 20 digits. */
export function fileName2Offset(name: string): number | undefined {
  if (!FILE_NAME_PATTERN.test(name)) return undefined;
  const value = Number(name);
  return Number.isSafeInteger(value) ? value : undefined;
}

export interface MappedFileOptions {
  io?: FileIO;
  logger?: Logger;
}

export class MappedFile {
  /** Full path. */
  readonly fileName: string;
  readonly fileFromOffset: number;
  readonly fileSize: number;
  /** True for the first file a queue created in an empty directory (upstream flag, kept for callers). */
  firstCreateInQueue = false;
  private readonly io: FileIO;
  private fd: number;
  private wrotePosition = 0;
  private flushedPosition = 0;
  private storeTimestamp = 0;
  private failure: StoreIOError | undefined;
  private closed = false;
  private flushing: Promise<number> | undefined;

  private constructor(fileName: string, fileSize: number, fd: number, io: FileIO) {
    const offset = fileName2Offset(basename(fileName));
    if (offset === undefined) {
      throw new StoreCorruptionError(fileName, -1, -1, 'segment file name is not a 20-digit offset');
    }
    this.fileName = fileName;
    this.fileFromOffset = offset;
    this.fileSize = fileSize;
    this.fd = fd;
    this.io = io;
  }

  /**
   * Creates `dir/<offset>` at full size and makes the new directory entry durable before anything is
   * written to it. Fails if the file already exists: a leftover file must be examined, not overwritten.
   */
  static create(
    dir: string,
    fileFromOffset: number,
    fileSize: number,
    options: MappedFileOptions = {},
  ): MappedFile {
    const io = options.io ?? nodeFileIO;
    const path = join(dir, offset2FileName(fileFromOffset));
    let fd: number;
    try {
      fd = io.openSync(path, 'wx+');
    } catch (err) {
      throw new StoreIOError(path, `cannot create segment file: ${describeError(err)}`, { cause: err });
    }
    try {
      io.ftruncateSync(fd, fileSize);
      io.fsyncSync(fd);
      fsyncDirectory(dir, io);
    } catch (err) {
      try {
        io.closeSync(fd);
        io.unlinkSync(path);
      } catch {
        // The original failure is the one to report.
      }
      throw new StoreIOError(path, `cannot create segment file of ${fileSize} bytes: ${describeError(err)}`, {
        cause: err,
      });
    }
    options.logger?.info('created segment file', { file: path, size: fileSize });
    return new MappedFile(path, fileSize, fd, io);
  }

  /** Opens an existing segment; its size must already be `fileSize` (MappedFileQueue.load checks). */
  static open(path: string, fileSize: number, options: MappedFileOptions = {}): MappedFile {
    const io = options.io ?? nodeFileIO;
    let fd: number;
    try {
      fd = io.openSync(path, 'r+');
    } catch (err) {
      throw new StoreIOError(path, `cannot open segment file: ${describeError(err)}`, { cause: err });
    }
    return new MappedFile(path, fileSize, fd, io);
  }

  /** Base name (the 20-digit offset). */
  get name(): string {
    return basename(this.fileName);
  }

  getFileName(): string {
    return this.fileName;
  }

  getFileFromOffset(): number {
    return this.fileFromOffset;
  }

  getFileSize(): number {
    return this.fileSize;
  }

  getWrotePosition(): number {
    return this.wrotePosition;
  }

  setWrotePosition(position: number): void {
    this.wrotePosition = position;
  }

  /** Readers see everything written to the OS: there is no separate commit step without a write buffer. */
  getReadPosition(): number {
    return this.wrotePosition;
  }

  getFlushedPosition(): number {
    return this.flushedPosition;
  }

  setFlushedPosition(position: number): void {
    this.flushedPosition = position;
  }

  /** Store timestamp of the last message written to this file (checkpoint input). */
  getStoreTimestamp(): number {
    return this.storeTimestamp;
  }

  setStoreTimestamp(timestamp: number): void {
    this.storeTimestamp = timestamp;
  }

  isFull(): boolean {
    return this.wrotePosition === this.fileSize;
  }

  isAvailable(): boolean {
    return !this.closed;
  }

  /** Why writes are refused, if they are. */
  getFailure(): StoreIOError | undefined {
    return this.failure;
  }

  getLastModifiedTimestamp(): number {
    return this.io.fstatSync(this.fd).mtimeMs;
  }

  /** Bytes the file system has allocated (sparse files: roughly the bytes ever written). */
  allocatedBytes(): number {
    return this.io.fstatSync(this.fd).blocks * 512;
  }

  private checkWritable(what: string): void {
    if (this.closed) throw new StoreIOError(this.fileName, `${what} refused: the file is closed`);
    if (this.failure !== undefined) {
      throw new StoreIOError(
        this.fileName,
        `${what} refused after an earlier failure: ${this.failure.message}`,
        {
          cause: this.failure,
        },
      );
    }
  }

  private checkRange(position: number, length: number, what: string): void {
    if (!Number.isInteger(position) || position < 0 || length < 0 || position + length > this.fileSize) {
      throw new RangeError(
        `${what} of ${length} bytes at ${position} lies outside ${this.fileName} (${this.fileSize} bytes)`,
      );
    }
  }

  private fail(what: string, position: number, length: number, err: unknown): StoreIOError {
    const failure = new StoreIOError(
      this.fileName,
      `${what} of ${length} bytes at offset ${position} failed: ${describeError(err)}`,
      { cause: err },
    );
    this.failure ??= failure;
    return failure;
  }

  /** Positional write of `data[offset, offset+length)`; loops over short writes. */
  writeSync(position: number, data: Buffer, offset = 0, length = data.length - offset): void {
    this.checkWritable('write');
    this.checkRange(position, length, 'write');
    let done = 0;
    try {
      while (done < length) {
        const n = this.io.writeSync(this.fd, data, offset + done, length - done, position + done);
        if (n <= 0) throw new Error(`write returned ${n}`);
        done += n;
      }
    } catch (err) {
      throw this.fail('write', position + done, length - done, err);
    }
  }

  /** Asynchronous positional write (libuv thread pool); same contract as writeSync. */
  write(position: number, data: Buffer, offset = 0, length = data.length - offset): Promise<void> {
    return new Promise((resolve, reject) => {
      try {
        this.checkWritable('write');
        this.checkRange(position, length, 'write');
      } catch (err) {
        reject(err);
        return;
      }
      let done = 0;
      const step = (): void => {
        this.io.write(this.fd, data, offset + done, length - done, position + done, (err, n) => {
          if (err === null && n <= 0) err = new Error(`write returned ${n}`) as NodeJS.ErrnoException;
          if (err !== null) {
            reject(this.fail('write', position + done, length - done, err));
            return;
          }
          done += n;
          if (done < length) step();
          else resolve();
        });
      };
      step();
    });
  }

  /** Upstream `appendMessage(byte[])`: writes at the write position if it fits; false when it does not. */
  appendMessage(data: Buffer, offset = 0, length = data.length - offset): boolean {
    if (this.wrotePosition + length > this.fileSize) return false;
    this.writeSync(this.wrotePosition, data, offset, length);
    this.wrotePosition += length;
    return true;
  }

  /**
   * Reads `[position, position+length)` of the file into `target`, regardless of the write position
   * (recovery reads what is on disk). Returns the byte count read.
   */
  readInto(target: Buffer, targetOffset: number, length: number, position: number): number {
    if (this.closed) throw new StoreIOError(this.fileName, 'read refused: the file is closed');
    const len = Math.min(length, this.fileSize - position);
    if (len <= 0) return 0;
    let done = 0;
    try {
      while (done < len) {
        const n = this.io.readSync(this.fd, target, targetOffset + done, len - done, position + done);
        if (n <= 0) break;
        done += n;
      }
    } catch (err) {
      throw new StoreIOError(
        this.fileName,
        `read of ${len - done} bytes at offset ${position + done} failed: ${describeError(err)}`,
        { cause: err },
      );
    }
    // Past the end of a shorter-than-expected file reads nothing; treat it as zeros like a hole.
    if (done < len) target.fill(0, targetOffset + done, targetOffset + len);
    return len;
  }

  /**
   * Upstream `selectMappedBuffer(pos, size)`: a copy of readable bytes `[pos, pos+size)`, or undefined
   * when they are not all written yet. Without `size`, everything readable from `pos`.
   */
  selectMappedBuffer(pos: number, size?: number): Buffer | undefined {
    const readable = this.getReadPosition();
    const len = size ?? readable - pos;
    if (pos < 0 || len < 0 || pos + len > readable || this.closed) return undefined;
    const out = Buffer.allocUnsafe(len);
    this.readInto(out, 0, len, pos);
    return out;
  }

  /** Upstream `isAbleToFlush`: full files always; otherwise at least `leastPages` dirty pages (0 = any). */
  isAbleToFlush(leastPages: number): boolean {
    const flush = this.flushedPosition;
    const write = this.getReadPosition();
    if (this.isFull()) return write > flush;
    if (leastPages > 0)
      return Math.floor(write / OS_PAGE_SIZE) - Math.floor(flush / OS_PAGE_SIZE) >= leastPages;
    return write > flush;
  }

  /**
   * fdatasync when enough is dirty; resolves with the flushed position. Everything written before the
   * call started is durable when it resolves. Calls while one is running wait for it, then run again.
   */
  flush(leastPages = 0): Promise<number> {
    const running = this.flushing;
    if (running !== undefined) return running.then(() => this.flush(leastPages));
    if (!this.isAbleToFlush(leastPages)) return Promise.resolve(this.flushedPosition);
    try {
      this.checkWritable('fdatasync');
    } catch (err) {
      return Promise.reject(err);
    }
    const value = this.getReadPosition();
    let settled = false;
    const promise = new Promise<number>((resolve, reject) => {
      this.io.fdatasync(this.fd, (err) => {
        settled = true;
        this.flushing = undefined;
        if (err !== null) {
          reject(this.fail('fdatasync', 0, value, err));
          return;
        }
        if (value > this.flushedPosition) this.flushedPosition = value;
        resolve(this.flushedPosition);
      });
    });
    // An injected fdatasync may call back synchronously; only a pending call blocks the next one.
    if (!settled) this.flushing = promise;
    return promise;
  }

  /** Blocking flush for shutdown and tests. */
  flushSync(leastPages = 0): number {
    if (!this.isAbleToFlush(leastPages)) return this.flushedPosition;
    this.checkWritable('fdatasync');
    const value = this.getReadPosition();
    try {
      this.io.fdatasyncSync(this.fd);
    } catch (err) {
      throw this.fail('fdatasync', 0, value, err);
    }
    if (value > this.flushedPosition) this.flushedPosition = value;
    return this.flushedPosition;
  }

  /**
   * Cuts the file back to `position`: the bytes after it become zeros (a hole) so stale records can never
   * reappear behind a later write position, the size stays `fileSize`, and the change is made durable.
   */
  truncateTo(position: number): void {
    this.checkRange(position, 0, 'truncate');
    this.checkWritable('truncate');
    try {
      this.io.ftruncateSync(this.fd, position);
      this.io.ftruncateSync(this.fd, this.fileSize);
      this.io.fsyncSync(this.fd);
    } catch (err) {
      throw this.fail('truncate', position, this.fileSize - position, err);
    }
    this.wrotePosition = position;
    if (this.flushedPosition > position) this.flushedPosition = position;
  }

  /** Closes the file descriptor; later reads and writes are refused. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    try {
      this.io.closeSync(this.fd);
    } catch {
      // Nothing to do: the descriptor is gone either way.
    }
    this.fd = -1;
  }

  /** Closes and deletes the file (the caller fsyncs the directory once for a batch). */
  destroy(): boolean {
    this.shutdown();
    try {
      this.io.unlinkSync(this.fileName);
      return true;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
      return false;
    }
  }

  /** Directory holding the file. */
  get directory(): string {
    return dirname(this.fileName);
  }
}
