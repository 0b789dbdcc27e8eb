/**
 * One fixed-size segment file, read and written with positional calls: what upstream maps into memory
 * (Node has no mmap). The commit log's MappedFile and the consume queue's and index's SegmentFile are
 * this file with their own bookkeeping and their own error types.
 *
 * A new file is created at full size (sparse), and it and its directory entry are fsynced before
 * anything is written, so a reader of the directory — ours or the official broker — sees upstream's
 * layout. After a failed write or fsync the file refuses every further write: the page cache may no
 * longer match the disk, and writing on after a hole would turn a lost tail into damage in the middle.
 * A write refused for space (ENOSPC, EDQUOT, EFBIG) is the exception for an owner that writes the
 * range again (the commit log): it lost nothing, so the file stays writable.
 * Closing waits for running asynchronous calls, so a descriptor is never closed (and reused) under them.
 */

import type * as fs from 'node:fs';
import { dirname } from 'node:path';
import type { Logger } from '../common/logger.js';
import {
  describeError,
  type FileIO,
  fsyncDirectory,
  isOutOfSpace,
  mkdirDurable,
  nodeFileIO,
} from './file-io.js';

/** How a kind of segment file reports trouble: the commit log and the logic queues have their own errors. */
export interface FileFaults<E extends Error> {
  /** A system call on the file failed, or an access is refused. */
  io(file: string, message: string, cause?: unknown): E;
  /** The file on disk is not the size the store is configured for. */
  size(file: string, actual: number, expected: number): Error;
}

/**
 * How the constructor gets its descriptor: `create` makes a new file (and its directory) and fails if it
 * exists; `open` takes an existing file of exactly the file size; `open-empty` also sizes an empty one
 * (a kill between creating and sizing it), `open-short` any shorter one (a cut-back interrupted between
 * its two truncates).
 */
export type OpenMode = 'create' | 'open' | 'open-empty' | 'open-short';

export interface PositionalFileOptions {
  io?: FileIO | undefined;
  logger?: Logger | undefined;
}

export abstract class PositionalFile<E extends Error> {
  /** Full path. */
  readonly fileName: string;
  readonly fileSize: number;
  private readonly io: FileIO;
  private readonly faults: FileFaults<E>;
  private fd: number;
  private failure: E | undefined;
  /** Asynchronous writes and syncs running on the descriptor. */
  private inFlight = 0;
  private closeWanted = false;
  private fdClosed = false;

  protected constructor(
    fileName: string,
    fileSize: number,
    mode: OpenMode,
    faults: FileFaults<E>,
    options: PositionalFileOptions = {},
  ) {
    this.fileName = fileName;
    this.fileSize = fileSize;
    this.io = options.io ?? nodeFileIO;
    this.faults = faults;
    this.fd = mode === 'create' ? this.createFile(options.logger) : this.openFile(mode, options.logger);
  }

  private createFile(logger: Logger | undefined): number {
    const path = this.fileName;
    const dir = dirname(path);
    try {
      mkdirDurable(dir, this.io);
    } catch (err) {
      throw this.ioFault(dir, 'cannot create directory', err);
    }
    const fd = this.openFd('wx+', 'cannot create segment file');
    try {
      this.io.ftruncateSync(fd, this.fileSize);
      this.io.fsyncSync(fd);
      fsyncDirectory(dir, this.io);
    } catch (err) {
      this.closeQuietly(fd);
      try {
        this.io.unlinkSync(path);
      } catch {
        // The original failure is the one to report.
      }
      throw this.ioFault(path, `cannot create segment file of ${this.fileSize} bytes`, err);
    }
    logger?.info('created segment file', { file: path, size: this.fileSize });
    return fd;
  }

