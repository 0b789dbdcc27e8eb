/**
 * One segment file of the commit log (upstream `MappedFile`), named by the 20-digit offset of its first
 * byte: a PositionalFile (creation, positional I/O, syncs, failure latching) that reports StoreIOError
 * and StoreCorruptionError and keeps upstream's positions. `wrotePosition` is where the bytes handed to
 * the OS end (what readers may see), `flushedPosition` where fdatasync has made them durable.
 */

import { basename, dirname, join } from 'node:path';
import {
  type FileFaults,
  type OpenMode,
  PositionalFile,
  type PositionalFileOptions,
} from './positional-file.js';
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

export type MappedFileOptions = PositionalFileOptions;

const commitLogFaults: FileFaults<StoreIOError> = {
  io: (file, message, cause) => new StoreIOError(file, message, cause === undefined ? undefined : { cause }),
  size: (file, actual, expected) =>
    new StoreCorruptionError(
      file,
      -1,
      fileName2Offset(basename(file)) ?? -1,
      `file is ${actual} bytes, the configured segment size is ${expected}`,
    ),
};

export class MappedFile extends PositionalFile<StoreIOError> {
  readonly fileFromOffset: number;
  /** True for the first file a queue created in an empty directory (upstream flag, kept for callers). */
  firstCreateInQueue = false;
  private wrotePosition = 0;
  private flushedPosition = 0;
  private storeTimestamp = 0;
  private flushing: Promise<number> | undefined;

  private constructor(
    fileName: string,
    fileFromOffset: number,
    fileSize: number,
    mode: OpenMode,
    options: MappedFileOptions,
  ) {
    super(fileName, fileSize, mode, commitLogFaults, options);
    this.fileFromOffset = fileFromOffset;
  }

  /** The commit log writes again from the write position after running out of space (CommitLog.outOfSpace). */
  protected override writesAgainAfterOutOfSpace(): boolean {
    return true;
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
    const path = join(dir, offset2FileName(fileFromOffset));
    return new MappedFile(path, fileFromOffset, fileSize, 'create', options);
  }

  /**
   * Opens an existing segment of `fileSize` bytes. With `allowShort` (the last file of a queue) a shorter
   * one is extended: that is a cut-back interrupted between its two truncates (see truncateTo).
   */
  static open(
    path: string,
    fileSize: number,
    options: MappedFileOptions & { allowShort?: boolean } = {},
  ): MappedFile {
    const offset = fileName2Offset(basename(path));
    if (offset === undefined) {
      throw new StoreCorruptionError(path, -1, -1, 'segment file name is not a 20-digit offset');
    }
    return new MappedFile(
      path,
      offset,
      fileSize,
      options.allowShort === true ? 'open-short' : 'open',
      options,
    );
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
    return !this.isClosed;
  }

  /** Upstream `appendMessage(byte[])`: writes at the write position if it fits; false when it does not. */
  appendMessage(data: Buffer, offset = 0, length = data.length - offset): boolean {
    if (this.wrotePosition + length > this.fileSize) return false;
    this.writeSync(this.wrotePosition, data, offset, length);
    this.wrotePosition += length;
    return true;
  }

  /**
   * Upstream `selectMappedBuffer(pos, size)`: a copy of readable bytes `[pos, pos+size)`, or undefined
   * when they are not all written yet. Without `size`, everything readable from `pos`.
   */
  selectMappedBuffer(pos: number, size?: number): Buffer | undefined {
    const readable = this.getReadPosition();
    const len = size ?? readable - pos;
    if (pos < 0 || len < 0 || pos + len > readable || this.isClosed) return undefined;
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
    const value = this.getReadPosition();
    const run = this.datasync(value).then(
      () => {
        this.flushing = undefined;
        if (value > this.flushedPosition) this.flushedPosition = value;
        return this.flushedPosition;
      },
      (err: unknown) => {
        this.flushing = undefined;
        throw err;
      },
    );
    this.flushing = run;
    return run;
  }

  /** Blocking flush for shutdown and tests. */
  flushSync(leastPages = 0): number {
    if (!this.isAbleToFlush(leastPages)) return this.flushedPosition;
    const value = this.getReadPosition();
    this.datasyncSync(value);
    if (value > this.flushedPosition) this.flushedPosition = value;
    return this.flushedPosition;
  }

  /**
   * Cuts the file back to `position`: the bytes after it become zeros (a hole) so stale records can never
   * reappear behind a later write position, the size stays `fileSize`, and the change is made durable.
   */
  truncateTo(position: number): void {
    this.cutBack(position);
    this.wrotePosition = position;
    if (this.flushedPosition > position) this.flushedPosition = position;
  }

  /** Closes the file descriptor; later reads and writes are refused. */
  shutdown(): void {
    this.close();
  }

  /** Closes and deletes the file (the caller fsyncs the directory once for a batch); false if it stays. */
  override destroy(): boolean {
    try {
      super.destroy();
      return true;
    } catch {
      return false;
    }
  }

  /** Directory holding the file. */
  get directory(): string {
    return dirname(this.fileName);
  }
}
