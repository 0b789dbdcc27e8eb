/**
 * Small positional-file toolkit for the consume queues and index files: fixed-size files created
 * full size (sparse), positional reads and writes, fdatasync without blocking the event loop, and
 * directory fsyncs after creation. Kept apart from the commit log's mapped-file code so the logic
 * queues do not depend on it.
 */

import {
  closeSync,
  existsSync,
  fdatasync,
  fstatSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readSync,
  rmdirSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { dirname, join } from 'node:path';
import { RocketMQError } from '../common/errors.js';
import { describeError, fsyncDirectory } from './file-io.js';

const SYSTEM_ERROR = 1;

/** A file of the consume queue or index that cannot be created, read, written or synced, or is malformed. */
export class SegmentFileError extends RocketMQError {
  readonly file: string;
  /** Byte offset inside the file the problem concerns, when there is one. */
  readonly offset: number | undefined;

  constructor(file: string, message: string, offset?: number, options?: ErrorOptions) {
    super(`${file}${offset === undefined ? '' : ` at offset ${offset}`}: ${message}`, SYSTEM_ERROR, options);
    this.file = file;
    this.offset = offset;
  }
}

/** mkdir -p that fsyncs the parent of every directory it creates. */
export function ensureDir(dir: string): void {
  if (existsSync(dir)) return;
  const parent = dirname(dir);
  if (parent !== dir) ensureDir(parent);
  try {
    mkdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw new SegmentFileError(dir, `cannot create directory: ${describeError(err)}`, undefined, {
        cause: err,
      });
    }
    return;
  }
  fsyncDirectory(parent);
}

/** Removes a directory if it is empty; any failure (not empty, gone) is ignored. */
export function removeDirIfEmpty(dir: string): void {
  try {
    rmdirSync(dir);
  } catch {
    // not empty or already gone: either is fine for a best-effort cleanup
  }
}

/**
 * One fixed-size file opened for positional I/O. Closing is deferred while an fdatasync is in
 * flight so a descriptor is never closed (and possibly reused) under a running sync.
 */
export class SegmentFile {
  readonly path: string;
  readonly fileSize: number;
  private fd: number;
  private inFlight = 0;
  private closeWanted = false;
  private closed = false;

  private constructor(path: string, fileSize: number, fd: number) {
    this.path = path;
    this.fileSize = fileSize;
    this.fd = fd;
  }

  /** Creates `dir/name` of exactly `fileSize` bytes (sparse) and fsyncs the directory. */
  static create(dir: string, name: string, fileSize: number): SegmentFile {
    ensureDir(dir);
    const path = join(dir, name);
    let fd: number;
    try {
      fd = openSync(path, 'wx+');
    } catch (err) {
      throw new SegmentFileError(path, `cannot create file: ${describeError(err)}`, undefined, {
        cause: err,
      });
    }
    try {
      ftruncateSync(fd, fileSize);
      fsyncDirectory(dir);
    } catch (err) {
      closeSync(fd);
      throw new SegmentFileError(
        path,
        `cannot size new file to ${fileSize} bytes: ${describeError(err)}`,
        undefined,
        {
          cause: err,
        },
      );
    }
    return new SegmentFile(path, fileSize, fd);
  }