  private openFile(mode: OpenMode, logger: Logger | undefined): number {
    const path = this.fileName;
    const fd = this.openFd('r+', 'cannot open segment file');
    let size: number;
    try {
      size = this.io.fstatSync(fd).size;
      if (size < this.fileSize && (mode === 'open-short' || (mode === 'open-empty' && size === 0))) {
        logger?.warn('extending a short segment file', { file: path, size });
        this.io.ftruncateSync(fd, this.fileSize);
        this.io.fsyncSync(fd);
        size = this.fileSize;
      }
    } catch (err) {
      this.closeQuietly(fd);
      throw this.ioFault(path, `cannot open segment file of ${this.fileSize} bytes`, err);
    }
    if (size !== this.fileSize) {
      this.closeQuietly(fd);
      throw this.faults.size(path, size, this.fileSize);
    }
    return fd;
  }

  private openFd(flags: string, what: string): number {
    try {
      return this.io.openSync(this.fileName, flags);
    } catch (err) {
      throw this.ioFault(this.fileName, what, err);
    }
  }

  /** `what` failed with `err`, in this kind of file's error type. */
  private ioFault(file: string, what: string, err: unknown): E {
    return this.faults.io(file, `${what}: ${describeError(err)}`, err);
  }

  /** Whether close() was called (a running asynchronous call may still hold the descriptor). */
  get isClosed(): boolean {
    return this.closeWanted;
  }

  /** Why writes are refused, if they are. */
  getFailure(): E | undefined {
    return this.failure;
  }

  /** Last modification time in ms (upstream's `File.lastModified`). */
  getLastModifiedTimestamp(): number {
    return this.stat().mtimeMs;
  }

  /** Bytes the file system has allocated (sparse files: roughly the bytes ever written). */
  allocatedBytes(): number {
    return this.stat().blocks * 512;
  }

  private stat(): fs.Stats {
    if (this.fdClosed) throw this.faults.io(this.fileName, 'stat refused: the file is closed');
    try {
      return this.io.fstatSync(this.fd);
    } catch (err) {
      throw this.ioFault(this.fileName, 'cannot stat file', err);
    }
  }

  private checkWritable(what: string): void {
    if (this.closeWanted) throw this.faults.io(this.fileName, `${what} refused: the file is closed`);
    if (this.failure !== undefined) {
      throw this.faults.io(
        this.fileName,
        `${what} refused after an earlier failure: ${this.failure.message}`,
        this.failure,
      );
    }
  }

  private checkReadable(): void {
    if (this.closeWanted) throw this.faults.io(this.fileName, 'read refused: the file is closed');
  }

  private checkRange(position: number, length: number, what: string): void {
    if (!Number.isInteger(position) || position < 0 || length < 0 || position + length > this.fileSize) {
      throw new RangeError(
        `${what} of ${length} bytes at ${position} lies outside ${this.fileName} (${this.fileSize} bytes)`,
      );
    }
  }

  /** The error for a failed write or sync, which from now on also refuses every later write. */
  private fail(what: string, position: number, length: number, err: unknown): E {
    const failure = this.ioFault(
      this.fileName,
      `${what} of ${length} bytes at offset ${position} failed`,
      err,
    );
    if (what !== 'write' || !isOutOfSpace(err) || !this.writesAgainAfterOutOfSpace())
      this.failure ??= failure;
    return failure;
  }

  /**
   * Whether this file's owner writes a failed range again, from its last good position, after a write
   * refused for space (isOutOfSpace): then such a write leaves no hole and the file stays writable.
   */
  protected writesAgainAfterOutOfSpace(): boolean {
    return false;
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
    try {
      this.checkWritable('write');
      this.checkRange(position, length, 'write');
    } catch (err) {
      return Promise.reject(err);
    }
    this.inFlight++;
    return new Promise<void>((resolve, reject) => {
      let done = 0;
      const failed = (err: unknown): void => {
        this.callEnded();
        reject(this.fail('write', position + done, length - done, err));
      };
      const step = (): void => {
        if (done >= length) {
          this.callEnded();
          resolve();
          return;
        }
        try {
          this.io.write(this.fd, data, offset + done, length - done, position + done, (err, n) => {
            if (err !== null) failed(err);
            else if (n <= 0) failed(new Error(`write returned ${n}`));
            else {
              done += n;
              step();
            }
          });
        } catch (err) {
          failed(err);
        }
      };
      step();
    });
  }