  /** Opens an existing file, which must be exactly `fileSize` bytes long (or empty: see below). */
  static open(path: string, fileSize: number): SegmentFile {
    let fd: number;
    try {
      fd = openSync(path, 'r+');
    } catch (err) {
      throw new SegmentFileError(path, `cannot open file: ${describeError(err)}`, undefined, { cause: err });
    }
    let actual: number;
    try {
      actual = fstatSync(fd).size;
    } catch (err) {
      closeSync(fd);
      throw new SegmentFileError(path, `cannot stat file: ${describeError(err)}`, undefined, { cause: err });
    }
    if (actual === 0 && fileSize > 0) {
      // A kill between creating the file and sizing it leaves it empty: it never held data, so it is
      // sized now, as create() would have done.
      try {
        ftruncateSync(fd, fileSize);
        actual = fileSize;
      } catch (err) {
        closeSync(fd);
        throw new SegmentFileError(
          path,
          `cannot size empty file to ${fileSize} bytes: ${describeError(err)}`,
          undefined,
          {
            cause: err,
          },
        );
      }
    }
    if (actual !== fileSize) {
      closeSync(fd);
      throw new SegmentFileError(
        path,
        `file is ${actual} bytes but the store configuration expects ${fileSize}; check the store settings`,
      );
    }
    return new SegmentFile(path, fileSize, fd);
  }

  private checkRange(length: number, position: number): void {
    if (this.closed || this.closeWanted) throw new SegmentFileError(this.path, 'file is closed', position);
    if (position < 0 || length < 0 || position + length > this.fileSize) {
      throw new SegmentFileError(this.path, `access of ${length} bytes is outside the file`, position);
    }
  }

  /** Writes `length` bytes of `src` from `srcOffset` at `position`, all of them or a typed error. */
  write(src: Buffer, srcOffset: number, length: number, position: number): void {
    this.checkRange(length, position);
    let done = 0;
    try {
      while (done < length) {
        done += writeSync(this.fd, src, srcOffset + done, length - done, position + done);
      }
    } catch (err) {
      throw new SegmentFileError(this.path, `write failed: ${describeError(err)}`, position + done, {
        cause: err,
      });
    }
  }

  /** Reads exactly `length` bytes at `position` into `dst`; a short read (file shrunk) is an error. */
  read(dst: Buffer, dstOffset: number, length: number, position: number): void {
    this.checkRange(length, position);
    let done = 0;
    try {
      while (done < length) {
        const n = readSync(this.fd, dst, dstOffset + done, length - done, position + done);
        if (n === 0) break;
        done += n;
      }
    } catch (err) {
      throw new SegmentFileError(this.path, `read failed: ${describeError(err)}`, position + done, {
        cause: err,
      });
    }
    if (done < length) {
      throw new SegmentFileError(this.path, 'file ends early (truncated by someone else?)', position + done);
    }
  }

  /** Last modification time in ms (upstream's `File.lastModified`). */
  mtimeMs(): number {
    if (this.closed) throw new SegmentFileError(this.path, 'file is closed');
    try {
      return fstatSync(this.fd).mtimeMs;
    } catch (err) {
      throw new SegmentFileError(this.path, `cannot stat file: ${describeError(err)}`, undefined, {
        cause: err,
      });
    }
  }

  /** fdatasync on the thread pool. */
  datasync(): Promise<void> {
    if (this.closed || this.closeWanted) return Promise.resolve();
    this.inFlight++;
    return new Promise<void>((resolve, reject) => {
      fdatasync(this.fd, (err) => {
        this.inFlight--;
        this.closeIfIdle();
        if (err)
          reject(
            new SegmentFileError(this.path, `fdatasync failed: ${err.message}`, undefined, { cause: err }),
          );
        else resolve();
      });
    });
  }

  /** Closes the descriptor now or, if a sync is running, when it ends. */
  close(): void {
    this.closeWanted = true;
    this.closeIfIdle();
  }

  /** Removes the file (the name goes now, the descriptor when idle). */
  destroy(): void {
    this.close();
    try {
      unlinkSync(this.path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new SegmentFileError(this.path, `cannot delete file: ${describeError(err)}`, undefined, {
          cause: err,
        });
      }
    }
  }

  get isClosed(): boolean {
    return this.closed || this.closeWanted;
  }

  private closeIfIdle(): void {
    if (!this.closeWanted || this.closed || this.inFlight > 0) return;
    this.closed = true;
    const fd = this.fd;
    this.fd = -1;
    closeSync(fd);
  }
}