  /** Reads up to `length` bytes at `position`, fewer where the file ends early; returns the count. */
  private readAt(target: Buffer, targetOffset: number, length: number, position: number): number {
    let done = 0;
    try {
      while (done < length) {
        const n = this.io.readSync(this.fd, target, targetOffset + done, length - done, position + done);
        if (n <= 0) break;
        done += n;
      }
    } catch (err) {
      throw this.ioFault(
        this.fileName,
        `read of ${length - done} bytes at offset ${position + done} failed`,
        err,
      );
    }
    return done;
  }

  /** Reads exactly `[position, position+length)` into `target`; a file someone cut short is an error. */
  read(target: Buffer, targetOffset: number, length: number, position: number): void {
    this.checkReadable();
    this.checkRange(position, length, 'read');
    const done = this.readAt(target, targetOffset, length, position);
    if (done < length) {
      throw this.faults.io(
        this.fileName,
        `read of ${length} bytes at offset ${position} ended at ${position + done}: the file was cut short`,
      );
    }
  }

  /**
   * Reads `[position, position+length)` up to the file end, whatever was written there (recovery reads
   * what is on disk); bytes a shorter file lacks read as zeros, like a hole. Returns the byte count.
   */
  readInto(target: Buffer, targetOffset: number, length: number, position: number): number {
    this.checkReadable();
    const len = Math.min(length, this.fileSize - position);
    if (len <= 0) return 0;
    const done = this.readAt(target, targetOffset, len, position);
    if (done < len) target.fill(0, targetOffset + done, targetOffset + len);
    return len;
  }

  /**
   * fdatasync on the thread pool. `upTo` only names the bytes concerned in an error: everything written
   * before the call is durable when it resolves.
   */
  datasync(upTo = this.fileSize): Promise<void> {
    try {
      this.checkWritable('fdatasync');
    } catch (err) {
      return Promise.reject(err);
    }
    this.inFlight++;
    return new Promise<void>((resolve, reject) => {
      this.io.fdatasync(this.fd, (err) => {
        this.callEnded();
        if (err === null) resolve();
        else reject(this.fail('fdatasync', 0, upTo, err));
      });
    });
  }

  /** Blocking datasync, for shutdown and tests. */
  datasyncSync(upTo = this.fileSize): void {
    this.checkWritable('fdatasync');
    try {
      this.io.fdatasyncSync(this.fd);
    } catch (err) {
      throw this.fail('fdatasync', 0, upTo, err);
    }
  }

  /**
   * Cuts the file back to `position` and extends it again: the bytes after it become zeros (a hole),
   * the size stays `fileSize`, and the change is durable when this returns.
   */
  protected cutBack(position: number): void {
    this.checkRange(position, 0, 'truncate');
    this.checkWritable('truncate');
    try {
      this.io.ftruncateSync(this.fd, position);
      this.io.ftruncateSync(this.fd, this.fileSize);
      this.io.fsyncSync(this.fd);
    } catch (err) {
      throw this.fail('truncate', position, this.fileSize - position, err);
    }
  }

  /** Refuses later reads and writes and closes the descriptor, once no asynchronous call holds it. */
  close(): void {
    this.closeWanted = true;
    this.closeIfIdle();
  }

  /** Closes and deletes the file (the caller fsyncs the directory, once for a batch); gone already is fine. */
  destroy(): void {
    this.close();
    try {
      this.io.unlinkSync(this.fileName);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw this.ioFault(this.fileName, 'cannot delete segment file', err);
      }
    }
  }

  private callEnded(): void {
    this.inFlight--;
    this.closeIfIdle();
  }

  private closeIfIdle(): void {
    if (!this.closeWanted || this.fdClosed || this.inFlight > 0) return;
    this.fdClosed = true;
    this.closeQuietly(this.fd);
    this.fd = -1;
  }

  private closeQuietly(fd: number): void {
    try {
      this.io.closeSync(fd);
    } catch {
      // Nothing to do: the descriptor is gone either way.
    }
  }
}
